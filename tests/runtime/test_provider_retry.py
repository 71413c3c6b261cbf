"""Provider retries (`max_retries=`, `retry=`; wiremap.runtime.retry) over real HTTP (loopback).

The wait between attempts goes through `Provider._sleep`, replaced here by a recorder: the tests
assert the delay each wait was asked for, never wall-clock time.
"""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path
from typing import Any

import pytest

import wiremap
from loopback import Reply, Seen, anthropic_body, openai_body
from wiremap import RetryConfig, RetryPolicy
from wiremap.runtime.retry import call_with_retries, retry_config

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from recorded import ALL  # noqa: E402

from wiremap.runtime.stream import parse_stream  # noqa: E402

KEY = "sk-test-0123456789"
HI = [{"role": "user", "content": "Hi"}]
RECORDED = {r.id: r for r in ALL}


def _openai_error(message: str, kind: str = "server_error") -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _overloaded() -> Reply:
    # Anthropic's 529 overloaded_error (docs.anthropic.com/en/api/errors)
    return Reply(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})


def _replies(*replies: Reply) -> Any:
    """A handler answering with `replies` in turn (the last one again if more come)."""
    pending = list(replies)

    def handle(seen: Seen) -> Reply:
        return pending.pop(0) if len(pending) > 1 else pending[0]

    return handle


def _run(provider: wiremap.Provider, call: Any) -> tuple[Any, list[float]]:
    """`call(provider)` awaited with the waits recorded instead of slept."""
    waits: list[float] = []

    async def record(delay: float) -> None:
        waits.append(delay)

    provider._sleep = record

    async def main() -> Any:
        async with provider:
            return await call(provider)

    return asyncio.run(main()), waits


def test_529_overloaded_then_success(serve: Any) -> None:
    server = serve(_replies(_overloaded(), Reply(200, anthropic_body("Done"))))
    p = wiremap.Provider("anthropic_messages", model="claude-test", api_key=KEY, base_url=server.url, max_retries=2)
    response, waits = _run(p, lambda p: p.complete(HI, config={"max_tokens": 16}))
    assert response.message.content == "Done"
    assert len(server.requests) == 2
    assert server.requests[0].body == server.requests[1].body  # the same request again
    # the first retry waits initial_delay (0.5 s) varied by at most the jitter (25%)
    assert len(waits) == 1 and 0.375 <= waits[0] <= 0.625


@pytest.mark.parametrize(
    ("headers", "wanted"),
    [({"Retry-After": "7"}, 7.0), ({"retry-after-ms": "1500"}, 1.5)],
    ids=["retry-after", "retry-after-ms"],
)
def test_503_waits_what_the_server_asks(serve: Any, headers: dict[str, str], wanted: float) -> None:
    server = serve(
        _replies(Reply(503, _openai_error("down"), headers=headers), Reply(200, openai_body("Back")))
    )
    p = wiremap.Provider("openai_chat", model="gpt-test", api_key=KEY, base_url=server.url, max_retries=1)
    response, waits = _run(p, lambda p: p.complete(HI))
    assert response.message.content == "Back"
    assert waits == [wanted]
    assert len(server.requests) == 2


def test_a_retry_after_beyond_max_retry_after_is_not_waited_for(serve: Any) -> None:
    server = serve(
        _replies(
            Reply(429, _openai_error("slow down", "rate_limit_error"), headers={"Retry-After": "120"}),
            Reply(200, openai_body()),
        )
    )
    p = wiremap.Provider("openai_chat", model="gpt-test", api_key=KEY, base_url=server.url)

    async def call(p: wiremap.Provider) -> Any:
        with pytest.raises(wiremap.RateLimitError) as info:
            await p.complete(HI, retry=RetryPolicy(max_retries=3, max_retry_after=60))
        return info.value

    error, waits = _run(p, call)
    assert error.retry_after == 120
    assert waits == [] and len(server.requests) == 1


def test_a_400_is_not_retried(serve: Any) -> None:
    server = serve(_replies(Reply(400, _openai_error("bad field", "invalid_request_error")), Reply(200, openai_body())))
    p = wiremap.Provider("openai_chat", model="gpt-test", api_key=KEY, base_url=server.url, max_retries=3)

    async def call(p: wiremap.Provider) -> Any:
        with pytest.raises(wiremap.InvalidRequestError, match="bad field"):
            await p.complete(HI)

    _, waits = _run(p, call)
    assert waits == [] and len(server.requests) == 1


def test_exhaustion_raises_the_last_error(serve: Any) -> None:
    server = serve(
        _replies(
            Reply(503, _openai_error("down 1")),
            Reply(503, _openai_error("down 2")),
            Reply(503, _openai_error("down 3")),
            Reply(200, openai_body()),
        )
    )
    p = wiremap.Provider("openai_chat", model="gpt-test", api_key=KEY, base_url=server.url, max_retries=2)

    async def call(p: wiremap.Provider) -> Any:
        with pytest.raises(wiremap.UnavailableError) as info:
            await p.complete(HI)
        return info.value

    error, waits = _run(p, call)
    assert "down 3" in str(error) and error.status == 503
    assert len(server.requests) == 3
    # exponential: 0.5 s then 1 s, each within +-25%
    assert len(waits) == 2 and 0.375 <= waits[0] <= 0.625 and 0.75 <= waits[1] <= 1.25


def test_default_is_one_attempt_and_a_call_overrides_the_provider(serve: Any) -> None:
    server = serve(lambda seen: Reply(503, _openai_error("down")))

    async def call(p: wiremap.Provider) -> None:
        with pytest.raises(wiremap.UnavailableError):
            await p.complete(HI)  # the Provider's default: no retries
        assert len(server.requests) == 1
        with pytest.raises(wiremap.UnavailableError):
            await p.complete(HI, retry=RetryPolicy(max_retries=2))
        assert len(server.requests) == 4

    _, waits = _run(wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url), call)
    assert len(waits) == 2

    async def off(p: wiremap.Provider) -> None:
        with pytest.raises(wiremap.UnavailableError):
            await p.complete(HI, retry=RetryPolicy(max_retries=0))

    before = len(server.requests)
    _run(wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url, max_retries=5), off)
    assert len(server.requests) == before + 1


def test_complete_sync_retries(serve: Any) -> None:
    server = serve(_replies(Reply(503, _openai_error("down")), Reply(200, openai_body("Sync"))))
    waits: list[float] = []

    async def record(delay: float) -> None:
        waits.append(delay)

    with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url, max_retries=1) as p:
        p._sleep = record
        assert p.complete_sync(HI).message.content == "Sync"
    assert len(server.requests) == 2 and len(waits) == 1


def test_a_wait_past_the_deadline_is_not_started(serve: Any) -> None:
    server = serve(_replies(Reply(503, _openai_error("down"), headers={"Retry-After": "30"}), Reply(200, openai_body())))
    p = wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url, deadline=5, max_retries=3)

    async def call(p: wiremap.Provider) -> None:
        with pytest.raises(wiremap.UnavailableError, match="down"):
            await p.complete(HI)

    _, waits = _run(p, call)
    assert waits == [] and len(server.requests) == 1


def test_transport_failures_are_retried(serve: Any) -> None:
    server = serve(_replies(Reply.close(), Reply(200, openai_body("After a drop"))))
    p = wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url, max_retries=1)
    response, waits = _run(p, lambda p: p.complete(HI))
    assert response.message.content == "After a drop" and len(waits) == 1


def test_stream_retries_before_the_first_event(serve: Any) -> None:
    rec = RECORDED["openai_chat:text"]
    server = serve(
        _replies(Reply(503, _openai_error("down")), Reply(200, rec.body, content_type="text/event-stream"))
    )
    p = wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url, max_retries=2)

    async def call(p: wiremap.Provider) -> list[dict[str, Any]]:
        return [ev async for ev in p.stream(HI)]

    events, waits = _run(p, call)
    assert events == parse_stream(rec.body, rec.format)
    assert len(server.requests) == 2 and len(waits) == 1


def test_stream_does_not_retry_after_an_event(serve: Any) -> None:
    rec = RECORDED["openai_chat:mid_stream_error"]
    good = RECORDED["openai_chat:text"]
    server = serve(
        _replies(
            Reply(200, rec.body, content_type="text/event-stream"),
            Reply(200, good.body, content_type="text/event-stream"),
        )
    )
    p = wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url, max_retries=2)

    async def call(p: wiremap.Provider) -> list[dict[str, Any]]:
        events: list[dict[str, Any]] = []
        with pytest.raises(wiremap.UnavailableError):
            async for ev in p.stream(HI):
                events.append(ev)
        return events

    events, waits = _run(p, call)
    assert events, "events were delivered before the error"
    assert waits == [] and len(server.requests) == 1


def test_complete_stream_true_retries_a_cut_stream(serve: Any) -> None:
    rec = RECORDED["openai_chat:mid_stream_error"]
    good = RECORDED["openai_chat:text"]
    server = serve(
        _replies(
            Reply(200, rec.body, content_type="text/event-stream"),
            Reply(200, good.body, content_type="text/event-stream"),
        )
    )
    p = wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url, max_retries=1)
    response, waits = _run(p, lambda p: p.complete(HI, stream=True))
    # complete() delivers nothing before its Response: the whole streamed attempt is retried
    assert response.finish_reason == "stop" and len(server.requests) == 2 and len(waits) == 1


def test_openarmature_record_with_observer_and_classifier(serve: Any) -> None:
    server = serve(
        _replies(Reply(400, _openai_error("flaky", "invalid_request_error")), Reply(200, openai_body("Fine")))
    )
    seen: list[tuple[str, int]] = []
    record = RetryConfig(
        max_attempts=2,
        # a caller's own widening: this upstream's 400 "flaky" is worth one more try
        classifier=lambda error, state: "flaky" in str(error) and state.attempt_index == 0,
        backoff=lambda attempt_index: 0.25 * (attempt_index + 1),
        on_retry=lambda error, attempt_index: seen.append((error.category, attempt_index)),
    )
    p = wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url)
    response, waits = _run(p, lambda p: p.complete(HI, retry=record))
    assert response.message.content == "Fine"
    assert seen == [("provider_invalid_request", 0)] and waits == [0.25]


def test_per_attempt_override_changes_only_the_retries(serve: Any) -> None:
    server = serve(_replies(Reply(503, _openai_error("down")), Reply(200, openai_body())))
    config = {"temperature": 0.0, "max_tokens": 20}
    p = wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url)
    retry = {"max_attempts": 2, "backoff": {"type": "deterministic", "seconds": 0}, "per_attempt_override": [{"temperature": 0.7, "max_tokens": None}]}
    _run(p, lambda p: p.complete(HI, config=config, retry=retry))
    first, second = (r.json() for r in server.requests)
    assert (first["temperature"], second["temperature"]) == (0.0, 0.7)
    assert first["max_completion_tokens"] == second["max_completion_tokens"] == 20  # None inherits
    assert config == {"temperature": 0.0, "max_tokens": 20}


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"max_retries": -1}, ValueError, "max_retries must be an integer >= 0"),
        ({"max_retries": True}, ValueError, "max_retries must be an integer >= 0"),
        ({"max_retries": 1, "retry": RetryPolicy()}, ValueError, "not both"),
        ({"retry": {"max_attempts": 0}}, ValueError, "retry.max_attempts must be an integer >= 1"),
        ({"retry": {"attempts": 3}}, ValueError, "unknown field(s) attempts"),
        ({"retry": {"backoff": {"type": "linear"}}}, ValueError, "retry.backoff.type"),
        ({"retry": {"backoff": {"type": "deterministic", "seconds": -1}}}, ValueError, "retry.backoff"),
        ({"retry": {"per_attempt_override": {"temperature": 1}}}, TypeError, "a list of partial config records"),
        ({"retry": 3}, TypeError, "retry must be a RetryPolicy, a RetryConfig or a mapping"),
    ],
)
def test_bad_retry_settings_are_named(kwargs: dict[str, Any], error: type[Exception], words: str) -> None:
    with pytest.raises(error) as info:
        wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url="http://127.0.0.1:9", **kwargs)
    assert words in str(info.value)


def test_stream_refuses_reask_and_overrides_before_sending(serve: Any) -> None:
    server = serve(lambda seen: Reply(500, {}))
    with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url) as p:
        with pytest.raises(wiremap.InvalidRequestError, match="apply to complete"):
            p.stream(HI, retry={"max_attempts": 2, "reask": lambda output, message: "fix it"})
    assert server.requests == []


def test_policy_delays() -> None:
    policy = RetryPolicy(initial_delay=1.0, max_delay=3.0, multiplier=2.0, jitter=0.0)
    assert [policy.delay(n, None) for n in (1, 2, 3, 4)] == [1.0, 2.0, 3.0, 3.0]
    error = wiremap.RateLimitError("slow down", retry_after=4.5)
    assert policy.delay(1, error) == 4.5
    assert policy.retryable(error) and not policy.retryable(wiremap.InvalidRequestError("no"))
    assert not policy.retryable(wiremap.RateLimitError("later", retry_after=61.0))
    jittered = RetryPolicy(initial_delay=1.0, jitter=0.5)
    rng = random.Random(7)
    assert all(0.5 <= jittered.delay(1, None, rng=rng) <= 1.5 for _ in range(50))


def test_cancellation_is_never_retried() -> None:
    calls: list[int] = []

    async def attempt(index: int) -> None:
        calls.append(index)
        raise asyncio.CancelledError

    async def main() -> None:
        with pytest.raises(asyncio.CancelledError):
            await call_with_retries(retry_config({"max_attempts": 3, "classifier": lambda e, s: True}), attempt)

    asyncio.run(main())
    assert calls == [0]


def test_each_attempt_has_its_own_span(serve: Any) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    server = serve(_replies(_overloaded(), Reply(200, anthropic_body("Done"))))
    p = wiremap.Provider(
        "anthropic_messages", model="claude-test", api_key=KEY, base_url=server.url,
        max_retries=1, tracer_provider=tracer_provider,
    )
    _run(p, lambda p: p.complete(HI, config={"max_tokens": 16}))
    first, second = (dict(span.attributes or {}) for span in exporter.get_finished_spans())
    assert first["openarmature.llm.attempt_index"] == 0 and "openarmature.llm.retry_reason" not in first
    assert first["error.type"] == "provider_unavailable"
    assert second["openarmature.llm.attempt_index"] == 1
    assert second["openarmature.llm.retry_reason"] == "transient" and "error.type" not in second
    assert second["gen_ai.response.finish_reasons"] == ("stop",)

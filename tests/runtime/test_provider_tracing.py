"""OpenTelemetry spans (Prompty §7.1.8, GenAI semantic conventions), read back with the SDK's
in-memory exporter; and no tracing at all when opentelemetry is not installed."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

import wiremap
from wiremap.runtime import tracing
from loopback import Reply, anthropic_body, openai_body

KEY = "sk-test-0123456789"
HI = [{"role": "user", "content": "Hi"}]
CONFIG = {
    "temperature": 0.3,
    "max_tokens": 100,
    "top_p": 0.9,
    "top_k": 40,
    "seed": 7,
    "stop_sequences": ["END", "STOP"],
    "frequency_penalty": 0.5,
    "presence_penalty": -0.25,
    "extras": {"logprobs": True},
}


@pytest.fixture
def spans() -> Any:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def _complete(url: str, key: str, tracer_provider: Any, **kwargs: Any) -> Any:
    async def main() -> Any:
        async with wiremap.Provider(
            key, model="model-x", api_key=KEY, base_url=url, tracer_provider=tracer_provider
        ) as p:
            return await p.complete(HI, **kwargs)

    return asyncio.run(main())


def test_openai_chat_span(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    body = openai_body(
        "Hi!",
        id="chatcmpl-abc",
        model="model-x-2024",
        usage={"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    )
    server = serve(lambda seen: Reply(200, body))
    config = {k: v for k, v in CONFIG.items() if k != "top_k"}
    _complete(server.url, "openai_chat", tracer_provider, config=config)
    (span,) = exporter.get_finished_spans()
    assert span.name == "chat model-x"
    assert span.kind == SpanKind.CLIENT
    assert span.status.status_code == StatusCode.UNSET
    attrs = dict(span.attributes or {})
    assert attrs == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "model-x",
        "gen_ai.request.temperature": 0.3,
        "gen_ai.request.max_tokens": 100,
        "gen_ai.request.top_p": 0.9,
        "gen_ai.request.seed": 7,
        "gen_ai.request.stop_sequences": ("END", "STOP"),
        "gen_ai.request.frequency_penalty": 0.5,
        "gen_ai.request.presence_penalty": -0.25,
        "server.address": "127.0.0.1",
        "server.port": server.port,
        "gen_ai.usage.input_tokens": 12,
        "gen_ai.usage.output_tokens": 5,
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.response.id": "chatcmpl-abc",
        "gen_ai.response.model": "model-x-2024",
    }


def test_anthropic_span_with_top_k_and_structured_output(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    body = anthropic_body(
        '{"a": 1}',
        id="msg_01",
        stop_reason="max_tokens",
        usage={"input_tokens": 3, "output_tokens": 9},
    )
    server = serve(lambda seen: Reply(200, body))
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    with pytest.warns(
        wiremap.UnsupportedOptionWarning
    ):  # anthropic_messages drops sampling options
        _complete(
            server.url,
            "anthropic_messages",
            tracer_provider,
            config={"top_k": 40, "max_tokens": 10},
            response_schema=schema,
        )
    (span,) = exporter.get_finished_spans()
    attrs = dict(span.attributes or {})
    assert attrs["gen_ai.provider.name"] == "anthropic"
    assert attrs["gen_ai.request.top_k"] == 40 and attrs["gen_ai.request.max_tokens"] == 10
    assert attrs["gen_ai.output.type"] == "json"
    assert attrs["gen_ai.usage.input_tokens"] == 3 and attrs["gen_ai.usage.output_tokens"] == 9
    assert attrs["gen_ai.response.finish_reasons"] == ("length",)
    assert attrs["gen_ai.response.id"] == "msg_01"


def test_unreported_usage_is_omitted(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    body = openai_body("Hi")
    del body["usage"]
    body.pop("id")
    server = serve(lambda seen: Reply(200, body))
    _complete(server.url, "openai_chat", tracer_provider)
    attrs = dict(exporter.get_finished_spans()[0].attributes or {})
    assert not any(k.startswith("gen_ai.usage.") for k in attrs)
    assert "gen_ai.response.id" not in attrs
    assert not any(k.startswith("gen_ai.request.") and k != "gen_ai.request.model" for k in attrs)


@pytest.mark.parametrize(
    "reply,category",
    [
        (
            Reply(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1"}),
            "provider_rate_limit",
        ),
        (Reply(401, {"error": {"message": "bad key"}}), "provider_authentication"),
        (Reply.close(), "provider_unavailable"),
        (Reply(200, "<html>", content_type="text/html"), "provider_invalid_response"),
        (Reply(200, openai_body("not json")), "structured_output_invalid"),
    ],
)
def test_error_spans_record_the_category(
    serve: Any, spans: Any, reply: Reply, category: str
) -> None:
    tracer_provider, exporter = spans
    server = serve(lambda seen: reply)
    with pytest.raises(wiremap.ProviderError):
        _complete(server.url, "openai_chat", tracer_provider, response_schema={"type": "object"})
    (span,) = exporter.get_finished_spans()
    assert span.attributes["error.type"] == category
    assert span.status.status_code == StatusCode.ERROR
    assert any(event.name == "exception" for event in span.events)


def test_pre_send_error_is_recorded_too(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    server = serve(lambda seen: Reply(200, openai_body()))

    async def main() -> None:
        async with wiremap.Provider(
            "openai_chat",
            model="m",
            api_key=KEY,
            base_url=server.url,
            tracer_provider=tracer_provider,
        ) as p:
            await p.complete([{"role": "user", "content": ""}], config={"temperature": "hot"})

    with pytest.raises(wiremap.InvalidRequestError):
        asyncio.run(main())
    (span,) = exporter.get_finished_spans()
    assert span.attributes["error.type"] == "provider_invalid_request"
    assert "gen_ai.request.temperature" not in span.attributes  # not a number: left out
    assert server.requests == []


def test_concurrent_calls_get_separate_spans(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    server = serve(
        lambda seen: Reply(
            200, openai_body(id=f"id-{seen.json()['messages'][0]['content']}"), delay=0.05
        )
    )

    async def main() -> None:
        async with wiremap.Provider(
            "openai_chat",
            model="m",
            api_key=KEY,
            base_url=server.url,
            tracer_provider=tracer_provider,
        ) as p:
            await asyncio.gather(
                *(p.complete([{"role": "user", "content": str(i)}]) for i in range(10))
            )

    asyncio.run(main())
    finished = exporter.get_finished_spans()
    assert sorted(s.attributes["gen_ai.response.id"] for s in finished) == sorted(
        f"id-{i}" for i in range(10)
    )
    assert all(s.parent is None for s in finished)  # siblings, not nested in one another


def test_span_nests_under_the_callers_span_and_restores_the_context(serve: Any, spans: Any) -> None:
    from opentelemetry import trace

    tracer_provider, exporter = spans
    server = serve(lambda seen: Reply(200, openai_body()))

    async def main() -> None:
        async with wiremap.Provider(
            "openai_chat",
            model="m",
            api_key=KEY,
            base_url=server.url,
            tracer_provider=tracer_provider,
        ) as p:
            with tracer_provider.get_tracer("test").start_as_current_span("parent") as parent:
                await p.complete(HI)
                assert trace.get_current_span() is parent  # the chat span was detached

    asyncio.run(main())
    chat, parent = exporter.get_finished_spans()
    assert chat.name == "chat m" and parent.name == "parent"
    assert chat.parent is not None and chat.parent.span_id == parent.context.span_id


def test_no_opentelemetry_means_no_tracing(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server = serve(lambda seen: Reply(200, openai_body("ok")))
    for name in [m for m in sys.modules if m == "opentelemetry" or m.startswith("opentelemetry.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # import opentelemetry -> ImportError
    tracing._reset()
    try:
        assert not tracing.otel_available()
        r = _complete(server.url, "openai_chat", None, config={"temperature": 0.1})
        assert r.message.content == "ok"
        with pytest.raises(wiremap.RateLimitError):
            server.handler = lambda seen: Reply(429, {"error": {"message": "x"}})
            _complete(server.url, "openai_chat", None)
    finally:
        tracing._reset()
    monkeypatch.undo()
    assert tracing.otel_available()


def test_global_tracer_provider_is_the_default(serve: Any) -> None:
    """Without tracer_provider= the global (here: the API's no-op proxy) is used; nothing breaks."""
    server = serve(lambda seen: Reply(200, openai_body("ok")))
    assert _complete(server.url, "openai_chat", None).message.content == "ok"


def test_the_global_tracer_kept_from_before_a_provider_is_set_records_to_it() -> None:
    """The tracer of the global provider is made once and kept (runtime/tracing.py
    `_global_tracer`): made before the application sets its global provider, calls made after
    still record to that provider. In a fresh interpreter: the global provider is set once."""
    import subprocess
    import textwrap

    code = textwrap.dedent("""
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from wiremap.runtime import tracing

        def span(model):
            with tracing.ChatSpan(None, provider="p", model=model, config=None, structured=False,
                                  server_address=None, server_port=None):
                pass

        span("before")  # the proxy tracer is made and kept here
        kept = tracing._global_tracer(trace)
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        span("after")
        assert tracing._global_tracer(trace) is kept
        print([s.name for s in exporter.get_finished_spans()])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['chat after']"


# ------------------------------------------------------------------ streamed calls (Provider.stream)

def _sse(rec_id: str) -> tuple[Any, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
    from recorded import ALL

    rec = next(r for r in ALL if r.id == rec_id)
    if rec.name == "dropped_connection":
        return rec, Reply.truncated(rec.body + rec.body)
    return rec, Reply(200, rec.body, content_type="text/event-stream")


def _stream(url: str, key: str, tracer_provider: Any, *, stop_after: int | None = None, **kwargs: Any) -> Any:
    async def main() -> Any:
        async with wiremap.Provider(key, model="model-x", api_key=KEY, base_url=url, tracer_provider=tracer_provider) as p:
            stream = p.stream(HI, **kwargs)
            events = []
            async for ev in stream:
                events.append(ev)
                if stop_after is not None and len(events) >= stop_after:
                    break
            if stop_after is not None:
                await stream.__aiter__().aclose()  # the consumer stops reading
            return stream, events

    return asyncio.run(main())


def test_stream_span_ends_with_the_stream(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    rec, reply = _sse("anthropic_messages:parallel_tool_calls")
    seen_before_end: list[int] = []

    def handler(seen: Any) -> Any:
        seen_before_end.append(len(exporter.get_finished_spans()))  # the span is open while the request runs
        return reply

    server = serve(handler)
    stream, events = _stream(server.url, "anthropic_messages", tracer_provider, config={"max_tokens": 64, "stop_sequences": ["END"]})
    assert seen_before_end == [0]
    (span,) = exporter.get_finished_spans()
    assert span.name == "chat model-x" and span.kind == SpanKind.CLIENT
    assert span.status.status_code == StatusCode.UNSET
    attrs = dict(span.attributes or {})
    assert attrs == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "anthropic",
        "gen_ai.request.model": "model-x",
        "gen_ai.request.max_tokens": 64,
        "gen_ai.request.stop_sequences": ("END",),
        "server.address": "127.0.0.1",
        "server.port": int(server.url.rsplit(":", 1)[1]),
        "gen_ai.usage.input_tokens": 25,
        "gen_ai.usage.output_tokens": 15,
        "gen_ai.response.finish_reasons": ("tool_calls",),
        "gen_ai.response.id": "msg_01XF",
        "gen_ai.response.model": "claude-sonnet-4-5",
    }
    assert stream.response is not None and events[-1]["type"] in ("finish", "usage")


def test_stream_span_records_the_error_and_what_was_assembled(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    rec, reply = _sse("openai_responses:mid_stream_error")
    server = serve(lambda seen: reply)
    with pytest.raises(wiremap.UnavailableError):
        _stream(server.url, "openai_responses", tracer_provider)
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code == StatusCode.ERROR
    attrs = dict(span.attributes or {})
    assert attrs["error.type"] == "provider_unavailable"
    assert attrs["gen_ai.response.finish_reasons"] == ("error",)
    assert attrs["gen_ai.response.id"] == "resp_68a1"
    assert any(event.name == "exception" for event in span.events)


def test_stream_span_of_a_dropped_connection(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    rec, reply = _sse("openai_chat:dropped_connection")
    server = serve(lambda seen: reply)
    with pytest.raises(wiremap.UnavailableError):
        _stream(server.url, "openai_chat", tracer_provider)
    (span,) = exporter.get_finished_spans()
    assert span.attributes["error.type"] == "provider_unavailable"


def test_stream_span_of_an_http_error_and_of_a_pre_send_error(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    server = serve(lambda seen: Reply(429, {"error": {"message": "slow down"}}))
    with pytest.raises(wiremap.RateLimitError):
        _stream(server.url, "openai_chat", tracer_provider)
    with pytest.raises(wiremap.InvalidRequestError):  # refused before anything is sent: still one span
        _stream(server.url, "openarmature.anthropic_messages", tracer_provider, config={"max_tokens": 5})
    first, second = exporter.get_finished_spans()
    assert first.attributes["error.type"] == "provider_rate_limit"
    assert second.attributes["error.type"] == "provider_invalid_request"
    assert len(server.requests) == 1


def test_stream_span_when_the_consumer_stops_reading(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    rec, reply = _sse("openai_chat:text")
    server = serve(lambda seen: reply)
    stream, events = _stream(server.url, "openai_chat", tracer_provider, stop_after=2)
    assert len(events) == 2 and stream.response is None
    (span,) = exporter.get_finished_spans()
    assert span.status.status_code == StatusCode.UNSET and "error.type" not in span.attributes


def test_stream_span_nests_under_the_callers_span(serve: Any, spans: Any) -> None:
    from opentelemetry import trace

    tracer_provider, exporter = spans
    rec, reply = _sse("gemini_generate_content:text")
    server = serve(lambda seen: reply)

    async def main() -> None:
        async with wiremap.Provider("gemini_generate_content", model="m", api_key=KEY, base_url=server.url, tracer_provider=tracer_provider) as p:
            with tracer_provider.get_tracer("test").start_as_current_span("parent") as parent:
                async for _ev in p.stream(HI):
                    assert trace.get_current_span() is parent  # the chat span is not left attached between events
                assert trace.get_current_span() is parent

    asyncio.run(main())
    chat, parent = exporter.get_finished_spans()
    assert chat.name == "chat m" and chat.parent is not None and chat.parent.span_id == parent.context.span_id
    assert chat.attributes["gen_ai.response.finish_reasons"] == ("stop",)


def test_complete_stream_true_makes_one_span(serve: Any, spans: Any) -> None:
    tracer_provider, exporter = spans
    rec, reply = _sse("openai_chat:text")
    server = serve(lambda seen: reply)
    _complete(server.url, "openai_chat", tracer_provider, stream=True)
    (span,) = exporter.get_finished_spans()
    assert span.attributes["gen_ai.usage.input_tokens"] == 19 and span.attributes["gen_ai.response.finish_reasons"] == ("stop",)

"""The API key never appears in an exception message, a repr, a log line or a span attribute —
even when the server echoes the credentials it received back into its error body, its headers or
a malformed 200 body."""

from __future__ import annotations

import asyncio
import json
import logging
import traceback
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import wiremap
from loopback import Reply, Seen, refused_url, variant_format

SECRET = "sk-SENTINEL-7f3a9c1e5b2d4068"


def _everything_about(err: BaseException) -> str:
    """Every text an error exposes: messages, reprs, attributes, the formatted traceback, and the
    same for the exceptions it wraps (the httpx request/response included)."""
    parts = ["".join(traceback.format_exception(err))]
    seen: set[int] = set()
    stack: list[BaseException | None] = [err]
    while stack:
        e = stack.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        parts += [str(e), repr(e), repr(e.args)]
        for attr in ("message", "body", "path", "output_content", "error_message", "provider_type"):
            parts.append(repr(getattr(e, attr, None)))
        if isinstance(e, httpx.HTTPError):
            try:
                request = e.request
            except RuntimeError:
                request = None
            if request is not None:
                parts += [repr(request), str(request.url), repr(dict(request.headers))]
        if isinstance(e, httpx.HTTPStatusError):
            parts += [e.response.text, repr(dict(e.response.headers)), repr(e.response.request.url)]
        stack += [e.__cause__, e.__context__]
    return "\n".join(parts)


def _echo_error(status: int, key: str) -> Any:
    """A server that puts everything it received (headers, path with query) in its answer."""

    def handler(seen: Seen) -> Reply:
        received = json.dumps({"headers": seen.headers, "path": seen.raw_path})
        if key.startswith("anthropic"):
            body: Any = {
                "type": "error",
                "error": {
                    "type": "authentication_error",
                    "message": f"bad credentials: {received}",
                },
            }
        else:
            body = {
                "error": {
                    "message": f"bad credentials: {received}",
                    "type": "invalid_request_error",
                    "code": received,
                }
            }
        return Reply(
            status,
            body,
            headers={
                "X-Echo": seen.headers.get("authorization", "")
                + seen.headers.get("x-api-key", "")
                + seen.raw_path
            },
        )

    return handler


def _tracer() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def _call(
    fmt: Any, url: str, tracer_provider: Any, *, ready: bool = False, **kwargs: Any
) -> BaseException:
    async def main() -> None:
        async with wiremap.Provider(
            fmt, model="m", api_key=SECRET, base_url=url, tracer_provider=tracer_provider
        ) as p:
            assert SECRET not in repr(p)
            if ready:
                await p.ready()
            else:
                await p.complete([{"role": "user", "content": "Hi"}], **kwargs)

    try:
        asyncio.run(main())
    except wiremap.ProviderError as exc:
        return exc
    pytest.fail("expected an error")


def _spans_text(exporter: InMemorySpanExporter) -> str:
    out = []
    for span in exporter.get_finished_spans():
        out.append(json.dumps(dict(span.attributes or {}), default=str))
        out.append(str(span.status.description))
        for event in span.events:
            out.append(json.dumps(dict(event.attributes or {}), default=str))
    return "\n".join(out)


QUERY_OPENAI = variant_format("openai_chat", auth={"scheme": "query", "name": "key"})

SCENARIOS = [
    pytest.param("openai_chat", 401, id="openai_chat-bearer-401"),
    pytest.param("openai_chat", 500, id="openai_chat-bearer-500"),
    pytest.param("anthropic_messages", 401, id="anthropic_messages-header-401"),
    pytest.param("anthropic_messages", 400, id="anthropic_messages-header-400"),
    pytest.param(QUERY_OPENAI, 401, id="query-401"),
    pytest.param(QUERY_OPENAI, 429, id="query-429"),
]


@pytest.mark.parametrize("fmt,status", SCENARIOS)
def test_echoed_credentials_are_redacted_from_http_errors(
    serve: Any, caplog: pytest.LogCaptureFixture, fmt: Any, status: int
) -> None:
    key = fmt if isinstance(fmt, str) else fmt.key
    server = serve(_echo_error(status, key))
    tracer_provider, exporter = _tracer()
    with caplog.at_level(logging.DEBUG):
        err = _call(fmt, server.url, tracer_provider)
        ready_err = _call(fmt, server.url, tracer_provider, ready=True)
    # the key really went out, and really came back
    assert SECRET in json.dumps(server.requests[0].headers) + server.requests[0].raw_path
    for e in (err, ready_err):
        text = _everything_about(e)
        assert "[REDACTED]" in text
        assert SECRET not in text
        assert isinstance(e.__cause__, httpx.HTTPStatusError)
    assert SECRET not in caplog.text
    assert caplog.records, "the provider logs its requests at DEBUG"
    assert SECRET not in _spans_text(exporter)


@pytest.mark.parametrize(
    "fmt", ["openai_chat", "anthropic_messages", QUERY_OPENAI], ids=["bearer", "header", "query"]
)
@pytest.mark.parametrize("failure", ["refused", "close", "hang"])
def test_transport_failures_carry_no_credentials(
    serve: Any, caplog: pytest.LogCaptureFixture, fmt: Any, failure: str
) -> None:
    if failure == "refused":
        url = refused_url()
    else:
        url = serve(lambda seen: Reply.close() if failure == "close" else Reply.hang()).url
    tracer_provider, exporter = _tracer()

    async def main() -> None:
        async with wiremap.Provider(
            fmt,
            model="m",
            api_key=SECRET,
            base_url=url,
            timeout=0.3,
            tracer_provider=tracer_provider,
        ) as p:
            await p.complete([{"role": "user", "content": "Hi"}])

    with caplog.at_level(logging.DEBUG), pytest.raises(wiremap.UnavailableError) as info:
        asyncio.run(main())
    text = _everything_about(info.value)
    assert SECRET not in text
    assert isinstance(info.value.__cause__, httpx.TransportError)
    assert SECRET not in caplog.text
    assert SECRET not in _spans_text(exporter)


@pytest.mark.parametrize(
    "key,body",
    [
        ("openai_chat", f"<html>you sent {SECRET}</html>"),
        (
            "openai_chat",
            {
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": [{"type": "text", "text": {SECRET: 1}}]},
                    }
                ]
            },
        ),
        ("anthropic_messages", {"content": [{"type": "text", "text": [SECRET]}], "stop_reason": "end_turn"}),
        ("anthropic_messages", [SECRET]),
    ],
)
def test_malformed_200_echoing_the_key(serve: Any, key: str, body: Any) -> None:
    server = serve(lambda seen: Reply(200, body))
    tracer_provider, exporter = _tracer()
    err = _call(key, server.url, tracer_provider)
    assert err.category == "provider_invalid_response"
    text = _everything_about(err)
    assert SECRET not in text and "[REDACTED]" in text
    assert SECRET not in _spans_text(exporter)


def test_repr_and_attributes_hide_the_key() -> None:
    for key in ("openai_chat", "anthropic_messages"):
        p = wiremap.Provider(key, model="m", api_key=SECRET)
        assert SECRET not in repr(p) and SECRET not in str(p)
        public = {
            name: getattr(p, name) for name in ("format", "model", "base_url", "structured_output")
        }
        assert SECRET not in repr(public)
    p = wiremap.Provider(
        "openai_chat", model="m", api_key=SECRET, base_url=f"https://user:{SECRET}@example.com"
    )
    assert SECRET not in repr(p)

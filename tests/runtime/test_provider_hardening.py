"""Provider hardening (issue 15): no key in any streamed error chain, a total deadline per call,
non-SSE answers to a streamed call, redirects, keys that cannot be sent. Loopback servers only."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

import wiremap
from loopback import Reply, variant_format
from rawserver import RawServer, trickle

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from recorded import ALL  # noqa: E402

SECRET = "sk-SENTINEL-hardening-5c1d"
HI = [{"role": "user", "content": "Hi"}]
QUERY_OPENAI = variant_format("openai_chat", auth={"scheme": "query", "name": "key"})
FORMATS = pytest.mark.parametrize("fmt", ["openai_chat", "anthropic_messages", QUERY_OPENAI], ids=["bearer", "header", "query"])


def _chain_text(err: BaseException) -> tuple[str, int]:
    """Every text the error chain exposes, the httpx requests' headers and URLs included, and how
    many httpx requests it held (a test that saw none would prove nothing)."""
    parts: list[str] = []
    requests = 0
    seen: set[int] = set()
    stack: list[BaseException | None] = [err]
    while stack:
        e = stack.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        parts += [str(e), repr(e), repr(e.args), repr(vars(e)) if hasattr(e, "__dict__") else ""]
        holders = [e]
        if isinstance(e, httpx.HTTPStatusError):
            holders.append(e.response)  # type: ignore[arg-type]
            parts += [e.response.text, repr(dict(e.response.headers))]
        for holder in holders:
            request = getattr(holder, "_request", None)
            if isinstance(request, httpx.Request):
                requests += 1
                parts += [str(request.url), repr(dict(request.headers)), repr(request.headers.raw)]
        stack += [e.__cause__, e.__context__]
    return "\n".join(parts), requests


def _first_rec(key: str, name: str = "text") -> Any:
    return next(r for r in ALL if r.format == key and not r.error)


async def _stream(url: str, fmt: Any, **kw: Any) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async with wiremap.Provider(fmt, model="m", api_key=SECRET, base_url=url, **kw) as p:
        async for ev in p.stream(HI, config={"max_tokens": 8}):
            events.append(ev)
    return events


# ------------------------------------------------------------------------ 3: streamed errors


@FORMATS
@pytest.mark.parametrize("failure", ["refused", "reset", "truncated", "hang"])
def test_streamed_transport_errors_keep_no_key_anywhere_in_the_chain(serve: Any, fmt: Any, failure: str) -> None:
    base = fmt if isinstance(fmt, str) else "openai_chat"
    rec = _first_rec(base)
    if failure == "refused":
        from loopback import refused_url

        url = refused_url()
    else:
        reply = {"reset": Reply.reset(), "truncated": Reply.truncated(rec.body + rec.body), "hang": Reply.hang()}[failure]
        url = serve(lambda seen: reply).url
    with pytest.raises(wiremap.UnavailableError) as info:
        asyncio.run(_stream(url, fmt, timeout=0.5))
    text, requests = _chain_text(info.value)
    assert requests >= 1, "the chain holds the httpx exception and its request"
    assert SECRET not in text


@FORMATS
def test_streamed_http_error_keeps_no_key(serve: Any, fmt: Any) -> None:
    server = serve(lambda seen: Reply(401, {"error": {"message": f"bad key {seen.headers}"}}))
    with pytest.raises(wiremap.AuthenticationError) as info:
        asyncio.run(_stream(server.url, fmt))
    text, requests = _chain_text(info.value)
    assert requests >= 1 and SECRET not in text


def test_userinfo_in_base_url_is_in_no_error(serve: Any) -> None:
    from loopback import refused_url

    url = refused_url().replace("http://", "http://user:pw-SENTINEL@")
    for streamed in (False, True):

        async def go() -> None:
            async with wiremap.Provider("openai_chat", model="m", api_key=SECRET, base_url=url, timeout=2) as p:
                if streamed:
                    async for _ in p.stream(HI):
                        pass
                else:
                    await p.complete(HI)

        with pytest.raises(wiremap.UnavailableError) as info:
            asyncio.run(go())
        text, requests = _chain_text(info.value)
        assert requests >= 1 and "pw-SENTINEL" not in text and SECRET not in text


# ------------------------------------------------------------------------ 7: total deadline


def test_trickling_body_ends_with_a_timeout_error() -> None:
    """One byte every 0.3 s never trips a 1 s read timeout; the call's deadline ends it."""
    holder: list[RawServer] = []
    body = json.dumps({"id": "x", "choices": []}).encode() * 4
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    with RawServer(trickle(head, body, 0.3, holder)) as server:
        holder.append(server)

        async def go() -> None:
            async with wiremap.Provider("openai_chat", model="m", api_key=SECRET, base_url=server.url, timeout=1.0, deadline=2.0) as p:
                await p.complete(HI)

        with pytest.raises(wiremap.ProviderTimeoutError) as info:
            asyncio.run(go())
    assert info.value.category == "provider_unavailable" and info.value.transient
    assert "deadline" in str(info.value)


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages"])
def test_stream_of_keepalive_comments_only_ends_with_a_timeout_error(key: str) -> None:
    holder: list[RawServer] = []
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
    with RawServer(trickle(head, b": ping\n\n" * 10, 0.2, holder)) as server:
        holder.append(server)
        with pytest.raises(wiremap.ProviderTimeoutError) as info:
            asyncio.run(_stream(server.url, key, timeout=1.0, deadline=1.5))
    assert info.value.partial is not None  # a stream error: what was assembled (nothing)
    assert "deadline" in str(info.value)


def test_default_deadline_follows_a_numeric_timeout() -> None:
    """`timeout=T` alone bounds the whole call too (at 2T): the issue's `timeout=3` that never
    returned."""
    holder: list[RawServer] = []
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
    with RawServer(trickle(head, b": ping\n\n" * 40, 0.2, holder)) as server:
        holder.append(server)
        with pytest.raises(wiremap.ProviderTimeoutError):
            asyncio.run(_stream(server.url, "openai_chat", timeout=0.6))


def test_deadline_must_be_positive() -> None:
    with pytest.raises(ValueError):
        wiremap.Provider("openai_chat", model="m", api_key=SECRET, base_url="http://127.0.0.1:1", deadline=0)


# ------------------------------------------------------------------------ 8: not a stream


NOT_SSE = {
    "html": Reply(200, "<html><body>Welcome to nginx</body></html>", content_type="text/html"),
    "empty": Reply(200, b"", content_type="text/event-stream"),
    "truncated_json": Reply(200, b'{"id": "chatcmpl-1", "choi', content_type="application/json"),
    "json_as_sse": Reply(200, b'{"id": "chatcmpl-1", "choi', content_type="text/event-stream"),
}


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages"])
@pytest.mark.parametrize("case", sorted(NOT_SSE))
def test_a_non_sse_answer_is_an_invalid_response_before_any_event(serve: Any, key: str, case: str) -> None:
    server = serve(lambda seen: NOT_SSE[case])
    events: list[dict[str, Any]] = []

    async def go() -> None:
        async with wiremap.Provider(key, model="m", api_key=SECRET, base_url=server.url) as p:
            async for ev in p.stream(HI, config={"max_tokens": 8}):
                events.append(ev)

    with pytest.raises(wiremap.InvalidResponseError) as info:
        asyncio.run(go())
    assert events == []
    assert not info.value.transient and info.value.status == 200
    assert "server-sent events" in str(info.value)

    async def collected() -> None:
        async with wiremap.Provider(key, model="m", api_key=SECRET, base_url=server.url) as p:
            await p.complete(HI, config={"max_tokens": 8}, stream=True)

    with pytest.raises(wiremap.InvalidResponseError):
        asyncio.run(collected())


# ------------------------------------------------------------------------ 9: redirects


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
def test_a_redirect_is_an_invalid_response_and_is_not_followed(serve: Any, streamed: bool) -> None:
    server = serve(lambda seen: Reply(302, "", headers={"location": "http://127.0.0.1:9/elsewhere"}))

    async def go() -> None:
        async with wiremap.Provider("anthropic_messages", model="m", api_key=SECRET, base_url=server.url) as p:
            if streamed:
                async for _ in p.stream(HI):
                    pass
            else:
                await p.complete(HI)

    with pytest.raises(wiremap.InvalidResponseError) as info:
        asyncio.run(go())
    assert info.value.status == 302 and "redirect" in str(info.value)
    assert len(server.requests) == 1


# ------------------------------------------------------------------------ 10: unsendable keys


@pytest.mark.parametrize("key", ["sk-caf\u00e9", "sk-a\nInjected: 1", "sk-\u0430bc"])
def test_a_key_that_cannot_be_a_header_is_refused_before_sending(serve: Any, key: str) -> None:
    server = serve(lambda seen: Reply(200, {}))

    async def go() -> None:
        async with wiremap.Provider("openai_chat", model="m", api_key=key, base_url=server.url) as p:
            await p.complete(HI)

    with pytest.raises(wiremap.AuthenticationError) as info:
        asyncio.run(go())
    assert "cannot be sent" in str(info.value) and key not in str(info.value)
    assert server.requests == []

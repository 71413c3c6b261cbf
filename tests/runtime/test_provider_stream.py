"""Provider.stream() and complete(stream=True) over real HTTP (loopback), on the recorded streams."""

from __future__ import annotations

import asyncio
import warnings
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import wiremap
from loopback import Reply, Seen

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from recorded import ALL, Recorded  # noqa: E402

from wiremap.runtime.stream import StreamAssembler, parse_stream  # noqa: E402

KEY = "sk-test-0123456789"
HI = [{"role": "user", "content": "Hi"}]


def sse_reply(rec: Recorded) -> Reply:
    if rec.name == "dropped_connection":  # Content-Length announced, half the body sent, then closed
        return Reply.truncated(rec.body + rec.body)
    return Reply(200, rec.body, content_type="text/event-stream")


def expected(rec: Recorded) -> dict[str, Any]:
    asm = StreamAssembler(rec.format)
    for ev in parse_stream(rec.body, rec.format):
        asm.add(ev)
    return asm.response().to_dict()


async def consume(p: wiremap.Provider, **kw: Any) -> tuple[list[dict[str, Any]], Any]:
    stream = p.stream(HI, config={"max_tokens": 64}, **kw)
    events = [ev async for ev in stream]
    return events, stream.response


@pytest.mark.parametrize("rec", [r for r in ALL if not r.error], ids=[r.id for r in ALL if not r.error])
def test_stream_and_complete(serve: Any, rec: Recorded) -> None:
    server = serve(lambda seen: sse_reply(rec))

    async def go() -> None:
        async with wiremap.Provider(rec.format, model="m", api_key=KEY, base_url=server.url) as p:
            events, response = await consume(p)
            assert events == parse_stream(rec.body, rec.format)
            assert response.to_dict() == expected(rec)
            again = await p.complete(HI, config={"max_tokens": 64}, stream=True)
            assert again.to_dict() == expected(rec)

    asyncio.run(go())
    sent = server.requests[0]
    assert sent.headers["accept"] == "text/event-stream"
    body = sent.json()
    if rec.format == "gemini_generate_content":
        # the stream table's own endpoint; the path-bound model out of the body; no stream flag
        assert sent.path == "/v1beta/models/m:streamGenerateContent" and sent.query == {"alt": ["sse"]}
        assert "model" not in body and "stream" not in body and body["contents"]
        return
    assert body["stream"] is True
    if rec.format == "openai_chat":
        assert body["stream_options"] == {"include_usage": True}


@pytest.mark.parametrize("rec", [r for r in ALL if r.error], ids=[r.id for r in ALL if r.error])
def test_errors_carry_what_was_received(serve: Any, rec: Recorded) -> None:
    server = serve(lambda seen: sse_reply(rec))

    async def go() -> None:
        async with wiremap.Provider(rec.format, model="m", api_key=KEY, base_url=server.url) as p:
            stream = p.stream(HI, config={"max_tokens": 64})
            events: list[dict[str, Any]] = []
            with pytest.raises(wiremap.ProviderError) as info:
                async for ev in stream:
                    events.append(ev)
            assert info.value.category == rec.error
            assert any(e["type"] == "text_delta" for e in events), "events already received stay received"
            assert "Partial" in json.dumps(info.value.partial)
            assert info.value.partial["finish_reason"] == "error"
            assert stream.response is None
            with pytest.raises(wiremap.ProviderError) as again:
                await p.complete(HI, config={"max_tokens": 64}, stream=True)
            assert again.value.category == rec.error

    asyncio.run(go())


def test_http_error_before_the_stream(serve: Any) -> None:
    server = serve(lambda seen: Reply(429, {"error": {"message": "slow down", "type": "rate_limit_error"}}, headers={"retry-after": "3"}))

    async def go() -> None:
        async with wiremap.Provider("anthropic_messages", model="m", api_key=KEY, base_url=server.url) as p:
            with pytest.raises(wiremap.RateLimitError) as info:
                await consume(p)
            assert info.value.retry_after == 3

    asyncio.run(go())


def test_a_format_without_streaming_refuses_before_sending(serve: Any) -> None:
    server = serve(lambda seen: Reply(500, {}))

    async def go() -> None:
        async with wiremap.Provider("openarmature.anthropic_messages", model="m", api_key=KEY, base_url=server.url) as p:
            with pytest.raises(wiremap.InvalidRequestError, match="does not support streaming"):
                p.stream(HI, config={"max_tokens": 5})
            with pytest.raises(wiremap.InvalidRequestError, match="does not support streaming"):
                await p.complete(HI, config={"max_tokens": 5}, stream=True)

    asyncio.run(go())
    assert server.requests == []


def test_conflicting_managed_extras_refused_before_sending(serve: Any) -> None:
    server = serve(lambda seen: Reply(500, {}))

    async def go() -> None:
        async with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url) as p:
            with pytest.raises(wiremap.InvalidRequestError) as info:
                await p.complete(HI, config={"extras": {"stream_options": {"include_usage": False}}}, stream=True)
            assert info.value.path == "config.extras.stream_options"

    asyncio.run(go())
    assert server.requests == []


def test_events_arrive_before_the_body_ends(serve: Any) -> None:
    """The first event is yielded while the server is still sending (no buffering)."""
    import socket
    import threading

    rec = next(r for r in ALL if r.id == "openai_chat:text")
    cut = rec.body.index(b"\n\n", rec.body.index(b"\n\n") + 2) + 5  # two whole events and a bit
    head, tail = rec.body[:cut], rec.body[cut:]
    gate = threading.Event()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    port = sock.getsockname()[1]

    def server() -> None:
        conn, _ = sock.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        conn.sendall(b"%x\r\n%s\r\n" % (len(head), head))
        gate.wait(10)
        conn.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(tail), tail))
        conn.close()

    threading.Thread(target=server, daemon=True).start()

    async def go() -> None:
        async with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=f"http://127.0.0.1:{port}") as p:
            stream = p.stream(HI)
            it = stream.__aiter__()
            first = await asyncio.wait_for(it.__anext__(), 5)
            assert first["type"] == "message_start" and not gate.is_set()
            gate.set()
            rest = [ev async for ev in it]
            assert stream.response is not None and stream.response.message.content == "Héllo, wörld 👋"
            assert rest

    asyncio.run(go())
    sock.close()


def test_mistral_stream_maps_ids_and_names_back(serve: Any) -> None:
    """wire_rules: the request goes out with Mistral's ids and names, the streamed tool calls come
    back with the caller's (the call's WireMap, as non-streamed complete())."""
    rec = next(r for r in ALL if r.id == "mistral:parallel_tool_calls")
    server = serve(lambda seen: sse_reply(rec))
    messages = [
        {"role": "user", "content": "Weather in Rome?"},
        {"role": "assistant", "tool_calls": [{"id": "call_weather_1", "name": "get.weather", "arguments": {"city": "Rome"}}]},
        {"role": "tool", "tool_call_id": "call_weather_1", "content": "25C"},
        {"role": "user", "content": "And Oslo?"},
    ]
    tools = [{"name": "get.weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]

    async def go() -> None:
        async with wiremap.Provider("mistral", model="mistral-large-latest", api_key=KEY, base_url=server.url) as p:
            stream = p.stream(messages, tools=tools)
            events = [ev async for ev in stream]
            assert [(e["id"], e["name"]) for e in events if e["type"] == "tool_call_start"] == [("Dq8zRk2Ws", "get.weather"), ("pDxlfVnZ9", "get.weather")]
            assert stream.wire_map.names == {"get.weather": "get_weather_T3RehTJ5"}
            assert stream.response is not None and [c.name for c in stream.response.message.tool_calls] == ["get.weather"] * 2
            mine = wiremap.WireMap()
            again = await p.complete(messages, tools=tools, stream=True, wire_map=mine)
            assert [c.name for c in again.message.tool_calls] == ["get.weather"] * 2
            assert {c.rule for c in mine.changes} == {"tool_call_id", "tool_name"}

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the map is passed: no WireRepairWarning
        asyncio.run(go())
    body = server.requests[0].json()
    assert body["stream"] is True and "stream_options" not in body
    assert body["tools"][0]["function"]["name"] == "get_weather_T3RehTJ5"
    assert body["messages"][1]["tool_calls"][0]["id"] == "XpvnY4TsS"

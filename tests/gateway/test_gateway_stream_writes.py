"""How a streamed gateway answer reaches the server: an upstream stream that has ended by the time
its first events are read (a short answer) goes to the client in one body message that also ends
the body (`more_body: false`: one write, the chunked terminator included); a stream still coming
is passed on as it arrives, its end in the last message. Either way the client gets the whole
stream in its format, with its loss report."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("starlette")

from test_gateway_gc import STREAM, post  # noqa: E402  (the same fake Anthropic stream, the same ASGI driver)

from wiremap import gateway as gw  # noqa: E402

SPLIT = STREAM.index(b"event: content_block_delta")  # the stream's head, then the rest 50 ms later


def _upstream(split: bool) -> Any:
    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
                await reader.readexactly(length)
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
                parts = [STREAM[:SPLIT], STREAM[SPLIT:]] if split else [STREAM]
                for i, part in enumerate(parts):
                    if i:
                        await asyncio.sleep(0.05)
                    writer.write(b"%x\r\n%s\r\n" % (len(part), part))
                    await writer.drain()
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    return serve


def _messages(split: bool) -> list[dict[str, Any]]:
    """The ASGI messages of one streamed OpenAI Chat request through the gateway."""

    async def main() -> list[dict[str, Any]]:
        server = await asyncio.start_server(_upstream(split), "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        app = gw.create_app("openai_chat", "anthropic_messages", f"http://127.0.0.1:{port}", timeout=30)
        body = json.dumps({"model": "claude-x", "stream": True, "seed": 7,  # seed: Anthropic has none, a loss
                           "messages": [{"role": "user", "content": "Say hello."}]}).encode()
        try:
            return await post(app, body)
        finally:
            await app.gateway.close()
            server.close()
            await server.wait_closed()

    return asyncio.run(main())


def _events(body: bytes) -> list[Any]:
    return [json.loads(line[6:]) if line != b"data: [DONE]" else "[DONE]" for line in body.split(b"\n") if line.startswith(b"data: ")]


def test_an_ended_stream_is_answered_in_one_write() -> None:
    sent = _messages(split=False)
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    assert sent[0]["status"] == 200 and sent[1]["more_body"] is False
    body = sent[1]["body"]
    events = _events(body)
    assert "".join(e["choices"][0]["delta"].get("content") or "" for e in events[:-1] if e["choices"]) == "Hello."
    assert events[-1] == "[DONE]"
    assert b"seed" in dict(sent[0]["headers"])[b"x-wiremap-losses"]  # the request-side loss report


def test_a_stream_still_coming_is_passed_on_as_it_arrives() -> None:
    sent = _messages(split=True)
    bodies = [m for m in sent if m["type"] == "http.response.body"]
    assert len(bodies) >= 2
    assert all(m["more_body"] for m in bodies[:-1]) and bodies[-1]["more_body"] is False
    assert b"[DONE]" not in bodies[0]["body"] and b"role" in bodies[0]["body"]  # the head went out before the rest came
    events = _events(b"".join(m["body"] for m in bodies))
    assert "".join(e["choices"][0]["delta"].get("content") or "" for e in events[:-1] if e["choices"]) == "Hello."
    assert events[-1] == "[DONE]"

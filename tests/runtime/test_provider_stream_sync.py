"""`Provider.stream_sync()`: the stream's events for code without an event loop, and the
connection closed when the iterator is closed, left (`with`) or garbage-collected."""

from __future__ import annotations

import asyncio
import gc
import json
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import wiremap
from loopback import Reply
from rawserver import RawServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from recorded import ALL, _chunk  # noqa: E402

from wiremap.runtime.stream import StreamAssembler, parse_stream  # noqa: E402

KEY = "sk-test-0123456789"
HI = [{"role": "user", "content": "Hi"}]
RECORDED = {r.id: r for r in ALL}


@pytest.mark.parametrize("name", ["openai_chat:text", "anthropic_messages:text"])
def test_the_events_of_stream(serve: Any, name: str) -> None:
    rec = RECORDED[name]
    server = serve(lambda seen: Reply(200, rec.body, content_type="text/event-stream"))
    with wiremap.Provider(rec.format, model="m", api_key=KEY, base_url=server.url) as p:
        stream = p.stream_sync(HI, config={"max_tokens": 64})
        events = list(stream)
        assert list(stream) == []  # exhausted
    assert events == parse_stream(rec.body, rec.format)
    assembler = StreamAssembler(rec.format)
    for event in events:
        assembler.add(event)
    assert stream.response is not None
    assert stream.response.to_dict() == assembler.response().to_dict()


def test_an_error_mid_stream_raises_from_the_iteration(serve: Any) -> None:
    rec = RECORDED["openai_chat:mid_stream_error"]
    server = serve(lambda seen: Reply(200, rec.body, content_type="text/event-stream"))
    events: list[dict[str, Any]] = []
    with wiremap.Provider(rec.format, model="m", api_key=KEY, base_url=server.url) as p:
        with pytest.raises(wiremap.UnavailableError) as info:
            for event in p.stream_sync(HI):
                events.append(event)
    assert events and info.value.partial["finish_reason"] == "error"


def test_pre_send_errors_raise_from_the_call(serve: Any) -> None:
    server = serve(lambda seen: Reply(500, {}))
    with wiremap.Provider("openarmature.anthropic_messages", model="m", api_key=KEY, base_url=server.url) as p:
        with pytest.raises(wiremap.InvalidRequestError, match="does not support streaming"):
            p.stream_sync(HI, config={"max_tokens": 5})
    with wiremap.Provider("openarmature.openai_chat", model="m", api_key=KEY, base_url=server.url) as p:
        with pytest.raises(wiremap.InvalidRequestError) as info:
            p.stream_sync([{"role": "assistant", "content": "Hi"}])
        assert info.value.path == "messages[0].role"
    assert server.requests == []


def test_refused_inside_a_running_loop() -> None:
    async def main() -> None:
        with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url="http://127.0.0.1:9") as p:
            with pytest.raises(RuntimeError, match="stream_sync"):
                p.stream_sync(HI)

    asyncio.run(main())


def _first_event_then_hold(holder: list[RawServer]) -> Any:
    """Answer with the headers of a stream and one event, then hold the connection open until
    the client leaves (`peer_closed`)."""
    first = json.dumps(_chunk({"role": "assistant", "content": "Hel"})).encode()

    def act(conn: socket.socket, head: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n" + b"data: " + first + b"\n\n")
        deadline = time.monotonic() + RawServer.LIMIT
        conn.settimeout(0.1)
        while time.monotonic() < deadline and not holder[0].stop_event.is_set():
            try:
                if not conn.recv(65536):
                    break
            except TimeoutError:
                continue
            except OSError:
                break
        else:
            return
        holder[0].peer_closed.set()

    return act


@pytest.mark.parametrize("how", ["close", "with", "garbage"])
def test_stopping_early_closes_the_connection(how: str) -> None:
    holder: list[RawServer] = []
    with RawServer(_first_event_then_hold(holder)) as server:
        holder.append(server)
        with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url) as p:
            if how == "close":
                stream = p.stream_sync(HI)
                next(stream)
                stream.close()
                assert list(stream) == []
            elif how == "with":
                with p.stream_sync(HI) as stream:
                    next(stream)
            else:
                stream = p.stream_sync(HI)
                next(stream)
                del stream
                gc.collect()
            # the server sees the client leave; the bound is RawServer's, not a timing claim
            assert server.peer_closed.wait(RawServer.LIMIT)

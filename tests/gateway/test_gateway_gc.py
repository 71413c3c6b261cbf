"""A gateway worker's garbage collector (`wiremap serve`: `wiremap.gateway.tune_gc`).

The worker freezes what it loaded at start-up and lets the cyclic GC run far less often than
Python's default, on the ground that a request's objects are freed by reference counting: no
request leaves a reference cycle behind. These tests hold that ground: requests and streams
through the gateway, and the converters on recorded real traffic, leave no cyclic garbage; and
they check what the worker's start-up sets (and that `WIREMAP_GATEWAY_GC=default` leaves
Python's settings alone)."""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")

import wiremap  # noqa: E402
from wiremap import gateway as gw  # noqa: E402
from wiremap.runtime.errors import ProviderError  # noqa: E402
from wiremap.runtime.stream import parse_stream, translate_stream  # noqa: E402

RECORDED = Path(__file__).resolve().parents[2].parent / "shared" / "recorded"

ANSWER = json.dumps({
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
    "content": [{"type": "text", "text": "Hello."}], "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 9, "output_tokens": 2},
}).encode()
STREAM = b"".join(b"event: %s\ndata: %s\n\n" % (e["type"].encode(), json.dumps(e).encode()) for e in [
    {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "content": [],
                                          "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "lo."}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 2}},
    {"type": "message_stop"},
])


@pytest.fixture
def saved_gc() -> Iterator[None]:
    """The test may change the process's GC settings: put them back."""
    threshold = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*threshold)
    gc.set_debug(0)
    gc.garbage.clear()


def _cyclic_garbage(run: Callable[[], Any]) -> Counter[str]:
    """The objects `run()` left that only the cyclic GC frees, by type."""
    gc.collect()
    gc.garbage.clear()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        run()
        gc.collect()
        return Counter(type(o).__qualname__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


async def _upstream(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """A fake Anthropic upstream on keep-alive connections: the message, or its stream."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
            body = json.loads(await reader.readexactly(length))
            payload, ctype = (STREAM, b"text/event-stream") if body.get("stream") else (ANSWER, b"application/json")
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: %s\r\ncontent-length: %d\r\n\r\n%s" % (ctype, len(payload), payload))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


def _serve_requests(requests: int, stream: bool) -> tuple[list[bytes], Counter[str]]:
    """`requests` OpenAI Chat requests (10 at a time) through an openai_chat -> anthropic_messages
    gateway app driven over ASGI, after 10 that warm it up (lazy imports, caches, the upstream's
    connections): the answers' bodies, and the cyclic garbage the `requests` left."""

    async def main() -> tuple[list[bytes], Counter[str]]:
        server = await asyncio.start_server(_upstream, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        app = gw.create_app("openai_chat", "anthropic_messages", f"http://127.0.0.1:{port}", timeout=30)
        body = json.dumps({"model": "claude-x", "max_completion_tokens": 32, "stream": stream,
                           "messages": [{"role": "user", "content": "Say hello."}]}).encode()

        async def one() -> bytes:
            sent = await post(app, body)
            assert sent[0]["status"] == 200, sent
            return b"".join(m.get("body", b"") for m in sent[1:])

        try:
            await asyncio.gather(*[one() for _ in range(10)])
            out: list[bytes] = []

            async def run() -> None:
                for _ in range(requests // 10):
                    out.extend(await asyncio.gather(*[one() for _ in range(10)]))

            garbage = await _cyclic_garbage_async(run)
            return out, garbage
        finally:
            await app.gateway.close()
            server.close()
            await server.wait_closed()

    return asyncio.run(main())


async def _cyclic_garbage_async(run: Callable[[], Any]) -> Counter[str]:
    gc.collect()
    gc.garbage.clear()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        await run()
        gc.collect()
        return Counter(type(o).__qualname__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


async def post(app: Any, body: bytes) -> list[dict[str, Any]]:
    """The ASGI messages the app sends for one POST of `body` (an OpenAI Chat request) to
    /v1/chat/completions, driven directly (no server); the client stays until the answer ends."""
    scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1", "method": "POST",
             "scheme": "http", "path": "/v1/chat/completions", "raw_path": b"/v1/chat/completions", "query_string": b"",
             "root_path": "", "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 2), "state": {},
             "headers": [(b"content-type", b"application/json"), (b"authorization", b"Bearer sk-test"),
                         (b"content-length", str(len(body)).encode())]}
    given = asyncio.Event()
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if not given.is_set():
            given.set()
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # the client never leaves
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_gateway_requests_leave_no_reference_cycles(stream: bool) -> None:
    answers, garbage = _serve_requests(30, stream)
    assert len(answers) == 30 and all(b"Hello." in a or b"Hel" in a for a in answers)
    assert not garbage, f"requests through the gateway left cyclic garbage: {dict(garbage)}"


def _records() -> list[dict[str, Any]]:
    out = []
    for path in sorted(RECORDED.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            record = json.loads(line)
            record["_where"] = f"{path.name}:{n}"
            out.append(record)
    return out


OTHER = {"openai_chat": "anthropic_messages"}


@pytest.mark.skipif(not RECORDED.is_dir(), reason="the recorded traffic (../shared/recorded) is not here")
def test_recorded_traffic_leaves_no_reference_cycles() -> None:
    """Every recorded request, response and stream, read and written back, and translated to one
    other format (the fused translators included), leaves no cyclic garbage: what a gateway
    worker relies on to collect rarely. Streams that end in an error are in it too (the error
    kept on `StreamTranslation.error` holds no traceback, whose frames would hold the translation)."""
    warnings.simplefilter("ignore")
    runs: list[tuple[str, Callable[[], None]]] = []
    for record in _records():
        try:
            fmt = wiremap.get_format(record["format"])
        except wiremap.UnknownFormatError:
            continue
        if fmt.kind != "chat" or record["kind"] not in ("request", "response", "stream"):
            continue
        run = _converters(record, fmt, OTHER.get(fmt.key, "openai_chat"))
        try:
            run()  # the first run's lazy imports and caches
        except _Refused:
            continue
        runs.append((record["_where"], run))
    assert len(runs) > 1000
    found: dict[str, Counter[str]] = {}
    for i in range(0, len(runs), 200):  # one collection for 200 records; a record at a time where one leaves some
        batch = runs[i:i + 200]
        if _cyclic_garbage(lambda: [run() for _, run in batch]):
            found.update((where, garbage) for where, run in batch if (garbage := _cyclic_garbage(run)))
    assert not found, f"{len(found)} records left cyclic garbage, e.g. {next(iter(found.items()))}"


def _converters(record: dict[str, Any], fmt: Any, other: str) -> Callable[[], None]:
    """What a user does with a record: read and write it back, translate it (the fused translator
    and translate_*), or translate its stream; `_Refused` for one the converters refuse."""
    kind = record["kind"]

    def run() -> None:
        try:
            if kind == "request":
                body = record["body"]
                fmt.request_to_wire(fmt.request_from_wire(body))
                wiremap.translate_request(body, fmt, other)
                wiremap.translator(fmt, other).request(body)
            elif kind == "response":
                fmt.response_to_wire(fmt.response_from_wire(record["body"]))
                wiremap.translate_response(record["body"], fmt, other)
                wiremap.translator(fmt, other).response(record["body"])
            else:
                data = record["sse"].encode()
                for target in (fmt.key, other):
                    translation = translate_stream(parse_stream(data, fmt), fmt, target)
                    for _ in translation:  # a stream that ends in an error keeps it on `error`
                        pass
        except (ProviderError, ValueError):
            raise _Refused from None

    return run


class _Refused(Exception):
    """A record the converters refuse (their typed error): its error holds its traceback."""


def test_serve_worker_tunes_gc(saved_gc: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """`wiremap serve`'s worker app (app_from_env) freezes what it loaded and raises the first
    threshold at start-up; with WIREMAP_GATEWAY_GC=default it leaves both alone. An app made with
    create_app (embedded in someone else's server) never touches the process's GC."""
    config = json.dumps({"inbound": "openai_chat", "upstream": "anthropic_messages", "upstream_url": "http://127.0.0.1:9"})
    monkeypatch.setenv(gw.CONFIG_ENV, config)

    def started(app: Any) -> tuple[tuple[int, int, int], int]:
        async def main() -> None:
            queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            await queue.put({"type": "lifespan.startup"})
            out: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            task = asyncio.ensure_future(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, queue.get, out.put))
            assert (await out.get())["type"] == "lifespan.startup.complete"
            await queue.put({"type": "lifespan.shutdown"})
            assert (await out.get())["type"] == "lifespan.shutdown.complete"
            await task

        gc.unfreeze()
        gc.set_threshold(700, 10, 10)
        asyncio.run(main())
        return gc.get_threshold(), gc.get_freeze_count()

    threshold, frozen = started(gw.app_from_env())
    assert threshold == (gw.GC_THRESHOLD, 10, 10)
    assert frozen > 1000  # the modules, the app and the server's objects
    assert "wiremap.generated.fused__openai_chat__TO__anthropic_messages" in sys.modules  # loaded before the freeze

    monkeypatch.setenv(gw.GC_ENV, "default")
    assert started(gw.app_from_env()) == ((700, 10, 10), 0)
    monkeypatch.delenv(gw.GC_ENV)
    assert started(gw.create_app("openai_chat", "anthropic_messages", "http://127.0.0.1:9")) == ((700, 10, 10), 0)

"""A real HTTP server on 127.0.0.1 for the Provider tests (tests/runtime, tests/conformance).

`LoopbackServer(handler)` listens on an ephemeral port, one thread per connection (HTTP/1.1,
keep-alive). `handler(seen) -> Reply` decides each answer; `Reply` can also misbehave:

    Reply(200, body)                    a JSON (dict/list), text (str) or raw (bytes) body
    Reply(..., delay=0.2)               sleep before answering
    Reply.hang()                        never answer (until the server stops)
    Reply.close()                       read the request, close the connection, no response
    Reply.reset()                       close with a TCP RST (SO_LINGER 0)
    Reply.truncated(body)               announce Content-Length, send half the body, close

The server records every request (`requests`) and the largest number it was serving at once
(`max_in_flight`).
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import traceback
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from urllib.parse import parse_qs, urlsplit


@dataclass
class Seen:
    """One request as the server received it."""

    method: str
    path: str  # without the query
    raw_path: str  # as sent, query included
    query: dict[str, list[str]]
    headers: dict[str, str]  # lower-case names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    action: str = "respond"  # respond | hang | close | reset | truncate
    content_type: str | None = None

    @classmethod
    def hang(cls) -> "Reply":
        return cls(action="hang")

    @classmethod
    def close(cls) -> "Reply":
        return cls(action="close")

    @classmethod
    def reset(cls) -> "Reply":
        return cls(action="reset")

    @classmethod
    def truncated(cls, body: Any, status: int = 200) -> "Reply":
        return cls(status=status, body=body, action="truncate")

    def payload(self) -> tuple[bytes, str]:
        body = self.body
        if isinstance(body, bytes):
            return body, self.content_type or "application/octet-stream"
        if isinstance(body, str):
            return body.encode("utf-8"), self.content_type or "text/plain; charset=utf-8"
        if body is None:
            return b"", self.content_type or "application/json"
        return json.dumps(body).encode("utf-8"), self.content_type or "application/json"


Handler = Callable[[Seen], Reply]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 1024
    allow_reuse_address = True


class LoopbackServer:
    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.requests: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        owner = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                owner._handle(self)

            do_POST = do_GET
            do_PUT = do_GET
            do_DELETE = do_GET

        self._server = _Server(("127.0.0.1", 0), _Handler)
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    # context manager -----------------------------------------------------------------------
    def __enter__(self) -> "LoopbackServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # the handler ---------------------------------------------------------------------------
    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        split = urlsplit(h.path)
        seen = Seen(
            method=h.command,
            path=split.path,
            raw_path=h.path,
            query=parse_qs(split.query, keep_blank_values=True),
            headers={k.lower(): v for k, v in h.headers.items()},
            body=body,
        )
        with self._lock:
            self.requests.append(seen)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            try:
                reply = self.handler(seen)
            except Exception:  # a test bug: answer 599 with the traceback, and keep it
                text = traceback.format_exc()
                self.errors.append(text)
                reply = Reply(599, text)
            if reply.delay:
                time.sleep(reply.delay)
            self._act(h, reply)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _act(self, h: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.action == "hang":
            self._stop.wait(30)
            h.close_connection = True
            return
        if reply.action == "close":
            h.close_connection = True
            return
        if reply.action == "reset":
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            h.close_connection = True
            return
        payload, content_type = reply.payload()
        h.send_response(reply.status)
        names = {k.lower() for k in reply.headers}
        for name, value in reply.headers.items():
            h.send_header(name, value)
        if "content-type" not in names:
            h.send_header("Content-Type", content_type)
        h.send_header("Content-Length", str(len(payload)))
        if reply.action == "truncate":
            h.send_header("Connection", "close")
            h.end_headers()
            h.wfile.write(payload[: len(payload) // 2])
            h.wfile.flush()
            h.close_connection = True
            return
        h.end_headers()
        h.wfile.write(payload)


def refused_url() -> str:
    """A loopback URL nothing listens on (connection refused)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}"


# -- canned provider bodies ---------------------------------------------------------------------


def openai_body(
    content: str | None = "Hello!",
    *,
    id: str = "chatcmpl-1",
    model: str = "gpt-test",
    finish_reason: str = "stop",
    usage: dict[str, Any] | None = None,
    tool_calls: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": id,
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": (
            usage
            if usage is not None
            else {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
        ),
    }


def anthropic_body(
    text: str = "Hello!",
    *,
    id: str = "msg_1",
    model: str = "claude-test",
    stop_reason: str = "end_turn",
    usage: dict[str, Any] | None = None,
    content: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "id": id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content if content is not None else [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage if usage is not None else {"input_tokens": 11, "output_tokens": 7},
    }


def variant_format(key: str, **transport: Any) -> Any:
    """A copy of a registered format whose `transport:` table differs (None removes a key)."""
    import copy
    import types

    import wiremap

    base = wiremap.get_format(key)
    module = types.ModuleType(f"variant_{key.replace('.', '_')}")
    module.__dict__.update(vars(base.module))
    table = copy.deepcopy(base.module.TRANSPORT)
    for name, value in transport.items():
        if value is None:
            table.pop(name, None)
        else:
            table[name] = value
    module.TRANSPORT = table
    return wiremap.load_format(module)

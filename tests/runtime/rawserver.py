"""A raw TCP server on 127.0.0.1 for answers `loopback.LoopbackServer` cannot give: bytes that
trickle in, keep-alive comments only, a connection held open until the peer leaves.

    with RawServer(trickle(b"...", every=0.3)) as server:   # server.url
        ...
    server.peer_closed.wait(10)   # set when a client closed a connection the server held

`act(conn, head)` gets the socket and the request head (+ whatever body bytes arrived with it);
every action is bounded in time (at most `RawServer.LIMIT` seconds), so a test that goes wrong
ends instead of hanging.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Callable

Act = Callable[[socket.socket, bytes], None]


class RawServer:
    LIMIT = 20.0

    def __init__(self, act: Act) -> None:
        self.act = act
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.stop_event = threading.Event()
        self.peer_closed = threading.Event()
        self.requests: list[bytes] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> "RawServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_event.set()
        try:
            self.sock.close()
        finally:
            self._thread.join(5)

    def _serve(self) -> None:
        self.sock.settimeout(0.1)
        while not self.stop_event.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        conn.settimeout(self.LIMIT)
        try:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                head += chunk
            self.requests.append(head)
            self.act(conn, head)
        except OSError:
            pass
        finally:
            conn.close()


def trickle(headers: bytes, body: bytes, every: float, server: "list[RawServer]") -> Act:
    """Send `headers`, then `body` one byte every `every` seconds (stops when the server stops or
    the peer leaves)."""

    def act(conn: socket.socket, head: bytes) -> None:
        conn.sendall(headers)
        for i in range(len(body)):
            if server and server[0].stop_event.wait(every):
                return
            conn.sendall(body[i : i + 1])

    return act


def hold_until_peer_leaves(server: "list[RawServer]") -> Act:
    """Answer nothing; set `peer_closed` when the client closes the connection."""

    def act(conn: socket.socket, head: bytes) -> None:
        deadline = time.monotonic() + RawServer.LIMIT
        conn.settimeout(0.1)
        while time.monotonic() < deadline and not server[0].stop_event.is_set():
            try:
                data = conn.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
        else:
            return
        server[0].peer_closed.set()

    return act

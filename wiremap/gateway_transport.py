"""The gateway's upstream HTTP/1.1 transport: keep-alive connections over asyncio streams,
under httpx (an `httpx.AsyncBaseTransport`; the gateway's `httpx.AsyncClient` and so
`Provider` use it unchanged).

It replaces httpcore's connection pool for the gateway only: at saturation behind a 20 ms
upstream, httpcore's pool bookkeeping (it re-checks every pooled connection, a getpeername and
a poll() each, whenever a request starts or ends) and its per-request anyio scopes were a third
of the gateway's CPU (bench/NOTES.md). Here a request takes an idle connection from a list (or
opens one), writes the head and body, reads the head, and hands httpx a body stream that puts
the connection back when it has been read to its end (closes it otherwise).

Semantics kept from httpx/httpcore, which `Provider` relies on: the request's timeouts
(`connect`, `read`, `write` from `request.extensions["timeout"]`) raise `httpx.ConnectTimeout`,
`httpx.ReadTimeout`, `httpx.WriteTimeout`; a refused or failed connection is
`httpx.ConnectError`; a connection closed before the answer is complete is
`httpx.RemoteProtocolError`. Bodies framed by Content-Length, chunked, or the connection's end.
A request that fails on a reused idle connection before any byte of the answer arrived is
sent once more on a new connection (the server had closed the idle one). No proxies (the
gateway's client never used them: it passes its own transport), no HTTP/2.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx

__all__ = ["LeanClient", "LeanTransport"]

_HEAD_LIMIT = 1 << 20  # bytes of status line and headers at most
_NO_BODY = frozenset({204, 304})


class _Conn:
    __slots__ = ("reader", "writer", "key", "idle_since")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, key: tuple[str, str, int]) -> None:
        self.reader = reader
        self.writer = writer
        self.key = key
        self.idle_since = 0.0

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:  # noqa: BLE001 - closing a broken transport must not raise
            pass


class _Body(httpx.AsyncByteStream):
    """The response body as httpx reads it; the connection goes back to the pool at its end."""

    def __init__(self, transport: "LeanTransport", conn: _Conn, request: httpx.Request, length: int | None, chunked: bool, read_timeout: float | None) -> None:
        self._transport = transport
        self._conn: _Conn | None = conn
        self._request = request
        self._length = length
        self._chunked = chunked
        self._timeout = read_timeout
        self._complete = False
        self._reusable = True

    async def _read(self, how: Any, *args: Any) -> bytes:
        try:
            async with asyncio.timeout(self._timeout):
                data: bytes = await how(*args)
                return data
        except TimeoutError:
            raise httpx.ReadTimeout("timed out reading the response body", request=self._request) from None
        except asyncio.IncompleteReadError:
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body", request=self._request) from None
        except (OSError, asyncio.LimitOverrunError, ValueError) as exc:
            raise httpx.ReadError(f"{type(exc).__name__}: {exc}", request=self._request) from None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        conn = self._conn
        if conn is None:
            return
        reader = conn.reader
        if self._chunked:
            while True:
                line = await self._read(reader.readuntil, b"\r\n")
                try:
                    size = int(line.split(b";", 1)[0].strip(), 16)
                except ValueError:
                    raise httpx.RemoteProtocolError(f"malformed chunk size {line[:40]!r}", request=self._request) from None
                if size == 0:
                    while (await self._read(reader.readuntil, b"\r\n")) != b"\r\n":  # trailers
                        pass
                    break
                data = await self._read(reader.readexactly, size + 2)
                if data[-2:] != b"\r\n":
                    raise httpx.RemoteProtocolError("malformed chunk: no CRLF after its data", request=self._request)
                yield data[:-2]
        elif self._length is not None:
            left = self._length
            while left > 0:
                data = await self._read(reader.read, min(left, 65536))
                if not data:
                    raise httpx.RemoteProtocolError("peer closed connection without sending complete message body", request=self._request)
                left -= len(data)
                yield data
        else:  # until the connection ends
            self._reusable = False
            while True:
                data = await self._read(reader.read, 65536)
                if not data:
                    break
                yield data
        self._complete = True

    async def aclose(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            self._transport._release(conn, self._complete and self._reusable)


class LeanTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 keep-alive connections per (scheme, host, port); idle ones kept for
    `keepalive_expiry` seconds, at most `max_idle` per origin."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None, keepalive_expiry: float = 30.0, max_idle: int = 1024) -> None:
        self._ssl = ssl_context
        self._expiry = keepalive_expiry
        self._max_idle = max_idle
        self._idle: dict[tuple[str, str, int], list[_Conn]] = {}
        self._closed = False

    def _release(self, conn: _Conn, reusable: bool) -> None:
        if not reusable or self._closed or conn.writer.is_closing() or conn.reader.at_eof():
            conn.close()
            return
        idle = self._idle.setdefault(conn.key, [])
        if len(idle) >= self._max_idle:
            conn.close()
            return
        conn.idle_since = time.monotonic()
        idle.append(conn)

    def _take(self, key: tuple[str, str, int]) -> _Conn | None:
        idle = self._idle.get(key)
        now = time.monotonic()
        while idle:
            conn = idle.pop()
            if now - conn.idle_since < self._expiry and not conn.writer.is_closing() and not conn.reader.at_eof():
                return conn
            conn.close()
        return None

    async def _open(self, request: httpx.Request, key: tuple[str, str, int], timeout: float | None) -> _Conn:
        scheme, host, port = key
        context: ssl.SSLContext | None = None
        if scheme == "https":
            context = self._ssl or ssl.create_default_context()
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(host, port, ssl=context, server_hostname=host if context else None, limit=_HEAD_LIMIT)
        except TimeoutError:
            raise httpx.ConnectTimeout(f"timed out connecting to {host}:{port}", request=request) from None
        except (OSError, ssl.SSLError) as exc:
            raise httpx.ConnectError(f"{type(exc).__name__}: {exc}", request=request) from None
        return _Conn(reader, writer, key)

    async def handle_async_request(self, request: httpx.Request, whole: bool = False) -> httpx.Response:
        """The response, its body streamed from the connection; `whole=True` (LeanClient's
        `request`): a body framed by Content-Length is read here, before the response is made,
        and the connection is back in the pool at once (`response.read()` then reads it from
        memory, content decoding included)."""
        if self._closed:
            raise httpx.ConnectError("the transport is closed", request=request)
        url = request.url
        scheme = url.scheme
        if scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"unsupported URL scheme {scheme!r}", request=request)
        port = url.port or (443 if scheme == "https" else 80)
        key = (scheme, url.host, port)
        timeouts = request.extensions.get("timeout") or {}
        body = await request.aread()
        target = url.raw_path or b"/"
        head = [request.method.encode("ascii"), b" ", target, b" HTTP/1.1\r\n"]
        for name, value in request.headers.raw:
            head += [name, b": ", value, b"\r\n"]
        head.append(b"\r\n")
        payload = b"".join(head) + body
        conn = self._take(key)
        reused = conn is not None
        while True:
            if conn is None:
                conn = await self._open(request, key, timeouts.get("connect"))
            try:
                return await self._exchange(request, conn, payload, timeouts, whole)
            except _StaleConnection:
                conn.close()
                if not reused:
                    raise httpx.RemoteProtocolError("server disconnected without sending a response", request=request) from None
                conn, reused = None, False  # the server had closed the idle connection: once more, on a new one
            except BaseException:
                conn.close()
                raise

    async def _exchange(self, request: httpx.Request, conn: _Conn, payload: bytes, timeouts: dict[str, Any], whole: bool = False) -> httpx.Response:
        writer, reader = conn.writer, conn.reader
        try:
            async with asyncio.timeout(timeouts.get("write")):
                writer.write(payload)
                await writer.drain()
        except TimeoutError:
            raise httpx.WriteTimeout("timed out sending the request", request=request) from None
        except OSError:
            raise _StaleConnection from None
        read_timeout = timeouts.get("read")
        try:
            async with asyncio.timeout(read_timeout):
                while True:
                    raw = await reader.readuntil(b"\r\n\r\n")
                    status, headers, version, reason = _parse_head(raw, request)
                    if status >= 200 or status == 101:
                        break  # 1xx interim answers are skipped
        except TimeoutError:
            raise httpx.ReadTimeout("timed out waiting for the response", request=request) from None
        except asyncio.IncompleteReadError as exc:
            if not exc.partial:
                raise _StaleConnection from None
            raise httpx.RemoteProtocolError("server disconnected in the middle of the response head", request=request) from None
        except asyncio.LimitOverrunError:
            raise httpx.RemoteProtocolError("the response head is too large", request=request) from None
        except OSError as exc:
            raise httpx.ReadError(f"{type(exc).__name__}: {exc}", request=request) from None
        length: int | None = None
        chunked = False
        close = version == b"HTTP/1.0"
        for name, value in headers:
            lname = name.lower()
            if lname == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    raise httpx.RemoteProtocolError(f"malformed Content-Length {value[:40]!r}", request=request) from None
            elif lname == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
            elif lname == b"connection":
                low = value.lower()
                close = b"close" in low or (close and b"keep-alive" not in low)
        if request.method == "HEAD" or status in _NO_BODY:
            length, chunked = 0, False
        if chunked:
            length = None
        if whole and length is not None:
            body = b""
            if length:
                try:
                    async with asyncio.timeout(read_timeout):
                        body = await reader.readexactly(length)
                except TimeoutError:
                    raise httpx.ReadTimeout("timed out reading the response body", request=request) from None
                except asyncio.IncompleteReadError:
                    raise httpx.RemoteProtocolError("peer closed connection without sending complete message body", request=request) from None
                except (OSError, ValueError) as exc:
                    raise httpx.ReadError(f"{type(exc).__name__}: {exc}", request=request) from None
            self._release(conn, not close)
            return httpx.Response(status_code=status, headers=headers, stream=httpx.ByteStream(body),
                                  extensions={"http_version": version, "reason_phrase": reason})
        stream = _Body(self, conn, request, length, chunked, read_timeout)
        if close:
            stream._reusable = False
        return httpx.Response(status_code=status, headers=headers, stream=stream,
                              extensions={"http_version": version, "reason_phrase": reason})

    async def aclose(self) -> None:
        self._closed = True
        for idle in self._idle.values():
            for conn in idle:
                conn.close()
        self._idle.clear()


class _StaleConnection(Exception):
    """The connection ended before any byte of the answer (an idle connection the server closed)."""


def _parse_head(raw: bytes, request: httpx.Request) -> tuple[int, list[tuple[bytes, bytes]], bytes, bytes]:
    lines = raw[:-4].split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
        raise httpx.RemoteProtocolError(f"malformed status line {lines[0][:60]!r}", request=request)
    headers: list[tuple[bytes, bytes]] = []
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not name or name != name.strip():
            raise httpx.RemoteProtocolError(f"malformed header line {line[:60]!r}", request=request)
        headers.append((name, value.strip()))
    return int(parts[1]), headers, parts[0], parts[2] if len(parts) > 2 else b""


_URL_CACHE = 256


class LeanClient(httpx.AsyncClient):
    """The gateway's `httpx.AsyncClient`: `request()` and `stream()` (what `Provider` calls) go
    straight to the transport when the call is a plain one, skipping the layers the gateway has
    no use for: URL merging (no base URL), query-param merging, cookies (its jar takes none),
    auth and redirect wrappers (none; redirects are not followed), event hooks (none). Those
    were a fifth of the gateway's CPU per request (bench/NOTES.md).

    What reaches the upstream is the same request httpx would send: the client's default headers
    (`accept`, `accept-encoding`, `connection`, `user-agent`) merged with the call's as
    `build_request` merges them, the client's timeouts in `extensions["timeout"]`, the same
    `httpx.Request` and `httpx.Response` (so content decoding and every httpx exception are
    httpx's own). Any call with more than a method, a URL, headers and content (params, json,
    cookies, auth, a timeout of its own...), a URL with userinfo (httpx makes it basic auth), a
    closed client, event hooks, client auth or mounted transports take httpx's own path unchanged."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._urls: dict[str, httpx.URL] = {}

    def _lean(self, method: str, url: Any, headers: Any, content: Any, kw: dict[str, Any]) -> httpx.Request | None:
        """The request httpx's `build_request` would make, or None: take httpx's own path."""
        if kw or not isinstance(url, str) or self.is_closed or self._event_hooks["request"] or self._event_hooks["response"] or self._auth is not None or self._mounts:
            return None
        if content is not None and not isinstance(content, bytes):
            return None
        parsed = self._urls.get(url)
        if parsed is None:
            parsed = httpx.URL(url)
            if parsed.userinfo or not parsed.is_absolute_url or str(self.base_url):
                return None
            if len(self._urls) >= _URL_CACHE:
                self._urls.clear()
            self._urls[url] = parsed
        merged: Any
        if not headers:
            merged = self.headers.raw
        elif type(headers) is dict:  # httpx's merge: the client's headers the call does not name, then the call's
            named = {str(k).lower() for k in headers}
            merged = [(k, v) for k, v in self.headers.raw if k.decode("ascii").lower() not in named]
            merged += headers.items()
        else:
            merged = httpx.Headers(self.headers)
            merged.update(headers)
        return httpx.Request(method, parsed, content=content, headers=merged, extensions={"timeout": self.timeout.as_dict()})

    async def request(self, method: str, url: Any, *, content: Any = None, headers: Any = None, params: Any = None, **kw: Any) -> httpx.Response:
        request = self._lean(method, url, headers, content, kw) if params is None else None
        if request is None:
            return await super().request(method, url, content=content, headers=headers, params=params, **kw)
        transport = self._transport
        if isinstance(transport, LeanTransport):
            response = await transport.handle_async_request(request, whole=True)
        else:
            response = await transport.handle_async_request(request)
        response.request = request
        try:
            if isinstance(response.stream, httpx.ByteStream):
                response.read()  # the body is in memory: decoded without the async iterators
            else:
                await response.aread()
        except BaseException:
            await response.aclose()
            raise
        return response

    def stream(self, method: str, url: Any, *, content: Any = None, headers: Any = None, params: Any = None, **kw: Any) -> Any:
        request = self._lean(method, url, headers, content, kw) if params is None else None
        if request is None:
            return super().stream(method, url, content=content, headers=headers, params=params, **kw)
        return _Streamed(self._transport, request)


class _Streamed:
    """`async with client.stream(...) as response`, the lean way: the response is closed (its
    connection released or dropped) when the block ends."""

    __slots__ = ("_transport", "_request", "_response")

    def __init__(self, transport: httpx.AsyncBaseTransport, request: httpx.Request) -> None:
        self._transport = transport
        self._request = request
        self._response: httpx.Response | None = None

    async def __aenter__(self) -> httpx.Response:
        response = await self._transport.handle_async_request(self._request)
        response.request = self._request
        self._response = response
        return response

    async def __aexit__(self, *exc_info: object) -> None:
        response, self._response = self._response, None
        if response is not None:
            await response.aclose()

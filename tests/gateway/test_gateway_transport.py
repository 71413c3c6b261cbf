"""The gateway's upstream transport (wiremap.gateway_transport) against a raw loopback server:
body framings, keep-alive reuse, an idle connection the server closed, broken answers (as
the httpx errors Provider maps), and no cookies carried from one caller to the next. The lean
client (`LeanClient`, the gateway's) sends the bytes httpx's own client sends, and raises the
same errors."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")

from wiremap.gateway_transport import LeanClient, LeanTransport  # noqa: E402

Handler = Callable[[bytes, asyncio.StreamWriter], Awaitable[bool]]  # request bytes -> keep the connection?


async def _serve(handler: Handler) -> tuple[asyncio.AbstractServer, str, list[int]]:
    """A server calling `handler` per request; the list counts the connections it accepted."""
    accepted: list[int] = []

    async def conn(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(1)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                m = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
                body = await reader.readexactly(int(m.group(1))) if m else b""
                if not await handler(head + body, writer):
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(conn, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}", accepted


def _run(handler: Handler, calls: Callable[[Any, str, list[int]], Awaitable[None]]) -> None:
    async def main() -> None:
        server, url, accepted = await _serve(handler)
        async with server, httpx.AsyncClient(transport=LeanTransport(), timeout=5) as client:
            await calls(client, url, accepted)

    asyncio.run(main())


def test_content_length_answers_reuse_one_connection() -> None:
    seen: list[bytes] = []

    async def handler(request: bytes, w: asyncio.StreamWriter) -> bool:
        seen.append(request)
        w.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{\"ok\":true}")
        await w.drain()
        return True

    async def calls(client: Any, url: str, accepted: list[int]) -> None:
        for i in range(3):
            r = await client.post(url + "/v1/messages?x=1", content=b'{"n":%d}' % i, headers={"x-api-key": "k"})
            assert r.status_code == 200 and r.json() == {"ok": True}
        assert len(accepted) == 1
        assert seen[2].startswith(b"POST /v1/messages?x=1 HTTP/1.1\r\n")
        assert b"\r\nx-api-key: k\r\n" in seen[2] and seen[2].endswith(b'\r\n\r\n{"n":2}')

    _run(handler, calls)


def test_chunked_answers_and_answers_ended_by_close() -> None:
    async def handler(request: bytes, w: asyncio.StreamWriter) -> bool:
        if b"chunked" in request:
            w.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n1;ext=1\r\n \r\n5\r\nworld\r\n0\r\nx-trailer: 1\r\n\r\n")
            await w.drain()
            return True
        w.write(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil the end")
        await w.drain()
        return False

    async def calls(client: Any, url: str, accepted: list[int]) -> None:
        r = await client.post(url, content=b"chunked")
        assert r.content == b"hello world"
        r = await client.post(url, content=b"chunked")  # the same connection, read to its end
        assert r.content == b"hello world" and len(accepted) == 1
        r = await client.post(url, content=b"close")
        assert r.content == b"until the end"
        r = await client.post(url, content=b"chunked")  # that connection was not reused
        assert r.content == b"hello world" and len(accepted) == 2

    _run(handler, calls)


def test_a_streamed_answer_arrives_in_pieces() -> None:
    async def handler(request: bytes, w: asyncio.StreamWriter) -> bool:
        w.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
        for part in (b"data: 1\n\n", b"data: 2\n\n"):
            w.write(b"%x\r\n%s\r\n" % (len(part), part))
            await w.drain()
            await asyncio.sleep(0.05)
        w.write(b"0\r\n\r\n")
        await w.drain()
        return True

    async def calls(client: Any, url: str, accepted: list[int]) -> None:
        async with client.stream("POST", url, content=b"{}") as r:
            parts = [p async for p in r.aiter_raw()]
        assert parts == [b"data: 1\n\n", b"data: 2\n\n"]

    _run(handler, calls)


def test_an_idle_connection_the_server_closed_is_replaced() -> None:
    async def handler(request: bytes, w: asyncio.StreamWriter) -> bool:
        w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
        await w.drain()
        return False  # closes after each answer without saying so

    async def calls(client: Any, url: str, accepted: list[int]) -> None:
        for _ in range(3):
            r = await client.post(url, content=b"x")
            assert r.content == b"ok"
            await asyncio.sleep(0.05)
        assert len(accepted) == 3

    _run(handler, calls)


@pytest.mark.parametrize("answer, error", [
    (b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhalf", httpx.RemoteProtocolError),
    (b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n", httpx.RemoteProtocolError),
    (b"HTTP/1.1 2x0 OK\r\n\r\n", httpx.RemoteProtocolError),
    (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", httpx.RemoteProtocolError),
    (b"", httpx.RemoteProtocolError),  # closed on a fresh connection: no answer at all
])
def test_broken_answers_are_httpx_errors(answer: bytes, error: type[Exception]) -> None:
    async def handler(request: bytes, w: asyncio.StreamWriter) -> bool:
        w.write(answer)
        await w.drain()
        return False

    async def calls(client: Any, url: str, accepted: list[int]) -> None:
        with pytest.raises(error):
            await client.post(url, content=b"x")

    _run(handler, calls)


def test_timeouts_and_refused_connections_are_httpx_errors() -> None:
    async def handler(request: bytes, w: asyncio.StreamWriter) -> bool:
        await asyncio.sleep(2)
        return False

    async def calls(client: Any, url: str, accepted: list[int]) -> None:
        with pytest.raises(httpx.ReadTimeout):
            await client.post(url, content=b"x", timeout=httpx.Timeout(0.2))

    _run(handler, calls)

    async def refused() -> None:
        server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        async with httpx.AsyncClient(transport=LeanTransport()) as client:
            with pytest.raises(httpx.ConnectError):
                await client.post(f"http://127.0.0.1:{port}/", content=b"x")

    asyncio.run(refused())


def test_the_gateway_client_keeps_no_cookies() -> None:
    from wiremap.gateway import create_app

    seen: list[bytes] = []

    async def handler(request: bytes, w: asyncio.StreamWriter) -> bool:
        seen.append(request)
        w.write(b"HTTP/1.1 200 OK\r\nset-cookie: session=caller-one; Path=/\r\ncontent-length: 2\r\n\r\n{}")
        await w.drain()
        return True

    async def main() -> None:
        server, url, _accepted = await _serve(handler)
        app = create_app("openai_chat", "anthropic_messages", url)
        async with server:
            client = app.gateway.http_client()
            await client.post(url + "/one", content=b"x")
            await client.post(url + "/two", content=b"x")
            await client.request("POST", url + "/three", content=b"x", headers={"x-api-key": "k"})  # Provider's call: the lean path
            await client.request("POST", url + "/four", content=b"x", headers={"x-api-key": "k"})
            await client.aclose()
        assert isinstance(client, LeanClient)
        for sent in seen[1:]:
            assert b"cookie" not in sent.lower().replace(b"set-cookie", b"")

    asyncio.run(main())


def _answer_ok(seen: list[bytes]) -> Handler:
    async def handler(request: bytes, w: asyncio.StreamWriter) -> bool:
        seen.append(request)
        if b"/sse" in request.split(b"\r\n", 1)[0]:
            w.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n9\r\ndata: 1\n\n\r\n0\r\n\r\n")
        else:
            w.write(b"HTTP/1.1 201 Created\r\ncontent-type: application/json\r\nx-up: 1\r\ncontent-length: 11\r\n\r\n{\"ok\":true}")
        await w.drain()
        return True
    return handler


@pytest.mark.parametrize("call", [
    {"content": b'{"n":1}', "headers": {"x-api-key": "k", "Accept": "application/json", "anthropic-version": "2023-06-01"}},
    {"content": b"{}", "headers": None},
    {"content": None, "headers": {"user-agent": "mine"}},
    {"content": b"{}", "headers": [("X-Api-Key", "k"), ("accept-ENCODING", "identity"), ("x-dup", "1"), ("x-dup", "2")]},
    {"content": b"{}", "headers": {"x-api-key": "k"}, "params": (("key", "q"),)},  # httpx's own path
])
def test_the_lean_client_sends_what_httpx_sends(call: dict[str, Any]) -> None:
    """Provider's two calls (`request` and `stream`) through LeanClient put the same bytes on
    the wire as through httpx.AsyncClient, and give back the same status, headers and body."""
    async def main() -> None:
        got: dict[str, list[Any]] = {}
        seen: list[bytes] = []
        server, url, _accepted = await _serve(_answer_ok(seen))
        async with server:
            for cls in (httpx.AsyncClient, LeanClient):
                seen.clear()
                out: list[Any] = []
                async with cls(transport=LeanTransport(), timeout=5) as client:
                    r = await client.request("POST", url + "/v1/messages?beta=true", **call)
                    out.append((r.status_code, r.reason_phrase, list(r.headers.raw), r.content, r.json(), str(r.request.url)))
                    async with client.stream("POST", url + "/sse", **call) as s:
                        out.append((s.status_code, s.headers["content-type"], [p async for p in s.aiter_bytes()]))
                got[cls.__name__] = [*out, list(seen)]
        assert got["LeanClient"] == got["AsyncClient"]

    asyncio.run(main())


def test_the_lean_client_raises_httpx_errors_and_decodes_content() -> None:
    import gzip

    async def handler(request: bytes, w: asyncio.StreamWriter) -> bool:
        if b"/slow" in request:
            await asyncio.sleep(2)
            return False
        if b"/broken" in request:
            w.write(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhalf")
            await w.drain()
            return False
        body = gzip.compress(b'{"zipped":true}')
        w.write(b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        await w.drain()
        return True

    async def main() -> None:
        server, url, _accepted = await _serve(handler)
        async with server, LeanClient(transport=LeanTransport(), timeout=httpx.Timeout(0.3)) as client:
            r = await client.request("POST", url + "/zip", content=b"x", headers={})
            assert r.json() == {"zipped": True}
            with pytest.raises(httpx.ReadTimeout):
                await client.request("POST", url + "/slow", content=b"x", headers={})
            with pytest.raises(httpx.RemoteProtocolError):
                await client.request("POST", url + "/broken", content=b"x", headers={})
            async with client.stream("POST", url + "/zip", content=b"x", headers={}) as s:
                assert await s.aread() == b'{"zipped":true}'
        with pytest.raises(RuntimeError, match="closed"):  # a closed client: httpx's own error
            await client.request("POST", url + "/zip", content=b"x", headers={})

    asyncio.run(main())


def test_the_lean_client_leaves_hooks_and_auth_to_httpx() -> None:
    """A LeanClient given event hooks or auth sends through httpx's own path: the hooks run and
    the auth header is sent, as with httpx.AsyncClient."""
    seen: list[bytes] = []

    async def main() -> None:
        server, url, _accepted = await _serve(_answer_ok(seen))
        hooked: list[str] = []

        async def hook(request: Any) -> None:
            hooked.append(str(request.url))

        async with server:
            async with LeanClient(transport=LeanTransport(), timeout=5, event_hooks={"request": [hook]}) as client:
                await client.request("POST", url + "/hooked", content=b"{}", headers={})
            async with LeanClient(transport=LeanTransport(), timeout=5, auth=("user", "pass")) as client:
                await client.request("POST", url + "/authed", content=b"{}", headers={})
        assert hooked == [url + "/hooked"]
        assert b"\r\nAuthorization: Basic dXNlcjpwYXNz\r\n" in seen[1]

    asyncio.run(main())

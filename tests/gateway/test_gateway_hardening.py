"""Gateway hardening (issue 15 items 1-13): keys, leaks, load shedding, body limits, deadlines,
disconnects, failures in the client's own envelope. Loopback servers only, every wait bounded."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
import httpx  # noqa: E402
import uvicorn  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import LoopbackServer, Reply, Seen, refused_url  # noqa: E402
from rawserver import RawServer, hold_until_peer_leaves, trickle  # noqa: E402
from test_gateway_sdks import Gateway, Upstream, anthropic_message  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from recorded import ALL  # noqa: E402

import wiremap  # noqa: E402
from wiremap.gateway import app_from_env, create_app  # noqa: E402

OPENAI_BODY = {"model": "claude-x", "messages": [{"role": "user", "content": "Hi"}]}
ANTHROPIC_BODY = {"model": "gpt-x", "max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}]}
CLIENT = {"authorization": "Bearer sk-client-key"}
OK = anthropic_message([{"type": "text", "text": "Hello!"}])


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


def _gateway(*args: Any, **kw: Any) -> Any:
    return Gateway(create_app(*args, **kw))


def _openai_error(r: httpx.Response) -> dict[str, Any]:
    assert r.headers["content-type"].startswith("application/json"), r.text
    body = r.json()
    assert set(body) == {"error"} and body["error"]["message"], body
    return body["error"]


# ------------------------------------------------------------------ 1: no key, no env fallback


def test_forwarding_without_a_client_key_is_401_and_never_uses_the_environment(upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-OPERATOR-env-key")
    upstream.replies.append(Reply(200, OK))
    gw = _gateway("openai_chat", "anthropic_messages", upstream.server.url)
    try:
        r = httpx.post(gw.url + "/v1/chat/completions", json=OPENAI_BODY, timeout=20)
        assert r.status_code == 401
        assert "key" in _openai_error(r)["message"]
        r = httpx.post(gw.url + "/v1/chat/completions", json={**OPENAI_BODY, "stream": True}, timeout=20)
        assert r.status_code == 401
        assert upstream.server.requests == []  # nothing reached the upstream, the operator's key least of all
        r = httpx.post(gw.url + "/v1/chat/completions", json=OPENAI_BODY, headers=CLIENT, timeout=20)
        assert r.status_code == 200 and upstream.last.headers["x-api-key"] == "sk-client-key"
    finally:
        gw.stop()


def test_anthropic_client_without_key_gets_its_own_401(upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-OPERATOR-env-key")
    gw = _gateway("anthropic_messages", "openai_chat", upstream.server.url)
    try:
        r = httpx.post(gw.url + "/v1/messages", json=ANTHROPIC_BODY, timeout=20)
        assert r.status_code == 401 and r.json()["error"]["type"] == "authentication_error"
        assert upstream.server.requests == []
    finally:
        gw.stop()


def test_upstream_key_env_that_is_unset_refuses_to_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-OPERATOR-env-key")
    monkeypatch.delenv("WIREMAP_TEST_UNSET_KEY", raising=False)
    monkeypatch.setenv("WIREMAP_GATEWAY_CONFIG", json.dumps({"inbound": "openai_chat", "upstream": "anthropic_messages", "upstream_api_key_env": "WIREMAP_TEST_UNSET_KEY"}))
    with pytest.raises(ValueError, match="WIREMAP_TEST_UNSET_KEY"):
        app_from_env()
    from wiremap.cli import main

    assert main(["serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages", "--upstream-api-key-env", "WIREMAP_TEST_UNSET_KEY", "--port", "1"]) == 2


# ------------------------------------------------------------------ 2: no upstream URL / credentials to clients


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
def test_transport_errors_are_generic_for_clients_and_detailed_in_the_log(streamed: bool, caplog: pytest.LogCaptureFixture) -> None:
    url = refused_url().replace("http://", "http://opsuser:PASSWORD-SENTINEL@")
    port = url.rsplit(":", 1)[1]
    gw = _gateway("openai_chat", "anthropic_messages", url)
    try:
        with caplog.at_level(logging.WARNING, logger="wiremap.gateway"):
            r = httpx.post(gw.url + "/v1/chat/completions", json={**OPENAI_BODY, "stream": streamed}, headers=CLIENT, timeout=20)
        assert r.status_code == 503
        err = _openai_error(r)
        text = r.text + json.dumps(dict(r.headers))
        for leak in ("PASSWORD-SENTINEL", "opsuser", "127.0.0.1", port, "/v1/messages", "sk-client-key"):
            assert leak not in text
        rid = r.headers["x-request-id"]
        assert rid in err["message"] and "provider_unavailable" in err["message"]
        logged = "\n".join(rec.getMessage() for rec in caplog.records if rec.name == "wiremap.gateway")
        assert rid in logged and "cannot connect" in logged and port in logged
        assert "PASSWORD-SENTINEL" not in logged
    finally:
        gw.stop()


def test_mid_stream_transport_error_is_generic_in_the_error_event() -> None:
    chunks = b"".join(
        b"event: %s\ndata: %s\n\n" % (name.encode(), json.dumps(data).encode())
        for name, data in [
            ("message_start", {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 0}}}),
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}}),
        ]
    )
    up = LoopbackServer(lambda seen: Reply.truncated(chunks + chunks))
    with up:
        url = up.url.replace("http://", "http://opsuser:PASSWORD-SENTINEL@")
        gw = _gateway("openai_chat", "anthropic_messages", url)
        try:
            r = httpx.post(gw.url + "/v1/chat/completions", json={**OPENAI_BODY, "stream": True}, headers=CLIENT, timeout=20)
            assert r.status_code == 200
            assert "Hel" in r.text and r.headers["x-request-id"] in r.text  # the error event names the request
            for leak in ("PASSWORD-SENTINEL", "opsuser", "127.0.0.1", str(up.port)):
                assert leak not in r.text
        finally:
            gw.stop()


# ------------------------------------------------------------------ 4: Gemini ?key= and the access log


def test_gemini_query_key_is_the_clients_key_and_stays_out_of_the_access_log(upstream: Upstream) -> None:
    upstream.replies.append(Reply(200, OK))
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    handler = Keep()
    access = logging.getLogger("uvicorn.access")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(create_app("gemini_generate_content", "anthropic_messages", upstream.server.url), log_level="info", lifespan="on"))
    access.addHandler(handler)  # after uvicorn configured logging
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        port = sock.getsockname()[1]
        body = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
        r = httpx.post(f"http://127.0.0.1:{port}/v1beta/models/claude-x:generateContent?key=GEMINI-CLIENT-KEY-SENTINEL", json=body, timeout=20)
        assert r.status_code == 200, r.text
        assert upstream.last.headers["x-api-key"] == "GEMINI-CLIENT-KEY-SENTINEL"
        deadline = time.monotonic() + 5
        while not lines and time.monotonic() < deadline:
            time.sleep(0.02)
        assert lines and any("generateContent" in line for line in lines)
        assert not any("SENTINEL" in line for line in lines)
    finally:
        access.removeHandler(handler)
        server.should_exit = True
        thread.join(10)


# ------------------------------------------------------------------ 5: bounded in-flight, shedding, SIGTERM


def test_past_max_in_flight_requests_are_shed_with_429_and_retry_after() -> None:
    release = threading.Event()

    sse = next(r for r in ALL if r.format == "anthropic_messages" and not r.error)

    def slow(seen: Seen) -> Reply:
        release.wait(10)
        if seen.json().get("stream"):
            return Reply(200, sse.body, content_type="text/event-stream")
        return Reply(200, OK)

    up = LoopbackServer(slow)
    with up:
        gw = _gateway("openai_chat", "anthropic_messages", up.url, max_in_flight=2)
        try:
            results: list[httpx.Response] = []

            def call(stream: bool) -> None:
                results.append(httpx.post(gw.url + "/v1/chat/completions", json={**OPENAI_BODY, "stream": stream}, headers=CLIENT, timeout=20))

            threads = [threading.Thread(target=call, args=(i % 2 == 1,)) for i in range(2)]
            for t in threads:
                t.start()
            deadline = time.monotonic() + 10
            while up.in_flight < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            shed = [httpx.post(gw.url + "/v1/chat/completions", json={**OPENAI_BODY, "stream": s}, headers=CLIENT, timeout=20) for s in (False, True, False)]
            health = httpx.get(gw.url + "/healthz", timeout=20)
            release.set()
            for t in threads:
                t.join(20)
            for r in shed:
                assert r.status_code == 429 and r.headers["retry-after"] == "1"
                assert _openai_error(r)["code"] == "rate_limit_exceeded"
            assert health.status_code == 200
            assert sorted(r.status_code for r in results) == [200, 200]
            assert up.max_in_flight == 2
            # the slots were given back: the next request is served
            r = httpx.post(gw.url + "/v1/chat/completions", json=OPENAI_BODY, headers=CLIENT, timeout=20)
            assert r.status_code == 200
        finally:
            release.set()
            gw.stop()


def test_sigterm_drains_and_exits(tmp_path: Path) -> None:
    """`wiremap serve` with a request stuck upstream: SIGTERM stops it (graceful timeout 1 s)."""
    holder: list[RawServer] = []
    with RawServer(hold_until_peer_leaves(holder)) as up:
        holder.append(up)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "wiremap", "serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages",
             "--upstream-url", up.url, "--port", str(port), "--graceful-timeout", "1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
        )
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            else:
                pytest.fail("the gateway did not start")
            stuck: list[Any] = []

            def call() -> None:
                try:
                    stuck.append(httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json=OPENAI_BODY, headers=CLIENT, timeout=30))
                except httpx.HTTPError as exc:
                    stuck.append(exc)

            t = threading.Thread(target=call)
            t.start()
            deadline = time.monotonic() + 10
            while not up.requests and time.monotonic() < deadline:
                time.sleep(0.02)
            assert up.requests, "the request reached the upstream"
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)  # raises (fails the test) if it does not exit
            t.join(30)
            assert stuck, "the client got an answer or a closed connection"
            with pytest.raises(httpx.ConnectError):
                httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)


# ------------------------------------------------------------------ 6: body limit, slow body, offload


def test_body_over_the_limit_is_413_before_parsing(upstream: Upstream) -> None:
    gw = _gateway("openai_chat", "anthropic_messages", upstream.server.url, max_body=1000)
    try:
        big = json.dumps({**OPENAI_BODY, "messages": [{"role": "user", "content": "x" * 2000}]}).encode()
        r = httpx.post(gw.url + "/v1/chat/completions", content=big, headers=CLIENT, timeout=20)
        assert r.status_code == 413 and "1000 bytes" in _openai_error(r)["message"]

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            for i in range(0, len(big), 100):
                yield big[i : i + 100]

        r = httpx.post(gw.url + "/v1/chat/completions", content=chunks(), headers=CLIENT, timeout=20)
        assert r.status_code == 413 and _openai_error(r)["type"] == "invalid_request_error"
        r = httpx.post(gw.url + "/v1/chat/completions", content=b"{" + b" " * 2000, headers=CLIENT, timeout=20)
        assert r.status_code == 413  # refused by size, not parsed (it is not even JSON)
        assert upstream.server.requests == []
    finally:
        gw.stop()


def test_content_length_larger_than_the_body_times_out(upstream: Upstream) -> None:
    gw = _gateway("anthropic_messages", "openai_chat", upstream.server.url, body_timeout=0.5)
    try:
        with socket.create_connection(("127.0.0.1", gw.port), timeout=20) as s:
            s.sendall(b"POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: k-1234\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"model\":")
            data = b""
            while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408")
        assert json.loads(body)["type"] == "error"
    finally:
        gw.stop()


def test_translation_on_a_worker_thread_gives_the_same_answer(upstream: Upstream) -> None:
    upstream.replies += [Reply(200, OK), Reply(200, OK)]
    answers = []
    for offload in (0, 10**9):  # 0: every body above 0 bytes is translated on a worker thread
        gw = _gateway("openai_chat", "anthropic_messages", upstream.server.url, offload_bytes=offload)
        try:
            r = httpx.post(gw.url + "/v1/chat/completions", json=OPENAI_BODY, headers=CLIENT, timeout=20)
            assert r.status_code == 200
            answers.append((r.json()["choices"], upstream.last.json()))
        finally:
            gw.stop()
    assert answers[0] == answers[1]


# ------------------------------------------------------------------ 7: deadline and disconnects


@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
def test_trickling_upstream_hits_the_gateway_timeout(streamed: bool) -> None:
    holder: list[RawServer] = []
    if streamed:
        head, body = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n", b": ping\n\n" * 20
    else:
        payload = json.dumps(OK).encode()
        head, body = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(payload), payload
    with RawServer(trickle(head, body, 0.25, holder)) as up:
        holder.append(up)
        gw = _gateway("openai_chat", "anthropic_messages", up.url, timeout=1.5)
        try:
            r = httpx.post(gw.url + "/v1/chat/completions", json={**OPENAI_BODY, "stream": streamed}, headers=CLIENT, timeout=20)
            assert r.status_code == 503
            assert "provider_unavailable" in _openai_error(r)["message"]
        finally:
            gw.stop()


# upstream calls on the serving loop (the default) and on a loop thread of their own
UPSTREAM_LOOPS = pytest.mark.parametrize("upstream_loop", ["", "thread"], ids=["one-loop", "loop-thread"])


@UPSTREAM_LOOPS
@pytest.mark.parametrize("streamed", [False, True], ids=["complete", "stream"])
def test_client_disconnect_cancels_the_upstream_call(streamed: bool, upstream_loop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIREMAP_GATEWAY_UPSTREAM_LOOP", upstream_loop)
    holder: list[RawServer] = []
    with RawServer(hold_until_peer_leaves(holder)) as up:
        holder.append(up)
        gw = _gateway("openai_chat", "anthropic_messages", up.url)
        try:
            body = json.dumps({**OPENAI_BODY, "stream": streamed}).encode()
            s = socket.create_connection(("127.0.0.1", gw.port), timeout=20)
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nauthorization: Bearer sk-client-key\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
            deadline = time.monotonic() + 10
            while not up.requests and time.monotonic() < deadline:
                time.sleep(0.02)
            assert up.requests, "the call reached the upstream"
            s.close()  # the client leaves
            assert up.peer_closed.wait(15), "the gateway closed its upstream connection"
        finally:
            gw.stop()


@UPSTREAM_LOOPS
def test_client_leaving_mid_stream_cancels_the_upstream_stream(upstream_loop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The upstream sends one event and then nothing; the client reads it and leaves: the
    gateway must close its upstream connection (the upstream sees EOF)."""
    monkeypatch.setenv("WIREMAP_GATEWAY_UPSTREAM_LOOP", upstream_loop)
    first = b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\n'
    first += b'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'
    first += b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}\n\n'
    holder: list[RawServer] = []
    wait_for_peer = hold_until_peer_leaves(holder)

    def act(conn: socket.socket, head: bytes) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n" + first)
        wait_for_peer(conn, head)

    with RawServer(act) as up:
        holder.append(up)
        gw = _gateway("openai_chat", "anthropic_messages", up.url)
        try:
            body = json.dumps({**OPENAI_BODY, "stream": True}).encode()
            s = socket.create_connection(("127.0.0.1", gw.port), timeout=20)
            s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nauthorization: Bearer sk-client-key\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
            got = b""
            while b"data: " not in got:  # the first translated event arrived
                chunk = s.recv(65536)
                assert chunk, "the gateway closed the stream"
                got += chunk
            assert got.startswith(b"HTTP/1.1 200")
            s.close()  # the client leaves mid-stream
            assert up.peer_closed.wait(15), "the gateway closed its upstream connection"
            assert (gw.server.config.app.gateway._loop_thread is not None) == (upstream_loop == "thread")
        finally:
            gw.stop()


def test_serve_has_a_timeout_flag() -> None:
    from wiremap.cli import main

    with pytest.raises(SystemExit):
        main(["serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages", "--timeout", "x"])
    assert main(["serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages", "--timeout", "0"]) == 2
    assert main(["serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages", "--max-in-flight", "0"]) == 2
    from wiremap.cli import _size

    assert (_size("32M"), _size("512k"), _size("1000")) == (32 * 1024 * 1024, 512 * 1024, 1000)
    with pytest.raises(SystemExit):
        main(["serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages", "--max-body", "lots"])


# ------------------------------------------------------------------ 8-13: failures in the client's own terms


@pytest.mark.parametrize("case", ["html", "empty", "truncated_json"])
def test_streamed_request_answered_without_sse_is_502(upstream: Upstream, case: str) -> None:
    reply = {
        "html": Reply(200, "<html>maintenance</html>", content_type="text/html"),
        "empty": Reply(200, b"", content_type="text/event-stream"),
        "truncated_json": Reply(200, b'{"id": "msg_1", "type": "mess', content_type="application/json"),
    }[case]
    upstream.replies.append(reply)
    gw = _gateway("openai_chat", "anthropic_messages", upstream.server.url)
    try:
        r = httpx.post(gw.url + "/v1/chat/completions", json={**OPENAI_BODY, "stream": True}, headers=CLIENT, timeout=20)
        assert r.status_code == 502
        assert _openai_error(r)["code"] == "invalid_upstream_response"
    finally:
        gw.stop()


def test_upstream_redirect_is_502_not_400(upstream: Upstream) -> None:
    upstream.replies.append(Reply(302, "", headers={"location": "http://127.0.0.1:9/x"}))
    gw = _gateway("anthropic_messages", "openai_chat", upstream.server.url)
    try:
        r = httpx.post(gw.url + "/v1/messages", json=ANTHROPIC_BODY, headers={"x-api-key": "sk-client-key"}, timeout=20)
        assert r.status_code == 502 and r.json()["error"]["type"] == "api_error"
        assert "127.0.0.1:9" not in r.text
        assert len(upstream.server.requests) == 1
    finally:
        gw.stop()


@pytest.mark.parametrize("header", [("authorization", b"Bearer sk-caf\xc3\xa9"), ("authorization", b"Bearer sk-\xff\xfe"), ("x-api-key", b"sk-\xe2\x82\xac")])
def test_non_ascii_client_key_is_401_not_502(upstream: Upstream, header: tuple[str, bytes]) -> None:
    for inbound, path, body in (("openai_chat", "/v1/chat/completions", OPENAI_BODY), ("anthropic_messages", "/v1/messages", ANTHROPIC_BODY)):
        gw = _gateway(inbound, "anthropic_messages" if inbound == "openai_chat" else "openai_chat", upstream.server.url)
        try:
            r = httpx.post(gw.url + path, json=body, headers=[header], timeout=20)
            assert r.status_code == 401, r.text
            assert "API key" in r.text
        finally:
            gw.stop()
    assert upstream.server.requests == []


def test_unknown_routes_and_methods_answer_in_the_inbound_envelope(upstream: Upstream) -> None:
    gw = _gateway("openai_chat", "anthropic_messages", upstream.server.url)
    try:
        r = httpx.get(gw.url + "/v1/chat/completions", timeout=20)
        assert r.status_code == 405 and r.headers["allow"] == "POST"
        assert "POST" in _openai_error(r)["message"]
        r = httpx.post(gw.url + "/v1/nope", json={}, timeout=20)
        assert r.status_code == 404 and "/v1/chat/completions" in _openai_error(r)["message"]
        r = httpx.post(gw.url + "/healthz", timeout=20)
        assert r.status_code == 405 and r.headers["allow"] == "GET"
    finally:
        gw.stop()
    gw = _gateway("anthropic_messages", "openai_chat", upstream.server.url)
    try:
        r = httpx.get(gw.url + "/v1/completions", timeout=20)
        assert r.status_code == 404 and r.json()["type"] == "error" and r.json()["error"]["message"]
    finally:
        gw.stop()


def test_upstream_500_reaches_anthropic_clients_as_api_error_500(upstream: Upstream) -> None:
    fmt = wiremap.get_format("anthropic_messages")
    assert fmt.error_to_wire(wiremap.UnavailableError("boom", status=500))[:2] == (500, {"type": "error", "error": {"type": "api_error", "message": "boom"}})
    assert fmt.error_to_wire(wiremap.ModelNotLoadedError("busy"))[0] == 529  # overload-like stays 529
    for overloaded in (503, 529):  # errors.emit when_upstream: an overloaded upstream stays overloaded
        status, body, _ = fmt.error_to_wire(wiremap.UnavailableError("busy", status=overloaded))
        assert (status, body["error"]["type"]) == (529, "overloaded_error")
    upstream.replies.append(Reply(500, {"error": {"message": "internal", "type": "server_error"}}))
    gw = _gateway("anthropic_messages", "openai_chat", upstream.server.url)
    try:
        r = httpx.post(gw.url + "/v1/messages", json=ANTHROPIC_BODY, headers={"x-api-key": "sk-client-key"}, timeout=20)
        assert r.status_code == 500 and r.json()["error"]["type"] == "api_error"
    finally:
        gw.stop()


@pytest.mark.parametrize("value", ["yes", 1, "true", {}])
def test_stream_must_be_a_boolean(upstream: Upstream, value: Any) -> None:
    gw = _gateway("openai_chat", "anthropic_messages", upstream.server.url)
    try:
        r = httpx.post(gw.url + "/v1/chat/completions", json={**OPENAI_BODY, "stream": value}, headers=CLIENT, timeout=20)
        assert r.status_code == 400
        message = _openai_error(r)["message"]
        assert message.startswith("stream:") and "boolean" in message
        assert upstream.server.requests == []
    finally:
        gw.stop()

"""The gateway against LiteLLM's proxy (issue 19, target 4 and the stream part of 5).

    .venv-bench/bin/python bench/gateway_vs_litellm.py [--rss-requests N] [--no-write]
    .venv/bin/python bench/gateway_vs_litellm.py --quick [--gateway-root DIR] [--py-spy PREFIX] [--out FILE]

One fake Anthropic upstream (fixed 20 ms before it answers, a canned message or its SSE stream),
`wiremap serve --inbound openai_chat --upstream anthropic_messages` (one worker) and LiteLLM's
proxy (`litellm --config`, one worker, model `anthropic/claude-x` at the fake), the same OpenAI
Chat requests to each, non-streamed and streamed. Each server under test is pinned to CPU 1
(`taskset`), the fake and the load client to CPU 0, so "per worker process" means one core.

Baselines (the same OpenAI requests, the same pinning): a pass-through on the gateway's stack
(a bare ASGI app under uvicorn as `wiremap serve` runs it, over the gateway's LeanClient) and a
raw asyncio pass-through (no HTTP framework), each forwarding the body unchanged to the fake's
/v1/chat/completions, where the fake answers with the bytes the gateway answers this request
with, and the answer back unchanged. Gateway - pass-through is what translation and wiremap's
handling add; pass-through - direct is what any proxy on this stack adds here.

Measured, for each server and mode:
- saturation: requests per second with CONCURRENCY keep-alive clients sending back to back;
- added latency: an open-loop load at RATE requests per second (each request timed from its
  scheduled start, so a stall counts against every request it delays), minus the same load
  against the fake directly: p50 and p99 of the whole response, and for streams of the first
  body byte (TTFB). The load is taken in rounds of ROUND_SECONDS, every target (the direct
  calls, the gateway, the pass-throughs; all kept running) once per round in turns, each round
  after WARM_SECONDS of untimed load, the percentiles over all rounds together: a change in the
  shared machine's load falls on every target alike;
- memory: RSS after a warm-up and after `--rss-requests` more requests (default 100 000 for the
  gateway; LiteLLM gets the same count unless `--litellm-rss-requests` says otherwise).

`--quick` measures the gateway alone (no LiteLLM, no RSS run, shorter runs: about a minute and a
half; `--only wiremap --only passthrough --only raw` adds the baselines) and writes nothing unless
`--out` names a JSON file: for A/B runs while changing the gateway.
`--gateway-root DIR` runs `wiremap serve` from DIR (a `wiremap` package laid out there, e.g. an
older commit's tree with `runtime/` and `generated/` copied under `wiremap/`), so two versions can
be measured in alternating runs by the same harness. `--py-spy PREFIX` records the gateway with
py-spy during each saturation run (PREFIX-plain.txt, PREFIX-stream.txt, collapsed stacks).

Results: bench/gateway-vs-litellm-results.json and the "Gateway against LiteLLM's proxy"
section of bench/RESULTS.md (which `make bench` rewrites from the JSON; `--run` makes
`bench/run.py` measure again). Only 127.0.0.1 is used; every process is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "RESULTS.md"
OUT = HERE / "gateway-vs-litellm-results.json"
TITLE = "## Gateway against LiteLLM's proxy"
PASSTHROUGHS = ("passthrough", "raw")  # server names of the pass-through baselines
LABELS = {"passthrough": "pass-through (uvicorn, no translation)", "raw": "pass-through (raw asyncio)"}
HOST = "127.0.0.1"
UPSTREAM_DELAY = 0.020
CONCURRENCY = 100
SATURATION_SECONDS = 15.0
RATE = 200
RATE_SECONDS = 20.0
ROUND_SECONDS = 5.0  # the RATE_SECONDS of each target are taken in rounds this long, the targets in turns
WARM_SECONDS = 0.5  # untimed load at RATE before each round (connections opened on both hops)
WARMUP = 2000
REQUEST_TIMEOUT = 30.0
SERVER_CPU, CLIENT_CPU = "1", "0"
KEY = b"sk-wiremap-bench-5f2c9a7e1d3b4c6a8e0f1a2b3c4d5e6f"  # the client's key: LiteLLM's master key, forwarded by wiremap

sys.path.insert(0, str(HERE))
from load_gateway import ANTHROPIC_ANSWER, ANTHROPIC_STREAM  # noqa: E402

OPENAI_BODY = {"model": "claude-x", "max_completion_tokens": 32, "messages": [{"role": "user", "content": "Say hello."}]}
ANTHROPIC_BODY = {"model": "claude-x", "max_tokens": 32, "messages": [{"role": "user", "content": [{"type": "text", "text": "Say hello."}]}]}
_STREAM_FLAG = re.compile(rb'"stream"\s*:\s*true')
_CONTENT_LENGTH = re.compile(rb"(?i)\r\ncontent-length:\s*(\d+)")
OPENAI_PATH = "/v1/chat/completions"


def _openai_chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {"id": "msg_1", "object": "chat.completion.chunk", "created": 0, "model": "claude-x",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


# What `wiremap serve` answers the benchmark's OpenAI request with, byte for byte (its translation
# of ANTHROPIC_ANSWER / ANTHROPIC_STREAM): the fake answers a POST to OPENAI_PATH with these, so a
# pass-through in front of it hands the load client the same bytes the gateway does.
OPENAI_ANSWER = _compact({
    "id": "msg_1", "object": "chat.completion", "created": 0, "model": "claude-x",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hello from the fake upstream."}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 9, "completion_tokens": 7, "total_tokens": 16},
})
OPENAI_STREAM = b"".join(b"data: %s\n\n" % _compact(c) for c in [
    _openai_chunk({"role": "assistant"}, None),
    *[_openai_chunk({"content": w}, None) for w in ("Hello ", "from ", "the ", "fake ", "upstream.")],
    _openai_chunk({}, "stop"),
]) + b"data: [DONE]\n\n"


# ------------------------------------------------------------------------------ fake upstream


def _fast_loop() -> None:
    try:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass


async def _fake_conn(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            m = _CONTENT_LENGTH.search(head)
            body = await reader.readexactly(int(m.group(1))) if m else b""
            streamed = _STREAM_FLAG.search(body) is not None
            if head.startswith(b"POST %s " % OPENAI_PATH.encode()):  # what the gateway would answer
                payload = OPENAI_STREAM if streamed else OPENAI_ANSWER
            else:
                payload = ANTHROPIC_STREAM if streamed else ANTHROPIC_ANSWER
            ctype = b"text/event-stream" if streamed else b"application/json"
            await asyncio.sleep(UPSTREAM_DELAY)
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: %s\r\ncontent-length: %d\r\n\r\n%s" % (ctype, len(payload), payload))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


def fake_upstream(port: int) -> None:
    """Every POST answered after UPSTREAM_DELAY with the Anthropic message, or its SSE stream
    when the body says `"stream": true` (keep-alive HTTP/1.1); a POST to OPENAI_PATH with the
    OpenAI Chat answer (or stream) the gateway makes of them, for the pass-throughs."""
    _fast_loop()

    async def main() -> None:
        server = await asyncio.start_server(_fake_conn, HOST, port, backlog=4096)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


# ------------------------------------------------------------------------------ pass-throughs


# What a pass-through sends the upstream of the client's headers, and what it does not send back
_FORWARD = frozenset({b"content-type", b"authorization", b"x-api-key"})
_HOP = frozenset({b"connection", b"keep-alive", b"transfer-encoding", b"content-length", b"date", b"server"})


def passthrough_app(upstream_url: str, max_in_flight: int = 1024, timeout: float = 60.0) -> Any:
    """The smallest proxy on the gateway's stack: a bare ASGI app (no Starlette) over the upstream
    client `wiremap serve` builds (`_Gateway.http_client`: LeanClient over LeanTransport, the same
    timeout, idle-connection limit, no redirects, a jar that keeps no cookies). A POST goes to the
    upstream at the same path with the client's body unchanged (and its content-type and key
    headers); the answer comes back unchanged: whole (Content-Length) when the body does not ask
    for a stream, else each piece as it arrives (chunked), as the gateway streams. No parsing of
    the body beyond the `"stream": true` search, no translation, no loss report, no Provider."""
    import http.cookiejar

    import httpx

    from wiremap.gateway_transport import LeanClient, LeanTransport
    from wiremap.runtime.http_support import default_ssl_context

    client = LeanClient(
        timeout=httpx.Timeout(timeout),
        transport=LeanTransport(ssl_context=default_ssl_context(), max_idle=max_in_flight),
        follow_redirects=False,
        cookies=http.cookiejar.CookieJar(policy=http.cookiejar.DefaultCookiePolicy(allowed_domains=[])),
    )
    base = upstream_url.rstrip("/")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                msg = await receive()
                if msg["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif msg["type"] == "lifespan.shutdown":
                    await client.aclose()
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        if scope["method"] != "POST":  # the health check
            await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"ok"})
            return
        msg = await receive()
        body = msg.get("body", b"")
        while msg.get("more_body"):
            msg = await receive()
            body += msg.get("body", b"")
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"] if k in _FORWARD}
        url = base + scope["path"]
        try:
            if _STREAM_FLAG.search(body) is None:
                r = await client.request("POST", url, content=body, headers=headers)
                out = [(k, v) for k, v in r.headers.raw if k.lower() not in _HOP]
                content = r.content
                out.append((b"content-length", b"%d" % len(content)))
                await send({"type": "http.response.start", "status": r.status_code, "headers": out})
                await send({"type": "http.response.body", "body": content})
                return
            async with client.stream("POST", url, content=body, headers=headers) as r:
                await send({"type": "http.response.start", "status": r.status_code,
                            "headers": [(k, v) for k, v in r.headers.raw if k.lower() not in _HOP]})
                async for piece in r.aiter_raw():
                    await send({"type": "http.response.body", "body": piece, "more_body": True})
            await send({"type": "http.response.body", "body": b""})
        except httpx.HTTPError as exc:
            text = f"{type(exc).__name__}: {exc}".encode()
            await send({"type": "http.response.start", "status": 502, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": text})

    return app


def passthrough_uvicorn(port: int, upstream_port: int) -> None:
    """`passthrough_app` served as `wiremap serve` serves the gateway (wiremap/cli.py `_serve`):
    uvicorn.run, one worker (in this process), loop and HTTP parser `auto` (uvloop and httptools
    when installed), log level info, no access log, the same graceful-shutdown timeout."""
    import uvicorn

    uvicorn.run(passthrough_app(f"http://{HOST}:{upstream_port}"), host=HOST, port=port, workers=1,
                log_level="info", access_log=False, timeout_graceful_shutdown=30)


async def _raw_conn(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]], upstream_port: int) -> None:
    up: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            m = _CONTENT_LENGTH.search(head)
            body = await reader.readexactly(int(m.group(1))) if m else b""
            if not head.startswith(b"POST "):  # the health check
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok")
                continue
            up = idle.pop() if idle else await asyncio.open_connection(HOST, upstream_port, limit=1 << 20)
            up[1].write(head + body)  # the request as it came (the fake ignores the host header)
            uhead = await up[0].readuntil(b"\r\n\r\n")
            writer.write(uhead)  # the answer as it comes: head, then each piece of the body
            m = _CONTENT_LENGTH.search(uhead)
            left = int(m.group(1)) if m else 0  # the fake always sends Content-Length
            while left > 0:
                data = await up[0].read(min(left, 65536))
                if not data:
                    raise ConnectionError("upstream closed mid-body")
                left -= len(data)
                writer.write(data)
            idle.append(up)
            up = None
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        if up is not None:
            up[1].close()
        writer.close()


def passthrough_raw(port: int, upstream_port: int) -> None:
    """The floor of any proxy: asyncio streams on uvloop, no HTTP framework. Each request's head
    and body go to a kept-alive upstream connection unchanged, the answer's head and body back to
    the client unchanged as they arrive. Only as much HTTP as the benchmark needs (Content-Length
    framing both ways, no pipelining): two socket hops and two loop wake-ups per request."""
    _fast_loop()
    idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def main() -> None:
        server = await asyncio.start_server(lambda r, w: _raw_conn(r, w, idle, upstream_port), HOST, port, backlog=4096)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


# ------------------------------------------------------------------------------ load client


def _request(path: str, body: bytes) -> bytes:
    return (b"POST %s HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            b"authorization: Bearer %s\r\nx-api-key: %s\r\ncontent-length: %d\r\n\r\n%s"
            % (path.encode(), KEY, KEY, len(body), body))


async def _read_response(reader: asyncio.StreamReader, t0: float) -> tuple[int, bytes, float]:
    """(status, body, seconds to the first body byte after t0)."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    lower = head.lower()
    m = re.search(rb"\r\ncontent-length:\s*(\d+)", lower)
    if m:
        n = int(m.group(1))
        first = await reader.readexactly(min(1, n))
        ttfb = time.perf_counter() - t0
        return status, first + await reader.readexactly(n - len(first)), ttfb
    if b"\r\ntransfer-encoding: chunked" not in lower:
        raise ValueError("neither content-length nor chunked")
    parts: list[bytes] = []
    ttfb = 0.0
    while True:
        size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
        data = await reader.readexactly(size + 2)
        if size == 0:
            return status, b"".join(parts), ttfb
        if not parts:
            ttfb = time.perf_counter() - t0
        parts.append(data[:-2])


def _check(status: int, data: bytes, streamed: bool) -> bool:
    if status != 200:
        return False
    if streamed:
        return data.rstrip().endswith(b"data: [DONE]") or b"message_stop" in data
    return b'"choices"' in data or b'"content"' in data


class _Pool:
    """Keep-alive connections to one port, reused; a broken one is dropped."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []

    async def call(self, request: bytes, streamed: bool, t0: float) -> tuple[bool, float, float] | str:
        """(ok, seconds, ttfb seconds) from t0, or the name of the error."""
        conn = self.idle.pop() if self.idle else None
        for attempt in (0, 1):  # a kept-alive connection the server closed meanwhile: once more, on a new one
            reused = conn is not None
            try:
                if conn is None:
                    conn = await asyncio.wait_for(asyncio.open_connection(HOST, self.port, limit=1 << 20), REQUEST_TIMEOUT)
                conn[1].write(request)
                status, data, ttfb = await asyncio.wait_for(_read_response(conn[0], t0), REQUEST_TIMEOUT)
                break
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError) as exc:
                if conn is not None:
                    conn[1].close()
                conn = None
                stale = reused and attempt == 0 and (isinstance(exc, ConnectionError) or (isinstance(exc, asyncio.IncompleteReadError) and not exc.partial))
                if not stale:
                    return type(exc).__name__
        else:  # pragma: no cover - the loop always breaks or returns
            return "retry"
        took = time.perf_counter() - t0
        self.idle.append(conn)
        if not _check(status, data, streamed):
            return f"HTTP {status}"
        return True, took, ttfb

    def close(self) -> None:
        for _r, w in self.idle:
            w.close()
        self.idle.clear()


def _pct(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000


async def _saturate(port: int, request: bytes, streamed: bool, concurrency: int, seconds: float, limit: int) -> dict[str, Any]:
    """Closed loop: `concurrency` clients back to back for `seconds` (or `limit` requests)."""
    pool = _Pool(port)
    ok = 0
    errors: dict[str, int] = {}
    counter = iter(range(limit))
    stop_at = time.perf_counter() + seconds

    async def client() -> None:
        nonlocal ok
        for _ in counter:
            if time.perf_counter() > stop_at:
                break
            got = await pool.call(request, streamed, time.perf_counter())
            if isinstance(got, str):
                errors[got] = errors.get(got, 0) + 1
            else:
                ok += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(concurrency)))
    wall = time.perf_counter() - t0
    pool.close()
    return {"ok": ok, "errors": errors, "seconds": round(wall, 2), "rps": round(ok / wall, 1)}


async def _fixed_rate(port: int, request: bytes, streamed: bool, rate: float, seconds: float, warm: float = 0.0, samples: bool = False) -> dict[str, Any]:
    """Open loop: one request every 1/rate s, each timed from its scheduled start; first `warm`
    seconds of the same load untimed (the connections of both hops opened); `samples`: every
    latency and TTFB in the answer too (ms), to pool runs."""
    pool = _Pool(port)
    lat: list[float] = []
    ttfb: list[float] = []
    errors: dict[str, int] = {}
    n = int(rate * seconds)
    tasks: list[asyncio.Task[None]] = []
    if warm > 0:
        warming = []
        start = time.perf_counter()
        for i in range(int(rate * warm)):
            wait = start + i / rate - time.perf_counter()
            if wait > 0:
                await asyncio.sleep(wait)
            warming.append(asyncio.ensure_future(pool.call(request, streamed, time.perf_counter())))
        await asyncio.gather(*warming)

    async def one(t0: float) -> None:
        got = await pool.call(request, streamed, t0)
        if isinstance(got, str):
            errors[got] = errors.get(got, 0) + 1
        else:
            lat.append(got[1])
            ttfb.append(got[2])

    start = time.perf_counter() + 0.05
    for i in range(n):
        at = start + i / rate
        wait = at - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        tasks.append(asyncio.ensure_future(one(at)))
    await asyncio.gather(*tasks)
    pool.close()
    out = {"sent": n, "ok": len(lat), "errors": errors, "p50_ms": _pct(lat, 0.5), "p99_ms": _pct(lat, 0.99),
           "ttfb_p50_ms": _pct(ttfb, 0.5), "ttfb_p99_ms": _pct(ttfb, 0.99)}
    if samples:
        out["lat_ms"] = [round(x * 1000, 4) for x in lat]
        out["ttfb_ms"] = [round(x * 1000, 4) for x in ttfb]
    return out


def _client(job: str, port: int, streamed: bool, path: str, body: bytes, **kw: Any) -> dict[str, Any]:
    """One client job in a subprocess pinned to CLIENT_CPU (the server under test has its own)."""
    spec = json.dumps({"job": job, "port": port, "streamed": streamed, "path": path, "body": body.decode(), **kw})
    proc = subprocess.run(["taskset", "-c", CLIENT_CPU, sys.executable, str(Path(__file__).resolve()), "--client", spec],
                          capture_output=True, text=True, timeout=3600)
    if proc.returncode:
        raise RuntimeError(f"client {job} failed: {proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def client_main(spec_text: str) -> None:
    _fast_loop()
    spec = json.loads(spec_text)
    request = _request(spec["path"], spec["body"].encode())
    if spec["job"] == "saturate":
        out = asyncio.run(_saturate(spec["port"], request, spec["streamed"], spec["concurrency"], spec["seconds"], spec["limit"]))
    else:
        out = asyncio.run(_fixed_rate(spec["port"], request, spec["streamed"], spec["rate"], spec["seconds"],
                                      spec.get("warm", 0.0), spec.get("samples", False)))
    print(json.dumps(out))


# ------------------------------------------------------------------------------ processes


def _free_port() -> int:
    s = socket.socket()
    s.bind((HOST, 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def _wait_http(port: int, path: str, seconds: float = 120) -> None:
    import http.client

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            c = http.client.HTTPConnection(HOST, port, timeout=2)
            c.request("GET", path)
            c.getresponse().read()
            c.close()
            return
        except OSError:
            time.sleep(0.25)
    raise RuntimeError(f"nothing answers on {HOST}:{port}{path}")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def _rss_mb(pid: int) -> float:
    """RSS of `pid` and its children (a launcher's worker), MB."""
    total = 0
    pids = [pid]
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
        pids += [int(x) for x in out.split()]
    except OSError:
        pass
    for p in pids:
        try:
            m = re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{p}/status").read_text())
            total += int(m.group(1)) if m else 0
        except OSError:
            pass
    return round(total / 1024, 1)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` and its children (a launcher's worker), seconds."""
    pids = [pid]
    try:
        out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
        pids += [int(x) for x in out.split()]
    except OSError:
        pass
    ticks = 0
    for p in pids:
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return ticks / os.sysconf("SC_CLK_TCK")


def _servers(up_port: int, tmp: Path, gateway_python: str | None = None) -> dict[str, tuple[list[str], dict[str, str], str]]:
    """name -> (argv, extra env, health path) of each server under test, one worker each."""
    py = gateway_python or sys.executable
    gateway = [py, "-m", "wiremap", "serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages",
               "--upstream-url", f"http://{HOST}:{up_port}", "--host", HOST, "--port", "{port}",
               "--max-in-flight", "1024", "--timeout", "60", "--no-access-log", "--workers", "1"]
    servers = {"wiremap": (gateway, {}, "/healthz")}
    # the baselines: the same OpenAI requests forwarded unchanged to the fake's OPENAI_PATH
    me = str(Path(__file__).resolve())
    for kind in PASSTHROUGHS:
        servers[kind] = ([py, me, "--passthrough", kind, "--upstream-port", str(up_port), "--port", "{port}"], {}, "/healthz")
    litellm = shutil.which("litellm", path=str(Path(sys.executable).parent))
    if litellm:
        cfg = tmp / "litellm.yaml"
        cfg.write_text(
            "model_list:\n"
            "  - model_name: claude-x\n"
            "    litellm_params:\n"
            "      model: anthropic/claude-x\n"
            f"      api_base: http://{HOST}:{up_port}\n"
            "      api_key: sk-fake\n"
            "litellm_settings:\n"
            "  telemetry: false\n"
            "  drop_params: true\n"
            "  turn_off_message_logging: true\n"
            "  json_logs: false\n"
            "general_settings:\n"
            f"  master_key: {KEY.decode()}\n"
            "  disable_spend_logs: true\n"
        )
        env = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_LOG": "ERROR", "LITELLM_DONT_SHOW_FEEDBACK_BOX": "true",
               "DISABLE_SCHEMA_UPDATE": "true"}
        servers["litellm"] = ([litellm, "--config", str(cfg), "--host", HOST, "--port", "{port}", "--num_workers", "1"],
                              env, "/health/liveliness")
    return servers


def _pooled(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """One server's rate rounds as one run: counts summed, percentiles of every sample together,
    and each round's own p50 / p99 (the spread shows the noise)."""
    lat = [x for r in rounds for x in r["lat_ms"]]
    ttfb = [x for r in rounds for x in r["ttfb_ms"]]
    errors: dict[str, int] = {}
    for r in rounds:
        for k, v in r["errors"].items():
            errors[k] = errors.get(k, 0) + v

    def pct(xs: list[float], q: float) -> float | None:
        return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))] if xs else None

    return {"sent": sum(r["sent"] for r in rounds), "ok": len(lat), "errors": errors,
            "p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99), "ttfb_p50_ms": pct(ttfb, 0.5), "ttfb_p99_ms": pct(ttfb, 0.99),
            "rounds": len(rounds), "round_p50_ms": [round(r["p50_ms"], 3) for r in rounds if r["p50_ms"] is not None],
            "round_p99_ms": [round(r["p99_ms"], 3) for r in rounds if r["p99_ms"] is not None]}


def run(rss_requests: int, litellm_rss_requests: int, only: list[str] | None = None, gateway_python: str | None = None,
        quick: bool = False, gateway_root: str | None = None, py_spy: str | None = None) -> dict[str, Any]:
    saturation_seconds, rate_seconds = (8.0, 10.0) if quick else (SATURATION_SECONDS, RATE_SECONDS)
    rounds = max(1, round(rate_seconds / ROUND_SECONDS))
    up_port = _free_port()
    procs: list[subprocess.Popen[bytes]] = []
    load_before = os.getloadavg()

    def body_of(openai: bool, streamed: bool) -> bytes:
        return json.dumps({**(OPENAI_BODY if openai else ANTHROPIC_BODY), "stream": streamed}, separators=(",", ":")).encode()

    try:
        up = subprocess.Popen(["taskset", "-c", CLIENT_CPU, sys.executable, str(Path(__file__).resolve()), "--fake-upstream", str(up_port)],
                              stdout=subprocess.DEVNULL, start_new_session=True)
        procs.append(up)
        _wait_port(up_port)
        results: dict[str, Any] = {}
        # the direct call: the baseline every added latency is measured against
        direct: dict[str, Any] = {}
        for streamed in (False, True):
            direct["stream" if streamed else "plain"] = {
                "saturation": _client("saturate", up_port, streamed, "/v1/messages", body_of(False, streamed), concurrency=CONCURRENCY, seconds=saturation_seconds / 3, limit=10**7)}
        # (the fake's OPENAI_PATH, the pass-throughs' upstream call, answers the gateway's bytes rather than the
        # Anthropic ones: measured at 200 req/s too, it shows what that difference alone moves)
        direct_openai: dict[str, Any] = {"plain": {}, "stream": {}} if only is None or any(p in only for p in PASSTHROUGHS) else {}
        with tempfile.TemporaryDirectory(prefix="wiremap-vs-litellm-") as tmp:
            running: dict[str, tuple[subprocess.Popen[bytes], int]] = {}
            servers = _servers(up_port, Path(tmp), gateway_python)
            for name, (argv, env, health) in servers.items():
                if (only and name not in only) or name == "litellm":
                    continue
                port = _free_port()
                proc = subprocess.Popen(["taskset", "-c", SERVER_CPU, *[a.replace("{port}", str(port)) for a in argv]],
                                        cwd=str(gateway_root or ROOT) if name == "wiremap" else str(ROOT), env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
                procs.append(proc)
                _wait_http(port, health)
                running[name] = (proc, port)
            # saturation: one server at a time (the others idle on their core)
            for name, (proc, port) in running.items():
                results[name] = _saturation_runs(name, proc, port, saturation_seconds, py_spy)
            # at RATE req/s: `rounds` rounds of ROUND_SECONDS each, every target once per round in turns (the order
            # rotated each round), so a change in the machine's load falls on all of them alike; pooled per target
            targets: list[tuple[str, int, str, bool]] = [("direct", up_port, "/v1/messages", False)]
            if direct_openai:
                targets.append(("direct_openai", up_port, OPENAI_PATH, True))
            targets += [(name, port, OPENAI_PATH, True) for name, (_proc, port) in running.items()]
            for streamed in (False, True):
                mode = "stream" if streamed else "plain"
                got: dict[str, list[dict[str, Any]]] = {t[0]: [] for t in targets}
                for r in range(rounds):
                    for name, port, path, openai in targets[r % len(targets):] + targets[:r % len(targets)]:
                        got[name].append(_client("rate", port, streamed, path, body_of(openai, streamed), rate=RATE,
                                                 seconds=rate_seconds / rounds, warm=WARM_SECONDS, samples=True))
                for name, runs in got.items():
                    pooled = _pooled(runs)
                    (direct if name == "direct" else direct_openai if name == "direct_openai" else results[name])[mode]["rate"] = pooled
                    print(name, mode, "rate", json.dumps({k: v for k, v in pooled.items()}), flush=True)
            if "wiremap" in running and rss_requests:
                proc, port = running["wiremap"]
                results["wiremap"]["rss"] = _rss_run(proc, port, rss_requests)
                print("wiremap rss", results["wiremap"]["rss"], flush=True)
            for proc, _port in running.values():
                _stop(proc)
            # LiteLLM alone afterwards (a rate run only if it can take RATE req/s at all)
            if "litellm" in servers and (not only or "litellm" in only):
                argv, env, health = servers["litellm"]
                port = _free_port()
                proc = subprocess.Popen(["taskset", "-c", SERVER_CPU, *[a.replace("{port}", str(port)) for a in argv]],
                                        cwd=str(ROOT), env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
                procs.append(proc)
                _wait_http(port, health)
                row = results["litellm"] = _saturation_runs("litellm", proc, port, saturation_seconds, None)
                for streamed in (False, True):
                    mode = "stream" if streamed else "plain"
                    if row[mode]["saturation"]["rps"] >= RATE * 1.2:
                        row[mode]["rate"] = _client("rate", port, streamed, OPENAI_PATH, body_of(True, streamed), rate=RATE, seconds=rate_seconds, warm=WARM_SECONDS)
                if litellm_rss_requests:
                    row["rss"] = _rss_run(proc, port, litellm_rss_requests)
                _stop(proc)
    finally:
        for p in procs:
            _stop(p)
    return {
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}; Python {platform.python_version()}",
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
        "settings": {"upstream_delay_ms": UPSTREAM_DELAY * 1000, "concurrency": CONCURRENCY, "saturation_seconds": saturation_seconds,
                     "rate": RATE, "rate_seconds": rate_seconds, "rate_rounds": rounds, "warm_seconds": WARM_SECONDS,
                     "warmup": WARMUP, "quick": quick, "gateway_root": gateway_root},
        "versions": {d: _dist(d) for d in ("uvicorn", "uvloop", "httptools", "orjson", "starlette", "httpx", "litellm")},
        "direct": direct, "direct_openai": direct_openai, "servers": results,
    }


def _saturation_runs(name: str, proc: subprocess.Popen[bytes], port: int, saturation_seconds: float, py_spy: str | None) -> dict[str, Any]:
    """A server's row: its version, and per mode a warm-up and the saturation run with its CPU time."""
    row: dict[str, Any] = {"version": _version(name)}
    if name in LABELS:
        row["label"] = LABELS[name]
    for streamed in (False, True):
        body = json.dumps({**OPENAI_BODY, "stream": streamed}, separators=(",", ":")).encode()
        _client("saturate", port, streamed, OPENAI_PATH, body, concurrency=10, seconds=3, limit=500)  # warm-up
        spy = None
        if py_spy and name == "wiremap":
            out = f"{py_spy}-{'stream' if streamed else 'plain'}.txt"
            spy = subprocess.Popen([shutil.which("py-spy", path=str(Path(sys.executable).parent)) or "py-spy", "record", "-p", str(proc.pid), "-r", "200", "-d", str(int(saturation_seconds) - 1),
                                    "-f", "raw", "-o", out, "--nonblocking"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        cpu0 = _cpu_seconds(proc.pid)
        sat = _client("saturate", port, streamed, OPENAI_PATH, body, concurrency=CONCURRENCY, seconds=saturation_seconds, limit=10**7)
        cpu = _cpu_seconds(proc.pid) - cpu0
        if spy is not None:
            spy.wait(60)
        sat["cpu_ms_per_request"] = round(cpu * 1000 / max(sat["ok"], 1), 3)
        sat["cpu_share"] = round(cpu / sat["seconds"], 2)  # of one core
        row["stream" if streamed else "plain"] = {"saturation": sat}
        print(name, streamed, json.dumps(sat), flush=True)
    return row


def _rss_run(proc: subprocess.Popen[bytes], port: int, requests: int) -> dict[str, Any]:
    """RSS after WARMUP requests and after `requests` more."""
    body = json.dumps(OPENAI_BODY, separators=(",", ":")).encode()
    _client("saturate", port, False, OPENAI_PATH, body, concurrency=CONCURRENCY, seconds=3600, limit=WARMUP)
    before = _rss_mb(proc.pid)
    t0 = time.perf_counter()
    done = _client("saturate", port, False, OPENAI_PATH, body, concurrency=CONCURRENCY, seconds=3600, limit=requests)
    return {"after_warmup_mb": before, "requests": done["ok"], "errors": done["errors"],
            "after_mb": _rss_mb(proc.pid), "seconds": round(time.perf_counter() - t0, 1)}


def _wait_port(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {HOST}:{port}")


def _dist(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def _version(name: str) -> str:
    if name == "wiremap":
        import wiremap

        return str(wiremap.__version__)
    if name == "passthrough":
        return f"uvicorn {_dist('uvicorn')}"
    if name == "raw":
        return "asyncio + uvloop" if _dist("uvloop") != "not installed" else "asyncio"
    return _dist(name)


# ------------------------------------------------------------------------------ report


def _ms(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def targets(report: dict[str, Any]) -> list[tuple[str, str, bool | None]]:
    """(target, result, met) rows; met None when not measured."""
    rows: list[tuple[str, str, bool | None]] = []
    s = report["servers"]
    w, lite = s.get("wiremap"), s.get("litellm")
    for mode in ("plain", "stream"):
        label = "streamed" if mode == "stream" else "non-streamed"
        if w and lite:
            ws, ls = w[mode]["saturation"], lite[mode]["saturation"]
            r = ws["rps"] / max(ls["rps"], 1e-9)
            rows.append((f"≥ 10× LiteLLM's requests per second per worker, {label}: measured",
                         f"{ws['rps']:,.0f} ÷ {ls['rps']:,.0f} = {r:.1f}×", r >= 10))
            c = ls["cpu_ms_per_request"] / max(ws["cpu_ms_per_request"], 1e-9)
            rows.append((f"≥ 10× LiteLLM's requests per second per worker, {label}: per core-second of CPU (1000 ÷ CPU ms per request)",
                         f"{1000 / ws['cpu_ms_per_request']:,.0f} ÷ {1000 / ls['cpu_ms_per_request']:,.0f} = {c:.1f}× "
                         f"({ws['cpu_ms_per_request']:.2f} and {ls['cpu_ms_per_request']:.2f} CPU ms per request)", c >= 10))
        if w and "rate" in w[mode]:
            d = report["direct"][mode]["rate"]
            add99 = w[mode]["rate"]["p99_ms"] - d["p99_ms"]
            add50 = w[mode]["rate"]["p50_ms"] - d["p50_ms"]
            rows.append((f"added p99 ≤ 1 ms at {report['settings']['rate']} req/s, {label}",
                         f"p99 +{add99:.2f} ms (p50 +{add50:.2f} ms)", add99 <= 1.0))
    if w and "rate" in w["stream"]:
        d = report["direct"]["stream"]["rate"]
        add = w["stream"]["rate"]["ttfb_p99_ms"] - d["ttfb_p99_ms"]
        rows.append((f"stream: time to first byte added, p99 ≤ 1 ms at {report['settings']['rate']} req/s",
                     f"+{add:.2f} ms (p50 +{w['stream']['rate']['ttfb_p50_ms'] - d['ttfb_p50_ms']:.2f} ms)", add <= 1.0))
    if w:
        rss = w.get("rss")
        if rss:
            grew = rss["after_mb"] - rss["after_warmup_mb"]
            flat = grew <= max(5.0, 0.05 * rss["after_warmup_mb"])
            rows.append(("flat memory (RSS grows ≤ 5 MB or 5 % after the warm-up)",
                         f"{rss['after_warmup_mb']:.0f} MB after {report['settings']['warmup']:,} requests, "
                         f"{rss['after_mb']:.0f} MB after {rss['requests']:,} more", flat))
    return rows


def breakdown(report: dict[str, Any]) -> list[tuple[str, str, float | None, float | None, float | None, float | None, float | None]]:
    """(mode, part, p50, p99, TTFB p50, TTFB p99, CPU ms per request) rows: the gateway's added
    latency split at the pass-through baselines (differences of percentiles of one run)."""
    s = report["servers"]
    rows: list[tuple[str, str, float | None, float | None, float | None, float | None, float | None]] = []

    def rate(name: str, mode: str) -> dict[str, Any] | None:
        if name in ("direct", "direct_openai"):
            return report.get(name, {}).get(mode, {}).get("rate")  # type: ignore[no-any-return]
        return s[name][mode].get("rate") if name in s else None

    def cpu(name: str, mode: str) -> float | None:
        return s[name][mode]["saturation"]["cpu_ms_per_request"] if name in s else None

    parts = [("the harness's noise: direct at the OpenAI path − direct (the same load, nearly the same bytes, no proxy)", "direct_openai", "direct"),
             ("any proxy on this stack: uvicorn pass-through − direct", "passthrough", "direct"),
             ("the floor: raw asyncio pass-through − direct", "raw", "direct"),
             ("uvicorn + the upstream client over the floor: uvicorn − raw pass-through", "passthrough", "raw"),
             ("translation and wiremap's handling: gateway − uvicorn pass-through", "wiremap", "passthrough"),
             ("the whole (the target's figure): gateway − direct", "wiremap", "direct")]
    for mode in ("plain", "stream"):
        for part, a, b in parts:
            ra, rb = rate(a, mode), rate(b, mode)
            if ra is None or rb is None or not any(x in s for x in PASSTHROUGHS):
                continue
            ca, cb = cpu(a, mode), cpu(b, mode)
            c = ca if b == "direct" else (ca - cb if ca is not None and cb is not None else None)
            rows.append((mode, part, *(None if ra[k] is None or rb[k] is None else ra[k] - rb[k]
                                       for k in ("p50_ms", "p99_ms", "ttfb_p50_ms", "ttfb_p99_ms")), c))
    return rows


def section(report: dict[str, Any] | None = None) -> str:
    if report is None:
        if not OUT.exists():
            return ""
        report = json.loads(OUT.read_text(encoding="utf-8"))
    st = report["settings"]
    v = report["versions"]
    out = [
        f"\n{TITLE} (bench/gateway_vs_litellm.py, {report['started']})\n",
        f"Machine: {report['machine']}; load average before {' / '.join(map(str, report['load_before']))}, after "
        f"{' / '.join(map(str, report['load_after']))} (the machine is shared). Versions: "
        + ", ".join(f"{k} {x}" for k, x in v.items())
        + (f"; wiremap {report['servers']['wiremap']['version']}" if "wiremap" in report["servers"] else "") + ".\n",
        f"One fake Anthropic upstream answering after {st['upstream_delay_ms']:.0f} ms; OpenAI Chat requests in "
        "(`max_completion_tokens`, one user message), Anthropic Messages upstream. `wiremap serve --workers 1` and "
        "`litellm --config … --num_workers 1` each pinned to CPU 1; the fake and the load client (asyncio, keep-alive "
        f"connections) on CPU 0. Baselines, pinned the same way: *pass-through (uvicorn, no translation)*, a bare ASGI "
        "app served as `wiremap serve` serves the gateway (uvicorn, one worker, uvloop + httptools, no access log) over the "
        "gateway's upstream client (LeanClient, the same settings), which forwards the OpenAI request unchanged to the "
        f"fake's `{OPENAI_PATH}` and its answer unchanged back (whole, or streamed piece by piece); there the fake answers "
        "with the bytes the gateway itself answers this request with; *pass-through (raw asyncio)*: the same with "
        "asyncio streams on uvloop and no HTTP framework, head and body relayed as they are (the floor of two socket "
        f"hops). *Saturation*: {st['concurrency']} clients back to back for {st['saturation_seconds']:.0f} s. "
        f"*At {st['rate']} req/s*: an open-loop load for {st['rate_seconds']:.0f} s, each request timed from its scheduled "
        "start"
        + (f", taken in {st['rate_rounds']} rounds of {st['rate_seconds'] / st['rate_rounds']:.0f} s with every target "
           "(the direct calls and the servers but LiteLLM) once per round in turns, the order rotated each round, each "
           f"round after {st['warm_seconds']} s of the same load untimed; percentiles over every round's requests together"
           if st.get("rate_rounds") else "")
        + "; *added* = minus the same load sent to the fake directly. TTFB: the first byte of the body. "
        "Latencies in ms. *CPU ms per request*: the server's user + system CPU time over the saturation run "
        "÷ the requests it answered (its worker included); *CPU used*: that time ÷ the run's length, in cores. "
        "On a shared machine the measured req/s depends on the CPU share the server got; CPU ms per request "
        "does not, so both ratios are given.\n",
        "| target | result | met |",
        "|---|---|---|",
    ]
    for name, result, met in targets(report):
        out.append(f"| {name} | {result} | {'n/a' if met is None else 'yes' if met else 'no'} |")
    out += ["", "| server | mode | req/s at saturation | CPU ms per request | CPU used (cores) | errors | p50 at rate | p99 at rate | TTFB p50 | TTFB p99 | added p50 | added p99 | TTFB added p99 |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for mode in ("plain", "stream"):
        d = report["direct"][mode]
        out.append(f"| direct (the fake) | {mode} | {d['saturation']['rps']:,.0f} | | | {sum(d['saturation']['errors'].values()) + sum(d['rate']['errors'].values())} | "
                   f"{_ms(d['rate']['p50_ms'])} | {_ms(d['rate']['p99_ms'])} | {_ms(d['rate']['ttfb_p50_ms'])} | {_ms(d['rate']['ttfb_p99_ms'])} | | | |")
        o = report.get("direct_openai", {}).get(mode)
        if o:
            r = o["rate"]
            out.append(f"| direct (the fake, at {OPENAI_PATH}: the gateway's answer) | {mode} | | | | {sum(r['errors'].values())} | "
                       f"{_ms(r['p50_ms'])} | {_ms(r['p99_ms'])} | {_ms(r['ttfb_p50_ms'])} | {_ms(r['ttfb_p99_ms'])} | "
                       f"{_ms(r['p50_ms'] - d['rate']['p50_ms'])} | {_ms(r['p99_ms'] - d['rate']['p99_ms'])} | "
                       f"{_ms(r['ttfb_p99_ms'] - d['rate']['ttfb_p99_ms']) if mode == 'stream' else ''} |")
        for name, row in report["servers"].items():
            m = row[mode]
            sat = m["saturation"]
            label = row.get("label") or f"{name} {row['version']}"
            lead = f"| {label} | {mode} | {sat['rps']:,.0f} | {sat['cpu_ms_per_request']:.2f} | {sat['cpu_share']:.2f} |"
            rate = m.get("rate")
            if rate is None:
                out.append(f"{lead} {sum(sat['errors'].values())} | not run: saturates below {report['settings']['rate'] * 1.2:.0f} req/s | | | | | | |")
                continue
            errs = sum(sat["errors"].values()) + sum(rate["errors"].values())
            out.append(
                f"{lead} {errs} | {_ms(rate['p50_ms'])} | {_ms(rate['p99_ms'])} | "
                f"{_ms(rate['ttfb_p50_ms'])} | {_ms(rate['ttfb_p99_ms'])} | {_ms(rate['p50_ms'] - d['rate']['p50_ms'])} | "
                f"{_ms(rate['p99_ms'] - d['rate']['p99_ms'])} | {_ms(rate['ttfb_p99_ms'] - d['rate']['ttfb_p99_ms']) if mode == 'stream' else ''} |")
    split = breakdown(report)
    if split:
        out += ["", "What the gateway's added latency is made of (differences of the percentiles above at "
                f"{report['settings']['rate']} req/s, ms; CPU: ms per request at saturation). *Any proxy*: the uvicorn "
                "pass-through (the gateway's server stack and upstream client, the body forwarded unchanged, no "
                "translation) minus the direct call; *the floor*: the raw asyncio pass-through minus the direct call; "
                "*translation and wiremap's handling*: the gateway minus the uvicorn pass-through.", "",
                "| mode | part | p50 | p99 | TTFB p50 | TTFB p99 | CPU ms per request |", "|---|---|---:|---:|---:|---:|---:|"]
        for mode, part, p50, p99, t50, t99, cpu in split:
            stream = mode == "stream"
            out.append(f"| {mode} | {part} | {_ms(p50)} | {_ms(p99)} | {_ms(t50) if stream else ''} | {_ms(t99) if stream else ''} | {_ms(cpu)} |")
    rss_rows = [(n, r["rss"]) for n, r in report["servers"].items() if r.get("rss")]
    if rss_rows:
        out += ["", "| server | RSS after warm-up MB | requests then | RSS after MB | seconds |", "|---|---:|---:|---:|---:|"]
        for name, r in rss_rows:
            out.append(f"| {name} | {r['after_warmup_mb']:.1f} | {r['requests']:,} | {r['after_mb']:.1f} | {r['seconds']} |")
    return "\n".join(out) + "\n"


def write_section(text: str) -> None:
    if not RESULTS.exists() or not text:
        return
    doc = RESULTS.read_text(encoding="utf-8")
    pattern = re.compile(r"\n" + re.escape(TITLE) + r".*?(?=\n## |\Z)", re.S)
    if pattern.search(doc):
        doc = pattern.sub(lambda _m: text.rstrip("\n") + "\n", doc, count=1)
    else:
        doc += text
    RESULTS.write_text(doc, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rss-requests", type=int, default=100_000, help="requests between the two RSS readings (default 100 000; 0: skip)")
    ap.add_argument("--litellm-rss-requests", type=int, default=0, help="the same for LiteLLM (default 0: skipped; it serves ~10-40 req/s here)")
    ap.add_argument("--only", action="append", choices=("wiremap", *PASSTHROUGHS, "litellm"),
                    help="measure only this server (wiremap, passthrough, raw, litellm); repeatable (with --quick: default wiremap)")
    ap.add_argument("--gateway-python", default=None, help="the interpreter that runs `wiremap serve` (default: this one)")
    ap.add_argument("--no-write", action="store_true", help="print only; leave the results files alone")
    ap.add_argument("--quick", action="store_true", help="the gateway only, shorter runs, no RSS run; writes only --out")
    ap.add_argument("--out", default=None, help="with --quick: write the report's JSON here")
    ap.add_argument("--gateway-root", default=None, help="run `wiremap serve` from this directory (A/B against another tree)")
    ap.add_argument("--py-spy", default=None, metavar="PREFIX", help="record the gateway with py-spy during each saturation run")
    ap.add_argument("--no-section", action="store_true", help="write the JSON only (bench/run.py writes RESULTS.md from it)")
    ap.add_argument("--fake-upstream", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--passthrough", choices=PASSTHROUGHS, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--upstream-port", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--client", default=None, help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    if ns.fake_upstream is not None:
        fake_upstream(ns.fake_upstream)
        return 0
    if ns.client is not None:
        client_main(ns.client)
        return 0
    if ns.passthrough is not None:
        sys.path.insert(0, str(ROOT))  # wiremap's LeanClient from this tree, as `wiremap serve` runs it
        (passthrough_uvicorn if ns.passthrough == "passthrough" else passthrough_raw)(ns.port, ns.upstream_port)
        return 0
    if ns.quick:
        report = run(0, 0, ns.only or ["wiremap"], ns.gateway_python, quick=True, gateway_root=ns.gateway_root, py_spy=ns.py_spy)
        print(section(report))
        if ns.out:
            Path(ns.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        return 0
    report = run(ns.rss_requests, ns.litellm_rss_requests, ns.only, ns.gateway_python, gateway_root=ns.gateway_root, py_spy=ns.py_spy)
    text = section(report)
    print(text)
    if not ns.no_write:
        OUT.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        if not ns.no_section:
            write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

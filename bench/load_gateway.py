"""The gateway under load (issue 15 #5): `wiremap serve` in front of a fake upstream, both on
127.0.0.1, driven at concurrency 1, 100, 1 000, 2 000 and 5 000, non-streamed and streamed.

    .venv/bin/python bench/load_gateway.py            # about 3-5 minutes on 2 cores
    .venv/bin/python bench/load_gateway.py --quick    # levels 1, 100, 1000; fewer requests

What it shows, per level: requests completed (200), shed (429 with retry-after, the gateway's
in-flight limit), anything else (errors, timeouts); requests per second; p50/p99 latency of the
completed and of the shed requests; and `/healthz`, probed every 0.25 s from a separate
process throughout (worst latency, failures). The same load against the fake upstream called
directly gives the ceiling. Results: bench/load-gateway-results.json and the "Gateway under
load" section of bench/RESULTS.md (which `make bench` keeps).

Everything is bounded: each level sends at most its request count and stops at its time limit;
each request has a 30 s timeout; each process is stopped at the end (SIGTERM, then SIGKILL).
Only 127.0.0.1 is used.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import platform
import re
import resource
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "RESULTS.md"
OUT = HERE / "load-gateway-results.json"
TITLE = "## Gateway under load"
HOST = "127.0.0.1"

# (concurrency, requests, seconds at most)
LEVELS = [(1, 300, 30), (100, 3000, 45), (1000, 5000, 60), (2000, 6000, 60), (5000, 10000, 90)]
QUICK = [(1, 100, 15), (100, 1000, 30), (1000, 2000, 30)]
REQUEST_TIMEOUT = 30.0

ANTHROPIC_ANSWER = json.dumps({
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x",
    "content": [{"type": "text", "text": "Hello from the fake upstream."}],
    "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 7},
}).encode()


def _sse(events: list[tuple[str, dict[str, Any]]]) -> bytes:
    return b"".join(b"event: %s\ndata: %s\n\n" % (n.encode(), json.dumps(d).encode()) for n, d in events)


ANTHROPIC_STREAM = _sse([
    ("message_start", {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "content": [], "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 0}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    *[("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": w}}) for w in ("Hello ", "from ", "the ", "fake ", "upstream.")],
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 7}}),
    ("message_stop", {"type": "message_stop"}),
])


# ------------------------------------------------------------------------------ fake upstream


async def _fake_conn(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            m = re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head)
            body = await reader.readexactly(int(m.group(1))) if m else b""
            if b'"stream":true' in body:
                payload, ctype = ANTHROPIC_STREAM, b"text/event-stream"
            else:
                payload, ctype = ANTHROPIC_ANSWER, b"application/json"
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: %s\r\ncontent-length: %d\r\n\r\n%s" % (ctype, len(payload), payload))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
        pass
    finally:
        writer.close()


def fake_upstream(port: int) -> None:
    """A keep-alive HTTP/1.1 server answering every POST with an Anthropic message (or its
    stream, when the body asks for one), as fast as one asyncio loop can."""

    async def main() -> None:
        server = await asyncio.start_server(_fake_conn, HOST, port, backlog=4096)
        async with server:
            await server.serve_forever()

    asyncio.run(main())


# ------------------------------------------------------------------------------ load client


def _request(path: str, body: bytes, key: bool) -> bytes:
    auth = b"authorization: Bearer sk-load-test\r\nx-api-key: sk-load-test\r\n" if key else b""
    return (b"POST %s HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n%scontent-length: %d\r\n\r\n%s"
            % (path.encode(), auth, len(body), body))


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bytes, bool]:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    lower = head.lower()
    close = b"\r\nconnection: close" in lower
    m = re.search(rb"\r\ncontent-length:\s*(\d+)", lower)
    if m:
        return status, await reader.readexactly(int(m.group(1))), close
    if b"\r\ntransfer-encoding: chunked" in lower:
        parts = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip().split(b";")[0], 16)
            data = await reader.readexactly(size + 2)
            if size == 0:
                return status, b"".join(parts), close
            parts.append(data[:-2])
    return status, await reader.read(), True


async def _load(port: int, path: str, body: bytes, concurrency: int, total: int, seconds: float, streamed: bool) -> dict[str, Any]:
    request = _request(path, body, key=True)
    ok: list[float] = []
    shed: list[float] = []
    other: dict[str, int] = {}
    counter = iter(range(total))
    stop_at = time.perf_counter() + seconds

    def note(kind: str) -> None:
        other[kind] = other.get(kind, 0) + 1

    async def worker() -> None:
        reader = writer = None
        for _ in counter:  # bounded: `total` requests in all
            if time.perf_counter() > stop_at:
                break
            t0 = time.perf_counter()
            try:
                if writer is None:
                    reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), REQUEST_TIMEOUT)
                writer.write(request)
                status, data, close = await asyncio.wait_for(_read_response(reader), REQUEST_TIMEOUT)  # type: ignore[arg-type]
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError) as exc:
                note(type(exc).__name__)
                if writer is not None:
                    writer.close()
                reader = writer = None
                continue
            took = time.perf_counter() - t0
            if status == 200 and (not streamed or data.rstrip().endswith(b"data: [DONE]")):
                ok.append(took)
            elif status == 429:
                shed.append(took)
            else:
                note(f"HTTP {status}")
            if close:
                writer.close()
                reader = writer = None
        if writer is not None:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - started

    def pct(xs: list[float], q: float) -> float | None:
        if not xs:
            return None
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000

    done = len(ok) + len(shed) + sum(other.values())
    return {
        "concurrency": concurrency, "sent": done, "ok": len(ok), "shed": len(shed), "other": other,
        "seconds": round(wall, 2), "rps": round(done / wall, 1) if wall else 0.0, "ok_rps": round(len(ok) / wall, 1) if wall else 0.0,
        "ok_p50_ms": pct(ok, 0.5), "ok_p99_ms": pct(ok, 0.99), "shed_p50_ms": pct(shed, 0.5), "shed_p99_ms": pct(shed, 0.99),
    }


# ------------------------------------------------------------------------------ health probe


def _probe(port: int, stop: Any, out: Any) -> None:
    """GET /healthz every 0.25 s (5 s timeout each) until `stop` is set: (latencies, failures)."""
    import http.client

    lat: list[float] = []
    fails = 0
    for _ in range(4 * 3600):  # bounded: an hour of probes at most
        if stop.is_set():
            break
        t0 = time.perf_counter()
        try:
            c = http.client.HTTPConnection(HOST, port, timeout=5)
            c.request("GET", "/healthz")
            r = c.getresponse()
            r.read()
            c.close()
            if r.status != 200:
                fails += 1
            else:
                lat.append(time.perf_counter() - t0)
        except OSError:
            fails += 1
        stop.wait(0.25)
    out.put((lat, fails))


def _with_probe(port: int, coro_fn: Any) -> tuple[Any, dict[str, Any]]:
    ctx = mp.get_context("spawn")
    stop, out = ctx.Event(), ctx.Queue()
    p = ctx.Process(target=_probe, args=(port, stop, out), daemon=True)
    p.start()
    try:
        result = asyncio.run(coro_fn())
    finally:
        stop.set()
    lat, fails = out.get(timeout=30)
    p.join(10)
    health = {"probes": len(lat) + fails, "failed": fails, "worst_ms": round(max(lat) * 1000, 1) if lat else None,
              "p50_ms": round(statistics.median(lat) * 1000, 1) if lat else None}
    return result, health


# ------------------------------------------------------------------------------ processes


def _free_port() -> int:
    s = socket.socket()
    s.bind((HOST, 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _wait_port(port: int, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {HOST}:{port}")


def _stop(proc: subprocess.Popen[bytes]) -> float | None:
    """SIGTERM, then SIGKILL after 30 s; how long SIGTERM took (None: it had to be killed)."""
    if proc.poll() is not None:
        return 0.0
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(30)
        return time.perf_counter() - t0
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
        return None


def _raise_fd_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 65536
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def run(levels: list[tuple[int, int, float]], max_in_flight: int) -> dict[str, Any]:
    fds = _raise_fd_limit()
    up_port, gw_port = _free_port(), _free_port()
    py = sys.executable
    up = subprocess.Popen([py, str(Path(__file__).resolve()), "--fake-upstream", str(up_port)], stdout=subprocess.DEVNULL)
    gw = None
    try:
        _wait_port(up_port)
        gw = subprocess.Popen(
            [py, "-m", "wiremap", "serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages",
             "--upstream-url", f"http://{HOST}:{up_port}", "--host", HOST, "--port", str(gw_port),
             "--max-in-flight", str(max_in_flight), "--timeout", "60", "--graceful-timeout", "10", "--no-access-log"],
            cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        _wait_port(gw_port)
        openai_body = {"model": "claude-x", "max_completion_tokens": 32, "messages": [{"role": "user", "content": "Say hello."}]}
        anthropic_body = {"model": "claude-x", "max_tokens": 32, "messages": [{"role": "user", "content": [{"type": "text", "text": "Say hello."}]}]}
        rows: list[dict[str, Any]] = []
        for streamed in (False, True):
            gw_body = json.dumps({**openai_body, "stream": streamed}, separators=(",", ":")).encode()
            up_body = json.dumps({**anthropic_body, "stream": streamed}, separators=(",", ":")).encode()
            for concurrency, total, seconds in levels:
                direct = asyncio.run(_load(up_port, "/v1/messages", up_body, concurrency, total, seconds, False))
                res, health = _with_probe(gw_port, lambda: _load(gw_port, "/v1/chat/completions", gw_body, concurrency, total, seconds, streamed))
                row = {"streamed": streamed, "gateway": res, "health": health, "direct": direct}
                rows.append(row)
                print(_line(row), flush=True)
        big = _big_bodies(gw_port, gw.pid)
        print(big, flush=True)
        t0 = time.perf_counter()
        import http.client

        c = http.client.HTTPConnection(HOST, gw_port, timeout=5)
        c.request("GET", "/healthz")
        after = {"status": c.getresponse().status, "ms": round((time.perf_counter() - t0) * 1000, 1)}
        c.close()
        term = _stop(gw)
        return {
            "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}; Python {platform.python_version()}",
            "max_in_flight": max_in_flight, "fd_limit": fds, "rows": rows, "health_after": after, "big": big,
            "sigterm_seconds": None if term is None else round(term, 2),
        }
    finally:
        if gw is not None:
            _stop(gw)
        _stop(up)


def _big_bodies(port: int, pid: int) -> dict[str, Any]:
    """A 30 MB request (under the 32 MB limit: translated on a worker thread, sent upstream) and
    a 34 MB one (413), each while `/healthz` is probed: status, seconds, worst probe latency,
    and the gateway's peak RSS."""
    import http.client

    def one(size_mb: int) -> dict[str, Any]:
        chunk = "lorem ipsum dolor sit amet " * 40  # ~1 KB of text per message
        n = size_mb * 1024 * 1024 // (len(chunk) + 40)
        messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": chunk} for i in range(n - (n % 2 == 0))]
        body = json.dumps({"model": "claude-x", "max_completion_tokens": 32, "messages": messages}).encode()

        async def send() -> tuple[int, float]:
            t0 = time.perf_counter()

            def post() -> int:
                c = http.client.HTTPConnection(HOST, port, timeout=120)
                c.request("POST", "/v1/chat/completions", body, {"content-type": "application/json", "authorization": "Bearer sk-load-test"})
                r = c.getresponse()
                r.read()
                c.close()
                return r.status

            status = await asyncio.to_thread(post)
            return status, time.perf_counter() - t0

        (status, took), health = _with_probe(port, send)
        return {"mb": round(len(body) / 1e6, 1), "status": status, "seconds": round(took, 2), "health": health}

    out = {"bodies": [one(30), one(34)]}
    try:
        text = Path(f"/proc/{pid}/status").read_text()
        out["peak_rss_mb"] = round(int(re.search(r"VmHWM:\s+(\d+)", text).group(1)) / 1024, 0)  # type: ignore[union-attr]
    except (OSError, AttributeError):
        out["peak_rss_mb"] = None
    return out


def _ms(x: float | None) -> str:
    return "–" if x is None else f"{x:,.0f}" if x >= 10 else f"{x:.1f}"


def _line(row: dict[str, Any]) -> str:
    g, h, d = row["gateway"], row["health"], row["direct"]
    return (f"{'stream' if row['streamed'] else 'plain '} c={g['concurrency']:>5}: gateway {g['ok']} ok / {g['shed']} shed / {sum(g['other'].values())} other "
            f"in {g['seconds']} s ({g['rps']} req/s; ok p50 {_ms(g['ok_p50_ms'])} p99 {_ms(g['ok_p99_ms'])} ms; shed p50 {_ms(g['shed_p50_ms'])} p99 {_ms(g['shed_p99_ms'])} ms); "
            f"healthz {h['probes']} probes, {h['failed']} failed, worst {_ms(h['worst_ms'])} ms; direct {d['rps']} req/s p50 {_ms(d['ok_p50_ms'])} p99 {_ms(d['ok_p99_ms'])} ms")


def section(report: dict[str, Any] | None = None) -> str:
    if report is None:
        if not OUT.exists():
            return ""
        report = json.loads(OUT.read_text(encoding="utf-8"))
    out = [
        f"\n{TITLE} (bench/load_gateway.py, {report['started']})\n",
        f"`wiremap serve --inbound openai_chat --upstream anthropic_messages --max-in-flight {report['max_in_flight']} --no-access-log` "
        "in front of a fake Anthropic upstream (one asyncio process answering a canned message or stream), the load "
        "client (keep-alive connections, one per concurrent client) and a `/healthz` prober (its own process, every 0.25 s) "
        f"all on one machine ({report['machine']}): the figures include the client's and the fake's share of the 2 cores. "
        "*direct*: the same load against the fake upstream itself. Latencies in ms. A shed request is a 429 with "
        "`retry-after: 1` in the OpenAI envelope; *other* counts errors and timeouts (30 s). The clients send their "
        "next request as soon as an answer arrives, a 429 included (they ignore `retry-after`, unlike the official SDKs): "
        "the worst case for a server that sheds, whose event loop then spends most of its time refusing; the admitted "
        "requests' latency grows with the flood. A level stops at its request count or its time limit (45-90 s). "
        "The machine is shared with other jobs: the figures move by ±50% between runs.\n",
        "| mode | concurrency | sent | ok | shed | other | req/s | ok p50 | ok p99 | shed p50 | shed p99 | `/healthz` probes (failed) | `/healthz` worst | direct req/s | direct p50 | direct p99 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["rows"]:
        g, h, d = row["gateway"], row["health"], row["direct"]
        other = sum(g["other"].values())
        detail = f" ({', '.join(f'{k} {v}' for k, v in g['other'].items())})" if other else ""
        out.append(
            f"| {'streamed' if row['streamed'] else 'non-streamed'} | {g['concurrency']:,} | {g['sent']:,} | {g['ok']:,} | {g['shed']:,} | {other}{detail} | "
            f"{g['rps']:,.0f} | {_ms(g['ok_p50_ms'])} | {_ms(g['ok_p99_ms'])} | {_ms(g['shed_p50_ms'])} | {_ms(g['shed_p99_ms'])} | "
            f"{h['probes']} ({h['failed']}) | {_ms(h['worst_ms'])} | {d['rps']:,.0f} | {_ms(d['ok_p50_ms'])} | {_ms(d['ok_p99_ms'])} |"
        )
    big = report.get("big")
    if big:
        out.append("\nOne big body at a time (`/healthz` probed meanwhile), after the levels above:\n")
        out.append("| body | status | seconds | `/healthz` probes (failed) | `/healthz` worst ms |")
        out.append("|---:|---:|---:|---:|---:|")
        for b in big["bodies"]:
            out.append(f"| {b['mb']} MB | {b['status']} | {b['seconds']} | {b['health']['probes']} ({b['health']['failed']}) | {_ms(b['health']['worst_ms'])} |")
        if big.get("peak_rss_mb") is not None:
            out.append(f"\nThe gateway's peak RSS over the whole run: {big['peak_rss_mb']:.0f} MB.")
    after = report["health_after"]
    term = report["sigterm_seconds"]
    out.append(
        f"\nAfter the last level `/healthz` answered {after['status']} in {after['ms']} ms; SIGTERM stopped the gateway in "
        + (f"{term} s." if term is not None else "no time: it had to be killed.")
    )
    return "\n".join(out) + "\n"


def write_section(text: str) -> None:
    if not RESULTS.exists() or not text:
        return
    doc = RESULTS.read_text(encoding="utf-8")
    pattern = re.compile(r"\n" + re.escape(TITLE) + r".*?(?=\n## |\Z)", re.S)
    if pattern.search(doc):
        doc = pattern.sub(lambda _m: text.rstrip("\n") + "\n", doc, count=1)
    elif "\n## What the fuzzing found" in doc:
        doc = doc.replace("\n## What the fuzzing found", text + "\n## What the fuzzing found", 1)
    else:
        doc += text
    RESULTS.write_text(doc, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="levels 1, 100 and 1000 only, fewer requests")
    ap.add_argument("--max-in-flight", type=int, default=128)
    ap.add_argument("--no-write", action="store_true", help="print only; leave the results files alone")
    ap.add_argument("--fake-upstream", type=int, default=None, help=argparse.SUPPRESS)
    ns = ap.parse_args(argv)
    if ns.fake_upstream is not None:
        fake_upstream(ns.fake_upstream)
        return 0
    report = run(QUICK if ns.quick else LEVELS, ns.max_in_flight)
    text = section(report)
    print(text)
    if not ns.no_write:
        OUT.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        write_section(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

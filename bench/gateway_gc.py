"""The gateway's CPU per request and its garbage collector's work, in-process (issue 19, targets 4-5).

    .venv-bench/bin/python bench/gateway_gc.py [--requests 5000] [--concurrency 50]

The gateway app (openai_chat in, anthropic_messages upstream) is driven over ASGI directly, no
HTTP server in front, against the fake Anthropic upstream of bench/gateway_vs_litellm.py (its own
process, 20 ms). Each configuration runs in a fresh interpreter: non-streamed and streamed, with
Python's GC settings and with what a `wiremap serve` worker sets at start-up
(`wiremap.gateway.tune_gc`: `gc.freeze()`, first threshold 20 000). Printed: CPU ms per request
(this process: the gateway and the load driver, not the fake), the collections by generation,
the time they took in all and the longest pause, and the cyclic garbage they found.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def run_one(port: int, stream: bool, tuned: bool, requests: int, concurrency: int) -> dict[str, Any]:
    sys.path.insert(0, str(HERE))
    import gateway_vs_litellm as g

    from wiremap import gateway as gw

    pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
    collected = {0: 0, 1: 0, 2: 0}
    started = [0.0]

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses[info["generation"]].append(time.perf_counter() - started[0])
            collected[info["generation"]] += info["collected"]

    app = gw.create_app("openai_chat", "anthropic_messages", f"http://127.0.0.1:{port}", max_in_flight=1024, timeout=60)
    app.gateway.tunes_gc = tuned  # what app_from_env sets in a `wiremap serve` worker
    body = json.dumps({**g.OPENAI_BODY, "stream": stream}).encode()
    headers = [(b"content-type", b"application/json"), (b"authorization", b"Bearer " + g.KEY), (b"content-length", str(len(body)).encode())]

    async def one() -> None:
        scope = {"type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1", "method": "POST", "scheme": "http",
                 "path": "/v1/chat/completions", "raw_path": b"/v1/chat/completions", "query_string": b"", "root_path": "",
                 "headers": headers, "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 2), "state": {}}
        given = [False]
        never = asyncio.get_running_loop().create_future()
        status = [0]

        async def receive() -> dict[str, Any]:
            if not given[0]:
                given[0] = True
                return {"type": "http.request", "body": body, "more_body": False}
            await never
            raise AssertionError("unreachable")

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]

        await app(scope, receive, send)
        if status[0] != 200:
            raise RuntimeError(f"the gateway answered {status[0]}")

    async def main() -> dict[str, Any]:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        out: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        await queue.put({"type": "lifespan.startup"})
        life = asyncio.ensure_future(app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, queue.get, out.put))
        await out.get()  # start-up done: tune_gc() has run when tuned
        gate = asyncio.Semaphore(concurrency)

        async def limited() -> None:
            async with gate:
                await one()

        await asyncio.gather(*[limited() for _ in range(500)])  # warm-up: connections, caches
        gc.callbacks.append(on_gc)
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*[limited() for _ in range(requests)])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        gc.callbacks.remove(on_gc)
        await queue.put({"type": "lifespan.shutdown"})
        await out.get()
        await life
        return {
            "stream": stream, "tuned": tuned, "requests": requests, "concurrency": concurrency,
            "cpu_ms_per_request": 1000 * cpu / requests, "req_per_s": requests / wall, "threshold": list(gc.get_threshold()),
            "collections": {str(k): len(v) for k, v in pauses.items()},
            "gc_ms": 1000 * sum(sum(v) for v in pauses.values()),
            "max_pause_ms": 1000 * max((max(v) for v in pauses.values() if v), default=0.0),
            "collected": {str(k): v for k, v in collected.items()},
        }

    try:
        import uvloop

        return uvloop.run(main())
    except ImportError:
        return asyncio.run(main())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=5000)
    ap.add_argument("--concurrency", type=int, default=50)
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)  # PORT,STREAM,TUNED: one configuration, JSON out
    ns = ap.parse_args(argv)
    if ns.one:
        port, stream, tuned = ns.one.split(",")
        print(json.dumps(run_one(int(port), stream == "1", tuned == "1", ns.requests, ns.concurrency)))
        return 0
    port = _free_port()
    fake = subprocess.Popen([sys.executable, str(HERE / "gateway_vs_litellm.py"), "--fake-upstream", str(port)])
    try:
        time.sleep(1.0)
        rows = []
        for stream in ("0", "1"):
            for tuned in ("0", "1"):
                done = subprocess.run([sys.executable, __file__, "--one", f"{port},{stream},{tuned}", "--requests", str(ns.requests),
                                       "--concurrency", str(ns.concurrency)], check=True, capture_output=True, text=True,
                                      env={**os.environ, "PYTHONWARNINGS": "ignore"})
                rows.append(json.loads(done.stdout.strip().splitlines()[-1]))
    finally:
        fake.kill()
    print(f"{ns.requests} requests, {ns.concurrency} at a time, after 500 untimed; the gateway app over ASGI, no server; fake upstream 20 ms\n")
    print("| mode | GC | CPU ms per request | req/s | collections (gen 0 / 1 / 2) | GC ms in all | longest pause ms | cyclic garbage found (gen 0 / 1 / 2) |")
    print("|---|---|---:|---:|---|---:|---:|---|")
    for r in rows:
        c, g = r["collections"], r["collected"]
        label = "tuned (`wiremap serve`)" if r["tuned"] else "Python's default"
        print(f"| {'streamed' if r['stream'] else 'plain'} | {label} | {r['cpu_ms_per_request']:.3f} | {r['req_per_s']:,.0f} | "
              f"{c['0']} / {c['1']} / {c['2']} | {r['gc_ms']:.1f} | {r['max_pause_ms']:.2f} | {g['0']} / {g['1']} / {g['2']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

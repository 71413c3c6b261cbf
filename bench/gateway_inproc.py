"""The gateway's CPU per request in one process, without an HTTP server in front (issue 19, target 4).

    .venv-bench/bin/python bench/gateway_inproc.py [--requests N] [--concurrency C] [--rounds R] [--stream]

`wiremap serve`'s ASGI app (`create_app('openai_chat', 'anthropic_messages', ...)`, set up as the
server sets it up: the fused translator loaded, `tune_gc()` after a warm-up) and the pass-through
app of bench/gateway_vs_litellm.py (the same upstream client, no translation) are called
directly with ASGI messages, in turns: each round sends N requests (C at a time) to one, then N
to the other, and reads this process's CPU time (`time.process_time`) around each. The fake
Anthropic upstream of bench/gateway_vs_litellm.py runs in a subprocess and answers at once, so
its CPU is not counted. Printed: the median CPU µs per request of each, their difference (what
translation and wiremap's handling cost beyond the upstream client) and ratio.

What it leaves out, against bench/gateway_vs_litellm.py: uvicorn's protocol and the client's
socket (the same for both apps), and the waits. What it is for: an A/B of a change to the
gateway's request path, on a shared machine, with less noise than a saturation run; the
figures of record stay `make bench`'s. Both apps answer the benchmark request with the same
bytes (the fake answers the pass-through's path with the gateway's answer), which
tests/test_bench_gateway_inproc.py checks.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gateway_vs_litellm as g  # noqa: E402


def _scope(body: bytes) -> dict[str, Any]:
    return {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": g.OPENAI_PATH, "raw_path": g.OPENAI_PATH.encode(), "query_string": b"", "root_path": "",
        "headers": [(b"host", g.HOST.encode()), (b"content-type", b"application/json"), (b"content-length", b"%d" % len(body)),
                    (b"authorization", b"Bearer " + g.KEY)],
        "client": (g.HOST, 50000), "server": (g.HOST, 8000),
    }


async def call(app: Any, body: bytes) -> tuple[int, bytes]:
    """One request through an ASGI app: (status, the body it sent, pieces joined)."""
    sent: list[dict[str, Any]] = []
    delivered = False
    done = asyncio.Event()

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()  # the client stays until the answer is complete
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(_scope(body), receive, send)
    done.set()
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")


def _start_upstream() -> tuple[subprocess.Popen[bytes], int]:
    port = g._free_port()
    code = (f"import sys; sys.path.insert(0, {str(HERE)!r}); import gateway_vs_litellm as g; "
            f"g.UPSTREAM_DELAY = 0; g.fake_upstream({port})")
    proc = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection((g.HOST, port), timeout=1).close()
            return proc, port
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("the fake upstream did not start") from None
            time.sleep(0.05)


async def measure(requests: int = 2000, concurrency: int = 8, rounds: int = 5, streamed: bool = False) -> dict[str, Any]:
    """{"gateway": µs, "passthrough": µs, "answers": (gateway's (status, body), pass-through's)}:
    median CPU µs per request over `rounds` rounds, the two apps in turns."""
    from wiremap.gateway import create_app, tune_gc, translator

    proc, port = _start_upstream()
    try:
        url = f"http://{g.HOST}:{port}"
        gateway = create_app("openai_chat", "anthropic_messages", url, timeout=60, max_in_flight=1024)
        translator("openai_chat", "anthropic_messages")  # as the server's start-up loads it
        passthrough = g.passthrough_app(url)
        body = json.dumps({**g.OPENAI_BODY, **({"stream": True} if streamed else {})}).encode()
        apps = {"gateway": gateway, "passthrough": passthrough}

        async def burst(app: Any, n: int) -> None:
            async def worker(k: int) -> None:
                for _ in range(k):
                    status, _ = await call(app, body)
                    if status != 200:
                        raise RuntimeError(f"status {status}")
            share = max(1, n // concurrency)
            await asyncio.gather(*(worker(share) for _ in range(concurrency)))

        for app in apps.values():  # warm-up: connections opened, code paths run once
            await burst(app, min(requests, 200))
        tune_gc()  # what `wiremap serve` does at start-up (it freezes what is loaded by then)
        answers = {name: await call(app, body) for name, app in apps.items()}
        samples: dict[str, list[float]] = {name: [] for name in apps}
        per_round = max(1, requests // concurrency) * concurrency
        for _ in range(rounds):
            for name, app in apps.items():
                t0 = time.process_time()
                await burst(app, per_round)
                samples[name].append((time.process_time() - t0) / per_round * 1e6)
        await gateway.gateway.close()
        return {**{name: statistics.median(got) for name, got in samples.items()}, "answers": answers}
    finally:
        proc.kill()
        proc.wait()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000, help="requests per app per round (default 2000)")
    ap.add_argument("--concurrency", type=int, default=8, help="requests in flight (default 8)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds, each app once a round (default 5)")
    ap.add_argument("--stream", action="store_true", help="streamed requests")
    ns = ap.parse_args(argv)
    try:
        import uvloop  # as `wiremap serve` runs with the gateway-fast extra

        uvloop.install()
        loop = "uvloop"
    except ImportError:
        loop = "asyncio"
    got = asyncio.run(measure(ns.requests, ns.concurrency, ns.rounds, ns.stream))
    mode = "streamed" if ns.stream else "non-streamed"
    print(f"{mode}, {loop}, {ns.rounds} rounds of {ns.requests} requests ({ns.concurrency} in flight); CPU µs per request, medians:")
    print(f"  gateway      {got['gateway']:8.1f}")
    print(f"  pass-through {got['passthrough']:8.1f}")
    print(f"  difference   {got['gateway'] - got['passthrough']:8.1f}  (translation and wiremap's handling)")
    print(f"  ratio        {got['gateway'] / got['passthrough']:8.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

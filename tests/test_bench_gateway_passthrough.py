"""bench/gateway_vs_litellm.py's pass-through baselines (no timing is asserted).

The baselines are only a fair floor for the gateway if the load client gets the same answer from
them as from `wiremap serve`: the fake upstream answers the pass-throughs' path with the bytes
the gateway makes of its Anthropic answer, and both pass-throughs hand those bytes on unchanged.
If the gateway's answer to the benchmark request changes, the fake's OPENAI_ANSWER / OPENAI_STREAM
must change with it (this test says so)."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import gateway_vs_litellm as bench  # noqa: E402

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")


def _post(port: int, path: str, body: dict[str, object]) -> tuple[int, bytes]:
    c = http.client.HTTPConnection(bench.HOST, port, timeout=30)
    try:
        c.request("POST", path, body=json.dumps(body, separators=(",", ":")).encode(),
                  headers={"content-type": "application/json", "authorization": "Bearer " + bench.KEY.decode()})
        r = c.getresponse()
        return r.status, r.read()  # http.client undoes the chunked framing
    finally:
        c.close()


@pytest.fixture(scope="module")
def ports() -> Iterator[dict[str, int]]:
    procs: list[subprocess.Popen[bytes]] = []
    me = str(ROOT / "bench" / "gateway_vs_litellm.py")
    up = bench._free_port()
    out: dict[str, int] = {"fake": up}

    def start(name: str, argv: list[str]) -> None:
        port = bench._free_port()
        procs.append(subprocess.Popen([a.replace("{port}", str(port)) for a in argv], cwd=str(ROOT), stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, start_new_session=True))
        out[name] = port

    try:
        procs.append(subprocess.Popen([sys.executable, me, "--fake-upstream", str(up)], stdout=subprocess.DEVNULL, start_new_session=True))
        bench._wait_port(up)
        start("wiremap", [sys.executable, "-m", "wiremap", "serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages",
                          "--upstream-url", f"http://{bench.HOST}:{up}", "--host", bench.HOST, "--port", "{port}", "--no-access-log"])
        for kind in bench.PASSTHROUGHS:
            start(kind, [sys.executable, me, "--passthrough", kind, "--upstream-port", str(up), "--port", "{port}"])
        for name in ("wiremap", *bench.PASSTHROUGHS):
            bench._wait_http(out[name], "/healthz", seconds=60)
        yield out
    finally:
        for p in procs:
            bench._stop(p)


@pytest.mark.parametrize("streamed", [False, True], ids=["plain", "stream"])
def test_the_pass_throughs_hand_on_the_gateways_answer_unchanged(ports: dict[str, int], streamed: bool) -> None:
    body = {**bench.OPENAI_BODY, "stream": streamed}
    want = bench.OPENAI_STREAM if streamed else bench.OPENAI_ANSWER
    # the gateway's own answer to the benchmark request, from the fake's Anthropic answer
    assert _post(ports["wiremap"], bench.OPENAI_PATH, body) == (200, want)
    # the fake's pass-through path answers those bytes; the pass-throughs hand them on as they are
    assert _post(ports["fake"], bench.OPENAI_PATH, body) == (200, want)
    for kind in bench.PASSTHROUGHS:
        assert _post(ports[kind], bench.OPENAI_PATH, body) == (200, want), kind
    assert bench._check(200, want, streamed)
    # the direct baseline's path still answers Anthropic's
    assert _post(ports["fake"], "/v1/messages", {**bench.ANTHROPIC_BODY, "stream": streamed}) == (
        200, bench.ANTHROPIC_STREAM if streamed else bench.ANTHROPIC_ANSWER)


def _rate(p50: float, p99: float) -> dict[str, object]:
    return {"sent": 10, "ok": 10, "errors": {}, "p50_ms": p50, "p99_ms": p99, "ttfb_p50_ms": p50 - 0.1, "ttfb_p99_ms": p99 - 0.1}


def _server(version: str, cpu: float, p50: float, p99: float, label: str | None = None) -> dict[str, object]:
    mode = {"saturation": {"ok": 100, "errors": {}, "seconds": 1.0, "rps": 100.0, "cpu_ms_per_request": cpu, "cpu_share": 0.1},
            "rate": _rate(p50, p99)}
    row: dict[str, object] = {"version": version, "plain": mode, "stream": mode}
    if label:
        row["label"] = label
    return row


def _report(baselines: bool) -> dict[str, object]:
    direct = {"saturation": {"ok": 100, "errors": {}, "seconds": 1.0, "rps": 100.0}, "rate": _rate(20.0, 22.0)}
    servers = {"wiremap": _server("0.1.0", 0.6, 22.0, 26.0)}
    report: dict[str, object] = {
        "started": "2026-11-27 10:00 UTC", "machine": "test", "load_before": [1.0, 1.0, 1.0], "load_after": [1.0, 1.0, 1.0],
        "settings": {"upstream_delay_ms": 20.0, "concurrency": 100, "saturation_seconds": 15.0, "rate": 200, "rate_seconds": 20.0,
                     "warmup": 2000, "quick": False, "gateway_root": None},
        "versions": {"uvicorn": "x"}, "direct": {"plain": direct, "stream": direct}, "servers": servers,
    }
    if baselines:
        report["direct_openai"] = {"plain": {"rate": _rate(20.1, 22.5)}, "stream": {"rate": _rate(20.1, 22.5)}}
        servers["passthrough"] = _server("uvicorn x", 0.15, 20.5, 23.0, bench.LABELS["passthrough"])
        servers["raw"] = _server("asyncio", 0.05, 20.2, 22.5, bench.LABELS["raw"])
        report["settings"].update(rate_rounds=4, warm_seconds=0.5)  # type: ignore[attr-defined]
    return report


def test_the_table_has_the_baseline_rows_and_the_split() -> None:
    text = bench.section(_report(baselines=True))
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    for label in ("pass-through (uvicorn, no translation)", "pass-through (raw asyncio)"):
        assert sum(r.startswith(f"| {label} |") for r in rows) == 2, label  # plain and stream
    assert "in 4 rounds of 5 s" in text
    split = {(m, part.split(":")[0]): (p50, p99, cpu) for m, part, p50, p99, _t50, _t99, cpu in bench.breakdown(_report(True))}
    assert split[("plain", "any proxy on this stack")] == pytest.approx((0.5, 1.0, 0.15))
    assert split[("plain", "the floor")] == pytest.approx((0.2, 0.5, 0.05))
    assert split[("plain", "translation and wiremap's handling")] == pytest.approx((1.5, 3.0, 0.45))
    assert split[("stream", "the whole (the target's figure)")] == pytest.approx((2.0, 4.0, 0.6))
    assert split[("plain", "the harness's noise")][:2] == pytest.approx((0.1, 0.5))


def test_a_report_without_the_baselines_still_renders() -> None:
    text = bench.section(_report(baselines=False))
    assert "| wiremap 0.1.0 | plain |" in text and "pass-through" not in text.split("| target |")[1]
    assert bench.breakdown(_report(baselines=False)) == []

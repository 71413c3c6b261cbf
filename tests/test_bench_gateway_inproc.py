"""bench/gateway_inproc.py: the gateway's CPU per request in one process, against the pass-through
(no timing is asserted). Its difference means something only if both apps do the same job: here
each answers the benchmark request, non-streamed and streamed, with the same status and bytes."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

import gateway_inproc  # noqa: E402


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
def test_both_apps_answer_alike_and_are_measured(streamed: bool) -> None:
    got = asyncio.run(gateway_inproc.measure(requests=8, concurrency=2, rounds=1, streamed=streamed))
    gateway, passthrough = got["answers"]["gateway"], got["answers"]["passthrough"]
    assert gateway[0] == passthrough[0] == 200
    assert gateway[1] == passthrough[1] and gateway[1]  # the same bytes: the same job for the client
    assert got["gateway"] > 0 and got["passthrough"] > 0

"""Issue 18 (datasets past one machine): `wiremap convert --engine dask` writes the bytes of
`--engine local`, output and rejects file alike, on a local Dask cluster of worker processes;
it can use a running scheduler (`--scheduler`); and Ctrl-C leaves a checkpoint that `--resume`
finishes to the same bytes. Nothing here measures speed (bench/datasets.py does)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wiremap import convert as conv
from wiremap.cli import main

distributed = pytest.importorskip("dask.distributed")  # in the dev extra: runs in CI

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 120.0  # seconds: only so that a broken build fails instead of hanging
RECORDS = 100_000


def record(i: int) -> bytes:
    body = {"model": "m", "messages": [{"role": "user", "content": f"q{i}"}]}
    if i % 10 == 0:
        body["logit_bias"] = {"50256": -100}  # the Responses API has none: a loss, whose counts must agree too
    return json.dumps(body).encode()


def lines(n: int) -> list[bytes]:
    """Good lines, with a bad one every 997 (not JSON, a wrong type, a missing key)."""
    bad = [b"{not json", b'{"model":"m","messages":[{"role":"user","content":5}]}', b'{"messages":[]}']
    return [bad[(i // 997) % 3] if i % 997 == 996 else record(i) for i in range(n)]


def test_dask_on_a_local_cluster_writes_the_bytes_of_the_local_engine(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join(lines(RECORDS)) + b"\n")
    # the local engine's two processes write the bytes of its one (test_cli_translate.py): the faster reference
    local = conv.convert_file("openai_chat", "openai_responses", str(src), str(tmp_path / "local.jsonl"), jobs=2, batch_size=2048, progress=False)
    dask = conv.convert_file(
        "openai_chat", "openai_responses", str(src), str(tmp_path / "dask.jsonl"),
        engine="dask", jobs=2, batch_size=2048, progress=False,
    )
    assert local.rejected == RECORDS // 997 and local.written == RECORDS - local.rejected
    assert sum(local.losses.values()) > 0
    assert (dask.lines, dask.written, dask.rejected, dask.losses) == (local.lines, local.written, local.rejected, local.losses)
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert (tmp_path / "dask.jsonl.rejects.jsonl").read_bytes() == (tmp_path / "local.jsonl.rejects.jsonl").read_bytes()
    assert not (tmp_path / "dask.jsonl.checkpoint").exists()


def test_the_cli_uses_a_running_scheduler(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join(lines(3000)) + b"\n")
    conv.convert_file("openai_chat", "gemini_generate_content", str(src), str(tmp_path / "local.jsonl"), progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        rc = main([
            "convert", "--from", "openai_chat", "--to", "gemini_generate_content", str(src), "-o", str(tmp_path / "dask.jsonl"),
            "--engine", "dask", "--scheduler", cluster.scheduler_address, "--batch-size", "100", "--no-progress",
        ])
    assert rc == 0, capsys.readouterr().err
    assert "3000 lines: 2997 written, 3 rejected" in capsys.readouterr().err
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()
    assert (tmp_path / "dask.jsonl.rejects.jsonl").read_bytes() == (tmp_path / "local.jsonl.rejects.jsonl").read_bytes()


BATCH = 256


def test_ctrl_c_on_the_dask_engine_exits_130_and_resume_finishes_the_same_bytes(tmp_path: Path) -> None:
    """The command reads a pipe the test holds open: after three full batches it waits for the
    fourth, so the signal arrives when the checkpoint says three batches, however fast the machine."""
    data = lines(3 * BATCH + 600)
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "wiremap", "convert", "--from", "openai_chat", "--to", "anthropic_messages", "-", "-o", str(out),
               "--engine", "dask", "-j", "2", "--no-progress"]
    proc = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    assert proc.stdin is not None
    proc.stdin.write(b"\n".join(data[: 3 * BATCH + 5]) + b"\n")
    proc.stdin.flush()
    checkpoint = Path(str(out) + ".checkpoint")
    deadline = time.monotonic() + DEADLINE
    while True:
        try:
            if json.loads(checkpoint.read_text())["lines"] == 3 * BATCH:
                break
        except (OSError, ValueError, KeyError):
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"convert did not reach its third checkpoint: {proc.communicate()[1].decode(errors='replace')}")
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group, the cluster's workers too
    _stdout, stderr = proc.communicate(timeout=DEADLINE)
    text = stderr.decode("utf-8", "replace")
    assert proc.returncode == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert "--resume" in text, text
    assert json.loads(checkpoint.read_text())["lines"] == 3 * BATCH

    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join(data) + b"\n")
    resumed = subprocess.run(command + ["--resume"], cwd=ROOT, input=src.read_bytes(), capture_output=True, timeout=600, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert f"(resumed after line {3 * BATCH})" in resumed.stderr.decode()
    conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "ref.jsonl"), progress=False)
    assert out.read_bytes() == (tmp_path / "ref.jsonl").read_bytes()
    assert (tmp_path / "out.jsonl.rejects.jsonl").read_bytes() == (tmp_path / "ref.jsonl.rejects.jsonl").read_bytes()

"""Ctrl-C in any `wiremap` command: status 130 (0 for `serve`, which uvicorn stops cleanly), one
short line on stderr, no traceback. Real subprocesses and a real SIGINT sent to the process group,
as a terminal's Ctrl-C is. (`convert`'s checkpoint on Ctrl-C: tests/translate/test_convert_hardening.py.)

Each command is interrupted while it waits inside `main()`: on a FIFO (named pipe) it is reading,
whose writer end the test opens only once the command has opened the reader end, or on a stdin
pipe the kernel reports it is blocked on.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or sys.platform != "linux", reason="FIFOs, process groups and /proc: Linux")

ROOT = Path(__file__).resolve().parents[1]


def start(*args: str, stdin: int | None = subprocess.DEVNULL) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "wiremap", *args], cwd=ROOT, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,  # a group of its own: SIGINT goes to it as Ctrl-C goes to a terminal's
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def interrupt(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    return proc.returncode, out, err


def open_writer_when_read(fifo: Path, proc: subprocess.Popen[str]) -> int:
    """The FIFO's writer end, opened once `proc` has opened the reader end (it is then in main())."""
    deadline = time.monotonic() + 120
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # ENXIO while no reader has it open
        except OSError:
            if proc.poll() is not None:
                pytest.fail(f"the command ended before reading: {proc.communicate()}")
            if time.monotonic() > deadline:
                pytest.fail("the command never opened the FIFO")
            time.sleep(0.02)


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "never_written.json"
    os.mkfifo(path)
    yield path


def assert_clean(code: int, err: str, expected: int = 130) -> None:
    assert code == expected, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert err.strip().splitlines()[-1] == "interrupted", err


def test_translate_waiting_on_a_stdin_that_never_closes() -> None:
    proc = start("translate", "--from", "openai_chat", "--to", "anthropic_messages", stdin=subprocess.PIPE)
    try:
        wchan = Path(f"/proc/{proc.pid}/wchan")
        deadline = time.monotonic() + 120
        # the kernel's name for where the process sleeps: pipe_read (anon_pipe_read on newer kernels)
        while "pipe_read" not in wchan.read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"translate never blocked reading stdin (wchan {wchan.read_text()!r})")
            time.sleep(0.02)
        code, out, err = interrupt(proc)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
    assert_clean(code, err)
    assert out == ""


def test_render_waiting_on_its_input_file(fifo: Path) -> None:
    proc = start("render", "--format", "openai_chat", str(fifo))
    writer = open_writer_when_read(fifo, proc)
    try:
        code, out, err = interrupt(proc)
    finally:
        os.close(writer)
    assert_clean(code, err)


def test_generate_waiting_on_a_mapping_file(tmp_path: Path) -> None:
    pytest.importorskip("yaml")
    mappings = tmp_path / "mappings"
    mappings.mkdir()
    os.mkfifo(mappings / "slow_format.yaml")
    out_dir = tmp_path / "generated"
    proc = start("generate", "--mappings", str(mappings), "--out", str(out_dir))
    writer = open_writer_when_read(mappings / "slow_format.yaml", proc)
    try:
        code, out, err = interrupt(proc)
    finally:
        os.close(writer)
    assert_clean(code, err)
    assert not out_dir.exists()  # nothing half-written


def test_serve_stops_cleanly_on_ctrl_c() -> None:
    pytest.importorskip("uvicorn")
    httpx = pytest.importorskip("httpx")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    proc = start(
        "serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages", "--upstream-url", "http://127.0.0.1:9",
        "--port", str(port), "--workers", "2",
    )
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            code, out, err = interrupt(proc)
            pytest.fail(f"the gateway did not start: {err}")
        time.sleep(0.1)
    code, out, err = interrupt(proc)
    # uvicorn handles SIGINT itself: it drains, stops its workers and returns; exit 0
    assert code in (0, 130), err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "Application shutdown complete" in err
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)

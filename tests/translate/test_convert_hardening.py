"""Issue 15 items 15-18: `wiremap convert` never dies on one line, refuses a mismatched resume,
takes its workers with it when killed, and stops on Ctrl-C with status 130 and a resumable state.

Items 17 and 18 run the real command in a subprocess and send it real signals. The command reads
its input from a pipe the test holds open: after three full batches it waits for the fourth,
so the signal arrives at a known point (the checkpoint says three batches), whatever the speed
of the machine. Waiting is bounded (a generous deadline fails the test instead of hanging it);
nothing asserts how fast anything happens.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import wiremap
from wiremap import convert as conv
from wiremap.cli import main

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 120.0  # seconds: only so that a broken build fails instead of hanging
BATCH = 256  # convert_file's default batch_size; the CLI reads batch_size * jobs lines at a time


def good(i: int) -> bytes:
    return json.dumps({"model": "m", "messages": [{"role": "user", "content": f"hello {i}"}], "max_completion_tokens": 5 + i % 7}).encode()


#: (bytes of the line, expected reject category or None for an output line, a word of the message, path prefix)
BAD_LINES: list[tuple[bytes, str | None, str, str | None]] = [
    (b"\xff\xfe" + good(0), "provider_invalid_request", "not UTF-8", None),
    (good(1)[:20] + b"\xc3\x28" + good(1)[20:], "provider_invalid_request", "not UTF-8", None),
    (b'{"model":"m","messages":[{"role":"user","content":"a\xed\xa0\x80b"}]}', "provider_invalid_request", "not UTF-8", None),  # UTF-8-encoded surrogate
    (json.dumps({"model": "m", "messages": [{"role": "user", "content": "a\ud800b"}]}).encode(), "provider_invalid_request", "lone surrogate", "messages[0].content"),
    (b"[" * 5000 + b"]" * 5000, "provider_invalid_request", "nested too deeply", None),
    (b'{"model":"m","messages":[{"role":"user","content":"hi"}],"x":' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"}", "provider_invalid_request", "nested too deeply", None),
    (b'{"model":"m","messages":[{"role":"user","content":"hi"}],"x":' + b'{"a":' * 300 + b"1" + b"}" * 300 + b"}", None, "", None),  # a field no row reads, too deep to carry: written without it, named as a loss
    (b"\x00\x01\x02", "provider_invalid_request", "not JSON", None),
    (b"1" * 5000, "provider_invalid_request", "not JSON", None),
    (b"", "provider_invalid_request", "not JSON", None),
    (good(2) + b"\r", None, "", None),
]


def dataset(n_good: int = 40) -> tuple[list[bytes], list[int]]:
    """Good lines with every bad line among them; returns the lines and the bad lines' numbers."""
    lines: list[bytes] = []
    bad_numbers = []
    for i in range(n_good):
        lines.append(good(i))
        if i % 3 == 1 and len(bad_numbers) < len(BAD_LINES):
            lines.append(BAD_LINES[len(bad_numbers)][0])
            bad_numbers.append(len(lines))
    assert len(bad_numbers) == len(BAD_LINES)
    return lines, bad_numbers


def rejects(path: Path) -> dict[int, dict[str, Any]]:
    return {r["line"]: r for r in map(json.loads, path.read_bytes().splitlines())}


# ---------------------------------------------------------------- item 15: no line stops the run


@pytest.mark.parametrize("jobs", [1, 2])
def test_every_bad_line_becomes_a_reject_and_no_good_line_is_lost(tmp_path: Path, jobs: int) -> None:
    lines, bad_numbers = dataset()
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    summary = conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "out.jsonl"), jobs=jobs, batch_size=4, progress=False)
    out = (tmp_path / "out.jsonl").read_bytes().splitlines()
    got = rejects(tmp_path / "out.jsonl.rejects.jsonl")
    assert summary.lines == len(lines) == len(out) + len(got)
    for number, (_data, category, word, path) in zip(bad_numbers, BAD_LINES):
        if category is None:
            assert number not in got
            continue
        record = got[number]
        assert set(record) == {"line", "category", "message", "path"}
        assert record["category"] == category and word in record["message"], record
        assert (record["path"] or "").startswith(path or ""), record
    # every good line is there, in order, and is the library's translation of it
    good_bodies = [json.loads(data) for n, data in enumerate(lines, 1) if n not in got]
    assert [json.loads(o) for o in out] == [wiremap.translate_request(b, "openai_chat", "anthropic_messages").result for b in good_bodies]


def test_a_converter_bug_on_one_line_is_a_reject_and_the_run_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = conv.translate_body

    def buggy(body: Any, *args: Any, **kwargs: Any) -> Any:
        if body.get("messages", [{}])[0].get("content") == "hello 3":
            raise TypeError("a converter bug")
        return real(body, *args, **kwargs)

    real_translator = conv.translator

    class BuggyFused:  # the fused translator's exact report, which convert tries first, with the same bug
        def __init__(self, source: str, target: str) -> None:
            self.real = real_translator(source, target)

        def request_with_losses(self, body: Any) -> Any:
            if body.get("messages", [{}])[0].get("content") == "hello 3":
                raise TypeError("a converter bug")
            return self.real.request_with_losses(body)

    monkeypatch.setattr(conv, "translate_body", buggy)
    monkeypatch.setattr(conv, "translator", BuggyFused)
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join(good(i) for i in range(10)) + b"\n")
    summary = conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "out.jsonl"), progress=False)
    assert (summary.written, summary.rejected) == (9, 1)
    assert rejects(tmp_path / "out.jsonl.rejects.jsonl")[4] == {"line": 4, "category": conv.INTERNAL_ERROR, "message": "TypeError: a converter bug", "path": None}


def test_an_interrupted_run_over_bad_lines_resumes_to_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run that used to die on a bad line (and die again on every --resume) now gets past it;
    interrupted after the batches holding them, it resumes to the uninterrupted run's bytes."""
    lines, _bad = dataset()
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "ref.jsonl"), batch_size=4, progress=False)
    real = conv._run_batch
    calls = {"n": 0}

    def dying(batch: list[tuple[int, bytes]]) -> Any:
        calls["n"] += 1
        if calls["n"] == 9:
            raise KeyboardInterrupt
        return real(batch)

    monkeypatch.setattr(conv, "_run_batch", dying)
    with pytest.raises(KeyboardInterrupt):
        conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "out.jsonl"), batch_size=4, progress=False)
    monkeypatch.setattr(conv, "_run_batch", real)
    summary = conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "out.jsonl"), batch_size=4, progress=False, resume=True)
    assert summary.resumed_from == 8 * 4 and summary.lines == len(lines)
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()
    assert (tmp_path / "out.jsonl.rejects.jsonl").read_bytes() == (tmp_path / "ref.jsonl.rejects.jsonl").read_bytes()


# ---------------------------------------------------------------- item 16: a resume must match its run


def interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An openai_chat -> anthropic_messages run stopped after two batches of 8; returns the input."""
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join(good(i) for i in range(40)) + b"\n")
    real = conv._run_batch
    calls = {"n": 0}

    def dying(batch: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(batch)

    monkeypatch.setattr(conv, "_run_batch", dying)
    with pytest.raises(KeyboardInterrupt):
        conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "out.jsonl"), batch_size=8, progress=False)
    monkeypatch.setattr(conv, "_run_batch", real)
    return src


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"target": "gemini_generate_content"}, "--to was 'anthropic_messages', now 'gemini_generate_content'"),
        ({"source": "openrouter"}, "--from was 'openai_chat', now 'openrouter'"),
        ({"strict": True}, "--strict was False, now True"),
        ({"keep_extras": True}, "--keep-extras was None, now True"),
        ({"what": "response"}, "--what was 'request', now 'response'"),
        ({"rejects_path": "elsewhere.jsonl"}, "--rejects was"),
        ({"in_path": "other.jsonl"}, "the input file was"),
    ],
)
def test_a_resume_with_other_options_is_refused_and_touches_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: dict[str, Any], named: str) -> None:
    src = interrupted(tmp_path, monkeypatch)
    (tmp_path / "other.jsonl").write_bytes(src.read_bytes())
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    args: dict[str, Any] = {"source": "openai_chat", "target": "anthropic_messages", "in_path": str(src), "out_path": str(tmp_path / "out.jsonl"), "batch_size": 8, "progress": False, "resume": True}
    if "rejects_path" in change:
        change = {"rejects_path": str(tmp_path / change["rejects_path"])}
    if "in_path" in change:
        change = {"in_path": str(tmp_path / change["in_path"])}
    args.update(change)
    with pytest.raises(conv.ResumeMismatchError) as info:
        conv.convert_file(**args)
    assert named in str(info.value) and "without --resume" in str(info.value)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before, "a refused resume writes nothing"


def test_a_matching_resume_goes_on_and_the_cli_refuses_a_mismatch_with_status_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    src = interrupted(tmp_path, monkeypatch)
    out = str(tmp_path / "out.jsonl")
    rc = main(["convert", "--from", "openai_chat", "--to", "openai_responses", str(src), "-o", out, "--resume", "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: cannot resume: ") and "--to was 'anthropic_messages', now 'openai_responses'" in err
    summary = conv.convert_file("openai_chat", "anthropic_messages", str(src), out, batch_size=8, progress=False, resume=True)
    assert summary.resumed_from == 16 and summary.written == 40
    conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "ref.jsonl"), progress=False)
    assert Path(out).read_bytes() == (tmp_path / "ref.jsonl").read_bytes()


def test_a_checkpoint_without_recorded_options_or_unreadable_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = interrupted(tmp_path, monkeypatch)
    checkpoint = tmp_path / "out.jsonl.checkpoint"
    state = json.loads(checkpoint.read_text())
    args = ("openai_chat", "anthropic_messages", str(src), str(tmp_path / "out.jsonl"))
    del state["params"]  # as an older wiremap wrote it
    checkpoint.write_text(json.dumps(state))
    with pytest.raises(conv.ResumeMismatchError, match="does not record the options"):
        conv.convert_file(*args, resume=True, progress=False)
    checkpoint.write_text("{trunc")
    with pytest.raises(conv.ResumeMismatchError, match="is unreadable"):
        conv.convert_file(*args, resume=True, progress=False)


# ---------------------------------------------------------------- items 17 and 18: real signals


def start(tmp_path: Path, jobs: int, lines: list[bytes]) -> tuple[subprocess.Popen[bytes], Path]:
    """`wiremap convert -j jobs` reading stdin, fed three full batches and a few lines more,
    the pipe left open; returns once the checkpoint records the three batches."""
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "wiremap", "convert", "--from", "openai_chat", "--to", "anthropic_messages",
         "-", "-o", str(out), "-j", str(jobs), "--no-progress"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    full = 3 * BATCH * jobs
    assert proc.stdin is not None
    proc.stdin.write(b"\n".join(lines[: full + 5]) + b"\n")
    proc.stdin.flush()
    checkpoint = Path(str(out) + ".checkpoint")
    deadline = time.monotonic() + DEADLINE
    while True:
        try:
            if json.loads(checkpoint.read_text())["lines"] == full:
                break
        except (OSError, ValueError, KeyError):
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"convert did not reach its third checkpoint: {proc.communicate()[1].decode(errors='replace')}")
        time.sleep(0.05)
    return proc, out


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")  # exited; a zombie only waits for init to reap it


def wait_until_gone(pids: list[int]) -> list[int]:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        alive = [p for p in pids if not gone(p)]
        if not alive:
            return []
        time.sleep(0.05)
    return [p for p in pids if not gone(p)]


LINES = [good(i) for i in range(3 * BATCH * 2 + 200)]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the process tree from /proc")
def test_workers_exit_when_the_parent_is_killed_with_sigkill(tmp_path: Path) -> None:
    proc, _out = start(tmp_path, 2, LINES)
    workers = children(proc.pid)
    assert len(workers) >= 2, workers
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    left = wait_until_gone(workers)
    for pid in left:  # do not leave them behind for the next test
        os.kill(pid, signal.SIGKILL)
    assert not left, f"workers {left} outlived their parent"


WATCHED = """
import multiprocessing, os, sys, time
from wiremap.convert import _exit_with_parent

def child(parent):
    _exit_with_parent(parent, use_prctl=False, interval=0.05)
    time.sleep(600)

if __name__ == "__main__":
    multiprocessing.set_start_method("fork")
    p = multiprocessing.Process(target=child, args=(os.getpid(),))
    p.start()
    print(p.pid, flush=True)
    time.sleep(600)
"""


@pytest.mark.skipif(not hasattr(os, "fork") or not Path("/proc/self").is_dir(), reason="fork and /proc")
def test_the_portable_fallback_also_takes_a_worker_down_with_its_parent(tmp_path: Path) -> None:
    """Without prctl (other systems), the worker's thread sees os.getppid() change and exits."""
    script = tmp_path / "watched.py"
    script.write_text(WATCHED)
    proc = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, stdout=subprocess.PIPE, start_new_session=True)
    assert proc.stdout is not None
    child = int(proc.stdout.readline())
    assert not gone(child)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    left = wait_until_gone([child])
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_exits_130_without_a_traceback_and_resume_finishes_the_same_bytes(tmp_path: Path, jobs: int) -> None:
    lines = LINES
    proc, out = start(tmp_path, jobs, lines)
    workers = children(proc.pid) if Path("/proc/self/task").is_dir() else []
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group, workers too
    _stdout, stderr = proc.communicate(timeout=DEADLINE)
    text = stderr.decode("utf-8", "replace")
    assert proc.returncode == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert "interrupted" in text and "--resume" in text, text
    assert not wait_until_gone(workers)
    state = json.loads(Path(str(out) + ".checkpoint").read_text())
    assert state["lines"] == 3 * BATCH * jobs

    # the same command with --resume, given the whole input, ends as an uninterrupted run
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    resumed = subprocess.run(
        [sys.executable, "-m", "wiremap", "convert", "--from", "openai_chat", "--to", "anthropic_messages", "-", "-o", str(out),
         "-j", str(jobs), "--no-progress", "--resume"],
        cwd=ROOT, input=src.read_bytes(), capture_output=True, timeout=600, check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"(resumed after line {3 * BATCH * jobs})" in resumed.stderr.decode()
    conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "ref.jsonl"), progress=False)
    assert out.read_bytes() == (tmp_path / "ref.jsonl").read_bytes()


def test_ctrl_c_in_any_command_exits_130_without_a_traceback(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import wiremap.cli as cli

    def interrupted(*_args: Any) -> int:
        raise KeyboardInterrupt

    for command, fn, argv in [
        ("render", "_render", ["render", "--format", "openai_chat", "-"]),
        ("translate", "_translate", ["translate", "--from", "openai_chat", "--to", "anthropic_messages", "-"]),
        ("serve", "_serve", ["serve", "--inbound", "openai_chat", "--upstream", "anthropic_messages"]),
    ]:
        monkeypatch.setattr(cli, fn, interrupted)
        assert main(argv) == 130, command
        assert capsys.readouterr().err.strip() == "interrupted"


def test_without_a_progress_bar_the_input_is_read_once(tmp_path: Any, monkeypatch: Any) -> None:
    """The line count is the progress bar's total only: a run without a bar (not a terminal, or
    progress=False) does not read a large input an extra time to count it."""
    from wiremap import convert as conv

    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}) + "\n")
    counted: list[str] = []
    real = conv._count_lines
    monkeypatch.setattr(conv, "_count_lines", lambda path: counted.append(path) or real(path))
    conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "out.jsonl"), progress=False)
    assert counted == []
    conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "out2.jsonl"), progress=True, progress_stream=io.StringIO())
    assert counted == [str(src)]

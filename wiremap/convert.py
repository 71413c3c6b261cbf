"""`wiremap translate` (one body) and `wiremap convert` (a JSONL dataset), as functions.

`convert` streams: it reads one batch of lines at a time, translates the batch (in `jobs`
worker processes when asked), writes the results in input order and records a checkpoint, so
memory stays flat whatever the file size. Every input line yields exactly one output line or
one reject record (`{"line", "category", "message", "path"}`); the summary counts both.
An interrupted run is resumed with `resume=True`: the outputs are cut back to the last
checkpoint and the run goes on from the next line, so the files end up byte-identical to an
uninterrupted run.

Whatever bytes a line holds, it never stops the run: the input is read as bytes and each line
decoded on its own, so invalid UTF-8, a lone surrogate escape (`"\\ud800"`, which UTF-8 cannot
write back), a line nested too deeply to decode, or a bug in a converter each become one reject
record (`category` `wiremap_internal_error` for the last: never expected, never fatal).
The checkpoint records the run's parameters (formats, `what`, `strict`, `keep_extras`, input
and rejects paths); a resume with different ones is refused (`ResumeMismatchError`), since it
would mix two translations in one file. `jobs` workers exit with the parent process, even when
it is killed with SIGKILL, and ignore SIGINT (the parent handles Ctrl-C; the checkpoint stays).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

__all__ = ["translate_body", "convert_file", "ConvertSummary", "ResumeMismatchError", "INTERNAL_ERROR"]

WHAT = ("request", "response")


def translate_body(body: Any, source: str, target: str, what: str, *, strict: bool = False, keep_extras: bool | None = None) -> Any:
    """One body through `translate_request` or `translate_response` (a `Translation`)."""
    import wiremap

    if not isinstance(body, dict):
        raise wiremap.InvalidRequestError(f"expected a JSON object, got {type(body).__name__}")
    if what == "request":
        return wiremap.translate_request(body, source, target, strict=strict, keep_extras=keep_extras)
    return wiremap.translate_response(body, source, target, strict=strict)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


#: The reject category of a line that made a converter raise something other than a
#: ProviderError (a bug: please report it). The line is rejected and the run goes on.
INTERNAL_ERROR = "wiremap_internal_error"


class ResumeMismatchError(ValueError):
    """`resume=True` with parameters other than the checkpointed run's: the outputs would mix
    two translations. The message names each difference."""


# One batch item: (line number, the line's bytes) -> ("ok", output line, losses) | ("reject", record line, [])
_JOB: dict[str, Any] = {}


def _init_worker(source: str, target: str, what: str, strict: bool, keep_extras: bool | None, parent: int | None = None) -> None:
    import warnings

    import wiremap

    if parent is not None:  # a worker process (-j N), not the parent running a batch itself
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        _exit_with_parent(parent)
    warnings.simplefilter("ignore")
    wiremap.get_format(source)
    wiremap.get_format(target)
    _JOB.update(source=source, target=target, what=what, strict=strict, keep_extras=keep_extras)


def _exit_with_parent(parent: int, *, use_prctl: bool = True, interval: float = 0.25) -> None:
    """Make this worker process exit when `parent` does, however it ends (SIGKILL included):
    on Linux the kernel kills it (prctl PR_SET_PDEATHSIG); everywhere, a daemon thread polls
    os.getppid(), which changes when the parent is gone, and exits."""
    if use_prctl and sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError, TypeError):  # pragma: no cover - no prctl: the thread will do
            pass
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)
    import threading

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="wiremap-exit-with-parent", daemon=True).start()


def _worker_context() -> Any:
    """Workers this process starts itself (fork on Linux, spawn elsewhere), so that their parent
    is this process, which they watch (`_exit_with_parent`); never a forkserver in between
    (Python 3.14's default on Linux). The parent runs no threads, so fork is safe here."""
    import multiprocessing

    method = "fork" if sys.platform.startswith("linux") else "spawn"
    return multiprocessing.get_context(method)


def _reject(number: int, category: str, message: str, path: str | None) -> tuple[str, bytes, list[str]]:
    record = {"line": number, "category": category, "message": message, "path": path}
    try:
        return "reject", _dumps(record).encode("utf-8"), []
    except UnicodeEncodeError:  # a lone surrogate quoted in the message or path: escape it
        return "reject", json.dumps(record, separators=(",", ":")).encode("ascii"), []


def _surrogate_path(value: Any) -> str | None:
    """The path of the first string (or object key) in `value` holding a lone surrogate."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            try:
                node.encode("utf-8")
            except UnicodeEncodeError:
                return path or None
        elif isinstance(node, dict):
            for k, v in reversed(list(node.items())):
                child = f"{path}.{k}" if path else str(k)
                if isinstance(k, str):
                    try:
                        k.encode("utf-8")
                    except UnicodeEncodeError:
                        return path or None
                stack.append((v, child))
        elif isinstance(node, list):
            for i in range(len(node) - 1, -1, -1):
                stack.append((node[i], f"{path}[{i}]"))
    return None


def _one(item: tuple[int, bytes]) -> tuple[str, bytes, list[str]]:
    """One input line -> its output line or its reject record; never raises (but
    KeyboardInterrupt and the like)."""
    import wiremap

    number, raw = item
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _reject(number, "provider_invalid_request", f"not UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} ({exc.reason})", None)
    try:
        body = json.loads(text)
    except ValueError as exc:
        return _reject(number, "provider_invalid_request", f"not JSON: {exc}", None)
    except RecursionError:
        return _reject(number, "provider_invalid_request", "not JSON this reader can take: nested too deeply to decode", None)
    try:
        t = translate_body(body, _JOB["source"], _JOB["target"], _JOB["what"], strict=_JOB["strict"], keep_extras=_JOB["keep_extras"])
        out = _dumps(t.result).encode("utf-8")
        losses = [f"{loss.path} {loss.kind}" for loss in t.losses]
    except wiremap.ProviderError as exc:
        return _reject(number, exc.category, exc.message, exc.path)
    except RecursionError:
        return _reject(number, "provider_invalid_request", "nested too deeply", None)
    except UnicodeEncodeError as exc:
        return _reject(
            number, "provider_invalid_request",
            f"not valid Unicode text: a lone surrogate {exc.object[exc.start:exc.end]!r}, which UTF-8 cannot carry",
            _surrogate_path(body),
        )
    except Exception as exc:  # a converter bug: this line is rejected, the run goes on
        try:
            detail = f"{type(exc).__name__}: {exc}"
        except Exception:  # pragma: no cover - an exception whose str() fails
            detail = type(exc).__name__
        return _reject(number, INTERNAL_ERROR, detail[:2000], None)
    return "ok", out, losses


def _run_batch(batch: list[tuple[int, bytes]]) -> list[tuple[str, bytes, list[str]]]:
    return [_one(item) for item in batch]


@dataclass
class ConvertSummary:
    lines: int = 0
    written: int = 0
    rejected: int = 0
    resumed_from: int = 0
    losses: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def text(self) -> str:
        out = [
            f"{self.lines} lines: {self.written} written, {self.rejected} rejected"
            + (f" (resumed after line {self.resumed_from})" if self.resumed_from else "")
            + f" in {self.seconds:.1f}s"
        ]
        for loss, n in sorted(self.losses.items(), key=lambda kv: (-kv[1], kv[0]))[:20]:
            out.append(f"  {n:>8} × {loss}")
        if len(self.losses) > 20:
            out.append(f"  ... and {len(self.losses) - 20} more kinds of loss")
        return "\n".join(out)


def _count_lines(path: str) -> int | None:
    if path == "-" or not os.path.isfile(path):
        return None
    n = 0
    last = b"\n"
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            n += chunk.count(b"\n")
            last = chunk[-1:]
    return n + (last != b"\n")


class _Progress:
    def __init__(self, stream: IO[str], total: int | None, enabled: bool) -> None:
        self.stream, self.total, self.enabled = stream, total, enabled
        self.start = time.monotonic()
        self.last = 0.0

    def show(self, done: int, rejected: int, final: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not final and now - self.last < 0.2:
            return
        self.last = now
        elapsed = max(now - self.start, 1e-9)
        rate = done / elapsed
        if self.total:
            width = 30
            filled = int(width * min(done / self.total, 1.0))
            eta = (self.total - done) / rate if rate > 0 else 0.0
            bar = f"[{'#' * filled}{'.' * (width - filled)}] {done:,}/{self.total:,}"
            tail = f"ETA {int(eta) // 60}:{int(eta) % 60:02d}"
        else:
            bar, tail = f"{done:,} lines", ""
        self.stream.write(f"\r{bar}  {rate:,.0f} lines/s  {tail}  rejects {rejected:,}   ")
        if final:
            self.stream.write("\n")
        self.stream.flush()


def _lines(fh: IO[bytes], skip: int) -> Iterator[tuple[int, bytes]]:
    """(line number, its bytes without the line end): split on LF only, whatever the bytes
    between, so one line's bad bytes cannot touch another's."""
    for number, line in enumerate(fh, 1):
        if number <= skip:
            continue
        yield number, line.rstrip(b"\n").rstrip(b"\r")


#: The checkpointed parameters that change the output, with the option that sets each.
_PARAMS: tuple[tuple[str, str], ...] = (
    ("source", "--from"), ("target", "--to"), ("what", "--what"), ("strict", "--strict"),
    ("keep_extras", "--keep-extras"), ("input", "the input file"), ("rejects", "--rejects"),
)


def _check_resume(checkpoint: str, state: dict[str, Any], params: dict[str, Any]) -> None:
    saved = state.get("params")
    if not isinstance(saved, dict):
        raise ResumeMismatchError(
            f"cannot resume: {checkpoint} does not record the options of the run that wrote it "
            "(an older wiremap); run without --resume to start over"
        )
    diffs = [
        f"{flag} was {saved.get(name)!r}, now {params[name]!r}"
        for name, flag in _PARAMS
        if saved.get(name) != params[name]
    ]
    if diffs:
        raise ResumeMismatchError(
            f"cannot resume: this run's options differ from those of the interrupted run ({checkpoint}): "
            + "; ".join(diffs)
            + ". Resume with the same options, or run without --resume to start over"
        )


def _truncate(path: str, size: int) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(size)


def convert_file(
    source: str,
    target: str,
    in_path: str,
    out_path: str,
    *,
    rejects_path: str | None = None,
    what: str = "request",
    jobs: int = 1,
    strict: bool = False,
    keep_extras: bool | None = None,
    resume: bool = False,
    batch_size: int = 256,
    progress: bool | None = None,
    progress_stream: IO[str] | None = None,
) -> ConvertSummary:
    """Translate a JSONL file line by line; see the module docstring."""
    import wiremap

    wiremap.get_format(source)  # unknown keys fail before any file is touched
    wiremap.get_format(target)
    if what not in WHAT:
        raise ValueError(f"what must be one of {WHAT}, not {what!r}")
    rejects_path = rejects_path or out_path + ".rejects.jsonl"
    checkpoint = out_path + ".checkpoint"
    stream = progress_stream or sys.stderr
    show = _Progress(stream, _count_lines(in_path), stream.isatty() if progress is None else progress)
    summary = ConvertSummary()
    started = time.monotonic()

    params = {
        "source": source, "target": target, "what": what, "strict": bool(strict), "keep_extras": keep_extras,
        "input": "-" if in_path == "-" else os.path.abspath(in_path), "rejects": os.path.abspath(rejects_path),
    }
    done = 0
    if resume and os.path.exists(checkpoint):
        try:
            with open(checkpoint, encoding="utf-8") as fh:
                state = json.load(fh)
            if not isinstance(state, dict):
                raise ValueError("not an object")
            _check_resume(checkpoint, state, params)
            done = int(state["lines"])
            summary.written, summary.rejected = int(state["written"]), int(state["rejected"])
            summary.losses.update(state.get("losses", {}))
            sizes = ((out_path, int(state["out_bytes"])), (rejects_path, int(state["rejects_bytes"])))
        except (ValueError, KeyError, TypeError) as exc:
            if isinstance(exc, ResumeMismatchError):
                raise
            raise ResumeMismatchError(f"cannot resume: {checkpoint} is unreadable ({exc}); run without --resume to start over") from None
        for path, size in sizes:
            if os.path.getsize(path) < size:
                raise ResumeMismatchError(
                    f"cannot resume: {path} is shorter ({os.path.getsize(path)} bytes) than the checkpoint "
                    f"says it was ({size} bytes); run without --resume to start over"
                )
            _truncate(path, size)
        summary.resumed_from = done
        mode = "ab"
    else:
        mode = "wb"

    pool = (
        ProcessPoolExecutor(
            max_workers=jobs, mp_context=_worker_context(), initializer=_init_worker,
            initargs=(source, target, what, strict, keep_extras, os.getpid()),
        )
        if jobs > 1
        else None
    )
    if pool is None:
        _init_worker(source, target, what, strict, keep_extras)
    in_fh = sys.stdin.buffer if in_path == "-" else open(in_path, "rb")
    try:
        with open(out_path, mode) as out, open(rejects_path, mode) as rej:
            items = _lines(in_fh, done)
            while True:
                batch = []
                for item in items:
                    batch.append(item)
                    if len(batch) >= batch_size * max(jobs, 1):
                        break
                if not batch:
                    break
                if pool is None:
                    results = _run_batch(batch)
                else:
                    chunks = [batch[i : i + batch_size] for i in range(0, len(batch), batch_size)]
                    results = [r for part in pool.map(_run_batch, chunks) for r in part]
                for kind, line, losses in results:
                    if kind == "ok":
                        out.write(line + b"\n")
                        summary.written += 1
                        summary.losses.update(losses)
                    else:
                        rej.write(line + b"\n")
                        summary.rejected += 1
                done = batch[-1][0]
                out.flush()
                rej.flush()
                state = {
                    "lines": done, "written": summary.written, "rejected": summary.rejected,
                    "out_bytes": out.tell(), "rejects_bytes": rej.tell(), "losses": dict(summary.losses),
                    "params": params,
                }
                tmp = checkpoint + ".tmp"
                with open(tmp, "w", encoding="utf-8") as fh:
                    json.dump(state, fh)
                os.replace(tmp, checkpoint)
                show.show(summary.written + summary.rejected, summary.rejected)
    finally:
        if in_path != "-":
            in_fh.close()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    summary.lines = summary.written + summary.rejected
    summary.seconds = time.monotonic() - started
    show.show(summary.lines, summary.rejected, final=True)
    if os.path.exists(checkpoint):
        os.remove(checkpoint)  # complete: nothing left to resume
    return summary

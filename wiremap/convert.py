"""`wiremap translate` (one body) and `wiremap convert` (a JSONL dataset), as functions.

`convert` streams: it reads one batch of lines at a time, translates the batch (in `jobs`
worker processes when asked), writes the results in input order and records a checkpoint, so
memory stays flat whatever the file size. Every input line yields exactly one output line or
one reject record (`{"line", "category", "message", "path"}`); the summary counts both.
An interrupted run is resumed with `resume=True`: the outputs are cut back to the last
checkpoint and the run goes on from the next line, so the files end up byte-identical to an
uninterrupted run.
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

__all__ = ["translate_body", "convert_file", "ConvertSummary"]

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


# One batch item: (line number, the line's text) -> ("ok", output json, losses) | ("reject", record json)
_JOB: dict[str, Any] = {}


def _init_worker(source: str, target: str, what: str, strict: bool, keep_extras: bool | None) -> None:
    import warnings

    import wiremap

    warnings.simplefilter("ignore")
    wiremap.get_format(source)
    wiremap.get_format(target)
    _JOB.update(source=source, target=target, what=what, strict=strict, keep_extras=keep_extras)


def _one(item: tuple[int, str]) -> tuple[str, str, list[str]]:
    import wiremap

    number, text = item
    try:
        body = json.loads(text)
    except ValueError as exc:
        return "reject", _dumps({"line": number, "category": "provider_invalid_request", "message": f"not JSON: {exc}", "path": None}), []
    try:
        t = translate_body(body, _JOB["source"], _JOB["target"], _JOB["what"], strict=_JOB["strict"], keep_extras=_JOB["keep_extras"])
    except wiremap.ProviderError as exc:
        return "reject", _dumps({"line": number, "category": exc.category, "message": exc.message, "path": exc.path}), []
    except RecursionError:
        return "reject", _dumps({"line": number, "category": "provider_invalid_request", "message": "nested too deeply", "path": None}), []
    return "ok", _dumps(t.result), [f"{loss.path} {loss.kind}" for loss in t.losses]


def _run_batch(batch: list[tuple[int, str]]) -> list[tuple[str, str, list[str]]]:
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


def _lines(fh: IO[str], skip: int) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(fh, 1):
        if number <= skip:
            continue
        yield number, line.rstrip("\n").rstrip("\r")


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

    done = 0
    if resume and os.path.exists(checkpoint):
        with open(checkpoint, encoding="utf-8") as fh:
            state = json.load(fh)
        done = int(state["lines"])
        summary.written, summary.rejected = int(state["written"]), int(state["rejected"])
        summary.losses.update(state.get("losses", {}))
        _truncate(out_path, int(state["out_bytes"]))
        _truncate(rejects_path, int(state["rejects_bytes"]))
        summary.resumed_from = done
        mode = "ab"
    else:
        mode = "wb"

    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(source, target, what, strict, keep_extras)) if jobs > 1 else None
    if pool is None:
        _init_worker(source, target, what, strict, keep_extras)
    in_fh = sys.stdin if in_path == "-" else open(in_path, encoding="utf-8", newline="\n")
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
                for kind, text, losses in results:
                    if kind == "ok":
                        out.write(text.encode("utf-8") + b"\n")
                        summary.written += 1
                        summary.losses.update(losses)
                    else:
                        rej.write(text.encode("utf-8") + b"\n")
                        summary.rejected += 1
                done = batch[-1][0]
                out.flush()
                rej.flush()
                state = {
                    "lines": done, "written": summary.written, "rejected": summary.rejected,
                    "out_bytes": out.tell(), "rejects_bytes": rej.tell(), "losses": dict(summary.losses),
                    "source": source, "target": target, "what": what,
                }
                tmp = checkpoint + ".tmp"
                with open(tmp, "w", encoding="utf-8") as fh:
                    json.dump(state, fh)
                os.replace(tmp, checkpoint)
                show.show(summary.written + summary.rejected, summary.rejected)
    finally:
        if in_fh is not sys.stdin:
            in_fh.close()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    summary.lines = summary.written + summary.rejected
    summary.seconds = time.monotonic() - started
    show.show(summary.lines, summary.rejected, final=True)
    if os.path.exists(checkpoint):
        os.remove(checkpoint)  # complete: nothing left to resume
    return summary

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

Records need not be JSONL lines: a Parquet file or a Hugging Face dataset folder gives one record
per row, numbered like lines (`wiremap.datasets`). `what="conversation"` reads fine-tuning and
eval records (`translate_record`); `model` fills records without one. The batches run here, in
`jobs` processes, or as Dask tasks (`engine="dask"`); all of them call `BatchTranslator`, which
`wiremap.batch_translator` hands to any other engine, so every engine writes the same bytes.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from collections import Counter, deque
from itertools import count, islice, repeat
from collections.abc import Generator, Iterator, Sequence
from functools import partial
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

from wiremap.runtime import wire as _w
from wiremap.runtime.canonical import Request, UserMessage
from wiremap.runtime.errors import InvalidRequestError, ProviderError
from wiremap.runtime.format import get_format, translator
from wiremap.runtime.translate import Translation, TranslationLossError, proven_without_carried, translate_request, translate_response

from . import datasets
from .datasets import MissingField, record_of_row

__all__ = [
    "translate_body", "convert_file", "ConvertSummary", "ResumeMismatchError", "INTERNAL_ERROR",
    "BatchTranslator", "batch_translator", "ENGINES", "WHAT",
]

#: What each line is: a request or a response body of the source format, or a conversation
#: (a fine-tuning or eval record: a request's messages, final assistant turn included, with no
#: `model` and none of the generation settings the target would add; see `translate_record`).
WHAT = ("request", "response", "conversation")

#: `engine`: this machine's processes (`jobs`), or a Dask cluster (a LocalCluster of `jobs`
#: worker processes, or the scheduler at `scheduler`).
ENGINES = ("local", "dask")

#: The model a conversation record without one is given while it is translated (the output
#: carries none, unless `model=` names one): a request needs a model to validate.
_NO_MODEL = "wiremap-conversation"


def translate_body(body: Any, source: str, target: str, what: str, *, strict: bool = False, keep_extras: bool | None = None) -> Any:
    """One body through `translate_request` or `translate_response` (a `Translation`)."""
    if not isinstance(body, dict):
        raise InvalidRequestError(f"expected a JSON object, got {type(body).__name__}")
    if what == "request":
        return translate_request(body, source, target, strict=strict, keep_extras=keep_extras)
    return translate_response(body, source, target, strict=strict)


def _conversation_defaults(target: str) -> frozenset[str]:
    """The top-level keys `target` writes into every request although no message asked for them
    (`max_tokens` for Anthropic Messages, which requires it): found by rendering a bare request
    twice with different text, so no format is named here. A conversation record drops such a
    key when the translation reports that the target added it."""
    fmt = get_format(target)
    a = fmt.request_to_wire(Request(model=_NO_MODEL, messages=[UserMessage(content="a")]))
    b = fmt.request_to_wire(Request(model=_NO_MODEL, messages=[UserMessage(content="b")]))
    return frozenset(k for k in a if k != "model" and a.get(k) == b.get(k))


def translate_record(
    body: Any, source: str, target: str, what: str, *, model: str | None = None,
    strict: bool = False, keep_extras: bool | None = None, defaults: frozenset[str] | None = None,
) -> Any:
    """One record (a decoded line or row) -> its `Translation`: `translate_body`, plus `model`
    for records without one, plus the conversation shape (`what="conversation"`).

    A conversation record is request-shaped in the source format but needs no `model`: an
    OpenAI fine-tuning line `{"messages", "tools"?, "parallel_tool_calls"?}`
    (https://platform.openai.com/docs/api-reference/fine-tuning/chat-input), an Anthropic one on
    Bedrock `{"system"?, "messages"}` (https://docs.aws.amazon.com/bedrock/latest/userguide/
    model-customization-prepare.html), a Gemini one on Vertex AI `{"systemInstruction"?,
    "contents", "tools"?}` (https://cloud.google.com/vertex-ai/generative-ai/docs/models/
    gemini-supervised-tuning-prepare). Its messages are the request's messages, final assistant
    turn included, so the request converters translate it; the output leaves out the model
    (unless the record or `model` gave one) and the settings the target added on its own."""
    if not isinstance(body, dict):
        raise InvalidRequestError(f"expected a JSON object, got {type(body).__name__}")
    if what != "conversation":
        if model is not None and what == "request" and "model" not in body:
            body = {**body, "model": model}
        return translate_body(body, source, target, what, strict=strict, keep_extras=keep_extras)
    had_model = "model" in body or model is not None
    if "model" not in body:
        body = {**body, "model": model or _NO_MODEL}
    t = translate_request(body, source, target, strict=False, keep_extras=keep_extras)
    result = dict(t.result) if isinstance(t.result, dict) else t.result
    losses = list(t.losses)
    if isinstance(result, dict):
        if not had_model:
            result.pop("model", None)
        for key in defaults if defaults is not None else _conversation_defaults(target):
            added = [loss for loss in losses if loss.kind == "added" and loss.path.rsplit(".", 1)[-1] == key]
            if added and key in result:
                del result[key]
                losses = [loss for loss in losses if loss not in added]
    if strict and losses:
        raise TranslationLossError(losses, source, target)
    return Translation(result, losses, t.source, t.target)


#: `json.dumps(value, ensure_ascii=False, separators=(",", ":"))` made once: json.dumps builds a
#: new encoder on every call that passes options, and the encoder a new C encoder on every
#: call, once per output line here.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_dumps = _w.encode_made_once(_ENCODER)


#: The reject category of a line that made a converter raise something other than a
#: ProviderError (a bug: please report it). The line is rejected and the run goes on.
INTERNAL_ERROR = "wiremap_internal_error"


class ResumeMismatchError(ValueError):
    """`resume=True` with parameters other than the checkpointed run's: the outputs would mix
    two translations. The message names each difference."""


# One batch item: (line number, the line's bytes or an already decoded record, e.g. a Parquet row)
# -> ("ok", output line, losses) | ("reject", record line, [])
Item = tuple[int, Any]
Result = tuple[str, bytes, Sequence[str]]
#: a line's losses when it has none: one shared empty tuple, not a list a line (a tracked
#: container alive until its batch is written, which made the collector run over the heap)
_NO_LOSSES: tuple[str, ...] = ()
_JOB: dict[str, Any] = {}


def _job(source: str, target: str, what: str, strict: bool, keep_extras: bool | None, model: str | None = None) -> dict[str, Any]:
    """A run's translation parameters, checked: what each worker (process or engine task) needs."""
    import warnings

    warnings.simplefilter("ignore")
    get_format(source)
    get_format(target)
    defaults = _conversation_defaults(target) if what == "conversation" else frozenset()
    # a request the fused translator proves lossless (but for a default the target adds) is its
    # body and that report (translate_request takes the same way first, `proven_losses`; called
    # here directly, a line skips the layers in between): `proof` is the fused translator's own
    # proof, `exact` the rest of `proven_losses` (a body with carried wire data, proven without it)
    tr = translator(source, target) if what == "request" else None
    proof = tr.request_with_losses if tr is not None else None
    exact = partial(proven_without_carried, tr, carried=not keep_extras) if tr is not None else None
    return dict(source=source, target=target, what=what, strict=strict, keep_extras=keep_extras, model=model, defaults=defaults, proof=proof, exact=exact)


def _init_worker(
    source: str, target: str, what: str, strict: bool, keep_extras: bool | None,
    parent: int | None = None, model: str | None = None,
) -> None:
    if parent is not None:  # a worker process (-j N), not the parent running a batch itself
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        _exit_with_parent(parent)
    _JOB.update(_job(source, target, what, strict, keep_extras, model))


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


def _reject(number: int, category: str, message: str, path: str | None) -> Result:
    record = {"line": number, "category": category, "message": message, "path": path}
    try:
        return "reject", _dumps(record).encode("utf-8"), _NO_LOSSES
    except UnicodeEncodeError:  # a lone surrogate quoted in the message or path: escape it
        return "reject", json.dumps(record, separators=(",", ":")).encode("ascii"), _NO_LOSSES


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


def _translate_item(item: Item, job: dict[str, Any]) -> Result:
    """One input line (or decoded record) -> its output line or its reject record; never raises
    (but KeyboardInterrupt and the like)."""
    number, raw = item
    if isinstance(raw, (bytes, bytearray, str)):
        if isinstance(raw, str):
            text = raw
        else:
            try:
                text = bytes(raw).decode("utf-8")
            except UnicodeDecodeError as exc:
                return _reject(number, "provider_invalid_request", f"not UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} ({exc.reason})", None)
        try:
            body = json.loads(text)
        except ValueError as exc:
            return _reject(number, "provider_invalid_request", f"not JSON: {exc}", None)
        except RecursionError:
            return _reject(number, "provider_invalid_request", "not JSON this reader can take: nested too deeply to decode", None)
    elif isinstance(raw, MissingField):
        return _reject(number, "provider_invalid_request", f"no column {raw.field!r} (the row has: {', '.join(raw.columns)})", raw.field)
    else:
        body = raw
    try:
        proof = job["proof"]
        if proof is not None and (job["model"] is None or (type(body) is dict and "model" in body)):
            proven = proof(body)  # (target body, the defaults it added) or None
            fused = None if proven is not None else job["exact"](body)
        else:
            proven = fused = None
        if proven is not None and not (proven[1] and job["strict"]):  # strict with a loss: the error, the usual way
            out = _dumps(proven[0]).encode("utf-8")
            losses: Sequence[str] = [f"{path} added" for path, _ in proven[1]] if proven[1] else _NO_LOSSES  # as fused_losses names them
        elif fused is not None and not (fused[1] and job["strict"]):
            out = _dumps(fused[0]).encode("utf-8")
            losses = [f"{loss.path} {loss.kind}" for loss in fused[1]] or _NO_LOSSES
        else:
            t = translate_record(
                body, job["source"], job["target"], job["what"], model=job["model"], strict=job["strict"],
                keep_extras=job["keep_extras"], defaults=job["defaults"],
            )
            out = _dumps(t.result).encode("utf-8")
            losses = [f"{loss.path} {loss.kind}" for loss in t.losses] or _NO_LOSSES
    except ProviderError as exc:
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


def _run_batch(batch: list[Item]) -> list[Result]:
    job, one = _JOB, _translate_item
    return [one(item, job) for item in batch]


class BatchTranslator:
    """Translates a batch of records: the function any engine maps (Dask, Ray Data's
    `map_batches`, Spark's `mapInPandas`, a plain loop). Picklable; the formats load on first use
    in each worker. Made by `wiremap.batch_translator`.

    `translator(batch, first_line=1)` takes a list of records (JSON lines as `str` or `bytes`,
    or decoded objects), or a batch of columns (a `dict` of equal-length sequences, a
    `pyarrow.Table`, a pandas `DataFrame`), whose rows are the records (or, with `field=`, the
    record is the row's `field` value; a list there becomes `{field: list}`, a string is parsed
    as JSON). It returns columns, in input order, one row per record:

    * `line`: the record's number (`first_line`, `first_line + 1`, ...),
    * `output`: the translated record as compact JSON text, or None when rejected,
    * `reject`: the reject record `{"line", "category", "message", "path"}` as JSON text, or None,
    * `losses`: what the translation lost, `"<path> <kind>"` strings.

    Line for line, these are the bytes `wiremap convert` writes (output file, rejects file) and
    the losses it counts, whatever the engine.
    """

    def __init__(
        self, source: str, target: str, *, what: str = "request", model: str | None = None,
        strict: bool = False, keep_extras: bool | None = None, field: str | None = None,
    ) -> None:
        get_format(source)  # an unknown key fails here, not in a worker
        get_format(target)
        if what not in WHAT:
            raise ValueError(f"what must be one of {WHAT}, not {what!r}")
        self.source, self.target, self.what, self.model = source, target, what, model
        self.strict, self.keep_extras, self.field = bool(strict), keep_extras, field
        self._job: dict[str, Any] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_job": None}

    def translate_items(self, items: list[Item]) -> list[Result]:
        """(number, line bytes or record) items -> ("ok" | "reject", bytes, losses) in order."""
        if self._job is None:
            self._job = _job(self.source, self.target, self.what, self.strict, self.keep_extras, self.model)
        job = self._job
        return [_translate_item(item, job) for item in items]

    def __call__(self, batch: Any, first_line: int = 1) -> dict[str, list[Any]]:
        rows = _batch_rows(batch, self.field)
        results = self.translate_items([(first_line + i, row) for i, row in enumerate(rows)])
        columns: dict[str, list[Any]] = {"line": [], "output": [], "reject": [], "losses": []}
        for i, (kind, line, losses) in enumerate(results):
            columns["line"].append(first_line + i)
            text = line.decode("utf-8")
            columns["output"].append(text if kind == "ok" else None)
            columns["reject"].append(text if kind != "ok" else None)
            columns["losses"].append(list(losses))
        return columns


def batch_translator(
    source: str, target: str, *, what: str = "request", model: str | None = None,
    strict: bool = False, keep_extras: bool | None = None, field: str | None = None,
) -> BatchTranslator:
    """The batch translator from `source` to `target`, for any engine to map; see
    `BatchTranslator`. `what`, `model`, `strict`, `keep_extras` are `wiremap convert`'s options."""
    return BatchTranslator(source, target, what=what, model=model, strict=strict, keep_extras=keep_extras, field=field)


def _batch_rows(batch: Any, field: str | None) -> list[Any]:
    """A batch (see `BatchTranslator`) -> its records, in order."""
    if hasattr(batch, "to_pylist"):  # a pyarrow Table or RecordBatch
        rows: list[Any] = batch.to_pylist()
    elif hasattr(batch, "to_dict") and hasattr(batch, "columns"):  # a pandas DataFrame
        rows = batch.to_dict("records")
    elif isinstance(batch, dict):
        names = list(batch)
        columns = [list(batch[name]) for name in names]
        if len({len(c) for c in columns}) > 1:
            sizes = {name: len(c) for name, c in zip(names, columns)}
            raise ValueError(f"a batch of columns needs columns of one length; got {sizes}")
        rows = [dict(zip(names, values)) for values in zip(*columns)]
    else:  # a list of records: JSON lines or objects, taken as they are
        records = list(batch)
        return records if field is None else [record_of_row(r, field) for r in records]
    return [record_of_row(row, field) for row in rows]


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
    between, so one line's bad bytes cannot touch another's. Built of iterators that run in C
    (a generator here cost about a microsecond a line)."""
    rstrip = bytes.rstrip
    stripped = map(rstrip, map(rstrip, fh, repeat(b"\n")), repeat(b"\r"))
    return islice(zip(count(1), stripped), skip, None)


#: The checkpointed parameters that change the output, with the option that sets each.
_PARAMS: tuple[tuple[str, str], ...] = (
    ("source", "--from"), ("target", "--to"), ("what", "--what"), ("strict", "--strict"),
    ("keep_extras", "--keep-extras"), ("input", "the input file"), ("rejects", "--rejects"),
    ("model", "--model"), ("input_format", "--input-format"), ("output_format", "--output-format"),
    ("field", "--field"),
)
#: What a checkpoint written before an option existed means by its absence.
_PARAM_DEFAULTS: dict[str, Any] = {"model": None, "input_format": "jsonl", "output_format": "jsonl", "field": None}


def _check_resume(checkpoint: str, state: dict[str, Any], params: dict[str, Any]) -> None:
    saved = state.get("params")
    if not isinstance(saved, dict):
        raise ResumeMismatchError(
            f"cannot resume: {checkpoint} does not record the options of the run that wrote it "
            "(an older wiremap); run without --resume to start over"
        )
    diffs = [
        f"{flag} was {saved.get(name, _PARAM_DEFAULTS.get(name))!r}, now {params[name]!r}"
        for name, flag in _PARAMS
        if saved.get(name, _PARAM_DEFAULTS.get(name)) != params[name]
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
    model: str | None = None,
    engine: str = "local",
    scheduler: str | None = None,
    input_format: str | None = None,
    output_format: str | None = None,
    field: str | None = None,
) -> ConvertSummary:
    """Translate a dataset record by record; see the module docstring.

    `engine="dask"` runs the batches on a Dask cluster: a LocalCluster of `jobs` worker
    processes, or the running scheduler at `scheduler` (its workers need wiremap installed).
    The outputs are the same bytes as `engine="local"`'s. `input_format`/`output_format`
    (`jsonl`, `parquet`) default to what the file name says (`wiremap.datasets`)."""
    get_format(source)  # unknown keys fail before any file is touched
    get_format(target)
    if what not in WHAT:
        raise ValueError(f"what must be one of {WHAT}, not {what!r}")
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    if jobs < 1 or batch_size < 1:
        raise ValueError("jobs and batch_size must be at least 1")
    input_format = input_format or datasets.infer_format(in_path)
    output_format = output_format or datasets.infer_format(out_path)
    for name, value in (("input_format", input_format), ("output_format", output_format)):
        if value not in datasets.FORMATS:
            raise ValueError(f"{name} must be one of {datasets.FORMATS}, not {value!r}")
    if input_format == "parquet" and in_path == "-":
        raise ValueError("a Parquet input is a file or a folder, not stdin")
    # A Parquet output is written from a JSONL file at the end: that file is what a resume cuts back.
    lines_path = out_path if output_format == "jsonl" else out_path + ".partial.jsonl"
    rejects_path = rejects_path or out_path + ".rejects.jsonl"
    checkpoint = out_path + ".checkpoint"
    stream = progress_stream or sys.stderr
    showing = stream.isatty() if progress is None else progress
    # the total is for the progress bar only: without one a JSONL input is not read an extra time
    # to count its lines (a Parquet input's count is its footer, read first: a bad file fails
    # before any output file is made)
    total = datasets.count_records(in_path) if input_format != "jsonl" else _count_lines(in_path) if showing else None
    show = _Progress(stream, total, showing)
    summary = ConvertSummary()
    started = time.monotonic()

    params = {
        "source": source, "target": target, "what": what, "strict": bool(strict), "keep_extras": keep_extras,
        "input": "-" if in_path == "-" else os.path.abspath(in_path), "rejects": os.path.abspath(rejects_path),
        "model": model, "input_format": input_format, "output_format": output_format, "field": field,
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
            sizes = ((lines_path, int(state["out_bytes"])), (rejects_path, int(state["rejects_bytes"])))
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

    translator = BatchTranslator(source, target, what=what, model=model, strict=strict, keep_extras=keep_extras, field=field)
    in_fh: IO[bytes] | None = None
    if input_format == "jsonl":
        in_fh = sys.stdin.buffer if in_path == "-" else open(in_path, "rb")
        items: Iterator[Item] = _lines(in_fh, done)
    else:
        items = datasets.read_records(in_path, field, skip=done)
    try:
        with open(lines_path, mode) as out, open(rejects_path, mode) as rej:
            if engine == "dask":
                batches = _dask_batches(translator, items, jobs, batch_size, scheduler)
            else:
                # a Parquet file or folder, or a regular JSONL file: reading it never waits (a pipe may)
                ahead = input_format != "jsonl" or (in_path != "-" and os.path.isfile(in_path))
                batches = _local_batches(translator, items, jobs, batch_size, ahead=ahead)
            try:
                for last, results in batches:
                    written: list[bytes] = []
                    rejected: list[bytes] = []
                    for kind, line, losses in results:
                        if kind == "ok":
                            written.append(line)
                            if losses:  # Counter.update costs a call per line even for none
                                summary.losses.update(losses)
                        else:
                            rejected.append(line)
                    # one write per batch and file (a write per line cost about a microsecond a line)
                    if written:
                        summary.written += len(written)
                        written.append(b"")
                        out.write(b"\n".join(written))
                    if rejected:
                        summary.rejected += len(rejected)
                        rejected.append(b"")
                        rej.write(b"\n".join(rejected))
                    done = last
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
                batches.close()  # stops the workers or the cluster, also on Ctrl-C
    finally:
        if in_fh is not None and in_path != "-":
            in_fh.close()
    if output_format == "parquet":
        datasets.write_parquet(lines_path, out_path, field or "record")
        os.remove(lines_path)
    summary.lines = summary.written + summary.rejected
    summary.seconds = time.monotonic() - started
    show.show(summary.lines, summary.rejected, final=True)
    if os.path.exists(checkpoint):
        os.remove(checkpoint)  # complete: nothing left to resume
    return summary


def _batches_of(items: Iterator[Item], size: int) -> Iterator[list[Item]]:
    items = iter(items)
    while batch := list(islice(items, size)):
        yield batch


def _local_batches(
    translator: BatchTranslator, items: Iterator[Item], jobs: int, batch_size: int, *, ahead: bool = False,
) -> Generator[tuple[int, list[Result]], None, None]:
    """(last line number, results) per `batch_size * jobs` lines, in order: in this process, or
    split over `jobs` worker processes.

    `ahead` (an input that never blocks: a regular file): the next round is read and handed to
    the workers before this one is collected and written, so they translate while this process
    writes, checkpoints and reads (without it each round waited for the parent, which cost
    `-j 2` about a tenth of its rate on two cores). Never from a pipe: the round after would wait
    for input that may not come yet, and a finished round must reach its checkpoint meanwhile."""
    if jobs == 1:
        _init_worker(translator.source, translator.target, translator.what, translator.strict, translator.keep_extras, model=translator.model)
        for batch in _batches_of(items, batch_size):
            yield batch[-1][0], _run_batch(batch)
        return
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=_worker_context(), initializer=_init_worker,
        initargs=(translator.source, translator.target, translator.what, translator.strict, translator.keep_extras, os.getpid(), translator.model),
    )
    pending: deque[tuple[int, list[Future[list[Result]]]]] = deque()
    try:
        for batch in _batches_of(items, batch_size * jobs):
            chunks = [batch[i : i + batch_size] for i in range(0, len(batch), batch_size)]
            pending.append((batch[-1][0], [pool.submit(_run_batch, chunk) for chunk in chunks]))
            if len(pending) > (1 if ahead else 0):
                last, parts = pending.popleft()
                yield last, [r for part in parts for r in part.result()]
        while pending:
            last, parts = pending.popleft()
            yield last, [r for part in parts for r in part.result()]
    finally:
        pool.shutdown(cancel_futures=True)


def _dask_batches(
    translator: BatchTranslator, items: Iterator[Item], workers: int, batch_size: int, scheduler: str | None,
) -> Generator[tuple[int, list[Result]], None, None]:
    """(last line number, results) per `batch_size` lines, in order, each batch a Dask task
    (`BatchTranslator.translate_items`). A reader thread submits the batches, at most two per
    worker ahead of the one being written, so the parent's memory stays flat, and a batch that is
    done gets written while the reader waits for input (a pipe). The cluster is a LocalCluster of
    `workers` processes (one thread each: translation holds the GIL) unless `scheduler` names a
    running one."""
    import logging
    import queue
    import threading

    try:
        distributed = importlib.import_module("dask.distributed")
    except ImportError:
        raise ValueError("the dask engine needs Dask: pip install 'wiremap[dask]'") from None
    cluster: Any = None
    if scheduler is None:
        import signal

        # The worker processes start with SIGINT ignored (a spawned process keeps an ignored
        # signal): Ctrl-C is the parent's to handle, which stops the cluster and keeps the
        # checkpoint; a worker would otherwise die printing tracebacks.
        main = threading.current_thread() is threading.main_thread()  # signal.signal's condition
        handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                silence_logs=logging.ERROR,
            )
        finally:
            if main:
                signal.signal(signal.SIGINT, handler)
        client = distributed.Client(cluster)
    else:
        client = distributed.Client(scheduler)
    stop = threading.Event()
    try:
        remote = client.scatter(translator, broadcast=True)
        window = 2 * (workers if scheduler is None else max(1, len(client.scheduler_info()["workers"])))
        submitted: queue.Queue[tuple[int, Any] | BaseException | None] = queue.Queue(maxsize=window)

        def submit() -> None:
            try:
                for batch in _batches_of(items, batch_size):
                    if stop.is_set():
                        return
                    submitted.put((batch[-1][0], client.submit(_dask_task, remote, batch, pure=False)))
                submitted.put(None)
            except BaseException as exc:  # an unreadable input: raised in the parent's thread
                submitted.put(exc)

        reader = threading.Thread(target=submit, name="wiremap-convert-reader", daemon=True)
        reader.start()
        while (entry := submitted.get()) is not None:
            if isinstance(entry, BaseException):
                raise entry
            last, future = entry
            yield last, future.result()
    finally:
        stop.set()
        client.close()
        if cluster is not None:
            cluster.close()


def _dask_task(translator: BatchTranslator, batch: list[Item]) -> list[Result]:
    return translator.translate_items(batch)

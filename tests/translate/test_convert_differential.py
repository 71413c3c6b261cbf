"""`wiremap convert`'s per-line work made faster must write the same bytes (issue 19 target 6).

Old path against new path, over the recorded traffic (`../shared/recorded`) and the bench's
corpus (bench/datasets.py):

- the carried-data residual (`runtime/carry.py` `_diff`, which runs on every body a reader
  reads) compares the leaves of one type inline now: every call it makes while the recorded
  bodies are read is checked against the previous function, kept here as the reference, op for
  op (paths, values and their types, order);
- `convert_file` run with the previous per-line pieces patched back in (that `_diff`, and
  `json.dumps` building its encoder per line) writes the same output, rejects and loss counts as
  the current code, with one worker and with two (which reads the next round ahead from a file).

No timings are asserted; bench/datasets.py measures the speed.
"""

from __future__ import annotations

import importlib.util
import json
import math
import warnings
from collections import Counter, OrderedDict
from enum import IntEnum
from pathlib import Path
from typing import Any

import pytest

import wiremap
from wiremap import convert as conv
from wiremap.runtime import carry

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT.parent / "shared" / "recorded"
TARGETS = ("anthropic_messages", "openai_chat", "gemini_generate_content", "openai_responses", "mistral")


def reference_diff(o: Any, r: Any, path: tuple[Any, ...], out: list[tuple[tuple[Any, ...], Any, Any]]) -> None:
    """runtime/carry.py `_diff` as it was before the leaves were compared inline."""
    to = type(o)
    if to is dict and type(r) is dict:
        for k, v in o.items():
            if k in r:
                reference_diff(v, r[k], path + (k,), out)
            else:
                out.append((path + (k,), v, carry.ABSENT))
        for k, v in r.items():
            if k not in o:
                out.append((path + (k,), carry.ABSENT, v))
        return
    if to is list and type(r) is list and len(o) == len(r):
        for i, (x, y) in enumerate(zip(o, r)):
            reference_diff(x, y, path + (i,), out)
        return
    if not carry._same(o, r):
        out.append((path, o, r))


def reference_dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def typed(ops: list[tuple[tuple[Any, ...], Any, Any]]) -> str:
    """The ops with the type of every value spelled out (1, 1.0 and True differ)."""

    def walk(v: Any) -> Any:
        if isinstance(v, dict):
            return [type(v).__name__, [[walk(k), walk(x)] for k, x in v.items()]]
        if isinstance(v, (list, tuple)):
            return [type(v).__name__, [walk(x) for x in v]]
        if isinstance(v, float) and math.isnan(v):
            return ["float", "nan"]
        return [type(v).__name__, repr(v)]

    return json.dumps([[walk(p), walk(a), walk(b)] for p, a, b in ops])


def recorded(kind: str) -> list[tuple[str, dict[str, Any]]]:
    """(format, body) of every recorded `kind` body in a format registered here."""
    known = set(wiremap.formats())
    out = []
    for path in sorted(RECORDED.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            body = record.get("body")
            if record.get("kind") != kind or record.get("format") not in known or not isinstance(body, dict):
                continue
            model = (record.get("meta") or {}).get("model")
            if kind == "request" and "model" not in body and isinstance(model, str):
                body = {"model": model, **body}  # a model bound to the URL path, as the gateway passes it
            out.append((record["format"], body))
    return out


def bench_lines(n: int) -> list[bytes]:
    spec = importlib.util.spec_from_file_location("bench_datasets", ROOT / "bench" / "datasets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lines = [json.dumps(module.record(i)).encode() for i in range(n)]
    for i in range(49, n, 50):
        lines[i] = b"{not json"
    return lines


class Checked:
    """`carry._diff` that also runs the reference on the same arguments and compares."""

    def __init__(self) -> None:
        self.calls = 0
        self.with_ops = 0

    def __call__(self, o: Any, r: Any, path: tuple[Any, ...], out: list[tuple[tuple[Any, ...], Any, Any]]) -> None:
        expected: list[tuple[tuple[Any, ...], Any, Any]] = []
        reference_diff(o, r, path, expected)
        start = len(out)
        NEW_DIFF(o, r, path, out)
        assert typed(out[start:]) == typed(expected), (o, r)
        self.calls += 1
        self.with_ops += bool(expected)


NEW_DIFF = carry._diff


@pytest.mark.parametrize(
    "o, r",
    [
        ({"a": 1, "b": [1, 2.0, True]}, {"a": 1.0, "b": [True, 2, 1]}),
        ({"a": [1, [2, {"x": None}]], "c": "s"}, {"a": [1, [2, {"x": 0}]], "d": "s"}),
        ([1, 2, 3], [1, 2]),
        ({"n": float("nan"), "m": [float("nan")]}, {"n": float("nan"), "m": [float("nan")]}),
        ({"e": IntEnum("E", "A").A, "o": OrderedDict(a=1), "t": (1,)}, {"e": 1, "o": {"a": 1}, "t": [1]}),
        ({"k": {"a": 1, "b": 2}}, {"k": {"b": 2, "a": 1}}),
        ("text", ["text"]),
        (0, False),
    ],
)
def test_the_residual_diff_is_the_reference_on_edge_values(o: Any, r: Any) -> None:
    Checked()(o, r, ("root",), [])


@pytest.mark.skipif(not RECORDED.is_dir(), reason="../shared/recorded is not on this machine")
def test_the_residual_of_every_recorded_body_is_the_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = Checked()
    monkeypatch.setattr(carry, "_diff", checked)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, body in recorded("request"):
            try:
                wiremap.get_format(key).request_from_wire(body)
            except wiremap.ProviderError:
                pass
        for key, body in recorded("response"):
            try:
                wiremap.get_format(key).response_from_wire(body)
            except wiremap.ProviderError:
                pass
    assert checked.calls > 1000 and checked.with_ops > 100, (checked.calls, checked.with_ops)


def run(tmp_path: Path, name: str, source: str, target: str, lines: list[bytes], **kwargs: Any) -> tuple[bytes, bytes, Counter[str]]:
    src = tmp_path / f"{name}.in.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / f"{name}.out.jsonl"
    summary = conv.convert_file(source, target, str(src), str(out), progress=False, **kwargs)
    rejects = Path(str(out) + ".rejects.jsonl")
    return out.read_bytes(), rejects.read_bytes(), summary.losses


def old_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(carry, "_diff", reference_diff)
    monkeypatch.setattr(conv, "_dumps", reference_dumps)


@pytest.mark.skipif(not RECORDED.is_dir(), reason="../shared/recorded is not on this machine")
@pytest.mark.parametrize("target", TARGETS)
def test_convert_writes_the_old_paths_bytes_for_the_recorded_requests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    by_source: dict[str, list[bytes]] = {}
    for key, body in recorded("request"):
        by_source.setdefault(key, []).append(json.dumps(body, ensure_ascii=False).encode("utf-8"))
    assert len(by_source) >= 5
    written = 0
    for source, lines in sorted(by_source.items()):
        if wiremap.get_format(source).kind != wiremap.get_format(target).kind:
            continue
        new = run(tmp_path, f"new-{source}", source, target, lines, batch_size=16)
        with monkeypatch.context() as patch:
            old_path(patch)
            old = run(tmp_path, f"old-{source}", source, target, lines, batch_size=16)
        assert new == old, source
        written += new[0].count(b"\n")
    assert written > 300


def test_convert_writes_the_old_paths_bytes_for_the_bench_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = bench_lines(600)
    with monkeypatch.context() as patch:
        old_path(patch)
        old = run(tmp_path, "old", "openai_chat", "anthropic_messages", lines, batch_size=64)
    assert old[0].count(b"\n") == 588 and old[1].count(b"\n") == 12
    assert run(tmp_path, "new-1", "openai_chat", "anthropic_messages", lines, batch_size=64) == old
    # two workers, the next round read ahead from the file while one is written: the same bytes
    assert run(tmp_path, "new-2", "openai_chat", "anthropic_messages", lines, batch_size=64, jobs=2) == old

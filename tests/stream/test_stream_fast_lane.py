"""The stream engine's fast lanes (issue 19 target 5) write exactly what its general path writes.

`StreamEmitter._fast` writes a text, reasoning or argument delta from pieces pre-rendered around
a probe value (the generated table's `plain` rows, codegen/emit/stream.py `EmitRow.plain`);
`StreamParser._quick` applies the rules of nearly every event without the general dispatch;
`_loads` decodes an event's JSON with the scanner directly. Each is checked here against the
engine with it turned off: the same bytes, the same loss report, the same assembled response
or error, for every recorded stream into every streaming format, whole and in small reads.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from recorded import ALL, Recorded  # noqa: E402

import bench_stream  # noqa: E402
from wiremap.codegen.emit.stream import EmitRow  # noqa: E402
from wiremap.codegen.wiretemplate import parse_template  # noqa: E402
from wiremap.runtime import stream as engine  # noqa: E402
from wiremap.runtime.format import formats, get_format  # noqa: E402

TARGETS = [k for k in formats() if get_format(k).stream]


def _small_reads(body: bytes, seed: int = 7) -> list[bytes]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(body):
        n = rng.choice([1, 3, 7, 40, 300])
        out.append(body[i : i + n])
        i += n
    return out


def _translate(chunks: list[bytes], source: str, target: str) -> tuple[bytes, list[Any], Any, Any]:
    # into its own format a stream's bytes pass through whole: its events go to the emitter
    tr = engine.translate_stream(engine.parse_stream(chunks, source) if engine.same_stream(source, target) else chunks, source, target)
    data = b"".join(tr)
    response = tr.response.to_dict() if tr.response is not None else None
    error = (tr.error.category, tr.error.message) if tr.error is not None else None
    return data, [loss.to_dict() for loss in tr.losses], response, error


def _same(got: tuple[bytes, list[Any], Any, Any], want: tuple[bytes, list[Any], Any, Any], what: str) -> None:
    """Fails naming the first difference (a plain `==` on these would diff megabytes)."""
    if got == want:
        return
    data, want_data = got[0], want[0]
    if data != want_data:
        at = next((i for i, (a, b) in enumerate(zip(data, want_data)) if a != b), min(len(data), len(want_data)))
        pytest.fail(f"{what}: the bytes differ at {at}: {data[at - 60 : at + 60]!r} != {want_data[at - 60 : at + 60]!r}")
    names = ("losses", "response", "error")
    which = next(n for n, a, b in zip(names, got[1:], want[1:]) if a != b)
    pytest.fail(f"{what}: the {which} differ")


def _general(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fast lane off: the engine's general path only."""
    monkeypatch.setattr(engine.StreamEmitter, "_fast", lambda self, lane, t, ev: None)
    monkeypatch.setattr(engine.StreamParser, "_quick", lambda self, kind, values, out: False)
    monkeypatch.setattr(engine, "_loads", json.loads)


@pytest.mark.parametrize("rec", ALL, ids=[r.id for r in ALL])
def test_fast_lanes_write_what_the_general_path_writes(rec: Recorded, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [(target, reads) for target in TARGETS for reads in ([rec.body], _small_reads(rec.body))]
    fast = [_translate(reads, rec.format, target) for target, reads in cases]
    _general(monkeypatch)
    general = [_translate(reads, rec.format, target) for target, reads in cases]
    for (target, _reads), got, want in zip(cases, fast, general):
        _same(got, want, f"{rec.id} -> {target}")


@pytest.mark.parametrize(("source", "target"), [(s, t) for s in ("openai_chat", "anthropic_messages") for t in TARGETS])
def test_long_streams_through_the_lanes(source: str, target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark's streams (400 text deltas, a 20-piece tool call) in 1 KiB reads: the lanes
    take the deltas where the target's rows allow (OpenAI Chat and Anthropic Messages do), and
    the bytes are the general path's."""
    body = bench_stream.openai_stream(400) if source == "openai_chat" else bench_stream.anthropic_stream(400)
    reads = bench_stream.reads(body)
    taken = []
    fast_lane = engine.StreamEmitter._fast

    def counting(self: Any, lane: Any, t: str, ev: Any) -> Any:
        out = fast_lane(self, lane, t, ev)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(engine.StreamEmitter, "_fast", counting)
    got = _translate(reads, source, target)
    if target in ("openai_chat", "anthropic_messages"):
        assert sum(taken) >= 400  # every text delta but the first of its block, and the argument pieces
    _general(monkeypatch)
    _same(got, _translate(reads, source, target), f"{source} -> {target}")


def _row(data: Any, event: Any = None) -> EmitRow:
    return EmitRow("_stream_emit_0", "/stream/emit/text_delta/0", parse_template(event, "/e", emit_only=True) if event else None,
                   parse_template(data, "/d", emit_only=True))


def test_plain_values_are_whole_json_strings_only() -> None:
    row = _row({"type": "delta", "index": "{block}", "delta": {"text": "{text}"}, "id": "msg_{index}"})
    assert row.reads() == ["block", "index", "text"]
    assert row.plain() == ["block", "text"]  # index is inside text ("msg_{index}")
    assert _row("{text}").plain() == []  # the data itself: a string is written raw, not as JSON
    assert _row({"a": "{text.x}"}).plain() == []  # a path into the value
    assert _row({"a": "{text|json}"}).plain() == []  # decoded, not written verbatim
    assert _row({"a": ["{text?}", 1]}).plain() == ["text"]
    assert _row({"a": "{text}", "b": "x{text}"}).plain() == []  # once whole, once inside text
    assert _row({"a": "{text}"}, event="{text}").plain() == []  # the event name is not JSON


@pytest.mark.parametrize("data", ['{"a":1}', ' {"a":1} ', "[1]", '"x"', '{"a":', "", "\ufeff{}", '{"a":1}x', "NaN", '{"a":"\\ud800"}', "[" * 3000])
def test_event_json_is_decoded_as_json_loads_decodes_it(data: str) -> None:
    def outcome(fn: Any) -> Any:
        try:
            return ("value", repr(fn(data)))
        except (ValueError, RecursionError) as exc:
            return ("error", type(exc).__name__, str(exc))

    assert outcome(engine._loads) == outcome(json.loads)

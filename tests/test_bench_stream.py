"""bench/bench_stream.py's table, as `make bench` puts it into bench/RESULTS.md (bench/run.py
`stream_section`): a smoke run that it is built and well-formed (no timing is asserted)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import bench_stream  # noqa: E402


def test_section_is_a_well_formed_table() -> None:
    text = bench_stream.section(repeats=2, seconds=0.001, deltas=3)
    assert text.startswith("\n## Streaming: events per second") and "median of 2 runs" in text
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    header, body = rows[0], rows[1:]
    columns = [c.strip() for c in header.strip("|").split("|")]
    assert columns[:5] == ["format", "events", "bytes", "parse (events/s)", "parse+assemble (events/s)"]
    assert {f"re-emit as {t} (events/s)" for t in bench_stream.TARGETS} <= set(columns)
    assert columns[-2:] == ["litellm (events/s)", "parse ÷ litellm"]
    assert [r.split("|")[1].strip() for r in body] == list(bench_stream.FORMATS)
    for row in body:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == len(columns)
        for name, cell in zip(columns[1:-2], cells[1:-2]):
            assert re.fullmatch(r"[0-9][0-9,]*", cell), (name, cell)
        assert cells[-1] == "n/a" or re.fullmatch(r"[0-9.]+×", cells[-1])


def test_the_benchmarked_streams_parse_whole() -> None:
    for fmt, body in (("openai_chat", bench_stream.openai_stream(3)), ("anthropic_messages", bench_stream.anthropic_stream(3))):
        events = bench_stream.parse_stream(body, fmt)
        assert events[-1]["type"] in ("usage", "finish") and not any(e["type"] == "error" for e in events)


def test_the_hand_written_re_framers_send_translate_streams_bytes() -> None:
    # `make bench` compares the per-chunk cost of translate_stream with these re-framers, and
    # refuses to time two things that say different bytes (its loss trailer included)
    from wiremap import translate_stream

    streams = {"openai_chat": bench_stream.openai_stream(5), "anthropic_messages": bench_stream.anthropic_stream(5)}
    for (source, target), reframe in bench_stream.REFRAMERS.items():
        chunks = bench_stream.reads(streams[source])
        assert b"".join(reframe(chunks)) == b"".join(translate_stream(chunks, source, target)), (source, target)

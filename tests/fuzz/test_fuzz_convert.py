"""Issue 15 proof: `convert` over random bytes per line never aborts, and in = out + rejected.

The small, deterministic version of bench/fuzz_convert.py: a few hundred lines per run from
fixed seeds (tests/fuzz/convert_lines.py), every kind of line mixed, in-process and with
`-j 2` workers (which must write the same bytes).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import convert_lines  # noqa: E402

from wiremap import convert as conv  # noqa: E402

RUNS = [
    ("openai_chat", "anthropic_messages", "request"),
    ("anthropic_messages", "gemini_generate_content", "request"),
    ("openai_responses", "openai_chat", "request"),
    ("openai_chat", "openai_responses", "response"),
    ("gemini_generate_content", "anthropic_messages", "response"),
]


@pytest.mark.parametrize(("source", "target", "what"), RUNS)
def test_convert_never_aborts_on_random_lines(tmp_path: Path, source: str, target: str, what: str) -> None:
    data, kinds = convert_lines.lines(f"issue15:{source}:{target}:{what}", source, what, 300)
    assert set(kinds) == set(convert_lines.KINDS), "every kind of line is in the mix"
    src = tmp_path / "in.jsonl"
    convert_lines.write(src, data, final_newline=False)  # a last line without LF counts too
    summary = conv.convert_file(source, target, str(src), str(tmp_path / "a.jsonl"), what=what, batch_size=16, progress=False)
    result = convert_lines.check_run(len(data), tmp_path / "a.jsonl", tmp_path / "a.jsonl.rejects.jsonl")
    assert (summary.lines, summary.written, summary.rejected) == (len(data), result["written"], result["rejected"])
    assert result["written"] >= kinds["valid"], "the valid lines at least are translated"
    assert not (tmp_path / "a.jsonl.checkpoint").exists()


def test_convert_with_workers_writes_the_same_bytes_on_random_lines(tmp_path: Path) -> None:
    data, _kinds = convert_lines.lines("issue15:jobs", "openai_chat", "request", 300)
    src = tmp_path / "in.jsonl"
    convert_lines.write(src, data)
    conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "a.jsonl"), batch_size=16, progress=False)
    conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "b.jsonl"), jobs=2, batch_size=16, progress=False)
    convert_lines.check_run(len(data), tmp_path / "b.jsonl", tmp_path / "b.jsonl.rejects.jsonl")
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (tmp_path / "a.jsonl.rejects.jsonl").read_bytes() == (tmp_path / "b.jsonl.rejects.jsonl").read_bytes()

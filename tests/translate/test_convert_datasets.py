"""Issue 18 (datasets): fine-tuning and eval files convert as they are (`--what conversation`,
`--model`), Parquet and Hugging Face dataset folders in and out (`--field`), and
`wiremap.batch_translator`, the function any engine maps, with the rejects and counts of
`wiremap convert`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import wiremap
from wiremap import convert as conv
from wiremap import datasets
from wiremap.cli import main

WEATHER_TOOL = {
    "type": "function",
    "function": {"name": "get_weather", "description": "Weather of a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
}


def fine_tune(i: int, *, weight: bool = False) -> dict[str, Any]:
    """An OpenAI supervised fine-tuning line (https://platform.openai.com/docs/api-reference/fine-tuning/chat-input):
    no model, a tool round trip, and a final assistant turn."""
    final: dict[str, Any] = {"role": "assistant", "content": f"It is {i} degrees in Paris."}
    if weight:
        final["weight"] = 1
    return {
        "messages": [
            {"role": "system", "content": "You answer in one sentence."},
            {"role": "user", "content": f"Weather in Paris? ({i})"},
            {"role": "assistant", "tool_calls": [{"id": f"call_{i}", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": "Paris"})}}]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": f"{i}C"},
            final,
        ],
        "tools": [WEATHER_TOOL],
    }


def write_jsonl(path: Path, records: list[Any]) -> None:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")


def read_jsonl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


# ---------------------------------------------------------------- fine-tuning and eval files


def test_an_openai_fine_tuning_file_becomes_anthropic_and_gemini_tuning_records(tmp_path: Path) -> None:
    src = tmp_path / "train.jsonl"
    write_jsonl(src, [fine_tune(i) for i in range(5)])
    summary = conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "claude.jsonl"), what="conversation", progress=False)
    assert (summary.written, summary.rejected) == (5, 0)
    claude = read_jsonl(tmp_path / "claude.jsonl")
    # Bedrock's Claude tuning shape: {"system", "messages"}; no model, no max_tokens invented
    assert set(claude[3]) == {"system", "messages", "tools"}
    assert claude[3]["system"] == "You answer in one sentence."
    assert claude[3]["messages"][-1] == {"role": "assistant", "content": [{"type": "text", "text": "It is 3 degrees in Paris."}]}
    assert claude[3]["messages"][1]["content"][0] == {"type": "tool_use", "id": "call_3", "name": "get_weather", "input": {"city": "Paris"}}
    assert "config.max_tokens added" not in summary.losses

    conv.convert_file("openai_chat", "gemini_generate_content", str(src), str(tmp_path / "gemini.jsonl"), what="conversation", progress=False)
    gemini = read_jsonl(tmp_path / "gemini.jsonl")
    # Vertex AI's supervised tuning shape: {"systemInstruction", "contents", "tools"}
    assert set(gemini[0]) == {"systemInstruction", "contents", "tools"}
    assert gemini[0]["contents"][-1] == {"role": "model", "parts": [{"text": "It is 0 degrees in Paris."}]}
    assert [c["role"] for c in gemini[0]["contents"]] == ["user", "model", "user", "model"]

    # and back: the conversation survives the round trip
    conv.convert_file("gemini_generate_content", "openai_chat", str(tmp_path / "gemini.jsonl"), str(tmp_path / "back.jsonl"), what="conversation", progress=False)
    back = read_jsonl(tmp_path / "back.jsonl")
    assert "model" not in back[2]
    assert back[2]["messages"][0] == {"role": "system", "content": "You answer in one sentence."}
    assert back[2]["messages"][-1] == {"role": "assistant", "content": "It is 2 degrees in Paris."}
    assert back[2]["messages"][2]["tool_calls"][0]["function"]["name"] == "get_weather"


def test_a_bedrock_claude_tuning_record_needs_no_model_or_max_tokens(tmp_path: Path) -> None:
    src = tmp_path / "claude.jsonl"
    write_jsonl(src, [{"system": "Be terse.", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}])
    conv.convert_file("anthropic_messages", "openai_chat", str(src), str(tmp_path / "o.jsonl"), what="conversation", progress=False)
    assert read_jsonl(tmp_path / "o.jsonl") == [
        {"messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    ]


def test_model_fills_records_without_one_and_keeps_the_others(tmp_path: Path) -> None:
    src = tmp_path / "eval.jsonl"
    write_jsonl(src, [{"messages": [{"role": "user", "content": "a"}]}, {"model": "own", "messages": [{"role": "user", "content": "b"}]}])
    summary = conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "no.jsonl"), progress=False)
    assert (summary.written, summary.rejected) == (1, 1)
    assert read_jsonl(tmp_path / "no.jsonl.rejects.jsonl") == [{"line": 1, "category": "provider_invalid_request", "message": "required key is missing", "path": "model"}]
    conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "yes.jsonl"), model="claude-x", progress=False)
    assert [r["model"] for r in read_jsonl(tmp_path / "yes.jsonl")] == ["claude-x", "own"]
    # a conversation given --model keeps it
    conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "conv.jsonl"), what="conversation", model="claude-x", progress=False)
    assert [r["model"] for r in read_jsonl(tmp_path / "conv.jsonl")] == ["claude-x", "own"]


def test_a_strict_conversation_rejects_real_losses_but_not_the_targets_own_settings(tmp_path: Path) -> None:
    src = tmp_path / "train.jsonl"
    write_jsonl(src, [fine_tune(0), fine_tune(1, weight=True)])  # Anthropic has no per-message weight
    summary = conv.convert_file("openai_chat", "anthropic_messages", str(src), str(tmp_path / "o.jsonl"), what="conversation", strict=True, progress=False)
    assert (summary.written, summary.rejected) == (1, 1)
    [reject] = read_jsonl(tmp_path / "o.jsonl.rejects.jsonl")
    assert reject["line"] == 2 and reject["path"] == "messages[4].weight" and "would lose" in reject["message"]


def test_the_cli_converts_a_fine_tuning_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "train.jsonl"
    write_jsonl(src, [fine_tune(i) for i in range(3)])
    rc = main(["convert", "--what", "conversation", "--from", "openai_chat", "--to", "gemini_generate_content", str(src), "-o", str(tmp_path / "g.jsonl"), "--no-progress"])
    assert rc == 0 and "3 lines: 3 written, 0 rejected" in capsys.readouterr().err
    assert main(["convert", "--from", "openai_chat", "--to", "openai_chat", str(src), "-o", str(tmp_path / "x.jsonl"), "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "--scheduler needs --engine dask" in capsys.readouterr().err


# ---------------------------------------------------------------- Parquet and Hugging Face folders


def test_a_parquet_file_of_records_converts_like_its_jsonl(tmp_path: Path) -> None:
    records = [fine_tune(i) for i in range(30)]
    write_jsonl(tmp_path / "train.jsonl", records)
    # struct columns: Parquet gives every message every field (null where absent); nulls are left out
    pq.write_table(pa.Table.from_pylist(records), tmp_path / "train.parquet", row_group_size=7)
    args = ("openai_chat", "anthropic_messages")
    conv.convert_file(*args, str(tmp_path / "train.jsonl"), str(tmp_path / "a.jsonl"), what="conversation", progress=False)
    summary = conv.convert_file(*args, str(tmp_path / "train.parquet"), str(tmp_path / "b.jsonl"), what="conversation", progress=False)
    assert summary.written == 30 and summary.rejected == 0
    assert (tmp_path / "b.jsonl").read_bytes() == (tmp_path / "a.jsonl").read_bytes()


def test_field_selects_the_column_of_messages_or_of_json_text(tmp_path: Path) -> None:
    table = pa.table({
        "id": [1, 2, 3],
        "messages": [[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]] * 3,
        "raw": [json.dumps({"messages": [{"role": "user", "content": "from text"}]}), "{not json", json.dumps(fine_tune(3))],
    })
    pq.write_table(table, tmp_path / "in.parquet")
    conv.convert_file("openai_chat", "gemini_generate_content", str(tmp_path / "in.parquet"), str(tmp_path / "m.jsonl"), what="conversation", field="messages", progress=False)
    assert read_jsonl(tmp_path / "m.jsonl")[0] == {"contents": [{"role": "user", "parts": [{"text": "hi"}]}, {"role": "model", "parts": [{"text": "yo"}]}]}
    summary = conv.convert_file("openai_chat", "gemini_generate_content", str(tmp_path / "in.parquet"), str(tmp_path / "r.jsonl"), what="conversation", field="raw", progress=False)
    assert (summary.written, summary.rejected) == (2, 1)
    assert read_jsonl(tmp_path / "r.jsonl")[0]["contents"][0]["parts"] == [{"text": "from text"}]
    [reject] = read_jsonl(tmp_path / "r.jsonl.rejects.jsonl")
    assert reject["line"] == 2 and "not JSON" in reject["message"]
    # a column that is not there: every row is a reject that names the columns there are
    summary = conv.convert_file("openai_chat", "openai_chat", str(tmp_path / "in.parquet"), str(tmp_path / "x.jsonl"), what="conversation", field="conversation", progress=False)
    assert summary.rejected == 3
    assert read_jsonl(tmp_path / "x.jsonl.rejects.jsonl")[0] == {
        "line": 1, "category": "provider_invalid_request", "message": "no column 'conversation' (the row has: id, messages, raw)", "path": "conversation",
    }


def test_a_parquet_output_holds_one_json_column_in_order(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "train.jsonl", [fine_tune(i) for i in range(20)] + ["{bad"])
    conv.convert_file("openai_chat", "anthropic_messages", str(tmp_path / "train.jsonl"), str(tmp_path / "ref.jsonl"), what="conversation", progress=False)
    conv.convert_file("openai_chat", "anthropic_messages", str(tmp_path / "train.jsonl"), str(tmp_path / "out.parquet"), what="conversation", field="sample", progress=False)
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.column_names == ["sample"]
    assert table.column("sample").to_pylist() == (tmp_path / "ref.jsonl").read_text("utf-8").splitlines()
    assert (tmp_path / "out.parquet.rejects.jsonl").read_bytes() == (tmp_path / "ref.jsonl.rejects.jsonl").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.parquet", "out.parquet.rejects.jsonl", "ref.jsonl", "ref.jsonl.rejects.jsonl", "train.jsonl"]


def test_an_interrupted_parquet_run_resumes_to_the_same_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pq.write_table(pa.Table.from_pylist([fine_tune(i) for i in range(40)]), tmp_path / "in.parquet")
    conv.convert_file("openai_chat", "openai_responses", str(tmp_path / "in.parquet"), str(tmp_path / "ref.parquet"), what="conversation", batch_size=4, progress=False)
    real, calls = conv._run_batch, {"n": 0}

    def dying(batch: list[Any]) -> Any:
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return real(batch)

    monkeypatch.setattr(conv, "_run_batch", dying)
    with pytest.raises(KeyboardInterrupt):
        conv.convert_file("openai_chat", "openai_responses", str(tmp_path / "in.parquet"), str(tmp_path / "out.parquet"), what="conversation", batch_size=4, progress=False)
    assert not (tmp_path / "out.parquet").exists()
    monkeypatch.setattr(conv, "_run_batch", real)
    summary = conv.convert_file("openai_chat", "openai_responses", str(tmp_path / "in.parquet"), str(tmp_path / "out.parquet"), what="conversation", batch_size=4, progress=False, resume=True)
    assert summary.resumed_from == 16 and summary.written == 40
    assert pq.read_table(tmp_path / "out.parquet").equals(pq.read_table(tmp_path / "ref.parquet"))


def test_a_hugging_face_folder_reads_through_its_files(tmp_path: Path) -> None:
    """`Dataset.save_to_disk` writes Arrow IPC streams listed in state.json; the Hub serves a
    folder of Parquet files. Both read in order, rows numbered across the files."""
    records = [fine_tune(i) for i in range(12)]
    write_jsonl(tmp_path / "train.jsonl", records)
    conv.convert_file("openai_chat", "gemini_generate_content", str(tmp_path / "train.jsonl"), str(tmp_path / "ref.jsonl"), what="conversation", progress=False)

    saved = tmp_path / "saved"
    saved.mkdir()
    names = []
    for part, chunk in enumerate((records[:5], records[5:])):
        name = f"data-{part:05d}-of-00002.arrow"
        names.append({"filename": name})
        table = pa.Table.from_pylist(chunk)
        with pa.OSFile(str(saved / name), "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
    (saved / "state.json").write_text(json.dumps({"_data_files": names, "_fingerprint": "x", "_split": "train"}))
    (saved / "dataset_info.json").write_text("{}")
    conv.convert_file("openai_chat", "gemini_generate_content", str(saved), str(tmp_path / "a.jsonl"), what="conversation", progress=False)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()

    hub = tmp_path / "hub" / "data"
    hub.mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(records[:8]), hub / "train-00000-of-00002.parquet")
    pq.write_table(pa.Table.from_pylist(records[8:]), hub / "train-00001-of-00002.parquet")
    assert datasets.count_records(str(tmp_path / "hub")) == 12
    conv.convert_file("openai_chat", "gemini_generate_content", str(tmp_path / "hub"), str(tmp_path / "b.jsonl"), what="conversation", progress=False)
    assert (tmp_path / "b.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()


def test_bad_dataset_files_fail_with_the_file_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad.parquet").write_bytes(b"not parquet at all")
    assert main(["convert", "--from", "openai_chat", "--to", "openai_chat", str(tmp_path / "bad.parquet"), "-o", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "bad.parquet: not a Parquet file" in err
    (tmp_path / "empty").mkdir()
    assert main(["convert", "--from", "openai_chat", "--to", "openai_chat", str(tmp_path / "empty"), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "neither a state.json" in capsys.readouterr().err
    assert main(["convert", "--from", "openai_chat", "--to", "openai_chat", "--input-format", "parquet", "-", "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "not stdin" in capsys.readouterr().err
    # without pyarrow (the datasets extra), the message says what to install
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(datasets.DatasetFormatError, match=r"pip install 'wiremap\[datasets\]'"):
        conv.convert_file("openai_chat", "openai_chat", str(tmp_path / "bad.parquet"), str(tmp_path / "o.jsonl"), progress=False)


# ---------------------------------------------------------------- the batch translator


def test_the_batch_translator_gives_the_bytes_and_rejects_convert_writes(tmp_path: Path) -> None:
    lines = [json.dumps(fine_tune(i)) for i in range(10)] + ["{bad", json.dumps({"messages": 5})] + [json.dumps(fine_tune(10, weight=True))]
    write_jsonl(tmp_path / "in.jsonl", lines)
    summary = conv.convert_file("openai_chat", "anthropic_messages", str(tmp_path / "in.jsonl"), str(tmp_path / "o.jsonl"), what="conversation", progress=False)
    translate = wiremap.batch_translator("openai_chat", "anthropic_messages", what="conversation")
    got = translate(lines)
    assert got["line"] == list(range(1, 14))
    assert [o for o in got["output"] if o is not None] == (tmp_path / "o.jsonl").read_text("utf-8").splitlines()
    assert [r for r in got["reject"] if r is not None] == (tmp_path / "o.jsonl.rejects.jsonl").read_text("utf-8").splitlines()
    assert sum(len(x) for x in got["losses"]) == sum(summary.losses.values())
    # objects, a batch of columns and a pyarrow Table give the same outputs; numbering starts where asked
    records = [fine_tune(i) for i in range(10)]
    by_object = translate(records)["output"]
    assert by_object == got["output"][:10]
    assert translate({"messages": [r["messages"] for r in records], "tools": [r["tools"] for r in records]})["output"] == by_object
    by_table = translate(pa.Table.from_pylist(records), first_line=101)
    assert by_table["output"] == by_object and by_table["line"][0] == 101
    with pytest.raises(ValueError, match="one length"):
        translate({"messages": [[]], "tools": []})
    with pytest.raises(wiremap.UnknownFormatError):
        wiremap.batch_translator("openai_chat", "nope")


def test_the_batch_translator_pickles_for_any_engine() -> None:
    import pickle

    translate = wiremap.batch_translator("openai_chat", "gemini_generate_content", what="conversation", model=None)
    first = translate([fine_tune(1)])
    again = pickle.loads(pickle.dumps(translate))
    assert again([fine_tune(1)]) == first


def test_pyarrow_and_dask_are_imported_only_when_used(tmp_path: Path) -> None:
    import subprocess

    src = tmp_path / "in.jsonl"
    write_jsonl(src, [fine_tune(0)])
    script = (
        "import sys, wiremap\n"
        "from wiremap import convert\n"
        "t = wiremap.batch_translator('openai_chat', 'anthropic_messages', what='conversation')\n"
        f"convert.convert_file('openai_chat', 'anthropic_messages', {str(src)!r}, {str(tmp_path / 'o.jsonl')!r}, what='conversation', progress=False)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyarrow', 'dask', 'distributed')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"

"""`wiremap translate` and `wiremap convert` (and wiremap.convert.convert_file behind it)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import wiremap
from wiremap import convert as conv
from wiremap.cli import main


def request_line(i: int) -> dict[str, Any]:
    return {
        "model": "gpt-4o",
        "messages": [{"role": "user", "content": f"hello {i}"}],
        "temperature": 0.5,
        "max_completion_tokens": 10 + i,
    }


def write_dataset(path: Path, n: int) -> list[str]:
    lines = []
    for i in range(n):
        if i % 50 == 7:
            lines.append("{not json")
        elif i % 70 == 9:
            lines.append(json.dumps({"model": "m", "messages": []}))
        elif i % 90 == 11:
            lines.append("")
        else:
            lines.append(json.dumps(request_line(i)))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def test_translate_prints_the_body_and_the_losses(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "req.json"
    f.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], "seed": 1}))
    assert main(["translate", "--from", "openai_chat", "--to", "anthropic_messages", str(f)]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert "dropped: config.seed: 1 is not carried by the target" in err


def test_translate_prints_the_headers_to_send_beside_the_body(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A target that takes an option as a request header (Anthropic's anthropic-beta, from
    Bedrock's anthropic_beta body list): the body on stdout holds none of it, and stderr names
    the header to send with it, one `header: <name>: <value>` line each (Translation.headers)."""
    f = tmp_path / "bedrock.json"
    f.write_text(json.dumps({"model": "anthropic.claude-sonnet-4-5", "anthropic_version": "bedrock-2023-05-31", "max_tokens": 10,
                             "anthropic_beta": ["context-1m-2025-08-07", "interleaved-thinking-2025-05-14"],
                             "messages": [{"role": "user", "content": "hi"}]}))
    assert main(["translate", "--from", "anthropic.bedrock", "--to", "anthropic_messages", str(f)]) == 0
    out, err = capsys.readouterr()
    body = json.loads(out)
    assert "anthropic_beta" not in body and "betas" not in json.dumps(body)
    assert "header: anthropic-beta: context-1m-2025-08-07,interleaved-thinking-2025-05-14\n" in err
    assert "config.betas" not in err  # sent beside the body: no loss
    # the other way the flags are body fields again, and no header line is printed
    f.write_text(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}))
    assert main(["translate", "--from", "anthropic_messages", "--to", "anthropic.bedrock", str(f)]) == 0
    assert "header:" not in capsys.readouterr().err
    # an error's headers (retry-after) are named the same way; its content type is the body's
    e = tmp_path / "err.json"
    e.write_text(json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}))
    assert main(["translate", "--what", "error", "--status", "429", "--from", "anthropic_messages", "--to", "openai_chat", str(e)]) == 0
    assert "header: content-type" not in capsys.readouterr().err


def test_translate_strict_fails_naming_the_loss(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "req.json"
    f.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], "seed": 1}))
    assert main(["translate", "--strict", "--from", "openai_chat", "--to", "anthropic_messages", str(f)]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "provider_invalid_request" in err and "config.seed" in err


def test_translate_a_response_and_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "resp.json"
    f.write_text(json.dumps({"id": "m1", "type": "message", "role": "assistant", "model": "c", "content": [{"type": "text", "text": "Hi"}], "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 2}}))
    assert main(["translate", "--what", "response", "--from", "anthropic_messages", "--to", "openai_chat", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["choices"][0]["message"]["content"] == "Hi" and out["choices"][0]["finish_reason"] == "stop"
    e = tmp_path / "err.json"
    e.write_text(json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}))
    assert main(["translate", "--what", "error", "--status", "429", "--from", "anthropic_messages", "--to", "openai_chat", str(e)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"status": 429, "body": {"error": {"message": "slow down", "type": "requests", "param": None, "code": "rate_limit_exceeded"}}}


def test_translate_bad_input_exits_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.json"
    f.write_text("{oops")
    assert main(["translate", "--from", "openai_chat", "--to", "anthropic_messages", str(f)]) == 2
    assert "not JSON" in capsys.readouterr().err
    f.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": 5}]}))
    assert main(["translate", "--from", "openai_chat", "--to", "anthropic_messages", str(f)]) == 1
    assert "messages[0]" in capsys.readouterr().err
    assert main(["translate", "--from", "nope", "--to", "anthropic_messages", str(f)]) == 2
    assert "known formats" in capsys.readouterr().err


def test_convert_every_line_is_an_output_or_a_reject(tmp_path: Path) -> None:
    lines = write_dataset(tmp_path / "in.jsonl", 400)
    summary = conv.convert_file("openai_chat", "anthropic_messages", str(tmp_path / "in.jsonl"), str(tmp_path / "out.jsonl"), batch_size=16, progress=False)
    out = (tmp_path / "out.jsonl").read_text("utf-8").splitlines()
    rejects = [json.loads(r) for r in (tmp_path / "out.jsonl.rejects.jsonl").read_text("utf-8").splitlines()]
    assert summary.lines == len(lines) == len(out) + len(rejects)
    assert summary.written == len(out) and summary.rejected == len(rejects)
    # outputs are in input order and equal the library's translation of that line
    good = [json.loads(line) for line in lines if line and not line.startswith("{not") and json.loads(line)["messages"]]
    assert [json.loads(o) for o in out] == [wiremap.translate_request(g, "openai_chat", "anthropic_messages").result for g in good]
    # rejects name their line, category and message
    by_line = {r["line"]: r for r in rejects}
    assert by_line[8]["category"] == "provider_invalid_request" and "not JSON" in by_line[8]["message"]
    assert by_line[10]["path"] == "messages"
    assert "not JSON" in by_line[12]["message"]  # the empty line
    assert summary.losses["config.temperature dropped"] == summary.written
    assert not (tmp_path / "out.jsonl.checkpoint").exists()


def test_convert_in_parallel_writes_the_same_bytes(tmp_path: Path) -> None:
    write_dataset(tmp_path / "in.jsonl", 300)
    conv.convert_file("openai_chat", "anthropic_messages", str(tmp_path / "in.jsonl"), str(tmp_path / "a.jsonl"), batch_size=8, progress=False)
    conv.convert_file("openai_chat", "anthropic_messages", str(tmp_path / "in.jsonl"), str(tmp_path / "b.jsonl"), jobs=2, batch_size=8, progress=False)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (tmp_path / "a.jsonl.rejects.jsonl").read_bytes() == (tmp_path / "b.jsonl.rejects.jsonl").read_bytes()


def test_an_interrupted_run_resumes_to_the_same_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_dataset(tmp_path / "in.jsonl", 500)
    ref = tmp_path / "ref.jsonl"
    conv.convert_file("openai_chat", "anthropic_messages", str(tmp_path / "in.jsonl"), str(ref), batch_size=16, progress=False)

    real = conv._run_batch
    calls = {"n": 0}

    def dying(batch: list[tuple[int, str]]) -> Any:
        calls["n"] += 1
        if calls["n"] == 6:
            raise KeyboardInterrupt
        return real(batch)

    out = tmp_path / "out.jsonl"
    monkeypatch.setattr(conv, "_run_batch", dying)
    with pytest.raises(KeyboardInterrupt):
        conv.convert_file("openai_chat", "anthropic_messages", str(tmp_path / "in.jsonl"), str(out), batch_size=16, progress=False)
    monkeypatch.setattr(conv, "_run_batch", real)
    assert (tmp_path / "out.jsonl.checkpoint").exists()
    with open(out, "ab") as fh:  # a half-written line from the moment it died
        fh.write(b'{"model":"gpt-4o","mess')
    summary = conv.convert_file("openai_chat", "anthropic_messages", str(tmp_path / "in.jsonl"), str(out), batch_size=16, progress=False, resume=True)
    assert summary.resumed_from == 5 * 16
    assert out.read_bytes() == ref.read_bytes()
    assert (tmp_path / "out.jsonl.rejects.jsonl").read_bytes() == (tmp_path / "ref.jsonl.rejects.jsonl").read_bytes()
    assert summary.lines == 500


def test_convert_shows_progress_with_rate_and_eta(tmp_path: Path) -> None:
    write_dataset(tmp_path / "in.jsonl", 50)
    stream = io.StringIO()
    conv.convert_file("openai_chat", "anthropic_messages", str(tmp_path / "in.jsonl"), str(tmp_path / "o.jsonl"), progress=True, progress_stream=stream)
    text = stream.getvalue()
    assert "50/50" in text and "lines/s" in text and "ETA" in text


def test_convert_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_dataset(tmp_path / "in.jsonl", 100)
    rc = main(["convert", "--from", "openai_chat", "--to", "anthropic_messages", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "o.jsonl"), "--rejects", str(tmp_path / "r.jsonl"), "--no-progress"])
    assert rc == 0
    err = capsys.readouterr().err
    assert "100 lines:" in err and "rejected" in err
    assert (tmp_path / "r.jsonl").exists()
    assert main(["convert", "--from", "openai_chat", "--to", "nope", str(tmp_path / "in.jsonl"), "-o", str(tmp_path / "x.jsonl")]) == 2
    assert main(["convert", "--from", "openai_chat", "--to", "anthropic_messages", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "x.jsonl")]) == 2

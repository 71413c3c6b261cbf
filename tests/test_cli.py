"""The `wiremap` command line, run as users run it: `python -m wiremap ...` in a subprocess.

generate / check (exit 0 in sync, 1 with a diff and the command that fixes it, 2 for a broken
mapping with `file:line: /path: message` and no traceback), formats, and render.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GOLDEN_MAPPINGS = ROOT / "tests" / "golden" / "mappings"
WEATHER = ROOT / "examples" / "weather_request.json"


def wiremap(
    *args: str | Path, stdin: str | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONWARNINGS": "ignore::FutureWarning",
    }  # datamodel-code-generator's notice
    return subprocess.run(
        [sys.executable, "-m", "wiremap", *map(str, args)],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def assert_no_traceback(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout, proc.stderr


@pytest.fixture
def mappings(tmp_path: Path) -> Path:
    """A private copy of the golden mappings (tiny_chat and the acme.tiny_chat dialect)."""
    folder = tmp_path / "mappings"
    shutil.copytree(GOLDEN_MAPPINGS, folder)
    return folder


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The golden mappings generated once by the CLI; tests get copies."""
    out = tmp_path_factory.mktemp("pristine") / "generated"
    proc = wiremap("generate", "--mappings", GOLDEN_MAPPINGS, "--out", out)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def generated(pristine: Path, tmp_path: Path) -> Path:
    out = tmp_path / "generated"
    shutil.copytree(pristine, out)
    return out


# ---------------------------------------------------------------- generate / check
def test_generate_then_check_passes(mappings: Path, tmp_path: Path) -> None:
    out = tmp_path / "generated"
    proc = wiremap("generate", "--mappings", mappings, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert_no_traceback(proc)
    files = sorted(p.name for p in out.iterdir())
    assert {"tiny_chat.py", "acme__tiny_chat.py", "_index.py", "__init__.py", "py.typed"} <= set(
        files
    )
    assert re.search(
        rf"generated {len(files)} files in .*generated/ from .*mappings/ \({len(files)} changed\)", proc.stdout
    ), proc.stdout

    proc = wiremap("check", "--mappings", mappings, "--out", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "is up to date" in proc.stdout

    again = wiremap("generate", "--mappings", mappings, "--out", out)
    assert (
        again.returncode == 0 and "(0 changed)" in again.stdout
    ), "a second generate rewrites nothing"


def test_check_reports_an_edited_file_with_a_diff_and_the_fix(
    mappings: Path, generated: Path
) -> None:
    target = generated / "tiny_chat.py"
    text = target.read_text("utf-8")
    target.write_text(
        text.replace('KEY: Final = "tiny_chat"', 'KEY: Final = "hand_edited"'), "utf-8"
    )
    assert target.read_text("utf-8") != text, "the edit must land"
    proc = wiremap("check", "--mappings", mappings, "--out", generated)
    assert proc.returncode == 1
    assert_no_traceback(proc)
    assert "--- a/tiny_chat.py" in proc.stdout and "+++ b/tiny_chat.py" in proc.stdout
    assert (
        '-KEY: Final = "hand_edited"' in proc.stdout and '+KEY: Final = "tiny_chat"' in proc.stdout
    )
    assert f"Run: wiremap generate --mappings {mappings} --out {generated}" in proc.stderr
    assert "(1 files)" in proc.stderr

    # the command it prints fixes it
    assert wiremap("generate", "--mappings", mappings, "--out", generated).returncode == 0
    assert target.read_text("utf-8") == text
    assert wiremap("check", "--mappings", mappings, "--out", generated).returncode == 0


def test_check_reports_a_missing_file(mappings: Path, generated: Path) -> None:
    (generated / "acme__tiny_chat_types.py").unlink()
    proc = wiremap("check", "--mappings", mappings, "--out", generated)
    assert proc.returncode == 1
    assert "+++ b/acme__tiny_chat_types.py" in proc.stdout


def test_check_reports_a_missing_empty_file(mappings: Path, generated: Path) -> None:
    (generated / "py.typed").unlink()
    proc = wiremap("check", "--mappings", mappings, "--out", generated)
    assert proc.returncode == 1, proc.stdout
    assert "py.typed" in proc.stdout


def test_check_reports_a_stale_file_and_generate_removes_it(
    mappings: Path, generated: Path
) -> None:
    shutil.rmtree(mappings / "dialects")
    (mappings / "fixtures" / "acme.tiny_chat.yaml").unlink()  # its fixtures go with it
    proc = wiremap("check", "--mappings", mappings, "--out", generated)
    assert proc.returncode == 1
    assert "acme__tiny_chat.py: stale generated file" in proc.stdout
    assert "acme__tiny_chat.schema.json: stale generated file" in proc.stdout

    hand_written = generated / "notes.py"
    hand_written.write_text("# my own notes, not generated\n", "utf-8")
    proc = wiremap("generate", "--mappings", mappings, "--out", generated)
    assert proc.returncode == 0
    assert not (generated / "acme__tiny_chat.py").exists()
    assert hand_written.exists(), "generate removes only files it generated"
    assert wiremap("check", "--mappings", mappings, "--out", generated).returncode == 0


def test_check_against_a_missing_folder_fails(mappings: Path, tmp_path: Path) -> None:
    proc = wiremap("check", "--mappings", mappings, "--out", tmp_path / "never_generated")
    assert proc.returncode == 1
    assert_no_traceback(proc)


def _break_finish_reason(mappings: Path) -> int:
    """Point a finish reason at a non-canonical value; returns the line of the edited row."""
    path = mappings / "tiny_chat.yaml"
    lines = path.read_text("utf-8").splitlines(True)
    index = lines.index("      length: length\n")
    lines[index] = "      length: halt\n"
    path.write_text("".join(lines), "utf-8")
    return index + 1


@pytest.mark.parametrize("command", ["generate", "check"])
def test_a_broken_mapping_exits_2_with_file_line_and_path(
    mappings: Path, tmp_path: Path, command: str
) -> None:
    line = _break_finish_reason(mappings)
    out = tmp_path / "generated"
    proc = wiremap(command, "--mappings", mappings, "--out", out)
    assert proc.returncode == 2
    assert_no_traceback(proc)
    assert proc.stderr.strip() == (
        f"error: mappings/tiny_chat.yaml:{line}: /response/finish_reason/map/length: "
        "'halt' is not allowed; expected one of: content_filter, error, length, stop, tool_calls"
    )
    assert not out.exists(), "nothing is written when a mapping is broken"


def test_a_broken_dialect_names_the_dialect_file(mappings: Path, tmp_path: Path) -> None:
    dialect = mappings / "dialects" / "acme" / "tiny_chat.yaml"
    dialect.write_text(
        dialect.read_text("utf-8").replace(
            "    max_tokens: max_tokens\n", "    max_tokens: {wire: max_tokens, defualt: 1}\n"
        ),
        "utf-8",
    )
    proc = wiremap("generate", "--mappings", mappings, "--out", tmp_path / "generated")
    assert proc.returncode == 2
    assert_no_traceback(proc)
    assert re.match(
        r"error: mappings/dialects/acme/tiny_chat\.yaml:\d+: /request/options/max_tokens/defualt: unknown key 'defualt'; expected one of: ",
        proc.stderr,
    ), proc.stderr


def test_invalid_yaml_exits_2(mappings: Path, tmp_path: Path) -> None:
    (mappings / "tiny_chat.yaml").write_text("meta:\n  id: tiny_chat\n  title: a: b\n", "utf-8")
    proc = wiremap("generate", "--mappings", mappings, "--out", tmp_path / "generated")
    assert proc.returncode == 2
    assert_no_traceback(proc)
    assert proc.stderr.startswith("error: mappings/tiny_chat.yaml:3: /: invalid YAML: ")


def test_unwritable_out_exits_2_without_traceback(mappings: Path, tmp_path: Path) -> None:
    out = tmp_path / "generated"
    out.write_text("a file, not a folder\n", "utf-8")
    proc = wiremap("generate", "--mappings", mappings, "--out", out)
    assert_no_traceback(proc)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and str(out) in proc.stderr


def test_missing_mappings_folder_exits_2(tmp_path: Path) -> None:
    proc = wiremap("generate", "--mappings", tmp_path / "nope", "--out", tmp_path / "generated")
    assert proc.returncode == 2
    assert_no_traceback(proc)
    assert "mappings folder not found" in proc.stderr


# ---------------------------------------------------------------- formats
def test_formats_lists_the_builtin_formats() -> None:
    proc = wiremap("formats")
    assert proc.returncode == 0, proc.stderr
    keys = proc.stdout.split()
    assert "openai_chat" in keys and "anthropic_messages" in keys
    assert keys == sorted(keys)


def test_formats_of_a_mappings_folder(mappings: Path) -> None:
    proc = wiremap("formats", "--mappings", mappings)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["acme.tiny_chat", "tiny_chat"]


def test_formats_of_a_broken_folder_exits_2(mappings: Path) -> None:
    (mappings / "tiny_chat.yaml").write_text("meta: [unclosed\n", "utf-8")
    proc = wiremap("formats", "--mappings", mappings)
    assert proc.returncode == 2
    assert_no_traceback(proc)
    assert proc.stderr.startswith("error: mappings/tiny_chat.yaml:")


# ---------------------------------------------------------------- render
def test_render_prints_the_wire_body() -> None:
    proc = wiremap("render", "--format", "openai_chat", WEATHER)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert body["model"] == "demo-model"
    assert body["messages"][0] == {
        "role": "system",
        "content": "You are a helpful weather assistant.",
    }
    assert body["tools"][0]["function"]["name"] == "get_weather"


def test_render_anthropic_hoists_the_system_prompt() -> None:
    proc = wiremap("render", "--format", "anthropic_messages", WEATHER)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    assert body["system"] == "You are a helpful weather assistant."
    assert all(m["role"] != "system" for m in body["messages"])


def test_render_reads_stdin() -> None:
    request = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    proc = wiremap("render", "--format", "openai_chat", "-", stdin=json.dumps(request))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
    }


def test_render_an_invalid_request_exits_1_with_category_and_path(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            {
                "model": "m",
                "messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}],
            }
        ),
        "utf-8",
    )
    proc = wiremap("render", "--format", "openai_chat", bad)
    assert proc.returncode == 1
    assert_no_traceback(proc)
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: provider_invalid_request: messages[0].content[0].text: ")


def test_render_an_unsupported_part_exits_1(tmp_path: Path) -> None:
    audio = {"type": "audio", "source": {"type": "url", "url": "https://x/a.wav"}}
    bad = tmp_path / "audio.json"
    bad.write_text(
        json.dumps({"model": "m", "messages": [{"role": "user", "content": [audio]}]}), "utf-8"
    )
    proc = wiremap("render", "--format", "openai_chat", bad)
    assert proc.returncode == 1
    assert_no_traceback(proc)
    assert proc.stderr.startswith(
        "error: provider_unsupported_content_block: messages[0].content[0]"
    )


def test_render_an_unknown_format_exits_2_listing_the_known_ones() -> None:
    proc = wiremap("render", "--format", "no_such_format", WEATHER)
    assert proc.returncode == 2
    assert_no_traceback(proc)
    assert "unknown format 'no_such_format'" in proc.stderr
    assert "openai_chat" in proc.stderr and "anthropic_messages" in proc.stderr


@pytest.mark.parametrize(
    ("content", "kind"), [("[]", "an array"), ('"text"', "a string"), ("null", "null")]
)
def test_render_a_non_object_exits_1(tmp_path: Path, content: str, kind: str) -> None:
    path = tmp_path / "request.json"
    path.write_text(content, "utf-8")
    proc = wiremap("render", "--format", "openai_chat", path)
    assert proc.returncode == 1
    assert_no_traceback(proc)
    assert proc.stderr.startswith("error: provider_invalid_request: ") and kind in proc.stderr


@pytest.mark.parametrize("content", ["{not json", None])
def test_render_unreadable_input_exits_2(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "request.json"
    if content is not None:
        path.write_text(content, "utf-8")
    proc = wiremap("render", "--format", "openai_chat", path)
    assert proc.returncode == 2
    assert_no_traceback(proc)
    assert proc.stderr.startswith(f"error: cannot read a JSON request from {path}")


def test_no_command_is_a_usage_error() -> None:
    proc = wiremap()
    assert proc.returncode == 2
    assert "usage: wiremap" in proc.stderr


def test_version_and_did_you_mean() -> None:
    import wiremap as wm

    version = wiremap("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"wiremap {wm.__version__}"
    typo = wiremap("render", "--format", "openai_chatt", str(ROOT / "examples" / "weather_request.json"))
    assert typo.returncode == 2 and "unknown format 'openai_chatt' (did you mean 'openai_chat'?)" in typo.stderr
    assert_no_traceback(typo)
    request = json.dumps({"model": "m", "messages": [{"role": "user", "content": "x"}], "config": {"max_token": 3}})
    bad_key = wiremap("render", "--format", "openai_chat", stdin=request)
    assert bad_key.returncode == 1 and "config.max_token: unknown key 'max_token' (did you mean 'max_tokens'?)" in bad_key.stderr
    far = wiremap("render", "--format", "zzz", stdin=request)
    assert "did you mean" not in far.stderr and "unknown format 'zzz'; known formats:" in far.stderr

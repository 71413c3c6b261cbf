"""The generator's content-addressed cache (codegen/cache.py): a warm run gives the same bytes
without running black or datamodel-code-generator again, and the cache can be turned off."""

from __future__ import annotations

import importlib
import shutil
from pathlib import Path
from typing import Any

import black
import pytest

from wiremap.codegen import generate, write

generate_mod = importlib.import_module("wiremap.codegen.generate")  # the module (the package exports the function)

GOLDEN_MAPPINGS = Path(__file__).resolve().parent / "golden" / "mappings"


def test_a_warm_run_is_byte_identical_and_formats_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIREMAP_CODEGEN_CACHE", str(tmp_path / "cache"))
    cold = generate(str(GOLDEN_MAPPINGS))
    assert any((tmp_path / "cache").rglob("*"))

    def no_black(*args: object, **kwargs: object) -> str:
        raise AssertionError("black ran although its output was cached")

    monkeypatch.setattr(black, "format_str", no_black)
    assert generate(str(GOLDEN_MAPPINGS)) == cold


def test_the_cache_can_be_turned_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIREMAP_CODEGEN_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    uncached = generate(str(GOLDEN_MAPPINGS))
    assert not (tmp_path / "xdg").exists() and not (tmp_path / "home").exists()
    monkeypatch.setenv("WIREMAP_CODEGEN_CACHE", str(tmp_path / "cache"))
    assert generate(str(GOLDEN_MAPPINGS)) == uncached  # cached or not, the same tree


def _tree(files: dict[str, str], out: Path) -> dict[str, bytes]:
    """`files` as `wiremap generate --out` writes them, read back byte for byte."""
    write(files, str(out))
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def test_an_edit_recompiles_only_the_formats_it_affects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-format cache (issue 16: the edit loop): after one YAML edit only the formats whose
    inputs changed are compiled and proven, and the tree is byte-identical to a cold run."""
    folder = tmp_path / "mappings"
    shutil.copytree(GOLDEN_MAPPINGS, folder)
    monkeypatch.setenv("WIREMAP_CODEGEN_CACHE", str(tmp_path / "cache"))
    generate(str(folder))  # fills the cache
    proven: list[str] = []
    real_prove = generate_mod.prove

    def counting_prove(ir: Any, *args: Any) -> Any:
        proven.append(ir.key)
        return real_prove(ir, *args)

    monkeypatch.setattr(generate_mod, "prove", counting_prove)
    assert generate(str(folder)) and proven == []  # nothing changed: nothing compiled

    dialect = folder / "dialects" / "acme" / "tiny_chat.yaml"
    dialect.write_text(dialect.read_text().replace("title: Acme Tiny Chat", "title: Acme Tiny Chat Two"))
    warm = generate(str(folder))
    assert proven == ["acme.tiny_chat"]  # its base came from the cache
    assert 'TITLE: Final = "Acme Tiny Chat Two"' in warm["acme__tiny_chat.py"]
    monkeypatch.setenv("WIREMAP_CODEGEN_CACHE", "off")
    assert _tree(warm, tmp_path / "warm") == _tree(generate(str(folder)), tmp_path / "cold")

    base = folder / "tiny_chat.yaml"
    base.write_text(base.read_text() + "# an edit to the base\n")
    monkeypatch.setenv("WIREMAP_CODEGEN_CACHE", str(tmp_path / "cache"))
    proven.clear()
    warm = generate(str(folder))
    assert sorted(proven) == ["acme.tiny_chat", "tiny_chat"]  # a base's edit reaches its dialects
    monkeypatch.setenv("WIREMAP_CODEGEN_CACHE", "off")
    assert _tree(warm, tmp_path / "warm2") == _tree(generate(str(folder)), tmp_path / "cold2")


def test_a_new_generator_version_recompiles_every_format(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIREMAP_CODEGEN_CACHE", str(tmp_path / "cache"))
    before = generate(str(GOLDEN_MAPPINGS))
    proven: list[str] = []
    real_prove = generate_mod.prove
    monkeypatch.setattr(generate_mod, "prove", lambda ir, *args: proven.append(ir.key) or real_prove(ir, *args))
    monkeypatch.setattr(generate_mod, "_generator_version", lambda: "an edited generator")
    assert generate(str(GOLDEN_MAPPINGS)) == before
    assert sorted(proven) == ["acme.tiny_chat", "tiny_chat"]


def test_a_cold_run_runs_the_tools_on_every_core_and_gives_the_same_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A cold run hands datamodel-code-generator and black the texts of every format to compile
    at once, to a process per core (`WIREMAP_CODEGEN_JOBS`; the two tools are most of a cold
    run's time), and compiles in order with their results; the tree is the one this process
    gives text by text."""
    cache = importlib.import_module("wiremap.codegen.cache")
    ran: list[tuple[str, int]] = []
    ahead = cache.ahead

    def counted(step: str, version: str, texts: list[str], compute: Any, workers: int) -> int:
        done = ahead(step, version, texts, compute, workers)
        ran.append((step, done))
        return done

    monkeypatch.setattr(generate_mod, "ahead", counted)
    monkeypatch.setenv("WIREMAP_CODEGEN_CACHE", "off")
    monkeypatch.setenv("WIREMAP_CODEGEN_JOBS", "1")
    one = generate(str(GOLDEN_MAPPINGS))
    assert [done for _step, done in ran] == [0, 0]  # one process: nothing ahead
    ran.clear()
    monkeypatch.setenv("WIREMAP_CODEGEN_JOBS", "2")
    assert generate(str(GOLDEN_MAPPINGS)) == one
    steps = dict(ran)
    assert steps["datamodel-code-generator"] >= 2 and steps["black"] >= 6  # each format's types; converter, types, tests
    assert not cache._READY  # every result computed ahead was taken

"""The generator's content-addressed cache (codegen/cache.py): a warm run gives the same bytes
without running black or datamodel-code-generator again, and the cache can be turned off."""

from __future__ import annotations

from pathlib import Path

import black
import pytest

from wiremap.codegen import generate

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

"""The translation conformance matrix (matrix.py): nothing differs without being reported, and
generated/TRANSLATION.md is what the corpus produces today."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import matrix  # noqa: E402

import wiremap  # noqa: E402

ROOT = HERE.parents[1]


@pytest.fixture(scope="module")
def built() -> matrix.Matrix:
    return matrix.build()


def test_every_difference_is_in_the_loss_report(built: matrix.Matrix) -> None:
    assert built.failures() == []


def test_the_committed_matrix_is_current(built: matrix.Matrix) -> None:
    committed = (ROOT / "generated" / "TRANSLATION.md").read_text("utf-8")
    assert committed == matrix.render(built), "generated/TRANSLATION.md is out of date: run `make translation`"


def test_each_format_to_itself_is_intact(built: matrix.Matrix) -> None:
    for (feature, source, target), cell in built.cells.items():
        if source == target:
            assert cell.status in ("intact", "n/a"), (feature, source, cell)


def test_the_matrix_catches_a_translation_that_hides_a_loss(monkeypatch: pytest.MonkeyPatch) -> None:
    real = wiremap.translate_request

    def silent(*args, **kwargs):  # type: ignore[no-untyped-def]
        t = real(*args, **kwargs)
        t.losses = []
        return t

    monkeypatch.setattr(wiremap, "translate_request", silent)
    item = next(i for i in matrix.CORPUS if i.feature == "seed")
    cell = matrix.cell_for(item, "openai_chat", "anthropic_messages")
    assert cell.status == "unreported" and "config.seed" in cell.note


def test_every_chat_and_embeddings_dialect_has_its_hop_to_its_base(built: matrix.Matrix) -> None:
    dialects = {
        k for k in wiremap.formats() if "." in k and wiremap.get_format(k).kind in ("chat", "embeddings")
    }
    assert {d for d, _ in built.dialects} == dialects
    bases = dict(built.dialects)
    assert bases["anthropic.bedrock"] == "anthropic_messages"  # through anthropic.messages_2023_06_01
    assert bases["openarmature.openai_chat_atomic"] == "openai_chat"
    text = (ROOT / "generated" / "TRANSLATION.md").read_text("utf-8")
    for d, b in built.dialects:
        assert f"### `{d}` (base `{b}`)" in text

"""The CI-sized mapping-file fuzz run (issue #6): mutated mapping files through the generator.

Hypothesis draws the `random.Random` that drives tests/fuzz/mapping_mutate.py's operators (and,
for the real mappings, which file), so a failure shrinks and replays. Generation is slow
(~0.5-2 s a run), so most examples use the golden tiny mappings; the real mappings and dialects
get a few. The long run is `make fuzz` (bench/fuzz_mappings.py). The oracle is
`mapping_mutate.check`: only a MappingError reading `file:line: ...`, and generated code that
imports.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mapping_mutate as mm  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Default formatters will change:FutureWarning")

REAL = sorted(k for k in mm.FAMILIES if k not in mm.GOLDEN_FAMILIES)


# Reproducible in CI (the same files on every run; a red CI is a regression, not a new draw);
# exploration is `make fuzz` (bench/fuzz_mappings.py) or WIREMAP_FUZZ_RANDOM=1.
RANDOM = os.environ.get("WIREMAP_FUZZ_RANDOM") == "1"


def _settings(n: int) -> settings:
    return settings(
        max_examples=n,
        deadline=None,
        database=None,
        derandomize=not RANDOM,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )


def _run(family: str, rng: random.Random) -> None:
    raw, operators = mm.case(rng, family)
    try:
        mm.check(family, raw)
    except mm.Finding as finding:
        raise AssertionError(f"{family} after {operators}: {finding}") from finding


def test_every_family_is_found_and_unmutated_files_generate() -> None:
    """The families cover the golden and real mappings and dialects; a seed file generates."""
    assert len(mm.GOLDEN_FAMILIES) >= 2
    assert "openai_chat" in mm.FAMILIES and any(k.startswith("prompty.") for k in mm.FAMILIES)
    for family in mm.GOLDEN_FAMILIES:
        assert mm.check(family, mm.FAMILIES[family][1].read_bytes()) == "ok"
    assert mm.chain("golden:acme.tiny_chat")[-1].name == "tiny_chat.yaml"


def test_the_oracle_rejects_a_crash_and_a_bad_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle can fail: a non-MappingError, and a MappingError without file:line, are findings."""
    family = mm.GOLDEN_FAMILIES[0]
    raw = mm.FAMILIES[family][1].read_bytes()

    def crash(folder: str) -> dict[str, str]:
        raise KeyError("boom")

    def unplaced(folder: str) -> dict[str, str]:
        raise mm.MappingError("", None, "", "somewhere")

    def unimportable(folder: str) -> dict[str, str]:
        return {"__init__.py": "", "_index.py": "", "x.py": "raise ImportError('no')\n"}

    for fake in (crash, unplaced, unimportable):
        monkeypatch.setattr(mm, "generate", fake)
        with pytest.raises(mm.Finding):
            mm.check(family, raw)


@pytest.mark.parametrize("family", mm.GOLDEN_FAMILIES)
@_settings(10)
@given(rng=st.randoms(use_true_random=False))
def test_mutated_golden_mapping_gives_only_mapping_errors(family: str, rng: random.Random) -> None:
    _run(family, rng)


@_settings(4)
@given(family=st.sampled_from(REAL), rng=st.randoms(use_true_random=False))
def test_mutated_real_mapping_gives_only_mapping_errors(family: str, rng: random.Random) -> None:
    _run(family, rng)

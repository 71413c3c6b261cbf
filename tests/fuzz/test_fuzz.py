"""The CI-sized fuzz run (issue #6): every format of `wiremap.formats()`, every fuzzed entry point.

Hypothesis draws the `random.Random` that drives tests/fuzz/mutate.py's operators over valid
seeds (the format's fixtures and canonical fixtures rendered by the format itself), so a
failure shrinks to a few operators and replays. The long run of the same operators is
`make fuzz` (bench/fuzz.py). The oracle is `mutate.check`: only typed ProviderErrors, with a
well-formed path; error_from_wire never raises.
"""

from __future__ import annotations

import os

import random
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wiremap

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutate  # noqa: E402

FORMATS = wiremap.formats()

# The CI-sized run is reproducible: the same cases on every run, so a red CI is a regression,
# never a new draw. Exploration is `make fuzz` (bench/fuzz.py, a million cases per format), or
# this run with WIREMAP_FUZZ_RANDOM=1.
RANDOM = os.environ.get("WIREMAP_FUZZ_RANDOM") == "1"
CI = settings(
    max_examples=40,
    deadline=None,
    database=None,
    derandomize=not RANDOM,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)


def test_every_format_has_seeds_for_every_entry_point() -> None:
    """The fuzzer cannot silently skip a format: each one yields valid seeds of every kind."""
    for key in FORMATS:
        got = mutate.seeds(key)
        missing = [kind for kind, docs in got.items() if not docs]
        assert not missing, f"{key}: no seed documents for {missing}"


@pytest.mark.parametrize("entry", list(mutate.ENTRIES))
@pytest.mark.parametrize("key", FORMATS)
@CI
@given(rng=st.randoms(use_true_random=False))
def test_mutated_input_gives_only_typed_errors(key: str, entry: str, rng: random.Random) -> None:
    fmt = wiremap.get_format(key)
    made = mutate.case(rng, key, entry)
    assert made is not None
    value, operators = made
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wiremap.UnsupportedOptionWarning)
        try:
            mutate.check(fmt, entry, value)
        except mutate.Finding as finding:
            raise AssertionError(f"{key}.{entry} after {operators}: {finding}") from finding


@pytest.mark.parametrize("key", FORMATS)
def test_seeds_themselves_are_accepted(key: str) -> None:
    """The seeds are valid: no mutation, no error (else the fuzzer starts from broken input)."""
    fmt = wiremap.get_format(key)
    got = mutate.seeds(key)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wiremap.UnsupportedOptionWarning)
        for body in got["requests"]:
            fmt.request_from_wire(body)
        for body in got["responses"]:
            fmt.response_from_wire(body)
        for req in got["canonical_requests"]:
            fmt.request_to_wire(req)

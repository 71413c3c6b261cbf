"""Real bodies, broken a little: the same-format round trip is still the identity, or says why.

The recorded harness (test_recorded.py) shows that every recorded request and response comes
back identical through its own format. This test breaks those same bodies with the fuzzer's
operators (tests/fuzz/mutate.py: a key removed or added, a value of another type, an unknown
enum, an empty, huge or deep value, a lone surrogate) and asks of each broken body what a
gateway or a dataset converter relies on when it passes traffic through to the same provider:

- the reader refuses it with a typed `ProviderError`; or
- the writer refuses what was read, typed; or
- the body comes back equal as JSON (types included: `1` is not `1.0` or `true`); or
- what comes back differs, and `translate_*` into the same format names it in its loss report
  (a value nested past the depth limit, say).

A body that comes back different with an empty loss report is a silent change of meaning, and
anything but a `ProviderError` is a crash: both fail here. The sample is fixed (seeded), one
mutation for every recorded request and response.
"""

from __future__ import annotations

import random
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

import recorded_harness as harness
import wiremap
from wiremap import ProviderError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fuzz"))
import mutate  # noqa: E402

if not harness.RECORDED_DIR.is_dir():  # pragma: no cover - the data sits beside the repository
    pytest.skip(f"no recorded traffic at {harness.RECORDED_DIR}", allow_module_level=True)

SEED = 29


def _records() -> list[dict[str, Any]]:
    return [r for r in harness.records() if r["kind"] in ("request", "response")]


def _same(a: Any, b: Any) -> bool | None:
    """JSON equality with types (the harness's); None where the mutated body has no JSON text
    to compare (bytes, nesting past the encoder's recursion)."""
    try:
        return harness._same(a, b)
    except (TypeError, ValueError, RecursionError):
        return None


def outcome(record: dict[str, Any], body: Any) -> str:
    """What the same-format round trip did with one (mutated) body."""
    fmt = wiremap.get_format(record["format"])
    request = record["kind"] == "request"
    read = fmt.request_from_wire if request else fmt.response_from_wire
    write = fmt.request_to_wire if request else fmt.response_to_wire
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            again = write(read(body))
        except ProviderError:
            return "refused"
        same = _same(again, body)
        if same is None:
            return "not comparable"
        if same:
            return "identity"
        translate = wiremap.translate_request if request else wiremap.translate_response
        try:
            losses = translate(body, fmt.key, fmt.key).losses
        except ProviderError:
            return "refused"
        return "changed, named" if losses else "CHANGED SILENTLY"


def test_a_broken_real_body_comes_back_as_it_came_or_says_why() -> None:
    rng = random.Random(SEED)
    tally: dict[str, int] = {}
    silent: list[str] = []
    for record in _records():
        body = harness._request_body(record) if record["kind"] == "request" else record["body"]
        mutated, done = mutate.mutate(rng, body, mutate._paths(body))
        got = outcome(record, mutated)  # anything but a ProviderError propagates: a crash fails
        tally[got] = tally.get(got, 0) + 1
        if got == "CHANGED SILENTLY":
            silent.append(f"{record['_where']}: {', '.join(done)}")
    shown = "\n".join(silent[:20])
    assert not silent, f"{len(silent)} broken bodies came back changed, no loss named:\n{shown}"
    # the sample is not vacuous: most broken bodies are still read and come back whole
    assert tally.get("identity", 0) > len(_records()) // 3, tally
    assert tally.get("refused", 0) > 0, tally


def test_the_oracle_tells_a_json_type_apart() -> None:
    """The oracle itself: a recorded body unbroken is the identity, and a value that comes back as
    another JSON type (`1` as `1.0` or `true`, which Python's `==` calls equal) is a change."""
    record = next(r for r in _records() if r["format"] == "openai_chat" and r["kind"] == "request")
    body = harness._request_body(record)
    assert outcome(record, body) == "identity"
    assert _same({"n": 1}, {"n": 1.0}) is False and _same({"n": True}, {"n": 1}) is False

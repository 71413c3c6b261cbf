"""A translated request body shares no object or array with the caller's body: a caller (or the
gateway) that changes what it got back never changes what it sent, and the other way round.
The fused translators write the arguments they decode from a call's JSON text as they are
(nothing else holds them) and copy every other piece of user JSON (schemas, arguments that
were objects, extras); the two-step way copies too. Checked on the benchmark corpus, whose
items are real agent and tool turns, for every pair with a fused translator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import wiremap

CORPUS = Path(__file__).resolve().parents[2] / "bench" / "corpus"
PAIRS = [("openai_chat", "anthropic_messages", ""), ("openai_chat", "gemini_generate_content", ""), ("anthropic_messages", "openai_chat", ".anthropic")]
ITEMS = sorted(p.name[: -len(".anthropic.json")] for p in CORPUS.glob("*.anthropic.json"))


def _containers(value: Any, into: dict[int, Any]) -> dict[int, Any]:
    if isinstance(value, dict):
        into[id(value)] = value
        for v in value.values():
            _containers(v, into)
    elif isinstance(value, list):
        into[id(value)] = value
        for v in value:
            _containers(v, into)
    return into


@pytest.mark.parametrize("source,target,suffix", PAIRS, ids=[f"{s}->{t}" for s, t, _ in PAIRS])
@pytest.mark.parametrize("item", ITEMS)
def test_the_translation_shares_nothing_with_the_callers_body(source: str, target: str, suffix: str, item: str) -> None:
    body = json.loads((CORPUS / f"{item}{suffix}.json").read_text())
    before = json.dumps(body)
    tr = wiremap.translator(source, target)
    out = tr.request(body)
    two_step = wiremap.get_format(target).request_to_wire(wiremap.get_format(source).request_from_wire(body))
    assert json.dumps(out) == json.dumps(two_step)  # the same bytes, key order included
    shared = set(_containers(out, {})) & set(_containers(body, {}))
    assert not shared, [json.dumps(_containers(out, {})[i])[:80] for i in shared]
    again = tr.request(body)
    assert not set(_containers(out, {})) & set(_containers(again, {}))  # two calls share nothing either
    assert json.dumps(body) == before  # the caller's body is untouched

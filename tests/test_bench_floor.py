"""bench/handwritten.py's floors with the checks, which bench/run.py times beside the floors to say
what validating alone costs (issue 19, targets 1 and 2): `openai_to_anthropic_request_checked` and
`openai_to_gemini_request_checked` (translators: OpenAI Chat body -> Anthropic Messages body,
-> Gemini generateContent body), `anthropic_to_openai_request_checked` (Anthropic Messages body
-> OpenAI Chat body) and `canonical_to_anthropic_request_checked` (a writer: typed
canonical Request -> Anthropic body).

The figures mean something only if each is right wherever it answers: the bytes and the warnings
`wiremap.translator('openai_chat', 'anthropic_messages').request` (or
`anthropic_messages.request_to_wire`) gives, on every input it takes. Where it cannot be sure, it
must not answer (`NotTaken`). These tests check that on the benchmark corpus (which each must take
whole), on mutated bodies (tests/fuzz/mutate.py) and on valid bodies drawn by hypothesis. No
timing is asserted.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wiremap

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import handwritten as hw  # noqa: E402
import make_corpus  # noqa: E402
import strategies as gen  # noqa: E402
from fuzz import mutate  # noqa: E402
from test_fused import outcome  # noqa: E402

# each pair's translator and its floors: (wiremap's translator, the checked floor, the floor), and
# the corpus file suffix of its source
PAIRS = {
    ("openai_chat", "anthropic_messages"): (
        wiremap.translator("openai_chat", "anthropic_messages").request,
        hw.openai_to_anthropic_request_checked,
        hw.openai_to_anthropic_request,
    ),
    ("openai_chat", "gemini_generate_content"): (
        wiremap.translator("openai_chat", "gemini_generate_content").request,
        hw.openai_to_gemini_request_checked,
        hw.openai_to_gemini_request,
    ),
    ("anthropic_messages", "openai_chat"): (
        wiremap.translator("anthropic_messages", "openai_chat").request,
        hw.anthropic_to_openai_request_checked,
        hw.anthropic_to_openai_request,
    ),
}
SUFFIX = {"openai_chat": "", "anthropic_messages": ".anthropic"}
PAIR_IDS = [f"{s}->{t}" for s, t in PAIRS]


def checked(body: Any, pair: tuple[str, str] = ("openai_chat", "anthropic_messages")) -> tuple[Any, ...] | None:
    """What a caller of the checked floor sees (as `outcome` puts it), or None: not taken."""
    try:
        return outcome(PAIRS[pair][1], body)
    except hw.NotTaken:
        return None


@pytest.mark.parametrize("pair", list(PAIRS), ids=PAIR_IDS)
@pytest.mark.parametrize("name", list(make_corpus.REQUESTS))
def test_the_checked_floor_takes_the_corpus_and_answers_as_wiremap(name: str, pair: tuple[str, str]) -> None:
    translator, _, floor = PAIRS[pair]
    body = json.loads((ROOT / "bench" / "corpus" / f"{name}{SUFFIX[pair[0]]}.json").read_text(encoding="utf-8"))
    got = checked(body, pair)
    assert got is not None, f"{name}: the checked floor must take every corpus item"
    assert got == outcome(translator, body)
    assert got[1] == json.dumps(floor(body), ensure_ascii=False)  # the floor's bytes too


@pytest.mark.parametrize("pair", list(PAIRS), ids=PAIR_IDS)
@pytest.mark.parametrize("seed", [3, 7, 13])
def test_where_the_checked_floor_answers_it_answers_as_wiremap_on_mutated_bodies(seed: int, pair: tuple[str, str]) -> None:
    taken = 0
    for body, ops in mutate.cases(seed, pair[0], "request_from_wire", 1500):
        got = checked(body, pair)
        if got is not None:
            taken += 1
            assert got == outcome(PAIRS[pair][0], body), ops
    assert taken > 50  # a checked floor that took nothing would prove nothing


@pytest.mark.parametrize("pair", list(PAIRS), ids=PAIR_IDS)
@settings(max_examples=200, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_where_the_checked_floor_answers_it_answers_as_wiremap_on_valid_bodies(pair: tuple[str, str], data: Any) -> None:
    request = data.draw(gen.canonical_requests(pair[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            body = json.loads(json.dumps(wiremap.get_format(pair[0]).request_to_wire(request)))
        except wiremap.ProviderError:  # a request the source's own rules refuse: no body to translate
            return
    got = checked(body, pair)
    if got is not None:
        assert got == outcome(PAIRS[pair][0], body)


@pytest.mark.parametrize("pair", list(PAIRS), ids=PAIR_IDS)
@pytest.mark.parametrize("change", [
    {"model": ""},
    {"max_tokens": 0},
    {"max_tokens": True},
    {"temperature": float("nan")},
    {"messages": []},
    {"metadata": {"a": 1}},  # a key it does not write: another path's business
])
def test_the_checked_floor_does_not_take_what_it_cannot_answer_as_wiremap(change: dict[str, Any], pair: tuple[str, str]) -> None:
    body = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}], **change}
    assert checked(body, pair) is None


def test_the_gemini_checked_floor_leaves_the_models_that_take_a_thinking_budget() -> None:
    body = {"model": "m", "reasoning_effort": "low", "messages": [{"role": "user", "content": "hi"}]}
    pair = ("openai_chat", "gemini_generate_content")
    assert checked(body, pair) is not None
    assert checked({**body, "model": "gemini-2.5-flash"}, pair) is None  # a budget, derived


def test_the_anthropic_checked_floor_checks_what_openai_chat_drops() -> None:
    """A prompt-cache breakpoint, which OpenAI Chat does not carry, is still checked as wiremap
    checks it: one that is not plain JSON is refused, so the floor must not answer."""
    pair = ("anthropic_messages", "openai_chat")
    block = {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
    body = {"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": [block]}]}
    assert checked(body, pair) == outcome(PAIRS[pair][0], body)
    block["cache_control"] = {"type": "ephemeral", "ttl": "\ud800"}  # a lone surrogate
    assert outcome(PAIRS[pair][0], body)[:2] == ("error", "InvalidRequestError")
    assert checked(body, pair) is None


# ------------------------------------------------------------------ the single direction's


SOURCE = wiremap.get_format("openai_chat")
WRITER = wiremap.get_format("anthropic_messages").request_to_wire


def checked_writer(request: Any) -> tuple[Any, ...] | None:
    try:
        return outcome(hw.canonical_to_anthropic_request_checked, request)
    except hw.NotTaken:
        return None


def read(body: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SOURCE.request_from_wire(body)


@pytest.mark.parametrize("name", list(make_corpus.REQUESTS))
def test_the_checked_writer_takes_the_corpus_and_answers_as_request_to_wire(name: str) -> None:
    request = read(json.loads((ROOT / "bench" / "corpus" / f"{name}.json").read_text(encoding="utf-8")))
    got = checked_writer(request)
    assert got is not None, f"{name}: the checked writer must take every corpus item"
    assert got == outcome(WRITER, request)
    assert got[1] == json.dumps(hw.canonical_to_anthropic_request(request), ensure_ascii=False)


@pytest.mark.parametrize("seed", [3, 7, 13])
def test_where_the_checked_writer_answers_it_answers_as_request_to_wire(seed: int) -> None:
    taken = 0
    for body, ops in mutate.cases(seed, "openai_chat", "request_from_wire", 1500):
        try:
            request = read(body)
        except wiremap.ProviderError:
            continue
        got = checked_writer(request)
        if got is not None:
            taken += 1
            assert got == outcome(WRITER, request), ops
    assert taken > 50


@settings(max_examples=200, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_where_the_checked_writer_answers_it_answers_as_request_to_wire_on_valid_requests(data: Any) -> None:
    # canonical requests as an OpenAI client's body reads (the corpus's source): about one in
    # seven is of the corpus's kind, which the checked writer takes
    request = data.draw(gen.canonical_requests("openai_chat"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        request = read(json.loads(json.dumps(SOURCE.request_to_wire(request))))
    got = checked_writer(request)
    if got is not None:
        assert got == outcome(WRITER, request)


def test_the_checked_writer_does_not_take_a_field_it_does_not_write() -> None:
    request = read({"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]})
    assert checked_writer(request) is not None
    request.config.seed = 7  # validated and dropped by wiremap: not this writer's
    assert checked_writer(request) is None
    request.config.seed = wiremap.NOT_GIVEN
    request.messages[0].name = "ann"  # a participant name the target has no field for
    assert checked_writer(request) is None

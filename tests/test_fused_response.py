"""Fused response translators (`response` of the modules the `fuse` rows ask for;
codegen/emit/fused_response.py) behind `wiremap.translator(source, target).response`.

The fused `response(body)` must answer exactly what the two-step path answers between two
providers' wires, `target.response_to_wire(read_without_carry(source.response_from_wire, body))`:
the same body (byte for byte, key order included), the same warnings, the same error class,
category, path and message. That is checked on valid bodies drawn by hypothesis (every canonical
response a source can send, sent), on mutated bodies (tests/fuzz/mutate.py), on every pair the
compiler takes (compiled in memory from the real tables), and on recorded traffic; the benchmark
corpus must take the one pass without falling back.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wiremap
from wiremap.generated._index import FUSED
from wiremap.runtime.wire import read_without_carry

sys.path.insert(0, str(Path(__file__).resolve().parent))
import strategies as gen  # noqa: E402
import test_fused  # noqa: E402
from fuzz import mutate  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PAIRS = sorted(FUSED)
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    database=None,
    derandomize=True,  # the same bodies on every run: a red CI is a regression
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    print_blob=True,
)


def outcome(fn: Any, body: Any) -> tuple[Any, ...]:
    """What a caller sees: the wire bytes and the warnings, or the error (any exception: a mutated
    body may make both paths fail alike)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            result = fn(body)
        except wiremap.ProviderError as exc:
            return ("error", type(exc).__name__, exc.category, exc.path, str(exc))
        except Exception as exc:  # noqa: BLE001 - compared, not hidden
            return ("raised", type(exc).__name__, str(exc))
    try:  # key order kept: the bytes a client gets (a mutated `id` may hold what JSON cannot)
        wire = json.dumps(result, ensure_ascii=False, default=repr)
    except (RecursionError, ValueError):
        wire = "<not JSON> " + repr(list(result))
    return ("ok", wire, [(w.category.__name__, str(w.message)) for w in seen])


def two_step(source: str, target: str) -> Any:
    src, dst = wiremap.get_format(source), wiremap.get_format(target)
    return lambda body: dst.response_to_wire(read_without_carry(src.response_from_wire, body))


class _NoFallback:
    def response_from_wire(self, body: Any, **kwargs: Any) -> Any:
        raise AssertionError("the fused response fell back to the two-step path")


def one_pass(monkeypatch: pytest.MonkeyPatch, source: str, target: str) -> Any:
    """The fused response with its two-step fallback taken away: it must answer by itself."""
    response = wiremap.translator(source, target).response
    monkeypatch.setattr(sys.modules[response.__module__], "_src", _NoFallback())
    return response


def takes_one_pass(module: Any, body: Any) -> bool:
    saved = module._src
    module._src = _NoFallback()
    try:
        module.response(body)
        return True
    except AssertionError:
        return False
    except Exception:  # noqa: BLE001 - an error of the one pass itself: not the one pass
        return False
    finally:
        module._src = saved


def test_the_fused_pairs_translate_responses_in_one_pass() -> None:
    assert PAIRS
    for source, target in PAIRS:
        tr = wiremap.translator(source, target)
        assert tr.response.__name__ == "response"
        assert tr.response.__module__ == f"wiremap.generated.{FUSED[(source, target)]}"


def test_pairs_without_a_fuse_row_keep_the_two_step_response() -> None:
    tr = wiremap.translator("anthropic_messages", "gemini_generate_content")
    assert not tr.fused and not tr.response.__module__.startswith("wiremap.generated.")
    body = json.loads((ROOT / "bench/corpus/anthropic_response.json").read_text())
    assert outcome(tr.response, body) == outcome(two_step("anthropic_messages", "gemini_generate_content"), body)


@pytest.mark.parametrize(
    ("item", "source", "target"),
    [
        ("openai_response", "openai_chat", "anthropic_messages"),
        ("anthropic_response", "anthropic_messages", "openai_chat"),
        ("openai_response", "openai_chat", "gemini_generate_content"),
    ],
)
def test_the_benchmark_corpus_takes_the_one_pass_path(item: str, source: str, target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    body = json.loads((ROOT / f"bench/corpus/{item}.json").read_text())
    expected = outcome(two_step(source, target), body)
    assert expected[0] == "ok" and not expected[2]
    assert outcome(one_pass(monkeypatch, source, target), body) == expected
    sys.path.insert(0, str(ROOT / "bench"))
    import handwritten  # the floor sends the same bytes

    floor = {
        "anthropic_messages": handwritten.openai_to_anthropic_response,
        "openai_chat": handwritten.anthropic_to_openai_response,
        "gemini_generate_content": handwritten.openai_to_gemini_response,
    }[target]
    assert json.dumps(floor(body)) == expected[1]


def test_usage_arithmetic_follows_each_wire(monkeypatch: pytest.MonkeyPatch) -> None:
    # OpenAI's prompt_tokens counts the cached reads; Anthropic's input_tokens leaves them out
    body = json.loads((ROOT / "bench/corpus/openai_response.json").read_text())
    got = one_pass(monkeypatch, "openai_chat", "anthropic_messages")(body)
    assert got["usage"] == {"input_tokens": 412 - 128, "output_tokens": 58, "cache_read_input_tokens": 128}
    back = json.loads((ROOT / "bench/corpus/anthropic_response.json").read_text())
    got = one_pass(monkeypatch, "anthropic_messages", "openai_chat")(back)
    assert got["usage"]["prompt_tokens"] == 412 + 128 + 0 and got["usage"]["total_tokens"] == 412 + 128 + 58
    assert got["usage"]["prompt_tokens_details"] == {"cached_tokens": 128}


def _openai(message: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}, **extra}


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    "body",
    [
        # the depth limit of read_response and as_response: InvalidResponseError either way
        _openai({"tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": json.dumps(_deep(200))}}]}),
        # not plain JSON (NaN): as_response's check names it
        _openai({"tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": '{"x": NaN}'}}]}),
        # arguments that are no JSON object: the reader's error
        _openai({"tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "[1]"}}]}),
        _openai({"tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{"}}]}),
        _openai({"tool_calls": "nope"}),
        _openai({"tool_calls": [7]}),
        _openai({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
        _openai({"content": None, "refusal": "I can't"}),
        _openai({"content": "hi"}, system_fingerprint="fp", service_tier="default"),
        {**_openai({"content": "a"}), "choices": [_openai({"content": "a"})["choices"][0], _openai({"content": "b"})["choices"][0]]},
        {**_openai({"content": "hi"}), "usage": {"prompt_tokens": -1, "completion_tokens": 2.5, "total_tokens": "x"}},
        {**_openai({"content": "hi"}), "usage": None},
        {"choices": []},
        [],
    ],
)
def test_unusual_bodies_answer_as_the_two_step_path(body: Any) -> None:
    for source, target in PAIRS:
        if source == "openai_chat":
            assert outcome(wiremap.translator(source, target).response, body) == outcome(two_step(source, target), body)


@pytest.mark.parametrize(
    "content",
    [
        [{"type": "thinking", "thinking": "hmm", "signature": "s"}, {"type": "text", "text": "hi"}],
        [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        [{"type": "tool_use", "id": "t", "name": "f", "input": {"x": math.nan}}],
        [{"type": "tool_use", "id": "t", "name": "f", "input": _deep(200)}],
        [{"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}, {"type": "text", "text": "hi"}],
        [],
        "plain",
    ],
)
def test_unusual_anthropic_content_answers_as_the_two_step_path(content: Any) -> None:
    body = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": content,
            "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    for source, target in PAIRS:
        if source == "anthropic_messages":
            assert outcome(wiremap.translator(source, target).response, body) == outcome(two_step(source, target), body)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
@SETTINGS
@given(data=st.data())
def test_fused_response_equals_two_step_on_valid_bodies(pair: tuple[str, str], data: Any) -> None:
    source, target = pair
    response = data.draw(gen.canonical_responses(source))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = json.loads(json.dumps(wiremap.get_format(source).response_to_wire(response)))
    assert outcome(wiremap.translator(source, target).response, body) == outcome(two_step(source, target), body)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
def test_valid_bodies_mostly_take_the_one_pass(pair: tuple[str, str]) -> None:
    # a fused path that deopts on everything would pass the equality tests: most canonical
    # responses (text, tool calls, usage) must take the one pass
    source, target = pair
    module = sys.modules[wiremap.translator(source, target).response.__module__]
    taken = total = 0

    @settings(max_examples=100, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(data=st.data())
    def count(data: Any) -> None:
        nonlocal taken, total
        response = data.draw(gen.canonical_responses(source))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            body = json.loads(json.dumps(wiremap.get_format(source).response_to_wire(response)))
        total += 1
        taken += takes_one_pass(module, body)

    count()
    assert total >= 100 and taken >= total // 3, (taken, total)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
def test_fused_response_equals_two_step_on_mutated_bodies(pair: tuple[str, str]) -> None:
    source, target = pair
    fused, reference = wiremap.translator(source, target).response, two_step(source, target)
    count = 0
    for body, ops in mutate.cases(7, source, "response_from_wire", 1500):
        count += 1
        assert outcome(fused, body) == outcome(reference, body), ops
    assert count == 1500


def test_every_eligible_pair_answers_responses_as_the_two_step_path() -> None:
    # every pair of chat mappings the fused compiler takes (compiled in memory from the real
    # tables by tests/test_fused.py): the response half is compiled from both tables, so it must
    # be right for all of them, not only the shipped pairs
    pairs = test_fused._eligible_pairs()
    with_response = [(s, d, m) for s, d, m in pairs if hasattr(m, "response")]
    assert len(with_response) > 100
    taken = 0
    for source, target, module in with_response:
        reference = two_step(source, target)
        for body, ops in mutate.cases(5, source, "response_from_wire", 8):
            assert outcome(module.response, body) == outcome(reference, body), (source, target, ops)
        taken += any(takes_one_pass(module, body) for body, _ in mutate.cases(5, source, "response_from_wire", 8))
    assert taken > len(with_response) // 2


@pytest.mark.skipif(not (ROOT.parent / "shared" / "recorded").is_dir(), reason="no recorded traffic beside the repository")
def test_recorded_responses_answer_as_the_two_step_path() -> None:
    # what real providers answered (../shared/recorded): every body into every pair, one pass or
    # not, answers exactly as the two-step way; most bodies the source reads take the one pass
    sys.path.insert(0, str(ROOT / "tests" / "recorded"))
    import recorded_harness as harness

    checked = own = taken = 0
    for record in harness.records():
        if record["kind"] != "response":
            continue
        body = record["body"]
        for source, target in PAIRS:
            checked += 1
            response = wiremap.translator(source, target).response
            expected = outcome(two_step(source, target), body)
            assert outcome(response, body) == expected, (record["_where"], source, target)
            if expected[0] == "ok":  # a body of the source's wire (or a dialect's)
                own += 1
                taken += takes_one_pass(sys.modules[response.__module__], body)
    assert checked > 1000 and own > 500 and taken > own * 3 // 4, (checked, own, taken)


def test_a_format_loaded_from_another_module_keeps_the_two_step_response() -> None:
    # the fused module was compiled from the registered modules' tables: a format of the same key
    # loaded from elsewhere (wiremap generate --out) is not what it reads, so the pair goes two-step
    from wiremap.runtime.format import Translator

    loaded = wiremap.load_format(str(ROOT / "generated" / "openai_chat.py"))
    assert loaded.module is not wiremap.get_format("openai_chat").module
    tr = Translator(loaded, wiremap.get_format("anthropic_messages"))
    assert tr.response.__module__ == "wiremap.runtime.format"
    body = json.loads((ROOT / "bench/corpus/openai_response.json").read_text())
    assert outcome(tr.response, body) == outcome(two_step("openai_chat", "anthropic_messages"), body)

"""The fused translators' exact loss report (`request_with_losses`) and `translate_request`'s use of it.

`request_with_losses(body)` answers a body only when it can prove the translation loses nothing but,
at most, a default the target adds for an absent option; then `translate_request` answers with it,
so what a caller sees must be exactly the two-step answer: the same body bytes, the same losses (that
one `added`, or none), no header, no warning. These tests compare, body by body, the lossless
variant (and `translate_request` with it) against `translate_request` with the variant taken away,
over the benchmark corpus, the translation corpus, the recorded client traffic, mutated bodies
(tests/fuzz/mutate.py) and valid bodies drawn by hypothesis, for the shipped fused pairs and for
every pair the fused compiler takes (compiled in memory, as tests/test_fused.py does). And they
check that the variant does take the common bodies: a test that never saw it answer could not fail.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wiremap
from wiremap.generated._index import FUSED
from wiremap.runtime import translate as tl
from wiremap.runtime.canonical import Request

sys.path.insert(0, str(Path(__file__).resolve().parent))
import strategies as gen  # noqa: E402
from fuzz import mutate  # noqa: E402
from test_fused import _eligible_pairs  # noqa: E402
from translate.corpus import REQUESTS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT.parent / "shared" / "recorded"
if not RECORDED.is_dir():
    RECORDED = Path("/work/shared/recorded")
PAIRS = sorted(FUSED)
#: the recorded traffic file of a source format (its own, or the dated dialect of its wire)
RECORDED_FILES = {"anthropic_messages": "anthropic.messages_2023_06_01"}


class _TwoStep:
    source_reads = None  # nothing proven, with carried keys or without

    @staticmethod
    def request_with_losses(body: Any) -> None:
        return None


def answer(body: Any, source: str, target: str, *, fast: bool, **kw: Any) -> tuple[Any, ...]:
    """What a `translate_request` caller sees: the body bytes, the losses, the headers and the
    warnings, or the error. `fast=False`: the two-step way only (the lossless variant taken away)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)  # a socket another test leaked, collected here
        try:
            if fast:
                t = wiremap.translate_request(body, source, target, **kw)
            else:
                with mock.patch.object(tl, "translator", lambda s, d: _TwoStep):
                    t = wiremap.translate_request(body, source, target, **kw)
        except wiremap.ProviderError as exc:
            return ("error", type(exc).__name__, exc.category, exc.path, str(exc))
    return ("ok", json.dumps(t.result, ensure_ascii=False), t.report(), t.headers, [(w.category.__name__, str(w.message)) for w in seen])


def lossless(fn: Any, body: Any) -> Any:
    """`request_with_losses(body)`, which must neither raise nor warn."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)  # a socket another test leaked, collected here
        got = fn(body)
    assert not seen, [str(w.message) for w in seen]
    return got


def agrees(fn: Any, body: Any, source: str, target: str) -> bool:
    """The lossless variant `fn` answers `body` only with what the two-step way answers with no
    loss (keep_extras either way); True when it answered."""
    got = lossless(fn, body)
    if got is None:
        return False
    wire = json.dumps(got[0], ensure_ascii=False)
    added = [path for path, _ in got[1]]
    reference = answer(body, source, target, fast=False)
    assert reference[:2] == ("ok", wire) and reference[3:] == ({}, []), (source, target, body)
    assert [(loss["path"], loss["kind"]) for loss in reference[2]] == [(path, "added") for path in added], (source, target, body)
    assert answer(body, source, target, fast=False, keep_extras=True) == reference, (source, target, body)
    strict = answer(body, source, target, fast=False, strict=True)
    assert strict == (reference if not added else answer(body, source, target, fast=True, strict=True)), (source, target, body)
    return True


def wire_bodies(source: str) -> Iterator[Any]:
    """The translation corpus's requests, as `source` sends them, and the recorded client bodies."""
    fmt = wiremap.get_format(source)
    for item in REQUESTS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                body = fmt.request_to_wire(Request.from_dict(item.record))
            except wiremap.ProviderError:
                continue
        yield json.loads(json.dumps(body))
    path = RECORDED / f"{RECORDED_FILES.get(source, source)}.jsonl"
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record.get("kind") == "request":
                yield record["body"]


def bench_bodies(source: str) -> Iterator[Any]:
    sys.path.insert(0, str(ROOT / "bench"))
    import datasets as bench  # bench/datasets.py

    if source == "openai_chat":
        yield from (bench.record(i) for i in range(4))
    suffix = ".anthropic.json" if source == "anthropic_messages" else ".json"
    for path in sorted((ROOT / "bench/corpus").glob("*.json")):
        if "response" in path.name or not path.name.endswith(suffix) or (suffix == ".json" and path.name.endswith(".anthropic.json")):
            continue
        yield json.loads(path.read_text(encoding="utf-8"))


def test_the_fused_pairs_have_a_lossless_variant_and_other_pairs_none() -> None:
    for source, target in PAIRS:
        tr = wiremap.translator(source, target)
        assert tr.request_with_losses.__module__ == tr.request.__module__
    assert wiremap.translator("anthropic_messages", "gemini_generate_content").request_with_losses({"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}) is None


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
def test_translate_request_answers_as_the_two_step_path_on_the_corpora(pair: tuple[str, str]) -> None:
    source, target = pair
    fn = wiremap.translator(source, target).request_with_losses
    taken = total = 0
    for body in [*bench_bodies(source), *wire_bodies(source)]:
        total += 1
        taken += agrees(fn, body, source, target)
        assert answer(body, source, target, fast=True) == answer(body, source, target, fast=False)
    assert total > 20
    assert taken >= 3, f"the lossless variant took {taken} of {total} bodies"


def test_a_default_the_target_adds_is_the_one_loss_reported() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}  # no max_tokens: Anthropic requires it
    got = lossless(wiremap.translator("openai_chat", "anthropic_messages").request_with_losses, body)
    assert got is not None and got[1] == (("config.max_tokens", 4096),)
    assert agrees(wiremap.translator("openai_chat", "anthropic_messages").request_with_losses, body, "openai_chat", "anthropic_messages")
    t = wiremap.translate_request(body, "openai_chat", "anthropic_messages")
    assert t.report() == [{"path": "config.max_tokens", "kind": "added", "detail": "the target adds 4096"}]
    with pytest.raises(wiremap.TranslationLossError, match="config.max_tokens"):
        wiremap.translate_request(body, "openai_chat", "anthropic_messages", strict=True)
    assert answer(body, "openai_chat", "anthropic_messages", fast=True, strict=True) == answer(body, "openai_chat", "anthropic_messages", fast=False, strict=True)


def test_the_benchmark_records_take_the_lossless_variant() -> None:
    fn = wiremap.translator("openai_chat", "anthropic_messages").request_with_losses
    bodies = list(bench_bodies("openai_chat"))[:4]  # bench/datasets.py: with and without a tool
    assert all(agrees(fn, body, "openai_chat", "anthropic_messages") and not fn(body)[1] for body in bodies)
    # and the way back: the Anthropic body of a plain chat
    back = wiremap.translate_request(bodies[0], "openai_chat", "anthropic_messages").result
    back["messages"] = back["messages"][:1]
    assert agrees(wiremap.translator("anthropic_messages", "openai_chat").request_with_losses, back, "anthropic_messages", "openai_chat")


@pytest.mark.parametrize(
    ("change", "loss"),
    [
        ({"temperature": 0.5}, "config.temperature"),  # Anthropic drops it (warned)
        ({"max_completion_tokens": None}, "max_completion_tokens"),  # a null: carried for OpenAI's wire
        ({"stream": False}, "stream"),  # carried for OpenAI's wire
        ({"seed": 3}, "config.seed"),  # no Anthropic row
        ({"user": "u-1"}, None),  # metadata.user_id: carried as it is
    ],
)
def test_a_lossy_construct_leaves_the_lossless_variant(change: dict[str, Any], loss: str | None) -> None:
    body = {"model": "m", "max_completion_tokens": 9, "messages": [{"role": "user", "content": "hi"}], **change}
    fn = wiremap.translator("openai_chat", "anthropic_messages").request_with_losses
    reference = answer(body, "openai_chat", "anthropic_messages", fast=False)
    if loss is None:
        assert agrees(fn, body, "openai_chat", "anthropic_messages")
    else:
        assert lossless(fn, body) is None
        assert loss in [item["path"] for item in reference[2]]
    assert answer(body, "openai_chat", "anthropic_messages", fast=True) == reference


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
def test_the_lossless_variant_agrees_on_mutated_bodies(pair: tuple[str, str]) -> None:
    source, target = pair
    fn = wiremap.translator(source, target).request_with_losses
    taken = 0
    for body, ops in mutate.cases(11, source, "request_from_wire", 600):
        taken += agrees(fn, body, source, target)
        assert answer(body, source, target, fast=True) == answer(body, source, target, fast=False), ops
    assert taken > 0


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
@settings(max_examples=120, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_lossless_variant_agrees_on_valid_bodies(pair: tuple[str, str], data: Any) -> None:
    source, target = pair
    request = data.draw(gen.canonical_requests(source))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = json.loads(json.dumps(wiremap.get_format(source).request_to_wire(request)))
    agrees(wiremap.translator(source, target).request_with_losses, body, source, target)
    assert answer(body, source, target, fast=True) == answer(body, source, target, fast=False)


def test_every_eligible_pair_s_lossless_variant_agrees() -> None:
    taken = 0
    for source, target, module in _eligible_pairs():
        bodies = [*wire_bodies(source), *(body for body, _ in mutate.cases(5, source, "request_from_wire", 12))]
        for body in bodies:
            taken += agrees(module.request_with_losses, body, source, target)
    assert taken > 100


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
def test_carried_top_level_keys_are_named_as_the_two_step_report_names_them(pair: tuple[str, str]) -> None:
    # real clients send `stream: false`, `stream_options`, a top-level `cache_control`: wire data
    # the source's reader carries for its own provider, never written to another's. The proof
    # takes the rest of the body and names each such key `dropped`, exactly as the two-step
    # report does (same losses in the same order, same details, same body), strict or not
    source, target = pair
    tr = wiremap.translator(source, target)
    taken = 0
    for body in wire_bodies(source):
        for kw in ({}, {"strict": True}, {"keep_extras": True}):
            assert answer(body, source, target, fast=True, **kw) == answer(body, source, target, fast=False, **kw), (kw, body)
        if tr.request_with_losses(body) is None and tl.proven_losses(tr, body) is not None:
            taken += 1
    assert taken >= 20  # the recorded bodies with `stream` take it


def test_a_carried_key_is_named_after_the_added_default() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": False, "stream_options": {"include_usage": True}}
    t = wiremap.translate_request(body, "openai_chat", "anthropic_messages")
    assert [(x.path, x.kind) for x in t.losses] == [("config.max_tokens", "added"), ("stream", "dropped"), ("stream_options", "dropped")]
    assert t.losses[1].detail == "false is openai wire data the target cannot carry"
    assert answer(body, "openai_chat", "anthropic_messages", fast=True) == answer(body, "openai_chat", "anthropic_messages", fast=False)
    # keep_extras=True forwards what it can: the two-step way decides
    assert wiremap.translator("openai_chat", "anthropic_messages").request_with_losses(body) is None
    assert tl.proven_losses(wiremap.translator("openai_chat", "anthropic_messages"), body, carried=False) is None


def test_a_data_url_the_target_reads_back_as_inline_data_is_a_loss() -> None:
    # found by fuzzing the exact report: an Anthropic URL image whose URL is a `data:` URL goes
    # into OpenAI's image_url as it is, where OpenAI's reader takes it for inline data; the
    # proof said nothing was lost, the two-step report names the change
    image = {"type": "image", "source": {"type": "url", "url": "data:image/gif;base64,R0lGODlhAQABAAAAACw="}}
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": [image, {"type": "text", "text": "Tiny gif."}]}]}
    tr = wiremap.translator("anthropic_messages", "openai_chat")
    assert tr.request_with_losses(body) is None
    fast = answer(body, "anthropic_messages", "openai_chat", fast=True)
    assert fast == answer(body, "anthropic_messages", "openai_chat", fast=False)
    assert {loss["path"] for loss in fast[2]} >= {"messages[0].content[0].source.type"}
    image["source"]["url"] = "https://example.com/a.gif"  # an ordinary URL stays on the proven path
    assert tr.request_with_losses(body) is not None


def test_two_messages_of_tool_results_in_a_row_leave_the_proof() -> None:
    # found by fuzzing the exact report (bench/fuzz_fused.py --seed 101): Anthropic's own re-write
    # joins a run of tool results into one user message, so a second such message right after the
    # first is carried for the Anthropic wire, and the two-step report names it; the proof said
    # nothing was lost
    call = {"type": "tool_use", "id": "call_1", "name": "get_date", "input": {}}
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "today"}]}
    body = {"model": "m", "max_tokens": 50, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Date?"}]}, {"role": "assistant", "content": [call]}, result, result,
    ]}
    tr = wiremap.translator("anthropic_messages", "openai_chat")
    assert tr.request_with_losses(body) is None
    assert answer(body, "anthropic_messages", "openai_chat", fast=True) == answer(body, "anthropic_messages", "openai_chat", fast=False)
    body["messages"].pop()  # one message of results: proven
    assert tr.request_with_losses(body) is not None


@pytest.mark.parametrize("target", ["anthropic_messages", "gemini_generate_content"])
def test_tool_content_given_as_parts_leaves_the_proof(target: str) -> None:
    # found by fuzzing the exact report (bench/fuzz_fused.py --seed 171): an OpenAI tool message
    # whose content is a list of parts, one of them malformed (carried for the OpenAI wire), was
    # proven lossless; the two-step report names the malformed part
    call = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    for parts in ([{"type": "text", "text": "18C, "}, {"text": "sunny"}], [None, {"type": "text", "text": "sunny"}]):
        body = {"model": "m", "max_completion_tokens": 20, "messages": [
            {"role": "user", "content": "Weather?"}, {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": parts},
        ]}
        assert wiremap.translator("openai_chat", target).request_with_losses(body) is None
        assert answer(body, "openai_chat", target, fast=True) == answer(body, "openai_chat", target, fast=False)


def test_a_value_too_deep_to_compare_is_a_typed_error() -> None:
    # found by fuzzing (bench/fuzz_fused.py --seed 191): a system block's cache_control nested
    # thousands deep passed the readers and writers, and the loss report's comparison raised a bare
    # RecursionError out of translate_request
    deep: Any = "5m"
    for _ in range(3000):
        deep = {"ttl": deep}
    body = {"model": "m", "max_tokens": 5, "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": deep}}],
            "messages": [{"role": "user", "content": "hi"}]}
    # a cache_control is plain JSON within the depth limit (validation, as for any user JSON),
    # so it is refused there, at its path, before any comparison
    with pytest.raises(wiremap.InvalidRequestError, match="nested deeper than 256 levels") as caught:
        wiremap.translate_request(body, "anthropic_messages", "openai_chat")
    assert caught.value.path.startswith("messages[0].cache_control.ttl.ttl")


def test_finding_31_strict_schemas_and_refused_rewrites() -> None:
    # bench/fuzz_fused.py --seed 277: (a) OpenAI closes a strict tool's schemas when it writes,
    # so the source's own re-write differs from an unclosed schema and the two-step report names
    # the difference: a strict tool out of OpenAI leaves the proof. (b) A body whose re-write the
    # source's rules refuse (`tool_choice: required` with no tools) carried nothing, so the two-step
    # report dropped its unread top-level keys without a word; they are carried (and named) now.
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object", "additionalProperties": {"zz": False}}, "strict": True}}
    body = {"model": "m", "max_completion_tokens": 5, "messages": [{"role": "user", "content": "hi"}], "tools": [tool]}
    assert wiremap.translator("openai_chat", "anthropic_messages").request_with_losses(body) is None
    assert answer(body, "openai_chat", "anthropic_messages", fast=True) == answer(body, "openai_chat", "anthropic_messages", fast=False)
    refused = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tool_choice": "required", "vendor_flag": 7}
    fast = answer(refused, "openai_chat", "gemini_generate_content", fast=True)
    assert fast == answer(refused, "openai_chat", "gemini_generate_content", fast=False)
    assert [(loss["path"], loss["kind"]) for loss in fast[2]] == [("vendor_flag", "dropped")]


def _plain_turn(call: dict[str, Any], tool: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "m", "max_completion_tokens": 9, "tools": [tool],
        "messages": [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ],
    }


CALL = {"id": "c1", "type": "function", "function": {"name": "w", "arguments": '{"city": "Oslo"}'}}
TOOL = {"type": "function", "function": {"name": "w", "description": "Weather", "parameters": {"type": "object", "properties": {}}}}


@pytest.mark.parametrize(
    ("call", "tool", "proven"),
    [
        (CALL, TOOL, True),  # plain: the fast paths' reading proves it, no check of its own
        ({**CALL, "function": {**CALL["function"], "name": None}}, TOOL, False),
        ({**CALL, "function": {**CALL["function"], "extra": 1}}, TOOL, False),
        ({**CALL, "extra": None}, TOOL, False),
        ({**CALL, "type": None}, TOOL, False),
        (CALL, {**TOOL, "function": {**TOOL["function"], "description": None}}, False),  # a null the source carries
        (CALL, {**TOOL, "function": {**TOOL["function"], "strict": None}}, False),
        (CALL, {**TOOL, "function": {**TOOL["function"], "strict": True}}, False),  # the target closes the schema: a change
        (CALL, {**TOOL, "extra": 1}, False),
        (CALL, {"type": "function", "function": {"name": "w"}}, "gemini_generate_content"),  # no parameters: Anthropic adds a schema
    ],
)
def test_a_plain_call_or_tool_is_proven_and_a_near_plain_one_is_not(call: dict[str, Any], tool: dict[str, Any], proven: bool | str) -> None:
    """The lossless variant leaves out the checks the fast paths' own reading has made (a plain
    call or tool): each near-plain variation still leaves it, and the answer is the two-step one."""
    for target in ("anthropic_messages", "gemini_generate_content"):
        body = _plain_turn(call, tool)
        fn = wiremap.translator("openai_chat", target).request_with_losses
        if proven is True or proven == target:
            assert agrees(fn, body, "openai_chat", target)
        else:
            assert lossless(fn, body) is None
        assert answer(body, "openai_chat", target, fast=True) == answer(body, "openai_chat", target, fast=False)

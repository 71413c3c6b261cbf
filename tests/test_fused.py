"""Fused translators (mapping `fuse` rows, codegen/emit/fused.py) and `wiremap.translator`.

A fused translator must answer exactly what the two-step path answers:
`target.request_to_wire(source.request_from_wire(body))` -- the same body (byte for byte, key
order included), the same warnings, the same error class, path and message. That is checked on
valid bodies drawn by hypothesis (every canonical request a source can send, sent, then
translated), on mutated bodies (tests/fuzz/mutate.py), and on the benchmark corpus, which the
one-pass path must take without falling back.
"""

from __future__ import annotations

import functools
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wiremap
from wiremap.generated._index import FUSED

sys.path.insert(0, str(Path(__file__).resolve().parent))
import strategies as gen  # noqa: E402
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
    """What a caller sees: the wire bytes and the warnings, or the error."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.simplefilter("ignore", ResourceWarning)  # a socket another test leaked, collected here
        try:
            result = fn(body)
        except wiremap.ProviderError as exc:
            return ("error", type(exc).__name__, exc.category, exc.path, str(exc))
    wire = json.dumps(result, ensure_ascii=False)  # key order kept: the bytes a client sends
    return ("ok", wire, [(w.category.__name__, str(w.message)) for w in seen])


def two_step(source: str, target: str) -> Any:
    src, dst = wiremap.get_format(source), wiremap.get_format(target)
    return lambda body: dst.request_to_wire(src.request_from_wire(body))


class _NoFallback:
    def request_from_wire(self, body: Any) -> Any:
        raise AssertionError("the fused translator fell back to the two-step path")


def one_pass(monkeypatch: pytest.MonkeyPatch, source: str, target: str) -> Any:
    """The fused translator with its two-step fallback taken away: it must answer by itself."""
    request = wiremap.translator(source, target).request
    monkeypatch.setattr(sys.modules[request.__module__], "_src", _NoFallback())
    return request


def test_the_fuse_rows_are_compiled() -> None:
    assert ("openai_chat", "anthropic_messages") in FUSED
    assert ("anthropic_messages", "openai_chat") in FUSED
    assert ("openai_chat", "gemini_generate_content") in FUSED
    for source, target in PAIRS:
        tr = wiremap.translator(source, target)
        assert tr.fused and tr.source.key == source and tr.target.key == target
        assert tr.request.__module__ == f"wiremap.generated.{FUSED[(source, target)]}"
        assert wiremap.translator(source, target) is tr  # made once per pair


def test_pairs_without_a_fuse_row_take_the_two_step_path() -> None:
    tr = wiremap.translator("anthropic_messages", "gemini_generate_content")
    assert not tr.fused
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    assert outcome(tr.request, body) == outcome(two_step("anthropic_messages", "gemini_generate_content"), body)


def test_translator_responses_are_the_two_step_answer() -> None:
    body = json.loads((ROOT / "bench/corpus/anthropic_response.json").read_text())
    tr = wiremap.translator("anthropic_messages", "openai_chat")
    expected = wiremap.get_format("openai_chat").response_to_wire(wiremap.get_format("anthropic_messages").response_from_wire(body))
    assert json.dumps(tr.response(body)) == json.dumps(expected)


def test_formats_of_different_kinds_do_not_translate() -> None:
    with pytest.raises(wiremap.InvalidRequestError, match="only formats of one kind translate"):
        wiremap.translator("openai_chat", "openai_embeddings")


@pytest.mark.parametrize("item", ["small_chat", "tool_turn", "multimodal", "long_conversation"])
def test_the_benchmark_corpus_takes_the_one_pass_path(item: str, monkeypatch: pytest.MonkeyPatch) -> None:
    body = json.loads((ROOT / f"bench/corpus/{item}.json").read_text())
    expected = outcome(two_step("openai_chat", "anthropic_messages"), body)
    assert outcome(one_pass(monkeypatch, "openai_chat", "anthropic_messages"), body) == expected
    assert (item == "tool_turn") == bool(expected[2])  # temperature and top_p: warned, not sent
    back = json.loads(expected[1])
    assert outcome(one_pass(monkeypatch, "anthropic_messages", "openai_chat"), back) == outcome(two_step("anthropic_messages", "openai_chat"), back)


@pytest.mark.parametrize("item", ["small_chat", "tool_turn", "multimodal", "long_conversation", "agent_openai", "agent_anthropic_cached", "reasoning_turn"])
def test_the_benchmark_corpus_takes_the_one_pass_path_into_gemini(item: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the target's own code writes what the converter writes: the system instruction through its
    # `wire` template, the tools in their group, tool_choice nested, each result named after its call
    body = json.loads((ROOT / f"bench/corpus/{item}.json").read_text())
    expected = outcome(two_step("openai_chat", "gemini_generate_content"), body)
    assert expected[0] == "ok"
    assert outcome(one_pass(monkeypatch, "openai_chat", "gemini_generate_content"), body) == expected


def test_a_tool_result_into_gemini_is_named_after_its_call(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}},
             {"id": "c2", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]
    body = {"model": "gemini-2.5-flash", "messages": [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "weather and time?"},
        {"role": "assistant", "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c2", "content": "noon"},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ], "tools": [{"type": "function", "function": {"name": n, "parameters": {"type": "object"}}} for n in ("get_weather", "get_time")],
        "tool_choice": "required"}
    got = one_pass(monkeypatch, "openai_chat", "gemini_generate_content")(body)
    assert [p["functionResponse"]["name"] for p in got["contents"][-1]["parts"]] == ["get_time", "get_weather"]
    assert got["systemInstruction"] == {"parts": [{"text": "be brief"}]}
    assert got["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert outcome(lambda b: got, body) == outcome(two_step("openai_chat", "gemini_generate_content"), body)
    # a result no earlier call answers: the two-step way names the error
    monkeypatch.undo()
    body["messages"][-1]["tool_call_id"] = "c9"
    assert outcome(two_step("openai_chat", "gemini_generate_content"), body)[0] == "error"
    assert outcome(wiremap.translator("openai_chat", "gemini_generate_content").request, body) == outcome(
        two_step("openai_chat", "gemini_generate_content"), body)


@pytest.mark.parametrize(
    ("item", "source", "target"),
    [
        ("agent_openai", "openai_chat", "anthropic_messages"),
        ("reasoning_turn.anthropic", "anthropic_messages", "openai_chat"),
        # a top-level `cache_control` (a key the tables name, but only inside blocks), a server
        # tool, a `tool_reference` result and the system prompt as a list of one text block
        ("agent_anthropic_cached.anthropic", "anthropic_messages", "openai_chat"),
    ],
)
def test_keys_no_table_names_stay_on_the_one_pass_path(item: str, source: str, target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # recorded client bodies (bench/make_corpus.py RECORDED): `stream`, `stream_options` are carried
    # data for the source's own wire, never written to another provider's: the fused path leaves them out
    body = json.loads((ROOT / f"bench/corpus/{item}.json").read_text())
    assert "stream" in body
    assert outcome(one_pass(monkeypatch, source, target), body) == outcome(two_step(source, target), body)


@pytest.mark.parametrize("extra", [{"a": {"b": 1}}, [[1]], {"x": [1]}])
def test_a_nested_key_no_table_names_takes_the_two_step_path(extra: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "vendor_field": extra}
    expected = outcome(two_step("openai_chat", "anthropic_messages"), body)
    assert expected[0] == "ok"
    assert outcome(wiremap.translator("openai_chat", "anthropic_messages").request, body) == expected
    with pytest.raises(AssertionError, match="fell back"):
        one_pass(monkeypatch, "openai_chat", "anthropic_messages")(body)


@pytest.mark.parametrize(
    "option",
    [
        {"thinking": {"type": "enabled", "budget_tokens": None}},
        {"thinking": {"type": "disabled"}},
        {"metadata": {"user_id": None}},
        {"tool_choice": {"type": "auto", "disable_parallel_tool_use": None}, "tools": [{"name": "f", "input_schema": {"type": "object"}}]},
    ],
)
def test_an_option_object_without_its_value_answers_as_the_two_step_path(option: dict[str, Any]) -> None:
    # found by the fuzzer: an object whose one read leaf is absent or null was consumed whole,
    # so `thinking: {type: enabled, budget_tokens: null}` vanished where the two-step path carries it
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}], **option}
    checked = 0
    for source, target, module in _eligible_pairs():
        if wiremap.get_format(source).provider == "anthropic":
            checked += 1
            assert outcome(module.request, body) == outcome(two_step(source, target), body), (source, target)
    assert checked > 10


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
@SETTINGS
@given(data=st.data())
def test_fused_equals_two_step_on_valid_bodies(pair: tuple[str, str], data: Any) -> None:
    source, target = pair
    request = data.draw(gen.canonical_requests(source))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = json.loads(json.dumps(wiremap.get_format(source).request_to_wire(request)))
    assert outcome(wiremap.translator(source, target).request, body) == outcome(two_step(source, target), body)


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: f"{p[0]}->{p[1]}")
def test_fused_equals_two_step_on_mutated_bodies(pair: tuple[str, str]) -> None:
    source, target = pair
    fused, reference = wiremap.translator(source, target).request, two_step(source, target)
    count = 0
    for body, ops in mutate.cases(7, source, "request_from_wire", 1500):
        count += 1
        assert outcome(fused, body) == outcome(reference, body), ops
    assert count == 1500


def _compile_pair(src: Any, dst: Any) -> Any:
    """The fused module of the pair of IRs `src` -> `dst`, compiled in memory (its source text
    kept as `_text`: the module has no file)."""
    import types

    from wiremap.codegen.emit.fused import emit_fused_module, fused_header
    from wiremap.codegen.generate import module_name

    sm, dm = module_name(src.key), module_name(dst.key)
    text = emit_fused_module(src, dst, sm, dm, fused_header(src, dst, sm, dm, "tests"))
    module = types.ModuleType(f"wiremap.generated._test_fused_{sm}__{dm}")
    module.__package__ = "wiremap.generated"
    exec(compile(text, module.__name__, "exec"), module.__dict__)  # noqa: S102 - our own generated code
    module._text = text  # type: ignore[attr-defined]
    return module


def _chat_irs() -> dict[str, Any]:
    from wiremap.codegen.ir.chat import build_ir
    from wiremap.codegen.load.resolve import discover, resolve_all

    resolved = resolve_all(discover(str(ROOT / "mappings")))
    return {k: build_ir(r) for k, r in sorted(resolved.items()) if r.data.get("kind", "chat") == "chat"}


@functools.cache
def _eligible_pairs() -> list[tuple[str, str, Any]]:
    """Every (source, target) pair of chat mappings the fused compiler takes, compiled in memory
    from the real tables (only two are shipped; the compiler must be right for all of them)."""
    from wiremap.codegen.emit.fused import fused_blockers

    irs = _chat_irs()
    pairs = []
    for s, src in irs.items():
        if fused_blockers(src, "source"):
            continue
        for d, dst in irs.items():
            if d == s or fused_blockers(dst, "target"):
                continue
            if (src.provider, src.wire) == (dst.provider, dst.wire):
                continue  # one wire: the two-step path carries what no row reads; no fuse row may ask for it
            pairs.append((s, d, _compile_pair(src, dst)))
    return pairs


def test_every_eligible_pair_compiles_and_answers_as_the_two_step_path() -> None:
    pairs = _eligible_pairs()
    assert len(pairs) > 100  # the OpenAI-compatible family and the Anthropic formats, each way
    for source, target, module in pairs:
        reference = two_step(source, target)
        for body, ops in mutate.cases(3, source, "request_from_wire", 12):
            assert outcome(module.request, body) == outcome(reference, body), (source, target, ops)


@settings(max_examples=60, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_eligible_pairs_agree_on_valid_bodies(data: Any) -> None:
    pairs = [p for p in _eligible_pairs() if p[0] in gen.PROFILES]
    source, target, module = data.draw(st.sampled_from(pairs))
    request = data.draw(gen.canonical_requests(source))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = json.loads(json.dumps(wiremap.get_format(source).request_to_wire(request)))
    assert outcome(module.request, body) == outcome(two_step(source, target), body)



def _reader_top_keys(module: Any) -> set[str]:
    """The top-level keys a generated `_request_from_wire` marks as read: `consumed.add("k")`,
    `nested_consumed.append(("k", ...))` and the wire fields of its option tables."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(module._request_from_wire))
    keys: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        owner = node.func.value
        if isinstance(owner, ast.Name) and owner.id == "consumed" and node.func.attr == "add":
            arg = node.args[0]
            assert isinstance(arg, ast.Constant), ast.unparse(node)  # a key the test cannot see
            keys.add(arg.value)
        elif isinstance(owner, ast.Name) and owner.id == "nested_consumed":
            keys.add(ast.literal_eval(node.args[0])[0])
        elif node.func.attr == "options_from_wire":
            rows = getattr(module, node.args[-1].id)  # type: ignore[attr-defined]
            keys.update(wire.split(".")[0] for _, wires, _ in rows for wire in wires)
    return keys


def test_the_source_reads_every_fused_module_names_are_its_readers() -> None:
    # `_SOURCE_READS` lets the one pass leave out a top-level key the source carries for its own
    # wire; a key the reader reads but the set missed would be dropped where the two-step way reads it
    modules = [(s, d, sys.modules[wiremap.translator(s, d).request.__module__]) for s, d in PAIRS]
    modules += _eligible_pairs()
    assert len(modules) > 100
    for source, target, module in modules:
        reader = wiremap.get_format(source).module
        read = _reader_top_keys(reader)
        assert {"model", "messages"} <= read
        assert read <= module._SOURCE_READS, (source, target, read - module._SOURCE_READS)


def _compiled_pair(source: str, target: str) -> Any:
    """The fused module of one pair, compiled in memory from the real tables (as `_eligible_pairs`)."""
    from wiremap.codegen.emit.fused import fused_blockers

    irs = _chat_irs()
    src, dst = irs[source], irs[target]
    assert not fused_blockers(src, "source") and not fused_blockers(dst, "target")
    return _compile_pair(src, dst)


@pytest.mark.parametrize("kind", ["enabled", "disabled", True, None])
def test_an_option_rows_with_key_of_another_value_answers_as_the_two_step_way(kind: Any) -> None:
    # a source that keeps unread fields as extras (the OpenArmature dialect) reads `thinking.type`
    # as the budget row's own only when it holds the row's `with` value; any other value is an
    # extra (forwarded as given into OpenAI Chat), and the one pass must give that same answer
    source, target = "openarmature.anthropic_messages", "openai_chat"
    module = _compiled_pair(source, target)
    thinking = {"type": kind, "budget_tokens": 2048} if kind is not None else {"budget_tokens": 2048}
    body = {"model": "m", "max_tokens": 4000, "messages": [{"role": "user", "content": "hi"}], "thinking": thinking}
    got = outcome(module.request, body)
    assert got == outcome(two_step(source, target), body)
    assert got[0] == "ok"
    assert ("thinking" in json.loads(got[1])) == (kind not in ("enabled", None)), got
    if kind not in ("enabled", None):  # the object is read by no row: the whole of it is the extra
        assert json.loads(got[1])["thinking"] == thinking


def _tool_reader_keys(module: Any) -> set[str]:
    """The keys of a wire tool a generated `_read_tool` looks at: `tool.get("k")`, `"k" in tool`
    and `_w.<reader>(tool, "k", ...)`."""
    import ast
    import inspect

    keys: set[str] = set()
    for node in ast.walk(ast.parse(inspect.getsource(module._read_tool))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            args = node.args
            if node.func.attr == "get" and isinstance(node.func.value, ast.Name) and node.func.value.id == "tool":
                keys.add(ast.literal_eval(args[0]))
            elif len(args) > 1 and isinstance(args[0], ast.Name) and args[0].id == "tool" and isinstance(args[1], ast.Constant):
                keys.add(args[1].value)
        elif isinstance(node, ast.Compare) and isinstance(node.comparators[0], ast.Name) and node.comparators[0].id == "tool":
            keys.add(ast.literal_eval(node.left))
    return keys


def test_a_tool_key_the_one_pass_leaves_out_is_one_no_row_reads() -> None:
    # the tools loop leaves out a key of a tool outside its plain set when it is not in the set of
    # keys the source's reader looks at (`_READ_<n>`): carried for the source's wire, which the
    # two-step way drops into another provider's; a key the reader reads must be in that set
    import inspect
    import re

    modules = [(s, d, sys.modules[wiremap.translator(s, d).request.__module__]) for s, d in PAIRS]
    modules += _eligible_pairs()
    seen = 0
    for source, target, module in modules:
        text = getattr(module, "_text", None) or inspect.getsource(module)
        for name in re.findall(r"_w\.carried_only\(\s*tool,\s*\w+,\s*(\w+)\s*\)", text):
            seen += 1
            read = _tool_reader_keys(wiremap.get_format(source).module)
            assert read and read <= getattr(module, name), (source, target, read - getattr(module, name))
    assert seen > 50


def test_a_tool_with_a_key_no_row_reads_takes_the_one_pass_and_answers_as_the_two_step_way() -> None:
    tools = [{"name": "f", "description": "d", "input_schema": {"type": "object"}, "defer_loading": True},
             {"name": "tool_search_tool_bm25", "type": "tool_search_tool_bm25_20251119"}]
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}], "tools": tools}
    module = sys.modules[wiremap.translator("anthropic_messages", "openai_chat").request.__module__]
    reader = module._read_tool
    try:
        module._read_tool = lambda tool, path: pytest.fail(f"the canonical way took {tool}") if "defer_loading" in tool else reader(tool, path)
        got = outcome(module.request, body)
    finally:
        module._read_tool = reader
    assert got == outcome(two_step("anthropic_messages", "openai_chat"), body)
    assert json.loads(got[1])["tools"] == [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}]
    # nested, or on the lossless variant (a loss to name): the canonical way, the same answer
    deep = {**body, "tools": [{**tools[0], "defer_loading": {"a": {"b": 1}}}]}
    assert outcome(module.request, deep) == outcome(two_step("anthropic_messages", "openai_chat"), deep)
    assert module.request_with_losses(body) is None


@pytest.mark.skipif(not (ROOT.parent / "shared" / "recorded").is_dir(), reason="no recorded traffic beside the repository")
def test_recorded_requests_answer_as_the_two_step_path() -> None:
    # what real clients sent (../shared/recorded): cache markers, server tools, system blocks,
    # `stream` flags; every body, one pass or not, answers exactly as the two-step way
    sys.path.insert(0, str(ROOT / "tests" / "recorded"))
    import recorded_harness as harness

    checked = ok = 0
    for record in harness.records():
        if record["kind"] != "request":
            continue
        body = harness._request_body(record)
        for source, target in PAIRS:  # every body into every pair: another format's is an error both ways
            checked += 1
            got = outcome(wiremap.translator(source, target).request, body)
            assert got == outcome(two_step(source, target), body), (record["source"], source, target)
            ok += got[0] == "ok"
    assert checked > 1500 and ok > 700


# --- the one-pass fast paths (codegen/emit/fused.py `_tools_fast`, `_assistant_first`,
# `_results_fast`, `_tool_first`): plain objects go straight to the target, anything else the
# canonical way, and the answer is the two-step answer either way

_NESTED = {"type": "object", "properties": {"where": {"type": "object", "properties": {"city": {"type": "string"}}},
           "when": {"anyOf": [{"type": "object", "properties": {"day": {"type": "integer"}}}, {"type": "null"}]}},
           "required": ["where"]}
_OPENAI_TOOLS = [
    {"type": "function", "function": {"name": "plain", "description": "d", "parameters": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "strict", "parameters": _NESTED, "strict": True}},
    {"type": "function", "function": {"name": "no_params"}},  # not plain: the target's default schema, the canonical way
    {"type": "function", "function": {"name": "extra", "parameters": {"type": "object"}, "x-vendor": 1}},
]
_ANTHROPIC_TOOLS = [
    {"name": "plain", "description": "d", "input_schema": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer"}}}},
    {"name": "strict", "input_schema": _NESTED, "strict": True},
    {"name": "cached", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}},
    {"name": "deferred", "input_schema": {"type": "object"}, "defer_loading": True},
    {"type": "web_search_20250305", "name": "web_search"},  # a server tool: skipped, carried for Anthropic
]


def _openai_turns(tools: list[Any]) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 64, "tools": tools, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "on it", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "plain", "arguments": '{"z": "x", "a": 1}'}},
            {"id": "c2", "type": "function", "function": {"name": "strict", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "two"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c3", "type": "function", "function": {"name": "plain", "arguments": '{"a": 2}'}}]},
        {"role": "tool", "tool_call_id": "c3", "content": "three"},
    ]}


def _anthropic_turns(tools: list[Any]) -> dict[str, Any]:
    return {"model": "m", "max_tokens": 64, "tools": tools, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "on it"},
                                          {"type": "tool_use", "id": "c1", "name": "plain", "input": {"z": "x", "a": 1}},
                                          {"type": "tool_use", "id": "c2", "name": "strict", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "one"},
                                     {"type": "tool_result", "tool_use_id": "c2", "content": [{"type": "text", "text": "t"}, {"type": "text", "text": "wo"}], "is_error": False}]},
        {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        {"role": "user", "content": [{"type": "text", "text": "again"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c3", "name": "plain", "input": {"a": 2}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c3", "content": "three", "is_error": True}]},
    ]}


def _variants(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The body, and versions of it that each break one fast path's assumption (its answer is
    then the canonical one, or the canonical error)."""
    out = [body]
    for k, tool in enumerate(body["tools"]):
        out.append({**body, "tools": [tool]})  # each tool alone, plain or not
        out.append({**body, "tools": body["tools"] + [tool]})  # a duplicate name: the canonical error
    messages = body["messages"]
    for i, message in enumerate(messages):
        for change in ({"name": "n"}, {"extra": 1}, {"content": ""}, {"content": None}):
            changed = [*messages]
            changed[i] = {**message, **change}
            out.append({**body, "messages": changed})
    return out


@pytest.mark.parametrize("source, target", PAIRS)
def test_the_fast_paths_answer_as_the_two_step_path(source: str, target: str) -> None:
    body = _anthropic_turns(_ANTHROPIC_TOOLS) if source == "anthropic_messages" else _openai_turns(_OPENAI_TOOLS)
    reference, fused = two_step(source, target), wiremap.translator(source, target).request
    answers = set()
    for variant in _variants(body):
        expected = outcome(reference, variant)
        assert outcome(fused, variant) == expected, variant
        answers.add(expected[0])
    assert answers == {"ok", "error"}  # both kinds of answer were compared


@pytest.mark.parametrize("source, target", PAIRS)
def test_plain_turns_and_tools_take_the_one_pass_path(source: str, target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = _ANTHROPIC_TOOLS[:2] if source == "anthropic_messages" else _OPENAI_TOOLS[:2]
    body = _anthropic_turns(plain) if source == "anthropic_messages" else _openai_turns(plain)
    expected = outcome(two_step(source, target), body)
    assert expected[0] == "ok"
    assert outcome(one_pass(monkeypatch, source, target), body) == expected
    sent = json.loads(expected[1])
    strict_schema = json.dumps(sent).count('"additionalProperties": false')
    assert strict_schema in (0, 3)  # a target that closes strict schemas closes every object in it


_THINKING = {"type": "thinking", "thinking": "Let me see.", "signature": "sig-1"}


@pytest.mark.parametrize(
    "content",
    [
        [_THINKING, {"type": "text", "text": "391"}],  # plain: the target strips the thinking, the text is its string
        [_THINKING, {**_THINKING, "thinking": ""}, {"type": "text", "text": "391"}],  # signed: an empty text is allowed
        [_THINKING, {"type": "text", "text": ""}],  # an empty text: the canonical way (and its error)
        [{**_THINKING, "signature": None}, {"type": "text", "text": "391"}],  # not a string: the reader's error
        [{**_THINKING, "thinking": 7}, {"type": "text", "text": "391"}],
        [{"type": "thinking", "thinking": "t"}, {"type": "text", "text": "391"}],  # unsigned: the canonical way
        [{**_THINKING, "extra": 1}, {"type": "text", "text": "391"}],
        [{"type": "text", "text": "391"}, _THINKING],  # after the text: the canonical way
        [_THINKING],  # no text
        [{"type": "redacted_thinking", "data": "opaque"}, {"type": "text", "text": "391"}],
        [_THINKING, {"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        [_THINKING, {"type": "tool_use", "id": "c1", "name": "f", "input": {}}],
    ],
)
def test_a_reasoning_turn_into_a_target_that_strips_thinking(content: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """Anthropic -> OpenAI Chat: plain signed thinking blocks before the text take the one pass
    (the target strips them); anything else answers as the two-step way does."""
    body = {"model": "m", "max_tokens": 64, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "17 * 23?"}]},
        {"role": "assistant", "content": content},
        {"role": "user", "content": [{"type": "text", "text": "ok"}]},
    ]}
    expected = outcome(two_step("anthropic_messages", "openai_chat"), body)
    assert outcome(wiremap.translator("anthropic_messages", "openai_chat").request, body) == expected
    if content[-1] == {"type": "text", "text": "391"} and all(b == _THINKING or b.get("thinking") == "" and len(b) == 3 for b in content[:-1]):
        assert expected[0] == "ok"
        # the fast path itself: neither the two-step fallback nor the reader's part reader
        fast = one_pass(monkeypatch, "anthropic_messages", "openai_chat")
        monkeypatch.setattr(sys.modules[fast.__module__], "_read_assistant_part", _no_part_reader)
        assert outcome(fast, body) == expected


def _no_part_reader(*args: Any) -> Any:
    raise AssertionError("the assistant turn took the reader's way")

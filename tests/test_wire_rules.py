"""The `wire_rules:` section on a small generated mapping (tiny_base plus every rule), checking
each rule's repair and reject forms, the WireMap log, and the round trip through rewrites.

The Mistral mapping (mappings/mistral.yaml) uses tool_call_id and tool_name; no current mapping
declares empty_text or schema, so these are exercised here on `acme.rules`.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest

from wiremap.codegen import generate
from wiremap.runtime.errors import InvalidRequestError
from wiremap.runtime.format import Format, load_format
from wiremap.runtime.wire_rules import WireMap, WireRepairWarning

TESTS = Path(__file__).resolve().parent
BASE = TESTS / "mappings_err" / "_base" / "tiny_base.yaml"

RULES = """
extends: tiny_base
meta: {{id: {key}}}
wire_rules:
  tool_call_id: {{chars: a-zA-Z0-9, max_length: 12, action: {id_action}}}
  tool_name: {{chars: a-zA-Z0-9_-, max_length: 20, action: {name_action}}}
  empty_text: {empty}
  schema: {{keywords: [type, properties, required, items, description, enum, anyOf], action: {schema_action}}}
"""


def _build(tmp_path: Path, key: str, **actions: str) -> Format:
    src = tmp_path / "mappings"
    src.mkdir()
    shutil.copy(BASE, src / "tiny_base.yaml")
    params = {"id_action": "rewrite", "name_action": "rename", "empty": "drop", "schema_action": "drop", **actions}
    (src / f"{key}.yaml").write_text(RULES.format(key=key, **params))
    out = tmp_path / "out"
    out.mkdir()
    for name, text in generate(str(src)).items():
        (out / name).write_text(text)
    return load_format(str(out / f"{key}.py"))


@pytest.fixture(scope="module")
def fmt(tmp_path_factory: pytest.TempPathFactory) -> Format:
    return _build(tmp_path_factory.mktemp("rules"), "rules_drop")


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Format:
    return _build(tmp_path_factory.mktemp("strict"), "rules_reject", id_action="reject", name_action="reject", empty="reject", schema_action="reject")


REQUEST: dict[str, Any] = {
    "model": "m",
    "messages": [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call-1", "name": "lookup.customer.record", "arguments": {}}]},
        {"role": "tool", "tool_call_id": "call-1", "content": "none"},
    ],
    "tools": [
        {
            "name": "lookup.customer.record",
            "parameters": {
                "type": "object",
                "properties": {"email": {"type": "string", "format": "email"}, "tags": {"type": "array", "items": {"type": "string", "minLength": 1}}},
                "additionalProperties": False,
            },
        }
    ],
}


def test_every_repair_is_recorded(fmt: Format) -> None:
    wire_map = WireMap()
    body = fmt.request_to_wire(REQUEST, wire_map=wire_map)
    changes = [(c.rule, c.action, c.path) for c in wire_map.changes]
    assert changes == [
        ("tool_call_id", "rewrite", "messages[1].tool_calls[0].id"),
        ("tool_name", "rename", "messages[1].tool_calls[0].name"),
        ("empty_text", "drop", "messages[1].content"),
        ("tool_call_id", "rewrite", "messages[2].tool_call_id"),
        ("tool_name", "rename", "tools[0].name"),
        ("schema", "drop", "tools[0].parameters.properties.email.format"),
        ("schema", "drop", "tools[0].parameters.properties.tags.items.minLength"),
        ("schema", "drop", "tools[0].parameters.additionalProperties"),
    ]
    wire_id = wire_map.ids["call-1"]
    wire_name = wire_map.names["lookup.customer.record"]
    assert len(wire_id) == 12 and wire_id.isalnum()
    assert len(wire_name) <= 20 and wire_name.startswith("lookup_cust_")
    assert body["messages"][1]["content"] is None, "an empty string beside tool calls becomes no content"
    assert body["messages"][2]["tool_call_id"] == wire_id
    params = body["tools"][0]["function"]["parameters"] if "function" in body["tools"][0] else body["tools"][0]["parameters"]
    assert "format" not in params["properties"]["email"] and "additionalProperties" not in params


def test_round_trip_through_rewrites(fmt: Format) -> None:
    request = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "tool_calls": [{"id": "call-1", "name": "a.b", "arguments": {"x": 1}}]},
            {"role": "tool", "tool_call_id": "call-1", "content": "r"},
        ],
        "tools": [{"name": "a.b", "parameters": {"type": "object", "properties": {}}}],
        "tool_choice": {"type": "tool", "name": "a.b"},
    }
    wire_map = WireMap()
    body = fmt.request_to_wire(request, wire_map=wire_map)
    back = fmt.request_from_wire(body, wire_map=wire_map).to_dict()
    assert back["messages"][1]["tool_calls"][0]["id"] == "call-1"
    assert back["messages"][1]["tool_calls"][0]["name"] == "a.b"
    assert back["messages"][2]["tool_call_id"] == "call-1"
    assert back["tools"][0]["name"] == "a.b" and back["tool_choice"] == {"type": "tool", "name": "a.b"}
    assert fmt.request_to_wire(back, wire_map=WireMap()) == body, "deterministic: a fresh map gives the same body"


def test_without_map_warns_each_repair(fmt: Format) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fmt.request_to_wire(REQUEST)
    texts = [str(w.message) for w in caught if issubclass(w.category, WireRepairWarning)]
    assert len(texts) == 8 and "wire_rules.schema: drop at tools[0].parameters.additionalProperties" in texts[-1]


def test_input_not_mutated(fmt: Format) -> None:
    import copy

    before = copy.deepcopy(REQUEST)
    fmt.request_to_wire(REQUEST, wire_map=WireMap())
    assert REQUEST == before


@pytest.mark.parametrize(
    "request_,path,words",
    [
        (
            {"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "name": "f", "arguments": {}}]}, {"role": "tool", "tool_call_id": "c1", "content": "r"}]},
            "messages[1].content",
            "empty text",
        ),
        (
            {"model": "m", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [{"id": "call-1", "name": "f", "arguments": {}}]}, {"role": "tool", "tool_call_id": "call-1", "content": "r"}]},
            "messages[1].tool_calls[0].id",
            "tool call id 'call-1'",
        ),
        ({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"name": "x" * 21}]}, "tools[0].name", "does not fit"),
        (
            {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string", "pattern": "^a"}}}}]},
            "tools[0].parameters.properties.a.pattern",
            "keyword 'pattern'",
        ),
    ],
)
def test_reject_actions_name_the_path(strict: Format, request_: dict[str, Any], path: str, words: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        strict.request_to_wire(request_, wire_map=WireMap())
    assert info.value.path == path and words in str(info.value)


def test_collision_with_a_conforming_id_is_avoided(fmt: Format) -> None:
    """A rewritten id never takes an id another call of the request already uses."""
    from wiremap.runtime import wire_rules

    clash = wire_rules._encode(wire_rules._digest("call-1", 0), wire_rules._alphabet("a-zA-Z0-9"), 12)
    request = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [{"id": clash, "name": "f", "arguments": {}}, {"id": "call-1", "name": "f", "arguments": {}}]},
            {"role": "tool", "tool_call_id": clash, "content": "a"},
            {"role": "tool", "tool_call_id": "call-1", "content": "b"},
        ],
    }
    wire_map = WireMap()
    body = fmt.request_to_wire(request, wire_map=wire_map)
    ids = [c["id"] for c in body["messages"][1]["tool_calls"]]
    assert ids[0] == clash and ids[1] != clash and len(set(ids)) == 2
    assert body["messages"][3]["tool_call_id"] == ids[1]


def test_translation_to_mistral_reports_each_rewrite() -> None:
    """wiremap.translate_request into a format with wire rules: each repair is a loss, and
    nothing else is reported (the read-back goes through the same map)."""
    import wiremap

    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "Weather?"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "call_abc123", "type": "function", "function": {"name": "get.weather", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "call_abc123", "content": "9C"},
        ],
        "tools": [{"type": "function", "function": {"name": "get.weather", "parameters": {"type": "object", "properties": {}}}}],
    }
    with warnings.catch_warnings():
        warnings.simplefilter("error", WireRepairWarning)  # the map records them: no warning
        out = wiremap.translate_request(body, "openai_chat", "mistral")
    wire_id = out.result["messages"][1]["tool_calls"][0]["id"]
    assert len(wire_id) == 9 and wire_id.isalnum()
    report = out.report()
    assert [(r["path"], r["kind"]) for r in report] == [
        ("messages[1].tool_calls[0].id", "changed"),
        ("messages[1].tool_calls[0].name", "changed"),
        ("messages[2].tool_call_id", "changed"),
        ("tools[0].name", "changed"),
    ]
    assert "wire_rules.tool_call_id rewrite" in report[0]["detail"] and wire_id in report[0]["detail"]


def test_tool_name_first_character_class() -> None:
    """`first:` (Gemini: a name starts with a letter or `_`): a name that starts otherwise is
    renamed to one that fits, reversibly; a fitting one is left alone; reject names the rule."""
    from wiremap.runtime.canonical import Request, Tool, UserMessage
    from wiremap.runtime.wire_rules import apply_request_rules

    rule = {"chars": "a-zA-Z0-9_.:-", "first": "a-zA-Z_", "max_length": 64, "action": "rename"}
    req = Request(model="m", messages=[UserMessage(content="hi")], tools=[Tool(name="3d-render"), Tool(name="ok.name")])
    m = WireMap()
    out = apply_request_rules(req, {"tool_name": rule}, m, "t")
    renamed, kept = (t.name for t in out.tools)  # type: ignore[union-attr]
    assert kept == "ok.name" and renamed.startswith("_3d-render_") and len(renamed) <= 64
    assert m.caller_name(renamed) == "3d-render"
    with pytest.raises(InvalidRequestError, match=r"\[a-zA-Z_\] then") as info:
        apply_request_rules(req, {"tool_name": {**rule, "action": "reject"}}, WireMap(), "t")
    assert info.value.path == "tools[0].name"

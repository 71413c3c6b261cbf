"""User JSON (tool parameters, tool-call arguments) is checked and put in its byte-stable form
(keys sorted, OpenArmature §8) in one walk: validation keeps the sorted copy for the writer
(`validate.sorted_json_value`, `wire.memo_json`). What a user relies on: the bytes are those of
`wire.canonical_json`, each place in the output gets its own copy, the input is never shared or
changed, and a bad value is still a typed error naming its path."""

from __future__ import annotations

import copy
import json
import math
from collections import OrderedDict
from typing import Any

import pytest

import wiremap
from wiremap.runtime.canonical import Request
from wiremap.runtime.errors import InvalidRequestError
from wiremap.runtime.validate import check_json_value, sorted_json_value
from wiremap.runtime.wire import canonical_json, json_copy, memo_json

SCHEMA = {
    "type": "object",
    "required": ["z", "a"],
    "properties": {
        "z": {"type": "string"},
        "a": {"type": "array", "items": {"type": "integer", "enum": [3, 1]}},
    },
}
ARGS = {"zeta": [{"b": 1, "a": None}], "alpha": "x", "n": 1.5, "t": True}


def request_with(shared_params: dict[str, Any], shared_call: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "m",
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [shared_call]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ],
        "tools": [
            {"name": "one", "parameters": shared_params},
            {"name": "two", "parameters": shared_params},
        ],
    }


@pytest.mark.parametrize("value", [SCHEMA, ARGS, [1, "é", {"b": [], "a": {}}], {}, "s", 3, None])
def test_sorted_json_value_is_canonical_json_byte_for_byte(value: Any) -> None:
    got = sorted_json_value(value, "x")
    assert json.dumps(got) == json.dumps(canonical_json(value))
    if isinstance(value, (dict, list)):
        assert got is not value


def test_subclasses_of_json_types_are_sorted_as_canonical_json_sorts_them() -> None:
    value = {"b": OrderedDict([("y", 1), ("x", 2)]), "a": 1}
    assert json.dumps(sorted_json_value(value, "x")) == json.dumps(canonical_json(value))


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"a": [1, math.nan]}, "p.a[1]"),
        ({"a": {"b": "\ud800"}}, "p.a.b"),
        ({"a": {1: "x"}}, "p.a"),
        ({"a": b"bytes"}, "p.a"),
    ],
)
def test_a_bad_value_is_the_same_typed_error_as_check_json_value(value: Any, where: str) -> None:
    with pytest.raises(InvalidRequestError) as want:
        check_json_value(value, "p")
    with pytest.raises(InvalidRequestError) as got:
        sorted_json_value(value, "p")
    assert str(got.value) == str(want.value)
    assert where in str(got.value)


def test_memo_json_takes_the_copy_out_once() -> None:
    value = {"b": 1, "a": 2}
    memo = {id(value): sorted_json_value(value, "x")}
    first = memo_json(value, memo)
    second = memo_json(value, memo)
    assert first == second == {"a": 2, "b": 1}
    assert first is not second and not memo


def _form(target: str, value: Any) -> Any:
    """The wire form of user JSON in `target`: sorted under its rules' SORTED_JSON (the oa
    dialects, §8), else the caller's key order."""
    from wiremap.runtime.validate import SORTED_JSON

    return canonical_json(value) if wiremap.get_format(target).module.RULES & SORTED_JSON else json_copy(value)


@pytest.mark.parametrize(
    "target",
    ["anthropic_messages", "openai_chat", "gemini_generate_content", "openai_responses",
     "openarmature.anthropic_messages", "openarmature.openai_chat", "openarmature.gemini_generate_content"],
)
def test_a_value_used_twice_is_written_as_two_copies_and_the_input_is_untouched(
    target: str,
) -> None:
    params = copy.deepcopy(SCHEMA)
    call = {"id": "c1", "name": "one", "arguments": copy.deepcopy(ARGS)}
    body = request_with(params, call)
    before = copy.deepcopy(body)
    req = Request.from_dict(body)
    fmt = wiremap.get_format(target)
    if target.startswith("openarmature.anthropic"):  # oa §8.2.1: max_tokens is required there
        req = Request.from_dict({**body, "config": {"max_tokens": 8}})
    out = fmt.request_to_wire(req)
    text = json.dumps(out)
    assert body == before
    # each tool's schema is the schema in the format's form, and the two are separate objects
    found = [v for v in _walk(out) if isinstance(v, dict) and v == SCHEMA]
    assert len(found) >= 2
    assert len({id(v) for v in found}) == len(found)
    assert all(v is not params for v in found)
    # the bytes: the caller's key order, or sorted where the format's rules say so (§8)
    assert json.dumps(_form(target, SCHEMA))[1:-1] in text


def test_the_fused_translator_writes_the_same_bytes_with_separate_copies() -> None:
    params = copy.deepcopy(SCHEMA)
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "one", "arguments": json.dumps(ARGS)},
    }
    body = {
        "model": "m",
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ],
        "tools": [
            {"type": "function", "function": {"name": "one", "parameters": params}},
            {"type": "function", "function": {"name": "two", "parameters": params}},
        ],
    }
    fused = wiremap.translator("openai_chat", "anthropic_messages").request(body)
    two_step = wiremap.get_format("anthropic_messages").request_to_wire(
        wiremap.get_format("openai_chat").request_from_wire(body)
    )
    assert json.dumps(fused) == json.dumps(two_step)
    schemas = [t["input_schema"] for t in fused["tools"]]
    assert schemas[0] == schemas[1] == SCHEMA
    assert json.dumps(schemas[0]) == json.dumps(SCHEMA)  # the caller's key order
    assert schemas[0] is not schemas[1] and all(s is not params for s in schemas)


def _walk(value: Any) -> list[Any]:
    out = [value]
    if isinstance(value, dict):
        for v in value.values():
            out.extend(_walk(v))
    elif isinstance(value, list):
        for v in value:
            out.extend(_walk(v))
    return out


@pytest.mark.parametrize(
    "target",
    ["openai_chat", "anthropic_messages", "gemini_generate_content", "openarmature.openai_chat",
     "openarmature.gemini_generate_content"],
)
def test_the_response_schema_is_sent_in_its_form_and_as_a_copy(target: str) -> None:
    schema = copy.deepcopy(SCHEMA)
    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "go"}],
        "response_schema": schema,
    }
    out = wiremap.get_format(target).request_to_wire(Request.from_dict(body))
    assert body["response_schema"] == SCHEMA  # untouched
    sent = [v for v in _walk(out) if isinstance(v, dict) and v == SCHEMA]
    assert sent and all(v is not schema for v in sent)
    assert json.dumps(_form(target, SCHEMA))[1:-1] in json.dumps(out)


# --- the encoders made once (wire.encode_made_once): the text and the errors of JSONEncoder.encode


def _cyclic() -> dict[str, Any]:
    value: dict[str, Any] = {"a": 1}
    value["self"] = value
    return value


def _nested(depth: int) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(depth):
        node.append([])
        node = node[0]
    return root


@pytest.mark.parametrize(
    "value",
    [
        ARGS,
        {"é": "\u2028 \ud800", "k": [1, 2.5, -0.0, 10**30, True, None, OrderedDict(b=1, a=2)]},
        "a string",
        3,
        {1: "int key", 2.5: "float key", True: "bool key", None: "null key"},
        float("nan"),
        {"x": [float("inf")]},
        {"bytes": b"x"},
        {(1, 2): "tuple key"},
        _cyclic(),
        [_cyclic()],
    ],
    ids=["args", "unicode", "str", "int", "keys", "nan", "inf", "bytes", "tuple-key", "cycle", "cycle-inside"],
)
@pytest.mark.parametrize("options", [{}, {"sort_keys": True}, {"allow_nan": False}, {"ensure_ascii": True}])
def test_an_encoder_made_once_says_what_its_encoder_says(value: Any, options: dict[str, Any]) -> None:
    from wiremap.runtime.wire import encode_made_once

    encoder = json.JSONEncoder(separators=(",", ":"), **{"ensure_ascii": False, **options})
    made = encode_made_once(encoder)
    try:
        expected: Any = encoder.encode(value)
    except (TypeError, ValueError) as exc:
        expected = (type(exc), str(exc))
    try:
        got: Any = made(value)
    except (TypeError, ValueError) as exc:
        got = (type(exc), str(exc))
    assert got == expected
    if value is ARGS:  # the caller's key order, unless sorting was asked for
        assert list(json.loads(got)) == (sorted(ARGS) if options.get("sort_keys") else list(ARGS))


def test_an_encoder_made_once_survives_a_cycle_and_a_value_too_deep() -> None:
    from wiremap.runtime.wire import dumps_kept, encode_made_once

    with pytest.raises(ValueError, match="Circular reference"):
        dumps_kept(_cyclic())
    with pytest.raises(RecursionError):
        dumps_kept(_nested(100_000))
    # nothing is left behind by the failures: the next call answers as usual (no stale marker)
    shared = {"k": [1, 2]}
    assert dumps_kept({"a": shared, "b": shared}) == '{"a":{"k":[1,2]},"b":{"k":[1,2]}}'
    made = encode_made_once(json.JSONEncoder(indent=2))  # an indenting encoder: its own encode
    assert made({"a": 1}) == '{\n  "a": 1\n}'

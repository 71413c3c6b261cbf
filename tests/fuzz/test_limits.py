"""Resource limits (issue #6; mappings/README.md "Runtime error categories and resource limits")
and regression tests for what the fuzzer found.

Outcomes are asserted, not times (timing is bench/'s job): a 50 MB body, a 10 000-deep JSON
argument and a 1 M-element array give a result or a typed error naming the path -- never a
RecursionError, MemoryError or any other bare exception.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

import wiremap
from wiremap import InvalidRequestError, ProviderError

FORMATS = wiremap.formats()
#: the formats that carry chat requests (tools, arguments, response_schema); others are other kinds
CHAT = [k for k in FORMATS if getattr(wiremap.get_format(k), "kind", "chat") == "chat"]
USER = {"role": "user", "content": "hi"}


def quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wiremap.UnsupportedOptionWarning)
        return fn(*args, **kwargs)


def deep_object(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def with_call(arguments: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "messages": [
            USER,
            {"role": "assistant", "tool_calls": [{"id": "c1", "name": "f", "arguments": arguments}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ],
        "tools": [{"name": "f", "parameters": {"type": "object"}}],
        "config": {"max_tokens": 16},
    }


# --------------------------------------------------------------------------- depth (any format)


@pytest.mark.parametrize("key", CHAT)
def test_deep_tool_arguments_are_refused_with_their_path(key: str) -> None:
    with pytest.raises(InvalidRequestError) as info:
        quiet(wiremap.get_format(key).request_to_wire, with_call(deep_object(10_000)))
    path = info.value.path or ""
    assert path.startswith("messages[1].tool_calls[0].arguments.a.a"), path
    assert f"deeper than {wiremap.MAX_JSON_DEPTH}" in info.value.message


@pytest.mark.parametrize("key", CHAT)
def test_deep_parameters_and_response_schema_are_refused(key: str) -> None:
    fmt = wiremap.get_format(key)
    req = {"model": "m", "messages": [USER], "config": {"max_tokens": 16}, "tools": [{"name": "f", "parameters": {"type": "object", "properties": deep_object(10_000)}}]}
    with pytest.raises(InvalidRequestError) as info:
        quiet(fmt.request_to_wire, req)
    assert (info.value.path or "").startswith("tools[0].parameters.properties.a")
    req = {"model": "m", "messages": [USER], "config": {"max_tokens": 16}, "response_schema": {"type": "object", "properties": deep_object(10_000)}}
    with pytest.raises(InvalidRequestError) as info:
        quiet(fmt.request_to_wire, req)
    assert (info.value.path or "").startswith("response_schema.properties.a")


@pytest.mark.parametrize("key", CHAT)
def test_arguments_just_under_the_limit_are_sent(key: str) -> None:
    wire = quiet(wiremap.get_format(key).request_to_wire, with_call(deep_object(wiremap.MAX_JSON_DEPTH - 1)))
    assert isinstance(wire, dict)


def test_deep_argument_string_in_a_wire_request_is_a_typed_error() -> None:
    text = '{"a":' * 10_000 + "1" + "}" * 10_000
    body = {
        "model": "m",
        "messages": [
            USER,
            {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": text}}]},
        ],
    }
    with pytest.raises(InvalidRequestError) as info:
        wiremap.get_format("openai_chat").request_from_wire(body)
    assert info.value.path == "messages[1].tool_calls[0].function.arguments"


def test_deep_tool_input_read_then_translated_is_a_typed_error() -> None:
    """A 10 000-deep `input` is read without recursion; writing it elsewhere is refused by the
    depth limit (with its path), not by a RecursionError."""
    body = {
        "model": "m",
        "max_tokens": 5,
        "messages": [
            USER,
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "f", "input": deep_object(10_000)}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "ok"}]},
        ],
    }
    with pytest.raises(ProviderError) as info:
        quiet(wiremap.translate_request, body, "anthropic_messages", "openai_chat")
    assert (info.value.path or "").startswith("messages[1].tool_calls[0].arguments.a")


def test_error_from_wire_on_a_10000_deep_body_never_raises() -> None:
    for key in FORMATS:
        err = wiremap.get_format(key).error_from_wire(500, deep_object(10_000), {})
        assert err.category == "provider_unavailable"
        err = wiremap.get_format(key).error_from_wire(400, "[" * 10_000 + "]" * 10_000, {})
        assert isinstance(err, ProviderError)


# ------------------------------------------------------------------------------- size


@pytest.mark.parametrize("key", CHAT)
def test_a_50_mb_text_is_carried_whole(key: str) -> None:
    text = "x" * 50_000_000
    fmt = wiremap.get_format(key)
    wire = quiet(fmt.request_to_wire, {"model": "m", "messages": [{"role": "user", "content": text}], "config": {"max_tokens": 16}})
    assert _contains(wire, text)
    assert _contains(fmt.request_from_wire(wire).to_dict(), text)


def _contains(value: Any, text: str) -> bool:
    if value is text or value == text:
        return True
    if isinstance(value, dict):
        return any(_contains(v, text) for v in value.values())
    if isinstance(value, list):
        return any(_contains(v, text) for v in value)
    return False


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages"])
def test_a_million_element_argument_array(key: str) -> None:
    args = {"a": list(range(1_000_000))}
    wire = quiet(wiremap.get_format(key).request_to_wire, with_call(args))
    back = wiremap.get_format(key).request_from_wire(wire)
    assert back.messages[1].tool_calls[0].arguments == args  # type: ignore[union-attr,index]


def test_a_million_element_content_array_is_an_error_at_its_item() -> None:
    """1 M content parts, the last one malformed: the reader walks them all (linearly) and names it."""
    parts: list[Any] = [{"type": "text", "text": "x"}] * 999_999 + [{"type": "text", "text": 5}]
    with pytest.raises(InvalidRequestError) as info:
        wiremap.get_format("openai_chat").request_from_wire({"model": "m", "messages": [{"role": "user", "content": parts}]})
    assert info.value.path == "messages[0].content[999999].text"


# ------------------------------------------------------------- regressions found by fuzzing


@pytest.mark.parametrize("key", CHAT)
@pytest.mark.parametrize(
    "where, bad, path",
    [
        ("required", ["ok", "\ud800"], "response_schema.required[1]"),
        ("title", "a\udc80b", "response_schema.title"),
        ("properties", {"ok": {"type": b"string"}}, "response_schema.properties.ok.type"),
        ("properties", {"ok": {"minimum": float("nan")}}, "response_schema.properties.ok.minimum"),
        ("properties", {"ok": {1: "x"}}, "response_schema.properties.ok"),
    ],
    ids=["lone_surrogate", "surrogate_escape", "bytes", "nan", "int_key"],
)
def test_fixed_response_schema_that_is_not_json(key: str, where: str, bad: Any, path: str) -> None:
    """Fuzz finding: UnicodeEncodeError (schema name digest) / TypeError (bytes) escaped
    request_to_wire. A user JSON value must be plain JSON; the first offending node is named."""
    schema = {"type": "object", "properties": {"ok": {"type": "string"}}, where: bad}
    with pytest.raises(InvalidRequestError) as info:
        quiet(wiremap.get_format(key).request_to_wire, {"model": "m", "messages": [USER], "config": {"max_tokens": 16}, "response_schema": schema})
    assert info.value.path == path


@pytest.mark.parametrize("key", CHAT)
@pytest.mark.parametrize("required", [True, 3, [["ok"]], ["ok", {"x": 1}]], ids=["bool", "int", "nested_list", "object_item"])
def test_fixed_malformed_required_when_closing_schemas(key: str, required: Any) -> None:
    """Fuzz finding: `set(required)` raised TypeError in the Prompty schema closing (wire.py)."""
    schema = {"type": "object", "properties": {"ok": {"type": "string"}}, "required": required}
    wire = quiet(wiremap.get_format(key).request_to_wire, {"model": "m", "messages": [USER], "config": {"max_tokens": 16}, "response_schema": schema})
    assert isinstance(wire, dict)


@pytest.mark.parametrize("key", CHAT)
def test_fixed_huge_integer_sampling_option(key: str) -> None:
    """Fuzz finding: `math.isfinite(10**400)` raised OverflowError in validation."""
    try:
        quiet(wiremap.get_format(key).request_to_wire, {"model": "m", "messages": [USER], "config": {"max_tokens": 16}, "config": {"temperature": 10**400, "max_tokens": 16}})
    except ProviderError as exc:
        assert exc.path == "config.temperature"


@pytest.mark.parametrize("key", FORMATS)
def test_fixed_error_rules_on_huge_and_odd_error_words(key: str) -> None:
    """Fuzz finding: error-rule patterns searched the whole message (a pattern such as
    `unsupported .*(source|format)` is quadratic on a long one); now capped per word. An error
    type past Python's int-to-text digit limit no longer raises."""
    fmt = wiremap.get_format(key)
    huge = "unsupported " * 400_000
    err = fmt.error_from_wire(400, {"error": {"message": huge, "type": 10**5000}, "type": "error"}, {})
    assert isinstance(err, ProviderError)
    assert wiremap.runtime.wire.error_words(huge, 10**5000).count("\n") == 1


@pytest.mark.parametrize("key", [k for k in FORMATS if getattr(wiremap.get_format(k), "kind", "chat") == "embeddings"])
def test_fixed_embedding_value_past_float_range(key: str) -> None:
    """Fuzz finding (make fuzz, prompty.openai_embeddings): an integer embedding value too large
    for a float raised OverflowError in read_vector; now a typed error at that element."""
    fmt = wiremap.get_format(key)
    # the format's own body for one vector [0.1, 0.25], its 0.25 replaced by a huge integer
    body = fmt.response_to_wire({"embeddings": [[0.1, 0.25]], "usage": {"prompt_tokens": 1, "completion_tokens": None, "total_tokens": 1}})

    def plant(node: Any, path: str) -> str | None:
        if isinstance(node, list) and node == [0.1, 0.25]:
            node[1] = 10**400
            return f"{path}[1]"
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            found = plant(v, f"{path}[{k}]" if isinstance(k, int) else f"{path}.{k}" if path else k)
            if found:
                return found
        return None

    where = plant(body, "")
    assert where is not None
    with pytest.raises(wiremap.InvalidResponseError) as info:
        fmt.response_from_wire(body)
    assert info.value.path == where


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages", "gemini_generate_content", "mistral"])
@pytest.mark.parametrize("bad", [5, {"a": 1}, ["END", 123]])
def test_fixed_malformed_stop_sequences_read_from_the_wire(key: str, bad: Any) -> None:
    """Differential-run finding (wip/speed): request_from_wire built a Config holding a non-list
    `stop_sequences` and the dict round trip that followed dropped it without a word. The wire
    value is now checked where it is read: a typed error naming config.stop_sequences."""
    fmt = wiremap.get_format(key)
    body = quiet(fmt.request_to_wire, {"model": "m", "messages": [USER], "config": {"max_tokens": 16, "stop_sequences": ["END"]}})
    wire = json.loads(json.dumps(body))
    # put the bad value wherever this format keeps its stop sequences
    def replace(node: Any) -> bool:
        if isinstance(node, dict):
            for k, v in node.items():
                if v == ["END"]:
                    node[k] = bad
                    return True
                if replace(v):
                    return True
        return False

    assert replace(wire)
    with pytest.raises(InvalidRequestError) as caught:
        fmt.request_from_wire(wire)
    assert caught.value.path is not None and caught.value.path.startswith("config.stop_sequences")


def test_fixed_deep_value_in_a_validation_message() -> None:
    """make fuzz finding (mistral, 1 M cases): `response_schema.type` nested thousands deep made
    the validation message's repr() raise RecursionError, outside the converter's guard (the
    wire_rules wrapper validated before its try). Messages now show user values with limits."""
    deep: Any = 1
    for _ in range(5000):
        deep = {"a": deep}
    for key in ("mistral", "openai_chat"):
        with pytest.raises(InvalidRequestError) as caught:
            wiremap.get_format(key).request_to_wire({"model": "m", "messages": [USER], "response_schema": {"type": deep}})
        assert caught.value.path == "response_schema.type"
        assert len(str(caught.value)) < 300


def test_fixed_lone_surrogate_in_a_call_without_id() -> None:
    """make fuzz finding (gemini_generate_content): the deterministic id of a function call
    without one hashed its name and arguments as UTF-8, which a lone surrogate (a JSON
    `\\udc80` escape) cannot be: UnicodeEncodeError. The id is still made, the same each time."""
    fmt = wiremap.get_format("gemini_generate_content")
    body = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "a\udc80b", "args": {"city": "x\udc80"}}}]}, "finishReason": "STOP"}]}
    first = fmt.response_from_wire(body).message.tool_calls[0].id
    assert first == fmt.response_from_wire(body).message.tool_calls[0].id and first.startswith("call_")


@pytest.mark.parametrize(
    ("key", "entry", "body", "path"),
    [
        ("openai_responses", "request_from_wire",
         {"model": "o4-mini", "input": [{"role": "user", "content": "Q"}, {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": b"\xff"}, {"role": "assistant", "content": "A"}, {"role": "user", "content": "Q2"}]},
         "input[1]"),
        ("openai_responses", "response_from_wire",
         {"id": "r", "object": "response", "created_at": 1, "status": "completed", "model": "m", "output": [{"type": "reasoning", "id": b"rs", "summary": []}, {"type": "message", "id": "m", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}]},
         "output[0]"),
        ("openrouter", "response_from_wire",
         {"id": "g", "object": "chat.completion", "created": 1, "model": "m", "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi", "reasoning_details": [{"type": "reasoning.text", "text": "t", "signature": b"\xff"}]}}]},
         "choices[0].message.reasoning_details[0]"),
    ],
)
def test_fixed_bytes_in_a_reasoning_item_kept_whole(key: str, entry: str, body: Any, path: str) -> None:
    """make fuzz findings (openai_responses, openrouter): a reasoning item is kept whole as its
    block's signature (JSON text); a body handed over as Python objects holding bytes raised
    TypeError from the JSON encoder. Now a typed error at the item."""
    with pytest.raises(ProviderError) as caught:
        getattr(wiremap.get_format(key), entry)(body)
    assert caught.value.path is not None and caught.value.path.startswith(path)


@pytest.mark.parametrize("key", ["anthropic_messages", "anthropic.bedrock", "openai_chat", "gemini_generate_content"])
def test_fixed_deep_value_no_row_reads(key: str) -> None:
    """fuzz finding (bench/fuzz.py --seed 2027, anthropic.bedrock, 2026-11-27): a response whose
    `id` (a key no row reads, carried for the same wire) was nested thousands deep raised
    RecursionError from the carried-data diff, which ran outside the reader's guard. Now the
    same InvalidResponseError as for a deep value a row reads; a request's unread key likewise."""
    fmt = wiremap.get_format(key)
    body = fmt.response_to_wire({"message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop", "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
    body = {**body, "id": deep_object(5000)}
    try:  # carried as it is, or refused as too deep: never a RecursionError
        fmt.response_from_wire(body)
    except wiremap.InvalidResponseError as exc:
        assert "nested too deeply" in str(exc)
    request = {**fmt.request_to_wire({"model": "m", "messages": [USER]}), "unread": deep_object(5000)}
    try:
        fmt.request_from_wire(request)
    except InvalidRequestError as exc:
        assert "nested too deeply" in str(exc) or exc.path is not None


@pytest.mark.parametrize("field", ["taskType", "outputDimensionality"])
def test_fixed_deep_value_shown_in_a_generated_error(field: str) -> None:
    """fuzz finding (bench/fuzz.py --seed 2027, gemini_batch_embed_contents): a value no canonical
    form reads, nested thousands deep, was repr()'d into the error message: RecursionError.
    Generated messages (and the runtime's) show user values with limits (`wire.shown`)."""
    body = {"model": "m", "requests": [{"content": {"parts": [{"text": "hi"}]}, "model": "models/m", field: deep_object(5000)}]}
    with pytest.raises(InvalidRequestError) as caught:
        wiremap.get_format("gemini_batch_embed_contents").request_from_wire(body)
    assert caught.value.path == f"requests[0].{field}" and len(str(caught.value)) < 300
    for key in ("openai_chat", "anthropic_messages", "bedrock_converse", "openai_responses"):
        for bad in ({"model": "m", "messages": [{"role": deep_object(5000), "content": "x"}]},
                    {"model": "m", "messages": [{"role": "user", "content": [{"type": deep_object(5000)}]}]}):
            try:  # read (carried), or refused with a typed error: never a RecursionError
                quiet(wiremap.get_format(key).request_from_wire, bad)
            except ProviderError as exc:
                assert len(str(exc)) < 1000

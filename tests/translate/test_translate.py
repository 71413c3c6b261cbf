"""wiremap.translate_request / translate_response / translate_error and their loss reports."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

import wiremap
from wiremap import InvalidRequestError, InvalidResponseError, TranslationLossError
from wiremap.runtime.errors import ERROR_CATEGORIES, error_class

OPENAI_REQUEST: dict[str, Any] = {
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "https://example.com/cat.png", "detail": "low"}},
            ],
        },
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "look", "arguments": '{"q":1}'}},
                {"id": "call_2", "type": "function", "function": {"name": "look", "arguments": '{"q":2}'}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a cat"},
        {"role": "tool", "tool_call_id": "call_2", "content": "a hat"},
    ],
    "tools": [{"type": "function", "function": {"name": "look", "parameters": {"type": "object", "properties": {"q": {"type": "integer"}}}}}],
    "temperature": 0.2,
    "seed": 3,
    "logprobs": True,
    "max_completion_tokens": 100,
}

ANTHROPIC_RESPONSE: dict[str, Any] = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-5",
    "content": [
        {"type": "thinking", "thinking": "Look twice.", "signature": "sig-1"},
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "look", "input": {"q": 2}},
        {"type": "tool_use", "id": "toolu_2", "name": "look", "input": {"q": 3}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 5, "output_tokens": 7},
}


def paths(t: wiremap.Translation) -> dict[str, str]:
    return {loss.path: loss.kind for loss in t.losses}


def test_request_openai_to_anthropic_carries_what_it_can_and_reports_the_rest() -> None:
    body = copy.deepcopy(OPENAI_REQUEST)
    t = wiremap.translate_request(body, "openai_chat", "anthropic_messages")
    assert body == OPENAI_REQUEST  # input untouched
    out = t.result
    assert out["system"] == "Be brief."
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "user"]
    # both tool results, in order, in one user turn, paired with their calls
    assert [b["tool_use_id"] for b in out["messages"][2]["content"]] == ["call_1", "call_2"]
    assert [b["id"] for b in out["messages"][1]["content"]] == ["call_1", "call_2"]
    assert out["max_tokens"] == 100
    assert "logprobs" not in out and "seed" not in out and "temperature" not in out
    assert paths(t) == {
        "config.logprobs": "dropped",  # a canonical option (issue 14) Anthropic has no field for
        "messages[1].content[1].detail": "dropped",
        "config.temperature": "dropped",
        "config.seed": "dropped",
    }
    assert not t.lossless
    assert all(loss.detail for loss in t.losses)


def test_strict_turns_any_loss_into_an_error_naming_it() -> None:
    with pytest.raises(TranslationLossError) as info:
        wiremap.translate_request(OPENAI_REQUEST, "openai_chat", "anthropic_messages", strict=True)
    assert info.value.category == "provider_invalid_request"
    assert info.value.path == info.value.losses[0].path
    assert {x.path for x in info.value.losses} == {"config.logprobs", "messages[1].content[1].detail", "config.temperature", "config.seed"}


def test_a_lossless_translation_is_reported_as_such_and_strict_passes() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_completion_tokens": 5}
    t = wiremap.translate_request(body, "openai_chat", "anthropic_messages", strict=True)
    assert t.lossless and t.result["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def test_a_responses_string_input_translates_as_one_user_turn() -> None:
    """openai_responses `input` may be a string (user.bare_string: read): it is the user turn
    after `instructions`, the same conversation as the array form, so nothing is lost."""
    body = {"model": "gpt-5", "instructions": "Be brief.", "input": "Hello", "max_output_tokens": 50}
    t = wiremap.translate_request(body, "openai_responses", "anthropic_messages", strict=True)
    assert t.lossless
    assert t.result == {"model": "gpt-5", "system": "Be brief.", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}], "max_tokens": 50}
    listed = {**body, "input": [{"role": "user", "content": "Hello"}]}
    assert wiremap.translate_request(listed, "openai_responses", "anthropic_messages").result == t.result
    # the same format gives back the string it read (identity: runtime/carry.py)
    same = wiremap.translate_request(body, "openai_responses", "openai_responses")
    assert same.result == body and same.lossless
    with pytest.raises(InvalidRequestError) as info:
        wiremap.translate_request({**body, "input": ""}, "openai_responses", "openai_chat")
    assert info.value.path == "input"


def test_extras_ride_within_one_provider_or_when_asked() -> None:
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "service_tier": "flex"}
    assert wiremap.translate_request(body, "openai_chat", "openai_chat").result["service_tier"] == "flex"
    kept = wiremap.translate_request(body, "openai_chat", "anthropic_messages", keep_extras=True)
    assert kept.result["service_tier"] == "flex"
    # what the report does say: Anthropic requires max_tokens and the table adds its default
    assert paths(kept) == {"config.max_tokens": "added"} and kept.result["max_tokens"] == 4096


def test_same_format_is_the_identity_for_a_canonical_body() -> None:
    t = wiremap.translate_request(OPENAI_REQUEST, "openai_chat", "openai_chat")
    assert t.lossless
    assert t.result["messages"][2]["tool_calls"][1]["id"] == "call_2"


def test_the_way_back_reports_the_schema_repair() -> None:
    there = wiremap.translate_request(OPENAI_REQUEST, "openai_chat", "anthropic_messages").result
    back = wiremap.translate_request(there, "anthropic_messages", "openai_chat")
    # strict mode is not requested, so nothing is closed; the tool arrives unchanged
    assert back.result["tools"] == OPENAI_REQUEST["tools"]
    assert back.result["messages"][3:] == OPENAI_REQUEST["messages"][3:]


def test_response_anthropic_to_openai() -> None:
    t = wiremap.translate_response(ANTHROPIC_RESPONSE, "anthropic_messages", "openai_chat")
    choice = t.result["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] == "Checking."
    assert [c["id"] for c in choice["message"]["tool_calls"]] == ["toolu_1", "toolu_2"]
    assert t.result["usage"] == {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
    # OpenAI chat has no thinking: the signed block is dropped and reported
    assert paths(t) == {"message.content[0]": "dropped"}


def test_response_openai_to_anthropic_round_trips_finish_reasons() -> None:
    for wire, canonical_back in (("stop", "end_turn"), ("length", "max_tokens"), ("tool_calls", "tool_use")):
        body = {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "x", **({"tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]} if wire == "tool_calls" else {})}, "finish_reason": wire}],
        }
        t = wiremap.translate_response(body, "openai_chat", "anthropic_messages")
        assert t.result["stop_reason"] == canonical_back


def test_bad_input_is_a_typed_error_naming_the_path() -> None:
    with pytest.raises(InvalidRequestError) as info:
        wiremap.translate_request({"model": "m", "messages": [{"role": "user", "content": 7}]}, "openai_chat", "anthropic_messages")
    assert info.value.path and info.value.path.startswith("messages[0]")
    with pytest.raises(InvalidResponseError):
        wiremap.translate_response({"choices": "nope"}, "openai_chat", "anthropic_messages")
    with pytest.raises(KeyError):
        wiremap.translate_request({}, "nope", "openai_chat")


BASE_FORMATS = [k for k in wiremap.formats() if "." not in k and wiremap.get_format(k).error_to_wire is not None]


@pytest.mark.parametrize("target", BASE_FORMATS)
@pytest.mark.parametrize("category", ERROR_CATEGORIES)
def test_error_to_wire_is_read_back_as_its_category_or_reports_it(target: str, category: str) -> None:
    fmt = wiremap.get_format(target)
    error = error_class(category)("upstream said no", retry_after=2.5)
    t = wiremap.error_translation(error, target)
    status, body, headers = t.result
    assert 400 <= status <= 599
    assert headers["retry-after"] == "3"
    back = fmt.error_from_wire(status, body, headers)
    assert back.message == "upstream said no"
    if back.category == category:
        assert t.lossless
    else:
        assert [loss.path for loss in t.losses] == ["category"]
        assert back.category in t.losses[0].detail


@pytest.mark.parametrize("source", BASE_FORMATS)
@pytest.mark.parametrize("target", BASE_FORMATS)
def test_translate_error_keeps_the_transient_categories_transient(source: str, target: str) -> None:
    for category in ("provider_rate_limit", "provider_unavailable"):
        status, body, headers = wiremap.error_translation(error_class(category)("busy"), source).result
        t = wiremap.translate_error(status, body, headers, source, target)
        out_status, out_body, out_headers = t.result
        again = wiremap.get_format(target).error_from_wire(out_status, out_body, out_headers)
        assert again.transient, (category, again.category)


def test_translate_error_never_raises_on_garbage() -> None:
    t = wiremap.translate_error(500, b"<html>oops", None, "anthropic_messages", "openai_chat")
    assert t.result[0] == 503 and t.result[1]["error"]["type"] == "server_error"


def test_ids_reused_across_turns_are_made_unique_and_results_paired() -> None:
    def turn(call_id: str, city: str) -> list[dict[str, Any]]:
        return [
            {"role": "assistant", "content": None, "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "look", "arguments": json.dumps({"q": city})}}]},
            {"role": "tool", "tool_call_id": call_id, "content": f"seen {city}"},
        ]

    body = {"model": "m", "messages": [{"role": "user", "content": "go"}, *turn("call_0", "a"), *turn("call_0", "b"), *turn("call_0", "c")]}
    t = wiremap.translate_request(body, "openai_chat", "anthropic_messages")
    turns = t.result["messages"]
    uses = [b["id"] for m in turns if m["role"] == "assistant" for b in m["content"]]
    results = [b["tool_use_id"] for m in turns if m["role"] == "user" for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
    assert uses == ["call_0", "call_0_2", "call_0_3"]
    assert results == uses  # each result answers the call of its own turn
    assert [(x.path, x.kind) for x in t.losses] == [
        ("messages[3].tool_calls[0].id", "changed"),
        ("messages[4].tool_call_id", "changed"),
        ("messages[5].tool_calls[0].id", "changed"),
        ("messages[6].tool_call_id", "changed"),
        ("config.max_tokens", "added"),
    ]
    # unique ids are left alone
    assert wiremap.unique_tool_call_ids(wiremap.Request.from_dict({"model": "m", "messages": [{"role": "user", "content": "x"}]}))[1] == []

"""The loss report is always true (issue #14 item 4), and the base formats take what their API
takes (item 1): one regression test per point a user relies on."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import wiremap
from wiremap import InvalidRequestError


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


TOOL_TURN = {
    "model": "gpt-4o",
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
}


@pytest.mark.parametrize("target", ["gemini_generate_content", "openai_responses", "anthropic_messages"])
def test_a_tool_call_only_turn_reports_no_added_content(target: str) -> None:
    losses = _quiet(wiremap.translate_request, TOOL_TURN, "openai_chat", target).losses
    assert [x for x in losses if x.path.startswith("messages")] == []


@pytest.mark.parametrize("target", ["anthropic_messages", "openai_responses"])
def test_fast_path_and_report_agree_on_fields_the_target_lacks(target: str) -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "logprobs": True, "n": 2}
    report = _quiet(wiremap.translate_request, body, "openai_chat", target)
    fast = _quiet(wiremap.translator("openai_chat", target).request, body)
    assert fast == report.result
    assert "n" not in report.result and "logprobs" not in report.result  # `n` is no Responses field
    assert {"config.logprobs", "config.n"} <= {x.path for x in report.losses}


def test_an_option_under_its_older_name_is_no_loss() -> None:
    """openai_chat reads `max_tokens` as max_completion_tokens (read_also): the value reaches
    Gemini's maxOutputTokens, so the report must not say it was dropped."""
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 100}
    out = _quiet(wiremap.translate_request, body, "openai_chat", "gemini_generate_content")
    assert out.result["generationConfig"] == {"maxOutputTokens": 100}
    assert out.losses == []
    same = _quiet(wiremap.translate_request, body, "openai_chat", "openai_chat")
    assert same.result == body and same.losses == []  # its own spelling back on its own wire


def test_a_value_past_a_gemini_int32_field_is_a_typed_error() -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2**40}
    with pytest.raises(InvalidRequestError) as info:
        _quiet(wiremap.translate_request, body, "openai_chat", "gemini_generate_content")
    assert info.value.path == "config.max_tokens" and "2147483647" in str(info.value)


HI = [{"role": "user", "content": "hi"}]


def test_a_value_past_a_provider_range_is_refused_by_a_direct_request() -> None:
    """request.options `range:` (Cohere p 0.01-0.99): a direct request is a typed error at the
    option, as the integer `maximum` is; nothing is sent."""
    cohere = wiremap.get_format("cohere_chat")
    for config, path in [({"top_p": 1.0}, "config.top_p"), ({"top_p": 0.0}, "config.top_p"), ({"frequency_penalty": -0.5}, "config.frequency_penalty"),
                         ({"top_k": 501}, "config.top_k"), ({"temperature": float("nan")}, "config.temperature")]:
        with pytest.raises(InvalidRequestError) as info:
            cohere.request_to_wire({"model": "command-a-03-2025", "messages": HI, "config": config})
        assert info.value.path == path
    with pytest.raises(InvalidRequestError) as info:
        wiremap.get_format("cerebras").request_to_wire({"model": "llama-3.3-70b", "messages": HI, "config": {"temperature": 1.6}})
    assert info.value.path == "config.temperature" and "0 to 1.5" in str(info.value)
    # wiremap.translator promises exactly the two-step result: the same typed error
    with pytest.raises(InvalidRequestError) as info:
        wiremap.translator("openai_chat", "cerebras").request({"model": "m", "messages": HI, "temperature": 2})
    assert info.value.path == "config.temperature"


def test_a_translation_clamps_into_the_target_range_and_names_the_change() -> None:
    body = {"model": "gpt-4o", "messages": HI, "top_p": 1, "temperature": 2, "frequency_penalty": -2, "presence_penalty": 1.5}
    t = _quiet(wiremap.translate_request, body, "openai_chat", "cohere_chat")
    assert t.result["p"] == 0.99 and t.result["frequency_penalty"] == 0 and t.result["presence_penalty"] == 1
    assert t.result["temperature"] == 2  # Cohere's temperature has no upper end
    changed = {x.path: x for x in t.losses}
    assert set(changed) == {"config.top_p", "config.frequency_penalty", "config.presence_penalty"}
    assert changed["config.top_p"].kind == "changed" and "sent as 0.99" in changed["config.top_p"].detail
    with pytest.raises(wiremap.TranslationLossError) as info:
        _quiet(wiremap.translate_request, body, "openai_chat", "cohere_chat", strict=True)
    assert info.value.losses[0].path.startswith("config.")
    to_cerebras = _quiet(wiremap.translate_request, {"model": "m", "messages": HI, "temperature": 2}, "openai_chat", "cerebras")
    assert to_cerebras.result["temperature"] == 1.5 and [x.path for x in to_cerebras.losses] == ["config.temperature"]
    # inside the range: nothing changes and nothing is reported
    inside = _quiet(wiremap.translate_request, {"model": "m", "messages": HI, "top_p": 0.5, "temperature": 1.2}, "openai_chat", "cerebras")
    assert inside.result["top_p"] == 0.5 and inside.result["temperature"] == 1.2 and inside.losses == []


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages", "gemini_generate_content", "openai_responses"])
def test_a_degraded_response_renders_a_body_its_format_reads_back(key: str) -> None:
    f = wiremap.get_format(key)
    degraded = {
        "message": {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "f", "arguments": None}]},
        "finish_reason": "error",
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    back = f.response_from_wire(f.response_to_wire(degraded))
    assert back.message.tool_calls[0].name == "f"


def test_gemini_top_k_as_a_float_round_trips() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": {"topK": 40.0}, "model": "gemini-2.5-flash"}
    f = wiremap.get_format("gemini_generate_content")
    request = f.request_from_wire(body)
    assert request.config.top_k == 40 and type(request.config.top_k) is int
    assert f.request_to_wire(request) == body and type(f.request_to_wire(request)["generationConfig"]["topK"]) is float
    assert _quiet(wiremap.translate_request, body, "gemini_generate_content", "openai_compatible").losses == []


def test_empty_text_goes_where_the_api_takes_it() -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": ""}]}
    assert wiremap.translate_request(body, "openai_chat", "openai_chat").result == body
    # Anthropic's API refuses empty content (rules.content: openarmature), before sending
    with pytest.raises(InvalidRequestError) as info:
        _quiet(wiremap.translate_request, body, "openai_chat", "anthropic_messages")
    assert info.value.path == "messages[0].content"
    with pytest.raises(InvalidRequestError):  # and the OpenArmature dialect keeps §3
        wiremap.get_format("openarmature.openai_chat").request_to_wire({"model": "m", "messages": [{"role": "user", "content": ""}]})


def test_a_responses_result_may_answer_a_call_of_a_previous_response() -> None:
    body = {
        "model": "gpt-5",
        "previous_response_id": "resp_1",
        "input": [{"type": "function_call_output", "call_id": "call_1", "output": "42"}],
    }
    f = wiremap.get_format("openai_responses")
    assert f.request_to_wire(f.request_from_wire(body)) == body
    # OpenAI Chat answers 400 to a tool message with no call before it: refused first
    with pytest.raises(InvalidRequestError) as info:
        _quiet(wiremap.translate_request, body, "openai_responses", "openai_chat")
    assert info.value.path == "messages[0].tool_call_id"


def test_responses_items_of_other_types_ride_back_with_the_reasoning_around_them() -> None:
    body = {
        "model": "gpt-5",
        "input": [
            {"role": "user", "content": "Weather in Paris?"},
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"},
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {"type": "search", "query": "paris weather"}},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}], "id": "msg_1", "status": "completed"},
            {"role": "user", "content": "Thanks"},
        ],
    }
    f = wiremap.get_format("openai_responses")
    assert f.request_to_wire(f.request_from_wire(body)) == body
    other = _quiet(wiremap.translate_request, body, "openai_responses", "anthropic_messages")
    # the search call is named (at the key of it no table reads), not lost silently
    assert any(x.path.startswith("input[2]") for x in other.losses)


def test_anthropic_is_error_is_carried_and_named_and_disable_parallel_tool_use_crosses() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": "Time?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "offline", "is_error": True}]},
        ],
        "tools": [{"name": "now", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
    }
    same = wiremap.translate_request(body, "anthropic_messages", "anthropic_messages")
    assert same.result == body and same.losses == []
    other = _quiet(wiremap.translate_request, body, "anthropic_messages", "openai_chat")
    assert "messages[2].is_error" in {x.path for x in other.losses}  # the canonical flag (item 3)
    # disable_parallel_tool_use is the canonical parallel_tool_calls (item 3): it crosses
    assert other.result["parallel_tool_calls"] is False
    assert not any("parallel" in x.path for x in other.losses)
    with pytest.raises(wiremap.TranslationLossError):
        _quiet(wiremap.translate_request, body, "anthropic_messages", "openai_chat", strict=True)


def test_a_responses_image_by_file_id_rides_back_and_is_named_elsewhere() -> None:
    body = {
        "model": "gpt-5",
        "input": [{"role": "user", "content": [{"type": "input_text", "text": "What is it?"}, {"type": "input_image", "file_id": "file-1", "detail": "auto"}]}],
    }
    f = wiremap.get_format("openai_responses")
    assert f.request_to_wire(f.request_from_wire(body)) == body
    other = _quiet(wiremap.translate_request, body, "openai_responses", "openai_chat")
    assert "input[0].content[1]" in {x.path for x in other.losses}


def test_a_tool_call_missing_its_arguments_is_still_an_error() -> None:
    body = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "f"}],
        "stop_reason": "tool_use", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    with pytest.raises(wiremap.ProviderError):
        wiremap.get_format("anthropic_messages").response_from_wire(body)


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages", "gemini_generate_content", "openai_responses"])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), {1: "non-string key"}])
def test_response_to_wire_refuses_tool_arguments_that_are_not_json(key: str, bad: Any) -> None:
    response = {
        "message": {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "f", "arguments": {"x": [bad]}}]},
        "finish_reason": "tool_calls",
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    with pytest.raises(InvalidRequestError) as info:
        wiremap.get_format(key).response_to_wire(response)
    assert info.value.path.startswith("message.tool_calls[0].arguments")


@pytest.mark.parametrize("target", ["anthropic_messages", "gemini_generate_content", "openai_responses", "groq"])
def test_a_message_of_a_role_no_table_reads_is_named_when_it_cannot_cross(target: str) -> None:
    """Same format keeps it (carried); any other target names it at its path, never drops it silently."""
    hi = {"role": "user", "content": [{"type": "text", "text": "hi"}]}  # re-written as a string: no loss
    body = {"model": "m", "messages": [hi, {"role": "wizard", "content": "x"}, {"role": "user", "content": "again"}]}
    assert _quiet(wiremap.translate_request, body, "openai_chat", "openai_chat").result == body
    losses = _quiet(wiremap.translate_request, body, "openai_chat", target).losses
    assert [(x.path, x.kind) for x in losses if x.path.startswith("messages")] == [("messages[1]", "dropped")]

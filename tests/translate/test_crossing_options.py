"""Issue #14 item 3: the options users translate most cross providers with their meaning, as
data in each mapping's option rows (docs/canonical.md "Options that cross providers"), and
whatever a target cannot take is a named loss."""

from __future__ import annotations

import json
from pathlib import Path
import warnings
from typing import Any

import pytest

import wiremap
from wiremap import InvalidRequestError
from wiremap.runtime.canonical import NOT_GIVEN
from wiremap.runtime.translate import TranslationLossError

HI = [{"role": "user", "content": "hi"}]
TOOLS_OPENAI = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
TOOLS_ANTHROPIC = [{"name": "f", "input_schema": {"type": "object"}}]


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _paths(translation: Any) -> dict[str, str]:
    return {x.path: x.kind for x in translation.losses}


# --------------------------------------------------------------- parallel tool calls


def test_parallel_tool_calls_off_reaches_anthropic_as_disable_parallel_tool_use() -> None:
    body = {"model": "gpt-4o", "messages": HI, "tools": TOOLS_OPENAI, "parallel_tool_calls": False}
    out = _quiet(wiremap.translate_request, body, "openai_chat", "anthropic_messages")
    assert out.result["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert "config.parallel_tool_calls" not in _paths(out) and "tool_choice" not in _paths(out)
    # and the fused fast path writes the same body
    assert _quiet(wiremap.translator("openai_chat", "anthropic_messages").request, body) == out.result


def test_disable_parallel_tool_use_reaches_openai_as_parallel_tool_calls() -> None:
    body = {
        "model": "claude-sonnet-4-5", "max_tokens": 100, "messages": HI, "tools": TOOLS_ANTHROPIC,
        "tool_choice": {"type": "any", "disable_parallel_tool_use": True},
    }
    out = _quiet(wiremap.translate_request, body, "anthropic_messages", "openai_chat")
    assert out.result["parallel_tool_calls"] is False and out.result["tool_choice"] == "required"
    assert out.losses == []
    assert _quiet(wiremap.translator("anthropic_messages", "openai_chat").request, body) == out.result
    # Responses has the same field
    assert _quiet(wiremap.translate_request, body, "anthropic_messages", "openai_responses").result["parallel_tool_calls"] is False


def test_parallel_tool_calls_without_tools_is_not_sent_and_is_named() -> None:
    """The APIs answer 400 to the option without tools (requires_tools): it is not sent, and
    the report says so."""
    req = {"model": "m", "messages": HI, "config": {"parallel_tool_calls": False}}
    body = wiremap.get_format("anthropic_messages").request_to_wire(req)
    assert "tool_choice" not in body
    assert "parallel_tool_calls" not in wiremap.get_format("openai_chat").request_to_wire(req)
    out = _quiet(wiremap.translate_request, {"model": "gpt-4o", "messages": HI, "parallel_tool_calls": False}, "openai_chat", "anthropic_messages")
    assert _paths(out).get("config.parallel_tool_calls") == "dropped"


def test_gemini_has_no_parallel_switch_and_says_so() -> None:
    body = {"model": "gpt-4o", "messages": HI, "tools": TOOLS_OPENAI, "parallel_tool_calls": False}
    out = _quiet(wiremap.translate_request, body, "openai_chat", "gemini_generate_content")
    assert _paths(out)["config.parallel_tool_calls"] == "dropped"
    with pytest.raises(TranslationLossError):
        _quiet(wiremap.translate_request, body, "openai_chat", "gemini_generate_content", strict=True)


# --------------------------------------------------------------- n, logprobs, user


def test_n_and_logprobs_reach_gemini_generation_config() -> None:
    body = {"model": "gpt-4o", "messages": HI, "n": 2, "logprobs": True, "top_logprobs": 3}
    out = _quiet(wiremap.translate_request, body, "openai_chat", "gemini_generate_content")
    assert out.result["generationConfig"] == {"candidateCount": 2, "responseLogprobs": True, "logprobs": 3}
    assert out.losses == []
    back = _quiet(wiremap.translate_request, out.result, "gemini_generate_content", "openai_chat")
    assert {k: back.result[k] for k in ("n", "logprobs", "top_logprobs")} == {"n": 2, "logprobs": True, "top_logprobs": 3}


def test_user_reaches_anthropic_metadata_and_back() -> None:
    body = {"model": "gpt-4o", "messages": HI, "user": "u-42"}
    out = _quiet(wiremap.translate_request, body, "openai_chat", "anthropic_messages")
    assert out.result["metadata"] == {"user_id": "u-42"}
    back = _quiet(wiremap.translate_request, out.result, "anthropic_messages", "openai_chat")
    assert back.result["user"] == "u-42"
    assert _paths(_quiet(wiremap.translate_request, body, "openai_chat", "gemini_generate_content"))["config.user"] == "dropped"


def test_an_option_of_the_wrong_type_is_a_typed_error_at_its_config_path() -> None:
    with pytest.raises(InvalidRequestError) as info:
        wiremap.get_format("openai_chat").request_from_wire({"model": "m", "messages": HI, "parallel_tool_calls": "yes"})
    assert info.value.path == "config.parallel_tool_calls"
    with pytest.raises(InvalidRequestError) as info:
        wiremap.get_format("anthropic_messages").request_to_wire({"model": "m", "messages": HI, "config": {"n": 0}})
    assert info.value.path == "config.n"
    with pytest.raises(InvalidRequestError) as info:
        wiremap.get_format("gemini_generate_content").request_to_wire({"model": "m", "messages": HI, "config": {"n": 2**40}})
    assert info.value.path == "config.n"  # candidateCount is int32


# --------------------------------------------------------------- reasoning: effort <-> budget


def test_an_effort_becomes_an_anthropic_thinking_budget_below_max_tokens() -> None:
    body = {"model": "gpt-5", "messages": HI, "reasoning_effort": "medium", "max_completion_tokens": 8000}
    out = _quiet(wiremap.translate_request, body, "openai_chat", "anthropic_messages")
    assert out.result["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    # the conversion is named: the effort is gone, a budget stands for it
    assert _paths(out) == {"config.reasoning_effort": "dropped", "config.reasoning_budget": "added"}
    assert _quiet(wiremap.translator("openai_chat", "anthropic_messages").request, body) == out.result
    # budget_tokens must stay under max_tokens (Anthropic answers 400 otherwise)
    small = _quiet(wiremap.translate_request, {**body, "reasoning_effort": "high", "max_completion_tokens": 3000}, "openai_chat", "anthropic_messages")
    assert small.result["thinking"]["budget_tokens"] == 2999
    # ... and at least 1024, else thinking is not turned on at all (a named loss)
    tiny = _quiet(wiremap.translate_request, {**body, "max_completion_tokens": 1000}, "openai_chat", "anthropic_messages")
    assert "thinking" not in tiny.result and _paths(tiny) == {"config.reasoning_effort": "dropped"}


def test_an_anthropic_budget_becomes_an_openai_effort() -> None:
    body = {"model": "claude-sonnet-4-5", "max_tokens": 16000, "messages": HI, "thinking": {"type": "enabled", "budget_tokens": 3000}}
    for target, path in (("openai_chat", ("reasoning_effort",)), ("openai_responses", ("reasoning", "effort"))):
        out = _quiet(wiremap.translate_request, body, "anthropic_messages", target)
        value: Any = out.result
        for key in path:
            value = value[key]
        assert value == "medium"
        assert _paths(out) == {"config.reasoning_budget": "dropped", "config.reasoning_effort": "added"}
    assert _quiet(wiremap.translator("anthropic_messages", "openai_chat").request, body)["reasoning_effort"] == "medium"


def test_gemini_takes_a_level_on_gemini_3_and_a_budget_on_gemini_2_5() -> None:
    body = {"model": "gpt-5", "messages": HI, "reasoning_effort": "low"}
    three = _quiet(wiremap.translate_request, {**body, "model": "gemini-3-pro-preview"}, "openai_chat", "gemini_generate_content")
    assert three.result["generationConfig"] == {"thinkingConfig": {"thinkingLevel": "low"}}
    assert three.losses == []
    two = _quiet(wiremap.translate_request, {**body, "model": "gemini-2.5-flash"}, "openai_chat", "gemini_generate_content")
    assert two.result["generationConfig"] == {"thinkingConfig": {"thinkingBudget": 1024}}
    assert _paths(two) == {"config.reasoning_effort": "dropped", "config.reasoning_budget": "added"}
    # an effort Gemini has no level for is not sent, and named
    none = _quiet(wiremap.translate_request, {**body, "model": "gemini-3-pro-preview", "reasoning_effort": "none"}, "openai_chat", "gemini_generate_content")
    assert "generationConfig" not in none.result and _paths(none) == {"config.reasoning_effort": "dropped"}


def test_a_gemini_budget_reaches_anthropic_and_openai() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}], "model": "gemini-2.5-pro",
            "generationConfig": {"maxOutputTokens": 20000, "thinkingConfig": {"thinkingBudget": 10000}}}
    anthropic = _quiet(wiremap.translate_request, body, "gemini_generate_content", "anthropic_messages")
    assert anthropic.result["thinking"] == {"type": "enabled", "budget_tokens": 10000}
    assert anthropic.losses == []
    openai = _quiet(wiremap.translate_request, body, "gemini_generate_content", "openai_chat")
    assert openai.result["reasoning_effort"] == "high"


@pytest.mark.parametrize(
    ("fmt", "body"),
    [
        ("anthropic_messages", {"model": "claude-opus-4-5", "max_tokens": 9000, "messages": HI,
                                "thinking": {"type": "enabled", "budget_tokens": 4096}, "metadata": {"user_id": "u"},
                                "tools": TOOLS_ANTHROPIC, "tool_choice": {"type": "auto", "disable_parallel_tool_use": False}}),
        ("anthropic_messages", {"model": "claude-opus-4-6", "max_tokens": 9000, "messages": HI, "thinking": {"type": "adaptive"}}),
        ("openai_chat", {"model": "gpt-5", "messages": HI, "reasoning_effort": "xhigh", "n": 3, "logprobs": True,
                         "top_logprobs": 2, "user": "u", "tools": TOOLS_OPENAI, "parallel_tool_calls": True}),
        ("openai_responses", {"model": "gpt-5", "input": "hi", "reasoning": {"effort": "high", "summary": "auto"},
                              "parallel_tool_calls": False, "top_logprobs": 2, "user": "u"}),
        ("gemini_generate_content", {"model": "gemini-3-pro-preview", "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                                     "generationConfig": {"candidateCount": 2, "thinkingConfig": {"thinkingLevel": "HIGH", "includeThoughts": True}}}),
        ("openrouter", {"model": "x/y", "messages": HI, "reasoning": {"effort": "high", "exclude": True}}),
        ("openrouter", {"model": "x/y", "messages": HI, "reasoning": {"max_tokens": 2000}}),
        # a dialect whose reader keeps what no row reads as extras: the row's `with` (type: enabled)
        # is the row's own, not an extra that clashed with the value the writer puts there
        ("openarmature.anthropic_messages", {"model": "claude-opus-4-5", "max_tokens": 9000, "messages": HI,
                                             "thinking": {"type": "enabled", "budget_tokens": 4096}}),
    ],
)
def test_the_same_format_round_trip_is_the_identity(fmt: str, body: dict[str, Any]) -> None:
    f = wiremap.get_format(fmt)
    assert _quiet(f.request_to_wire, f.request_from_wire(body)) == body


def test_a_with_key_read_back_is_the_rows_and_any_other_value_stays_an_extra() -> None:
    oa = wiremap.get_format("openarmature.anthropic_messages")
    body = {"model": "claude-opus-4-5", "max_tokens": 9000, "messages": HI, "thinking": {"type": "enabled", "budget_tokens": 4096}}
    config = oa.request_from_wire(body).config
    assert config.reasoning_budget == 4096 and config.extras is NOT_GIVEN
    out = _quiet(wiremap.translate_request, body, "openarmature.anthropic_messages", "anthropic_messages")
    assert out.result["thinking"] == {"type": "enabled", "budget_tokens": 4096} and out.losses == []
    # a value other than the row's literal is not the row's, and an object the rows read only in
    # part is read by none of them: the whole object is the extra, sent back untouched (split,
    # the writer would refuse the rest as clashing with the object it writes)
    for thinking in ({"type": "disabled", "budget_tokens": 4096}, {"type": "enabled", "budget_tokens": 4096, "display": "x"}):
        odd = {**body, "thinking": thinking}
        config = oa.request_from_wire(odd).config
        assert config.extras == {"thinking": thinking} and config.reasoning_budget is NOT_GIVEN
        assert oa.request_to_wire(oa.request_from_wire(odd)) == odd
    # the same for Gemini's thinkingConfig under generationConfig (where its extras go)
    og = wiremap.get_format("openarmature.gemini_generate_content")
    gem = {"model": "gemini-2.5-flash", "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
           "generationConfig": {"maxOutputTokens": 64, "thinkingConfig": {"includeThoughts": False, "thinkingBudget": 0}}}
    assert og.request_from_wire(gem).config.max_tokens == 64
    assert og.request_to_wire(og.request_from_wire(gem)) == gem


def test_the_options_are_canonical_fields() -> None:
    req = wiremap.get_format("openai_chat").request_from_wire(
        {"model": "gpt-5", "messages": HI, "reasoning_effort": "low", "n": 2, "logprobs": True, "top_logprobs": 1, "user": "u"}
    )
    assert req.to_dict()["config"] == {"n": 2, "logprobs": True, "top_logprobs": 1, "user": "u", "reasoning_effort": "low"}
    gemini = wiremap.get_format("gemini_generate_content").request_from_wire(
        {"model": "gemini-3-flash", "contents": [{"role": "user", "parts": [{"text": "hi"}]}], "generationConfig": {"thinkingConfig": {"thinkingLevel": "MEDIUM"}}}
    )
    assert gemini.to_dict()["config"] == {"reasoning_effort": "medium"}  # the API's enum spelling reads as the level


# --------------------------------------------------------------- JSON mode, tool-result error flag


def test_json_mode_crosses_to_gemini_and_responses() -> None:
    body = {"model": "gpt-4o", "messages": HI, "response_format": {"type": "json_object"}}
    gemini = _quiet(wiremap.translate_request, body, "openai_chat", "gemini_generate_content")
    assert gemini.result["generationConfig"] == {"responseMimeType": "application/json"} and gemini.losses == []
    responses = _quiet(wiremap.translate_request, body, "openai_chat", "openai_responses")
    assert responses.result["text"] == {"format": {"type": "json_object"}} and responses.losses == []
    back = _quiet(wiremap.translate_request, gemini.result, "gemini_generate_content", "openai_chat")
    assert back.result["response_format"] == {"type": "json_object"} and back.losses == []
    anthropic = _quiet(wiremap.translate_request, body, "openai_chat", "anthropic_messages")
    assert _paths(anthropic) == {"config.json_mode": "dropped", "config.max_tokens": "added"}  # Anthropic's required max_tokens
    assert _quiet(wiremap.translator("openai_chat", "anthropic_messages").request, body) == anthropic.result


def test_a_gemini_schema_is_not_reported_as_lost_json_mode() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    body = {"model": "gemini-2.5-flash", "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": schema}}
    f = wiremap.get_format("gemini_generate_content")
    assert _quiet(f.request_to_wire, f.request_from_wire(body)) == body
    out = _quiet(wiremap.translate_request, body, "gemini_generate_content", "openai_chat")
    assert out.result["response_format"]["type"] == "json_schema"
    assert not any("json_mode" in x.path for x in out.losses)


def test_a_failed_tool_result_is_canonical_and_crosses_between_anthropic_bodies() -> None:
    body = {
        "model": "claude-sonnet-4-5", "max_tokens": 64, "tools": TOOLS_ANTHROPIC,
        "messages": [
            {"role": "user", "content": "Run f"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "boom", "is_error": True}]},
        ],
    }
    request = wiremap.get_format("anthropic_messages").request_from_wire(body)
    assert request.messages[2].is_error is True
    assert request.to_dict()["messages"][2] == {"role": "tool", "tool_call_id": "toolu_1", "content": "boom", "is_error": True}
    # the 2023-06-01 dialect is another format of the same wire: it keeps the flag as a field
    assert wiremap.get_format("anthropic.messages_2023_06_01").request_to_wire(request)["messages"][2]["content"][0]["is_error"] is True
    # OpenAI has no error flag: a named loss at the canonical path
    out = _quiet(wiremap.translate_request, body, "anthropic_messages", "openai_chat")
    assert _paths(out)["messages[2].is_error"] == "dropped"
    with pytest.raises(InvalidRequestError) as info:
        wiremap.get_format("anthropic_messages").request_to_wire(
            {"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [{"id": "a", "name": "f", "arguments": {}}]},
                                        {"role": "tool", "tool_call_id": "a", "content": "x", "is_error": "yes"}]})
    assert info.value.path == "messages[2].is_error"


def test_a_failed_tool_result_reaches_gemini_as_response_error_and_back() -> None:
    """api (Gemini FunctionResponse.response): the "error" key carries error details. A failed
    result goes as {error: text} (tool_results.error_wire), and reads back as is_error."""
    body = {
        "model": "claude-sonnet-4-5", "max_tokens": 64, "tools": TOOLS_ANTHROPIC,
        "messages": [
            {"role": "user", "content": "Run f"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "boom", "is_error": True}]},
        ],
    }
    out = _quiet(wiremap.translate_request, body, "anthropic_messages", "gemini_generate_content")
    assert out.result["contents"][2]["parts"] == [{"functionResponse": {"id": "toolu_1", "name": "f", "response": {"error": "boom"}}}]
    assert "messages[2].is_error" not in _paths(out)
    back = _quiet(wiremap.translate_request, out.result, "gemini_generate_content", "anthropic_messages")
    assert back.result["messages"][2]["content"][0] == {"type": "tool_result", "tool_use_id": "toolu_1", "content": "boom", "is_error": True}
    # a success stays {result: text}; a structured error object is still read as its JSON text
    gemini = wiremap.get_format("gemini_generate_content")
    ok = json.loads(json.dumps(out.result))
    ok["contents"][2]["parts"][0]["functionResponse"]["response"] = {"result": "fine"}
    assert gemini.request_from_wire(ok).messages[2].is_error is NOT_GIVEN
    structured = json.loads(json.dumps(out.result))
    structured["contents"][2]["parts"][0]["functionResponse"]["response"] = {"error": {"code": 3}}
    read = gemini.request_from_wire(structured).messages[2]
    assert read.is_error is NOT_GIVEN and json.loads(read.content) == {"error": {"code": 3}}
    assert _quiet(gemini.request_to_wire, gemini.request_from_wire(structured)) == structured
    # the OpenArmature dialect keeps §8.3.1.2's {result} wrapping: there the flag is a named loss
    oa = _quiet(wiremap.translate_request, body, "anthropic_messages", "openarmature.gemini_generate_content")
    assert oa.result["contents"][2]["parts"][0]["functionResponse"]["response"] == {"result": "boom"}
    assert _paths(oa)["messages[2].is_error"] == "dropped"


# --------------------------------------------------------------- structured output's name, description, strict

SCHEMA = {"type": "object", "properties": {"reasoning": {"type": "string"}, "answer": {"type": "string"}},
          "required": ["reasoning", "answer"], "additionalProperties": False}


def test_the_schema_name_description_and_strict_cross_between_chat_and_responses() -> None:
    body = {"model": "gpt-4o", "messages": HI, "response_format": {"type": "json_schema", "json_schema": {
        "name": "weather", "description": "The forecast.", "schema": SCHEMA, "strict": False}}}
    out = _quiet(wiremap.translate_request, body, "openai_chat", "openai_responses")
    assert out.result["text"] == {"format": {"type": "json_schema", "name": "weather", "schema": SCHEMA, "strict": False,
                                             "description": "The forecast."}}
    assert out.losses == []
    assert list(out.result["text"]["format"]["schema"]["properties"]) == ["reasoning", "answer"]  # key order kept
    back = _quiet(wiremap.translate_request, out.result, "openai_responses", "openai_chat")
    assert back.result["response_format"]["json_schema"]["name"] == "weather" and back.losses == []
    # Anthropic's output_config.format has no name: a named loss, not a silent one
    anthropic = _quiet(wiremap.translate_request, body, "openai_chat", "anthropic_messages")
    assert {"config.schema_name", "config.schema_description", "config.schema_strict"} <= set(_paths(anthropic))


def test_without_a_name_the_table_derives_one_and_reports_nothing() -> None:
    req = {"model": "gpt-4o", "messages": HI, "response_schema": SCHEMA}
    body = wiremap.get_format("openai_chat").request_to_wire(req)
    assert body["response_format"]["json_schema"]["name"].startswith("schema_")
    named = wiremap.get_format("openai_chat").request_to_wire({**req, "config": {"schema_name": "mine"}})
    assert named["response_format"]["json_schema"]["name"] == "mine"
    # a name without a schema has nothing to name: not sent
    assert "response_format" not in wiremap.get_format("openai_chat").request_to_wire(
        {"model": "gpt-4o", "messages": HI, "config": {"schema_name": "mine"}})


def test_json_mode_beside_a_schema_sends_the_schema() -> None:
    req = {"model": "gpt-4o", "messages": HI, "response_schema": SCHEMA, "config": {"json_mode": True}}
    assert wiremap.get_format("openai_chat").request_to_wire(req)["response_format"]["type"] == "json_schema"
    assert wiremap.get_format("openai_responses").request_to_wire(req)["text"]["format"]["type"] == "json_schema"


def test_prompt_cache_key_and_metadata_cross_between_chat_and_responses() -> None:
    body = {"model": "gpt-4o", "messages": HI, "prompt_cache_key": "tenant-7", "metadata": {"run": "r1"}}
    out = _quiet(wiremap.translate_request, body, "openai_chat", "openai_responses")
    assert out.result["prompt_cache_key"] == "tenant-7" and out.result["metadata"] == {"run": "r1"}
    assert out.losses == []
    out.result["metadata"]["run"] = "changed"
    assert body["metadata"] == {"run": "r1"}  # never shared with the caller
    assert set(_paths(_quiet(wiremap.translate_request, body, "openai_chat", "anthropic_messages"))) >= {"config.prompt_cache_key", "config.metadata.run"}
    with pytest.raises(InvalidRequestError) as info:
        wiremap.get_format("openai_chat").request_from_wire({**body, "metadata": {"run": 1}})
    assert info.value.path == "config.metadata.run"


@pytest.mark.parametrize("choice", ["required", {"type": "function", "function": {"name": "f"}}])
def test_no_thinking_budget_is_derived_beside_a_forced_tool(choice: Any) -> None:
    """api (Anthropic extended thinking): thinking goes only with tool_choice auto or none; a
    forced tool with a budget is a 400. The derived budget is left out and the effort named."""
    body = {"model": "o3", "messages": HI, "tools": TOOLS_OPENAI, "tool_choice": choice, "reasoning_effort": "high"}
    out = _quiet(wiremap.translate_request, body, "openai_chat", "anthropic_messages")
    assert "thinking" not in out.result
    assert _paths(out)["config.reasoning_effort"] == "dropped"
    assert _quiet(wiremap.translator("openai_chat", "anthropic_messages").request, body) == out.result
    # beside auto the budget is derived as before
    auto = _quiet(wiremap.translate_request, {**body, "tool_choice": "auto", "max_completion_tokens": 8000}, "openai_chat", "anthropic_messages")
    assert auto.result["thinking"] == {"type": "enabled", "budget_tokens": 4096}


# ------------------------------------------------- every format reads back what it writes

_ONE_OPTION = {
    "temperature": 0.5, "top_p": 0.9, "top_k": 5, "seed": 7, "stop_sequences": ["x"], "frequency_penalty": 0.1,
    "presence_penalty": 0.1, "parallel_tool_calls": False, "n": 2, "logprobs": True, "top_logprobs": 2, "user": "u",
    "reasoning_effort": "high", "reasoning_budget": 2048, "json_mode": True, "prompt_cache_key": "k",
    "metadata": {"a": "b"}, "max_tokens": 4000,
}


def _chat_formats() -> list[str]:
    return [k for k in wiremap.formats() if wiremap.get_format(k).kind == "chat"]


@pytest.mark.parametrize("key", _chat_formats())
def test_each_option_a_format_writes_reads_back_as_itself(key: str) -> None:
    # an option row's wire form read back by the same format is that option again, and writing
    # it once more gives the same bytes: no `with` key or negated flag left over as an extra, or
    # refused as a field the format cannot carry (found: the OpenArmature and Prompty Anthropic
    # dialects refused their own thinking object and disable_parallel_tool_use)
    f = wiremap.get_format(key)
    written = 0
    for name, value in _ONE_OPTION.items():
        request: dict[str, Any] = {"model": "gemini-2.5-pro" if "gemini" in key else "m", "messages": HI,
                                   "config": {"max_tokens": 4000, name: value}}
        if name == "parallel_tool_calls":
            request["tools"] = [{"name": "f", "parameters": {"type": "object"}}]
        try:
            wire = _quiet(f.request_to_wire, request)
        except InvalidRequestError:
            continue  # the format refuses the option (a `reject` row): nothing written to read back
        written += 1
        back = f.request_from_wire(wire)
        assert json.dumps(_quiet(f.request_to_wire, back)) == json.dumps(wire), (key, name)
    assert written >= 3


@pytest.mark.parametrize("key", _chat_formats())
def test_a_format_reads_back_every_request_it_writes(key: str) -> None:
    # every canonical request of every format's fixtures that this format writes: its body read
    # back and written again is the same JSON; only an option the table drops with a warning may
    # go (an option sent as an extra comes back as the option, under the table's rule)
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from fuzz import mutate

    f = wiremap.get_format(key)
    checked = 0
    for request in mutate.seeds(key)["canonical_requests"]:
        wire = _quiet(f.request_to_wire, request)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            again = f.request_to_wire(f.request_from_wire(wire))
        warned = [w for w in caught if issubclass(w.category, wiremap.UnsupportedOptionWarning)]
        assert again == wire or warned, (key, wire, again)
        checked += 1
    assert checked >= 5

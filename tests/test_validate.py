"""Pre-send validation (`validate_request`): OpenArmature §3, §3.1, §4, §5, §6 rules, each with
the exact path it names."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from wiremap.runtime.canonical import (
    NOT_GIVEN,
    AssistantMessage,
    Config,
    ForcedTool,
    ImageBlock,
    InlineSource,
    Request,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    Tool,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from wiremap.runtime.errors import InvalidRequestError
from wiremap.runtime.validate import validate_request

USER = {"role": "user", "content": "Hi"}
CALL = {"id": "call_a", "name": "get_weather", "arguments": {"city": "NYC"}}
ASSISTANT_CALLS = {"role": "assistant", "content": None, "tool_calls": [CALL]}
TOOL_RESULT = {"role": "tool", "tool_call_id": "call_a", "content": "72F"}
TOOL = {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}
IMAGE_URL = {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}}
INLINE = {"type": "inline", "base64_data": "iVBORw0KGgo="}


def req(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": list(messages) or [dict(USER)], **extra}


def check(d: dict[str, Any]) -> None:
    validate_request(Request.from_dict(d))


VALID: list[tuple[str, dict[str, Any]]] = [
    ("minimal", req()),
    ("system_first", req({"role": "system", "content": "Be brief."}, USER)),
    (
        "system_then_assistant",
        req(
            {"role": "system", "content": "s"},
            {"role": "assistant", "content": "Hi, how can I help?"},
            USER,
        ),
    ),
    ("tool_round_trip", req(USER, ASSISTANT_CALLS, TOOL_RESULT, tools=[TOOL])),
    (
        "tool_result_last_empty_content",
        req(USER, ASSISTANT_CALLS, {**TOOL_RESULT, "content": "", "name": "get_weather"}),
    ),
    (
        "assistant_absent_content_with_calls",
        req(USER, {"role": "assistant", "tool_calls": [CALL]}, TOOL_RESULT),
    ),
    (
        "assistant_empty_content_with_calls",
        req(USER, {"role": "assistant", "content": "", "tool_calls": [CALL]}, TOOL_RESULT),
    ),
    (
        "assistant_empty_blocks_with_calls",
        req(USER, {"role": "assistant", "content": [], "tool_calls": [CALL]}, TOOL_RESULT),
    ),
    (
        "assistant_text_and_calls",
        req(
            USER,
            {
                "role": "assistant",
                "content": "Let me check.",
                "tool_calls": [CALL, {**CALL, "id": "call_b"}],
            },
            TOOL_RESULT,
            {**TOOL_RESULT, "tool_call_id": "call_b"},
        ),
    ),
    (
        "assistant_reasoning_blocks",
        req(
            USER,
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "text": "hmm", "signature": "sig", "origin": "anthropic"},
                    {"type": "thinking", "text": "", "signature": "sig2"},
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "text", "text": "42", "signature": "t", "origin": "google"},
                ],
            },
            USER,
        ),
    ),
    (
        "user_blocks",
        req(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "look"},
                    IMAGE_URL,
                    {"type": "image", "source": INLINE, "media_type": "image/png", "detail": "low"},
                    {"type": "audio", "source": INLINE, "media_type": "audio/wav"},
                    {
                        "type": "file",
                        "source": {"type": "url", "url": "https://x/a.pdf"},
                        "filename": "a.pdf",
                    },
                ],
            }
        ),
    ),
    ("tool_choice_auto_without_tools", req(tool_choice="auto")),
    ("tool_choice_none_with_tools", req(tools=[TOOL], tool_choice="none")),
    ("tool_choice_required", req(tools=[TOOL], tool_choice="required")),
    (
        "tool_choice_forced",
        req(tools=[{"name": "a"}, TOOL], tool_choice={"type": "tool", "name": "get_weather"}),
    ),
    ("tool_parameters_without_type", req(tools=[{"name": "t", "parameters": {}}])),
    ("empty_tools", req(tools=[])),
    (
        "response_schema",
        req(response_schema={"type": "object", "properties": {"v": {"type": "integer"}}}),
    ),
    (
        "config",
        req(
            config={
                "temperature": 0,
                "max_tokens": 1,
                "top_p": 1.0,
                "top_k": 0,
                "seed": -1,
                "stop_sequences": ["END"],
                "frequency_penalty": -2,
                "presence_penalty": 2.0,
                "extras": {"repetition_penalty": 1.05, "x": None},
            }
        ),
    ),
    (
        "tool_call_id_reused_across_turns",
        req(USER, ASSISTANT_CALLS, TOOL_RESULT, ASSISTANT_CALLS, TOOL_RESULT),
    ),
]


@pytest.mark.parametrize("d", [d for _, d in VALID], ids=[n for n, _ in VALID])
def test_valid_requests_pass(d: dict[str, Any]) -> None:
    request = Request.from_dict(d)
    before = copy.deepcopy(request)
    validate_request(request)
    assert request == before  # validation never mutates


INVALID: list[tuple[str, dict[str, Any], str, str]] = [
    # (id, canonical dict, path, message fragment)
    ("model_empty", {"model": "", "messages": [USER]}, "model", "non-empty"),
    ("messages_empty", {"model": "m", "messages": []}, "messages", "non-empty list"),
    # ordering (§5)
    (
        "first_assistant",
        req({"role": "assistant", "content": "x"}, USER),
        "messages[0].role",
        "first message must be system or user",
    ),
    ("first_tool", req(TOOL_RESULT, USER), "messages[0].role", "got 'tool'"),
    (
        "last_assistant",
        req(USER, {"role": "assistant", "content": "Hello!"}),
        "messages[1].role",
        "last message must be user or tool",
    ),
    ("only_system", req({"role": "system", "content": "s"}), "messages[0].role", "got 'system'"),
    (
        "system_in_middle",
        req(USER, {"role": "system", "content": "Late"}, USER),
        "messages[1].role",
        "system message may only be the first",
    ),
    (
        "second_leading_system",
        req({"role": "system", "content": "a"}, {"role": "system", "content": "b"}, USER),
        "messages[1].role",
        "only be the first",
    ),
    # system (§3)
    (
        "system_empty",
        req({"role": "system", "content": ""}, USER),
        "messages[0].content",
        "non-empty string",
    ),
    # user (§3, §3.1)
    ("user_empty_string", req({"role": "user", "content": ""}), "messages[0].content", "non-empty"),
    (
        "user_empty_blocks",
        req({"role": "user", "content": []}),
        "messages[0].content",
        "non-empty list of content blocks",
    ),
    (
        "user_empty_text_block",
        req(
            {
                "role": "user",
                "content": [{"type": "text", "text": ""}, {"type": "text", "text": "real"}],
            }
        ),
        "messages[0].content[0].text",
        "non-empty",
    ),
    (
        "user_thinking_block",
        req(
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "thinking", "text": "t"}],
            }
        ),
        "messages[0].content[1]",
        "only appear in assistant messages",
    ),
    (
        "user_redacted_block",
        req({"role": "user", "content": [{"type": "redacted_thinking", "data": "d"}]}),
        "messages[0].content[0]",
        "assistant messages",
    ),
    (
        "inline_without_media_type",
        req(
            {
                "role": "user",
                "content": [{"type": "image", "source": INLINE}, {"type": "text", "text": "d"}],
            }
        ),
        "messages[0].content[0].media_type",
        "required with an inline source",
    ),
    (
        "audio_inline_without_media_type",
        req({"role": "user", "content": [{"type": "audio", "source": INLINE}]}),
        "messages[0].content[0].media_type",
        "inline source",
    ),
    (
        "file_inline_without_media_type",
        req(
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "a"},
                    {"type": "file", "source": INLINE, "filename": "a.pdf"},
                ],
            }
        ),
        "messages[0].content[1].media_type",
        "inline source",
    ),
    (
        "media_type_empty",
        req({"role": "user", "content": [{**IMAGE_URL, "media_type": ""}]}),
        "messages[0].content[0].media_type",
        "non-empty",
    ),
    (
        "url_empty",
        req({"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": ""}}]}),
        "messages[0].content[0].source.url",
        "non-empty",
    ),
    (
        "base64_empty",
        req(
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "inline", "base64_data": ""},
                        "media_type": "image/png",
                    }
                ],
            }
        ),
        "messages[0].content[0].source.base64_data",
        "non-empty",
    ),
    (
        "filename_empty",
        req(
            {
                "role": "user",
                "content": [
                    {"type": "file", "source": {"type": "url", "url": "u"}, "filename": ""}
                ],
            }
        ),
        "messages[0].content[0].filename",
        "non-empty",
    ),
    # assistant (§3)
    (
        "assistant_empty_content",
        req(USER, {"role": "assistant", "content": ""}, USER),
        "messages[1].content",
        "no tool_calls",
    ),
    (
        "assistant_null_content",
        req(USER, {"role": "assistant", "content": None}, USER),
        "messages[1].content",
        "needs content or tool_calls",
    ),
    (
        "assistant_no_content",
        req(USER, {"role": "assistant"}, USER),
        "messages[1].content",
        "needs content or tool_calls",
    ),
    (
        "assistant_empty_tool_calls",
        req(USER, {"role": "assistant", "content": "", "tool_calls": []}, USER),
        "messages[1].content",
        "no tool_calls",
    ),
    (
        "assistant_empty_blocks",
        req(USER, {"role": "assistant", "content": []}, USER),
        "messages[1].content",
        "non-empty list",
    ),
    (
        "assistant_image",
        req(
            USER, {"role": "assistant", "content": [{"type": "text", "text": "a"}, IMAGE_URL]}, USER
        ),
        "messages[1].content[1]",
        "image blocks may only appear in user messages",
    ),
    (
        "assistant_audio",
        req(
            USER,
            {
                "role": "assistant",
                "content": [{"type": "audio", "source": INLINE, "media_type": "audio/wav"}],
            },
            USER,
        ),
        "messages[1].content[0]",
        "audio blocks",
    ),
    (
        "assistant_file",
        req(
            USER,
            {
                "role": "assistant",
                "content": [{"type": "file", "source": INLINE, "media_type": "application/pdf"}],
            },
            USER,
        ),
        "messages[1].content[0]",
        "file blocks",
    ),
    (
        "assistant_empty_text_block",
        req(USER, {"role": "assistant", "content": [{"type": "text", "text": ""}]}, USER),
        "messages[1].content[0].text",
        "non-empty",
    ),
    (
        "thinking_empty_unsigned",
        req(
            USER,
            {
                "role": "assistant",
                "content": [{"type": "thinking", "text": ""}, {"type": "text", "text": "x"}],
            },
            USER,
        ),
        "messages[1].content[0].text",
        "empty only when the block carries a signature",
    ),
    (
        "origin_empty",
        req(
            USER,
            {
                "role": "assistant",
                "content": [{"type": "redacted_thinking", "data": "d", "origin": ""}],
            },
            USER,
        ),
        "messages[1].content[0].origin",
        "non-empty",
    ),
    # tool calls (§3)
    (
        "tool_call_id_empty",
        req(USER, {"role": "assistant", "tool_calls": [{**CALL, "id": ""}]}, USER),
        "messages[1].tool_calls[0].id",
        "non-empty",
    ),
    (
        "tool_call_name_empty",
        req(
            USER, {"role": "assistant", "tool_calls": [CALL, {**CALL, "id": "b", "name": ""}]}, USER
        ),
        "messages[1].tool_calls[1].name",
        "non-empty",
    ),
    (
        "tool_call_null_arguments",
        req(USER, {"role": "assistant", "tool_calls": [{**CALL, "arguments": None}]}, TOOL_RESULT),
        "messages[1].tool_calls[0].arguments",
        "cannot be sent back",
    ),
    (
        "tool_call_duplicate_id",
        req(
            USER,
            {"role": "assistant", "tool_calls": [CALL, {**CALL, "name": "other"}]},
            TOOL_RESULT,
        ),
        "messages[1].tool_calls[1].id",
        "duplicate tool call id 'call_a'",
    ),
    (
        "tool_call_origin_empty",
        req(USER, {"role": "assistant", "tool_calls": [{**CALL, "origin": ""}]}, TOOL_RESULT),
        "messages[1].tool_calls[0].origin",
        "non-empty",
    ),
    # tool messages (§3)
    (
        "tool_without_matching_call",
        req(USER, {"role": "tool", "content": "result", "tool_call_id": "nonexistent_id"}),
        "messages[1].tool_call_id",
        "answers no earlier assistant tool call",
    ),
    (
        "tool_answers_later_call",
        req(USER, TOOL_RESULT, ASSISTANT_CALLS, TOOL_RESULT),
        "messages[1].tool_call_id",
        "no earlier",
    ),
    (
        "tool_call_id_empty_message",
        req(USER, ASSISTANT_CALLS, {**TOOL_RESULT, "tool_call_id": ""}),
        "messages[2].tool_call_id",
        "non-empty",
    ),
    (
        "tool_name_empty",
        req(USER, ASSISTANT_CALLS, {**TOOL_RESULT, "name": ""}),
        "messages[2].name",
        "non-empty",
    ),
    # tools (§4)
    (
        "duplicate_tool_names",
        req(
            tools=[
                {"name": "dup", "description": "First"},
                {"name": "dup", "description": "Second"},
            ]
        ),
        "tools[1].name",
        "duplicate tool name 'dup'",
    ),
    ("tool_name_empty_decl", req(tools=[TOOL, {"name": ""}]), "tools[1].name", "non-empty"),
    (
        "tool_parameters_array_schema",
        req(tools=[{"name": "t", "parameters": {"type": "array"}}]),
        "tools[0].parameters.type",
        "object schema",
    ),
    # tool_choice (§5)
    (
        "required_with_absent_tools",
        req(tool_choice="required"),
        "tool_choice",
        "'required' needs a non-empty tools list",
    ),
    (
        "required_with_empty_tools",
        req(tools=[], tool_choice="required"),
        "tool_choice",
        "non-empty tools",
    ),
    (
        "forced_with_absent_tools",
        req(tool_choice={"type": "tool", "name": "search"}),
        "tool_choice.name",
        "not in tools (declared: none",
    ),
    (
        "forced_name_not_in_tools",
        req(tools=[{"name": "summarize"}], tool_choice={"type": "tool", "name": "search"}),
        "tool_choice.name",
        "declared: summarize",
    ),
    (
        "forced_name_empty",
        req(tools=[TOOL], tool_choice={"type": "tool", "name": ""}),
        "tool_choice.name",
        "non-empty",
    ),
    # response_schema (§5)
    (
        "response_schema_array",
        req(response_schema={"type": "array", "items": {}}),
        "response_schema.type",
        "object schema",
    ),
    (
        "response_schema_no_type",
        req(response_schema={"properties": {}}),
        "response_schema.type",
        "got None",
    ),
    # config (§6)
    ("max_tokens_zero", req(config={"max_tokens": 0}), "config.max_tokens", "positive integer"),
    (
        "max_tokens_negative",
        req(config={"max_tokens": -5}),
        "config.max_tokens",
        "positive integer",
    ),
    ("temperature_nan", req(config={"temperature": float("nan")}), "config.temperature", "finite"),
    ("top_p_inf", req(config={"top_p": float("inf")}), "config.top_p", "finite"),
    (
        "presence_penalty_neg_inf",
        req(config={"presence_penalty": float("-inf")}),
        "config.presence_penalty",
        "finite",
    ),
]


@pytest.mark.parametrize("d, path, fragment", [i[1:] for i in INVALID], ids=[i[0] for i in INVALID])
def test_invalid_requests_name_the_path(d: dict[str, Any], path: str, fragment: str) -> None:
    request = Request.from_dict(d)  # well-formed: only the semantic rules fail
    with pytest.raises(InvalidRequestError) as caught:
        validate_request(request)
    assert caught.value.path == path
    assert fragment in caught.value.message
    assert caught.value.category == "provider_invalid_request"


# Records built directly from the classes bypass from_dict's type checks; validation still
# rejects them with a path instead of crashing.
HAND_BUILT: list[tuple[str, Request, str]] = [
    ("model_none", Request(None, [UserMessage("x")]), "model"),  # type: ignore[arg-type]
    ("messages_tuple", Request("m", (UserMessage("x"),)), "messages"),  # type: ignore[arg-type]
    ("message_dict", Request("m", [UserMessage("x"), {"role": "user"}]), "messages[1]"),  # type: ignore[list-item]
    ("user_content_int", Request("m", [UserMessage(5)]), "messages[0].content"),  # type: ignore[arg-type]
    ("user_block_str", Request("m", [UserMessage(["x"])]), "messages[0].content[0]"),  # type: ignore[list-item]
    ("text_none", Request("m", [UserMessage([TextBlock(None)])]), "messages[0].content[0].text"),  # type: ignore[arg-type]
    ("source_dict", Request("m", [UserMessage([ImageBlock({"type": "url"})])]), "messages[0].content[0].source"),  # type: ignore[arg-type]
    ("detail_bad", Request("m", [UserMessage([ImageBlock(UrlSource("u"), detail="ultra")])]), "messages[0].content[0].detail"),  # type: ignore[arg-type]
    ("media_type_none", Request("m", [UserMessage([ImageBlock(InlineSource("A"), media_type=None)])]), "messages[0].content[0].media_type"),  # type: ignore[arg-type]
    ("system_blocks", Request("m", [SystemMessage([TextBlock("s")]), UserMessage("x")]), "messages[0].content"),  # type: ignore[arg-type]
    ("assistant_content_int", Request("m", [UserMessage("x"), AssistantMessage(3), UserMessage("y")]), "messages[1].content"),  # type: ignore[arg-type]
    ("assistant_tool_calls_dict", Request("m", [UserMessage("x"), AssistantMessage("a", {}), UserMessage("y")]), "messages[1].tool_calls"),  # type: ignore[arg-type]
    ("tool_call_dict", Request("m", [UserMessage("x"), AssistantMessage(None, [{"id": "a"}]), UserMessage("y")]), "messages[1].tool_calls[0]"),  # type: ignore[list-item]
    ("arguments_list", Request("m", [UserMessage("x"), AssistantMessage(None, [ToolCall("a", "f", [])]), UserMessage("y")]), "messages[1].tool_calls[0].arguments"),  # type: ignore[arg-type]
    ("signature_int", Request("m", [UserMessage("x"), AssistantMessage([ThinkingBlock("t", 5)]), UserMessage("y")]), "messages[1].content[0].signature"),  # type: ignore[arg-type]
    ("tool_content_dict", Request("m", [UserMessage("x"), AssistantMessage(None, [ToolCall("a", "f", {})]), ToolMessage("a", {})]), "messages[2].content"),  # type: ignore[arg-type]
    ("tools_dict", Request("m", [UserMessage("x")], tools={}), "tools"),  # type: ignore[arg-type]
    ("tool_dict", Request("m", [UserMessage("x")], tools=[{"name": "t"}]), "tools[0]"),  # type: ignore[list-item]
    ("tool_parameters_list", Request("m", [UserMessage("x")], tools=[Tool("t", parameters=[])]), "tools[0].parameters"),  # type: ignore[arg-type]
    ("tool_strict_str", Request("m", [UserMessage("x")], tools=[Tool("t", strict="yes")]), "tools[0].strict"),  # type: ignore[arg-type]
    ("tool_description_int", Request("m", [UserMessage("x")], tools=[Tool("t", description=1)]), "tools[0].description"),  # type: ignore[arg-type]
    ("tool_choice_unknown", Request("m", [UserMessage("x")], tool_choice="any"), "tool_choice"),  # type: ignore[arg-type]
    ("tool_choice_dict", Request("m", [UserMessage("x")], tool_choice={"type": "tool", "name": "t"}), "tool_choice"),  # type: ignore[arg-type]
    ("response_schema_str", Request("m", [UserMessage("x")], response_schema="{}"), "response_schema"),  # type: ignore[arg-type]
    ("config_dict", Request("m", [UserMessage("x")], config={"max_tokens": 1}), "config"),  # type: ignore[arg-type]
    (
        "max_tokens_bool",
        Request("m", [UserMessage("x")], config=Config(max_tokens=True)),
        "config.max_tokens",
    ),
    ("max_tokens_float", Request("m", [UserMessage("x")], config=Config(max_tokens=2.0)), "config.max_tokens"),  # type: ignore[arg-type]
    (
        "temperature_bool",
        Request("m", [UserMessage("x")], config=Config(temperature=True)),
        "config.temperature",
    ),
    ("temperature_str", Request("m", [UserMessage("x")], config=Config(temperature="0.1")), "config.temperature"),  # type: ignore[arg-type]
    ("seed_bool", Request("m", [UserMessage("x")], config=Config(seed=False)), "config.seed"),
    ("top_k_float", Request("m", [UserMessage("x")], config=Config(top_k=1.5)), "config.top_k"),  # type: ignore[arg-type]
    ("stop_sequences_str", Request("m", [UserMessage("x")], config=Config(stop_sequences="END")), "config.stop_sequences"),  # type: ignore[arg-type]
    ("stop_sequences_item", Request("m", [UserMessage("x")], config=Config(stop_sequences=["a", None])), "config.stop_sequences[1]"),  # type: ignore[list-item]
    ("extras_list", Request("m", [UserMessage("x")], config=Config(extras=[])), "config.extras"),  # type: ignore[arg-type]
    ("extras_int_key", Request("m", [UserMessage("x")], config=Config(extras={1: 2})), "config.extras"),  # type: ignore[dict-item]
]


@pytest.mark.parametrize(
    "request_, path", [h[1:] for h in HAND_BUILT], ids=[h[0] for h in HAND_BUILT]
)
def test_hand_built_records_are_checked(request_: Request, path: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        validate_request(request_)
    assert caught.value.path == path


def test_not_a_request() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        validate_request({"model": "m", "messages": [USER]})  # type: ignore[arg-type]
    assert caught.value.path == ""


def test_forced_tool_record() -> None:
    request = Request("m", [UserMessage("x")], tools=[Tool("t")], tool_choice=ForcedTool("t"))
    validate_request(request)
    assert request.config is NOT_GIVEN


# OpenArmature conformance fixtures whose calls must raise provider_invalid_request before
# anything is sent (003, 014, 015, 017-020, 031): the first failure may come from from_dict
# (shape) or validate_request (rules); both raise InvalidRequestError.
FIXTURE_CASES: list[tuple[str, dict[str, Any]]] = [
    (
        "003_system_message_in_middle",
        req(
            {"role": "user", "content": "First user turn"},
            {"role": "system", "content": "Late system message"},
            tools=[],
        ),
    ),
    (
        "003_tool_message_without_matching_assistant",
        req(
            {"role": "user", "content": "Run the tool"},
            {"role": "tool", "content": "result", "tool_call_id": "nonexistent_id"},
            tools=[],
        ),
    ),
    (
        "003_duplicate_tool_names",
        req(
            tools=[
                {
                    "name": "dup",
                    "description": "First",
                    "parameters": {"type": "object", "properties": {}},
                },
                {
                    "name": "dup",
                    "description": "Second",
                    "parameters": {"type": "object", "properties": {}},
                },
            ]
        ),
    ),
    ("003_empty_user_content", req({"role": "user", "content": ""}, tools=[])),
    (
        "003_assistant_with_neither",
        req(
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": ""},
            {"role": "user", "content": "Continue?"},
            tools=[],
        ),
    ),
    (
        "003_last_message_assistant",
        req(
            {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}, tools=[]
        ),
    ),
    ("014_empty_sequence", req({"role": "user", "content": []})),
    (
        "015_empty_text_block",
        req(
            {
                "role": "user",
                "content": [{"type": "text", "text": ""}, {"type": "text", "text": "real text"}],
            }
        ),
    ),
    (
        "017_system_blocks",
        req(
            {
                "role": "system",
                "content": [{"type": "text", "text": "you are a helpful assistant"}],
            },
            {"role": "user", "content": "hi"},
        ),
    ),
    (
        "018_image_source_missing",
        req({"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "describe"}]}),
    ),
    (
        "019_invalid_detail",
        req(
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "url", "url": "https://example.com/x.png"},
                        "detail": "ultra",
                    }
                ],
            }
        ),
    ),
    (
        "020_inline_missing_media_type",
        req(
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "inline", "base64_data": "ABC123=="}},
                    {"type": "text", "text": "describe"},
                ],
            }
        ),
    ),
    (
        "031_required_with_empty_tools",
        req({"role": "user", "content": "Do something."}, tool_choice="required"),
    ),
    (
        "031_force_specific_with_empty_tools",
        req(
            {"role": "user", "content": "Search for X."},
            tool_choice={"type": "tool", "name": "search"},
        ),
    ),
    (
        "031_force_specific_not_in_list",
        req(
            {"role": "user", "content": "Search for X."},
            tools=[
                {
                    "name": "summarize",
                    "description": "Summarize a document.",
                    "parameters": {
                        "type": "object",
                        "properties": {"doc_id": {"type": "string"}},
                        "required": ["doc_id"],
                    },
                }
            ],
            tool_choice={"type": "tool", "name": "search"},
        ),
    ),
]


@pytest.mark.parametrize("d", [d for _, d in FIXTURE_CASES], ids=[n for n, _ in FIXTURE_CASES])
def test_conformance_pre_send_rejections(d: dict[str, Any]) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        check(d)
    assert caught.value.category == "provider_invalid_request"
    assert caught.value.path  # always names where

"""The canonical plain-dict form (../shared/CANONICAL.md) and its typed records.

`Request.from_dict(d).to_dict() == d` for every valid canonical dict; `from_dict` is total: any
other input raises `InvalidRequestError` naming the offending path, nothing else escapes.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wiremap.runtime.canonical import (
    NOT_GIVEN,
    AssistantMessage,
    AudioBlock,
    Config,
    FileBlock,
    ForcedTool,
    ImageBlock,
    InlineSource,
    RedactedThinkingBlock,
    Request,
    Response,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    Tool,
    ToolCall,
    ToolMessage,
    UrlSource,
    Usage,
    UserMessage,
    block_from_dict,
    message_from_dict,
)
from wiremap.runtime.errors import InvalidRequestError, ProviderError

USER = {"role": "user", "content": "Hi"}


def req(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "gpt-4o", "messages": list(messages) or [dict(USER)], **extra}


# --- valid dicts round-trip ------------------------------------------------------------------

IMAGE_URL = {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}}
IMAGE_INLINE = {
    "type": "image",
    "source": {"type": "inline", "base64_data": "iVBORw0KGgo="},
    "media_type": "image/png",
    "detail": "high",
}
AUDIO = {
    "type": "audio",
    "source": {"type": "inline", "base64_data": "UklGRg=="},
    "media_type": "audio/wav",
}
FILE = {
    "type": "file",
    "source": {"type": "url", "url": "data:application/pdf;base64,JVBERi0="},
    "media_type": "application/pdf",
    "filename": "a.pdf",
}
THINKING = {
    "type": "thinking",
    "text": "Let me think.",
    "signature": "sig-abc",
    "origin": "anthropic",
}
REDACTED = {"type": "redacted_thinking", "data": "opaque==", "origin": "anthropic"}
CALL = {"id": "call_a", "name": "get_weather", "arguments": {"city": "NYC"}}
SIGNED_CALL = {**CALL, "id": "call_b", "signature": "sig-g1", "origin": "google"}

VALID_REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("minimal", req()),
    ("system_user", req({"role": "system", "content": "Be brief."}, USER)),
    ("user_text_block", req({"role": "user", "content": [{"type": "text", "text": "Hi"}]})),
    (
        "user_signed_text",
        req({"role": "user", "content": [{"type": "text", "text": "Hi", "signature": "s"}]}),
    ),
    ("image_url", req({"role": "user", "content": [IMAGE_URL, {"type": "text", "text": "What?"}]})),
    ("image_inline_detail", req({"role": "user", "content": [IMAGE_INLINE]})),
    ("audio_file", req({"role": "user", "content": [AUDIO, FILE]})),
    (
        "file_minimal",
        req({"role": "user", "content": [{"type": "file", "source": {"type": "url", "url": "u"}}]}),
    ),
    (
        "assistant_null_content_tool_calls",
        req(
            USER,
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_a", "content": "72F", "name": "get_weather"},
        ),
    ),
    (
        "assistant_absent_content",
        req(
            USER,
            {"role": "assistant", "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "call_a", "content": "72F"},
        ),
    ),
    (
        "assistant_empty_string_and_empty_tool_calls",
        req(USER, {"role": "assistant", "content": "", "tool_calls": []}, USER),
    ),
    ("assistant_text", req(USER, {"role": "assistant", "content": "Hello!"}, USER)),
    (
        "assistant_thinking_blocks",
        req(
            USER,
            {
                "role": "assistant",
                "content": [
                    THINKING,
                    REDACTED,
                    {"type": "text", "text": "42", "signature": "t", "origin": "google"},
                ],
            },
            USER,
        ),
    ),
    (
        "thinking_without_signature_or_origin",
        req(
            USER,
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "text": "hmm"},
                    {"type": "redacted_thinking", "data": "x"},
                ],
            },
            USER,
        ),
    ),
    (
        "signed_tool_call_null_arguments",
        req(
            USER,
            {
                "role": "assistant",
                "content": [THINKING],
                "tool_calls": [SIGNED_CALL, {"id": "c3", "name": "f", "arguments": None}],
            },
            {"role": "tool", "tool_call_id": "call_b", "content": ""},
        ),
    ),
    (
        "tools_and_forced_choice",
        req(
            tools=[
                {
                    "name": "get_weather",
                    "description": "Weather.",
                    "parameters": {
                        "type": "object",
                        "properties": {"city": {"type": "string"}},
                        "required": ["city"],
                    },
                    "strict": True,
                },
                {"name": "bare"},
            ],
            tool_choice={"type": "tool", "name": "get_weather"},
        ),
    ),
    ("tool_choice_auto", req(tools=[{"name": "t"}], tool_choice="auto")),
    ("tool_choice_required", req(tools=[{"name": "t", "strict": False}], tool_choice="required")),
    ("tool_choice_none", req(tool_choice="none")),
    ("empty_tools", req(tools=[])),
    (
        "full_config",
        req(
            config={
                "temperature": 0.2,
                "max_tokens": 256,
                "top_p": 0.9,
                "top_k": 40,
                "seed": 7,
                "stop_sequences": ["END", ""],
                "frequency_penalty": 0,
                "presence_penalty": -1.5,
                "extras": {"logprobs": True, "nested": {"a": [1, None]}, "nothing": None},
            }
        ),
    ),
    ("empty_config", req(config={})),
    ("int_temperature", req(config={"temperature": 1})),
    (
        "response_schema",
        req(response_schema={"type": "object", "properties": {"v": {"type": "integer"}}}),
    ),
    ("unicode", req({"role": "user", "content": "héllo ☃ \u0000 \ud7ff"})),
]


@pytest.mark.parametrize("d", [d for _, d in VALID_REQUESTS], ids=[n for n, _ in VALID_REQUESTS])
def test_request_round_trip_is_identity(d: dict[str, Any]) -> None:
    before = copy.deepcopy(d)
    request = Request.from_dict(d)
    assert request.to_dict() == d
    assert d == before  # never mutated
    # a second round trip is stable too
    assert Request.from_dict(request.to_dict()).to_dict() == d


def test_records_are_typed() -> None:
    d = dict(VALID_REQUESTS)["signed_tool_call_null_arguments"]
    request = Request.from_dict(d)
    assistant = request.messages[1]
    assert isinstance(assistant, AssistantMessage)
    assert isinstance(assistant.content, list)
    block = assistant.content[0]
    assert isinstance(block, ThinkingBlock)
    assert (block.text, block.signature, block.origin) == ("Let me think.", "sig-abc", "anthropic")
    assert assistant.tool_calls == [
        ToolCall("call_b", "get_weather", {"city": "NYC"}, "sig-g1", "google"),
        ToolCall("c3", "f", None),
    ]
    assert isinstance(request.messages[2], ToolMessage)
    assert request.tools is NOT_GIVEN
    assert request.tool_choice is NOT_GIVEN
    assert request.config is NOT_GIVEN
    assert request.response_schema is NOT_GIVEN


def test_absent_and_null_assistant_content_differ() -> None:
    absent = Request.from_dict(req(USER, {"role": "assistant", "tool_calls": [CALL]}, USER))
    null = Request.from_dict(
        req(USER, {"role": "assistant", "content": None, "tool_calls": [CALL]}, USER)
    )
    assert absent.messages[1].content is NOT_GIVEN  # type: ignore[union-attr]
    assert null.messages[1].content is None  # type: ignore[union-attr]
    assert "content" not in absent.to_dict()["messages"][1]
    assert null.to_dict()["messages"][1]["content"] is None


def test_tool_choice_forms() -> None:
    forced = Request.from_dict(req(tool_choice={"type": "tool", "name": "x"}))
    assert forced.tool_choice == ForcedTool("x")
    assert forced.to_dict()["tool_choice"] == {"type": "tool", "name": "x"}
    for mode in ("auto", "required", "none"):
        assert Request.from_dict(req(tool_choice=mode)).tool_choice == mode
    assert ForcedTool.from_dict({"type": "tool", "name": "y"}) == ForcedTool("y")
    assert ForcedTool("y").to_dict() == {"type": "tool", "name": "y"}


def test_every_block_kind_reads_to_its_class() -> None:
    cases = [
        ({"type": "text", "text": "a"}, TextBlock("a")),
        (THINKING, ThinkingBlock("Let me think.", "sig-abc", "anthropic")),
        (REDACTED, RedactedThinkingBlock("opaque==", "anthropic")),
        (IMAGE_URL, ImageBlock(UrlSource("https://x/a.png"))),
        (IMAGE_INLINE, ImageBlock(InlineSource("iVBORw0KGgo="), "image/png", "high")),
        (AUDIO, AudioBlock(InlineSource("UklGRg=="), "audio/wav")),
        (
            FILE,
            FileBlock(
                UrlSource("data:application/pdf;base64,JVBERi0="), "application/pdf", "a.pdf"
            ),
        ),
    ]
    for d, record in cases:
        assert block_from_dict(d) == record
        assert type(record).from_dict(d) == record  # type: ignore[attr-defined]
        assert record.to_dict() == d


def test_every_message_role_reads_to_its_class() -> None:
    cases = [
        ({"role": "system", "content": "s"}, SystemMessage("s")),
        ({"role": "user", "content": "u"}, UserMessage("u")),
        ({"role": "assistant", "content": "a"}, AssistantMessage("a")),
        (
            {"role": "tool", "tool_call_id": "c", "content": "r", "name": "n"},
            ToolMessage("c", "r", "n"),
        ),
    ]
    for d, record in cases:
        assert message_from_dict(d) == record
        assert type(record).from_dict(d) == record  # type: ignore[attr-defined]
        assert record.to_dict() == d


def test_small_records_round_trip() -> None:
    assert ToolCall.from_dict(SIGNED_CALL).to_dict() == SIGNED_CALL
    tool = {"name": "t", "description": "", "parameters": {}, "strict": True}
    assert Tool.from_dict(tool).to_dict() == tool
    config = {"seed": -3, "stop_sequences": []}
    assert Config.from_dict(config).to_dict() == config
    usage = {
        "prompt_tokens": 1,
        "completion_tokens": None,
        "total_tokens": 0,
        "cached_tokens": None,
    }
    assert Usage.from_dict(usage).to_dict() == usage
    assert UrlSource.from_dict({"type": "url", "url": "u"}).to_dict() == {"type": "url", "url": "u"}
    inline = {"type": "inline", "base64_data": "AA=="}
    assert InlineSource.from_dict(inline).to_dict() == inline


# --- None on optional keys means absent (OpenArmature §5, §6 null-skip) ------------------------


@pytest.mark.parametrize(
    "d, canonical",
    [
        (req(tools=None, tool_choice=None, config=None, response_schema=None), req()),
        (
            req(config={"temperature": None, "max_tokens": 5, "extras": None}),
            req(config={"max_tokens": 5}),
        ),
        (
            req(
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "a", "signature": None, "origin": None}],
                }
            ),
            req({"role": "user", "content": [{"type": "text", "text": "a"}]}),
        ),
        (
            req({"role": "user", "content": [{**IMAGE_URL, "media_type": None, "detail": None}]}),
            req({"role": "user", "content": [IMAGE_URL]}),
        ),
        (
            req(USER, {"role": "assistant", "content": "x", "tool_calls": None}, USER),
            req(USER, {"role": "assistant", "content": "x"}, USER),
        ),
        (
            req(tools=[{"name": "t", "description": None, "parameters": None, "strict": None}]),
            req(tools=[{"name": "t"}]),
        ),
    ],
)
def test_null_on_optional_key_means_absent(d: dict[str, Any], canonical: dict[str, Any]) -> None:
    assert Request.from_dict(d).to_dict() == canonical


# --- copies: later mutation of the input (or of the output) does not leak -------------------


def test_later_mutation_of_input_does_not_leak() -> None:
    d = req(
        {"role": "user", "content": [{"type": "text", "text": "a"}]},
        {"role": "assistant", "content": "b", "tool_calls": [dict(CALL)]},
        {"role": "tool", "tool_call_id": "call_a", "content": "r"},
        tools=[{"name": "t"}],
        config={"stop_sequences": ["END"], "extras": {"k": 1}},
    )
    request = Request.from_dict(d)
    snapshot = copy.deepcopy(request.to_dict())
    d["messages"].append(dict(USER))
    d["messages"][0]["content"].append({"type": "text", "text": "later"})
    d["messages"][0]["content"][0]["text"] = "changed"
    d["messages"][1]["tool_calls"].clear()
    d["tools"].append({"name": "u"})
    d["config"]["stop_sequences"].append("X")
    d["config"]["extras"]["k2"] = 2
    d["model"] = "other"
    assert request.to_dict() == snapshot


def test_mutating_to_dict_output_does_not_change_the_record() -> None:
    d = dict(VALID_REQUESTS)["full_config"]
    request = Request.from_dict(d)
    out = request.to_dict()
    out["messages"].append(dict(USER))
    out["config"]["stop_sequences"].append("Y")
    out["config"]["extras"]["new"] = 1
    assert request.to_dict() == d


# --- from_dict is total: garbage raises InvalidRequestError with the exact path ---------------

GARBAGE: list[tuple[str, Any, str, str]] = [
    # (id, input, path, message fragment)
    ("not_a_dict", [], "", "expected a request object, got array"),
    ("none", None, "", "got null"),
    ("string", "hi", "", "got string"),
    ("model_missing", {"messages": []}, "model", "required key is missing"),
    ("model_int", {"model": 4, "messages": []}, "model", "expected a string, got integer"),
    ("messages_missing", {"model": "m"}, "messages", "required key is missing"),
    (
        "messages_dict",
        {"model": "m", "messages": {}},
        "messages",
        "expected an array of messages, got object",
    ),
    ("messages_tuple", {"model": "m", "messages": (USER,)}, "messages", "expected an array"),
    (
        "request_unknown_key",
        req(temperature=0.1),
        "temperature",
        "unknown key 'temperature'; allowed keys: model, messages",
    ),
    ("request_non_str_key", {**req(), 3: 1}, "", "unknown key 3"),
    (
        "message_not_dict",
        req(USER, "hello"),
        "messages[1]",
        "expected a message object, got string",
    ),
    (
        "role_missing",
        req({"content": "x"}),
        "messages[0].role",
        "required key is missing; expected one of: system, user, assistant, tool",
    ),
    (
        "role_unknown",
        req({"role": "bot", "content": "x"}),
        "messages[0].role",
        "unknown role 'bot'",
    ),
    ("role_unhashable", req({"role": ["user"], "content": "x"}), "messages[0].role", "got array"),
    (
        "message_unknown_key",
        req(USER, {"role": "user", "content": "x", "nickname": "bob"}),
        "messages[1].nickname",
        "allowed keys: role, content, name",
    ),
    (
        "system_blocks",
        req({"role": "system", "content": [{"type": "text", "text": "s"}]}, USER),
        "messages[0].content",
        "system content is text-only",
    ),
    (
        "system_tool_calls",
        req({"role": "system", "content": "s", "tool_calls": []}, USER),
        "messages[0].tool_calls",
        "unknown key",
    ),
    (
        "user_content_missing",
        req({"role": "user"}),
        "messages[0].content",
        "required key is missing",
    ),
    (
        "user_content_missing_typo",
        req({"role": "user", "contnet": "x"}),
        "messages[0].content",
        "found unknown key 'contnet'",
    ),
    (
        "user_content_null",
        req({"role": "user", "content": None}),
        "messages[0].content",
        "got null",
    ),
    (
        "user_content_int",
        req({"role": "user", "content": 5}),
        "messages[0].content",
        "expected a string or an array of content blocks, got integer",
    ),
    (
        "user_tool_call_id",
        req({"role": "user", "content": "x", "tool_call_id": "c"}),
        "messages[0].tool_call_id",
        "unknown key",
    ),
    (
        "block_not_dict",
        req({"role": "user", "content": [{"type": "text", "text": "a"}, "b"]}),
        "messages[0].content[1]",
        "expected a content block object, got string",
    ),
    (
        "block_type_missing",
        req({"role": "user", "content": [{"text": "a"}]}),
        "messages[0].content[0].type",
        "required key is missing",
    ),
    (
        "block_type_unknown",
        req({"role": "user", "content": [{"type": "video"}]}),
        "messages[0].content[0].type",
        "unknown block type 'video'; expected one of: text, thinking, redacted_thinking, image, audio, file",
    ),
    (
        "block_type_int",
        req({"role": "user", "content": [{"type": 1}]}),
        "messages[0].content[0].type",
        "got integer",
    ),
    (
        "block_type_dict",
        req({"role": "user", "content": [{"type": {}}]}),
        "messages[0].content[0].type",
        "got object",
    ),
    (
        "text_missing",
        req({"role": "user", "content": [{"type": "text"}]}),
        "messages[0].content[0].text",
        "required key is missing",
    ),
    (
        "text_int",
        req(
            USER,
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": 1}],
            },
        ),
        "messages[1].content[1].text",
        "expected a string, got integer",
    ),
    (
        "text_unknown_key",
        req({"role": "user", "content": [{"type": "text", "text": "a", "citations": []}]}),
        "messages[0].content[0].citations",
        "allowed keys: type, text, signature, origin, cache_control",
    ),
    (
        "text_cache_control_without_type",
        req({"role": "user", "content": [{"type": "text", "text": "a", "cache_control": {}}]}),
        "messages[0].content[0].cache_control.type",
        "required key is missing; expected a string",
    ),
    (
        "tool_cache_control_string",
        {"model": "m", "messages": [{"role": "user", "content": "a"}], "tools": [{"name": "f", "cache_control": "ephemeral"}]},
        "tools[0].cache_control",
        "expected an object such as {'type': 'ephemeral'}, got string",
    ),
    (
        "system_cache_control_type_int",
        {"model": "m", "messages": [{"role": "system", "content": "a", "cache_control": {"type": 5}}]},
        "messages[0].cache_control.type",
        "expected a string, got integer",
    ),
    (
        "text_signature_int",
        req({"role": "user", "content": [{"type": "text", "text": "a", "signature": 1}]}),
        "messages[0].content[0].signature",
        "expected a string",
    ),
    (
        "thinking_origin_list",
        req(
            USER,
            {"role": "assistant", "content": [{"type": "thinking", "text": "a", "origin": []}]},
            USER,
        ),
        "messages[1].content[0].origin",
        "expected a string, got array",
    ),
    (
        "redacted_data_missing",
        req(USER, {"role": "assistant", "content": [{"type": "redacted_thinking"}]}, USER),
        "messages[1].content[0].data",
        "required key is missing",
    ),
    (
        "redacted_signature",
        req(
            USER,
            {
                "role": "assistant",
                "content": [{"type": "redacted_thinking", "data": "d", "signature": "s"}],
            },
            USER,
        ),
        "messages[1].content[0].signature",
        "allowed keys: type, data, origin",
    ),
    (
        "image_source_missing",
        req({"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "d"}]}),
        "messages[0].content[0].source",
        "required key is missing",
    ),
    (
        "image_source_str",
        req({"role": "user", "content": [{"type": "image", "source": "https://x"}]}),
        "messages[0].content[0].source",
        "expected a source object",
    ),
    (
        "source_type_missing",
        req({"role": "user", "content": [{"type": "image", "source": {"url": "u"}}]}),
        "messages[0].content[0].source.type",
        "required key is missing",
    ),
    (
        "source_type_unknown",
        req(
            {
                "role": "user",
                "content": [{"type": "image", "source": {"type": "base64", "data": "x"}}],
            }
        ),
        "messages[0].content[0].source.type",
        "unknown source type 'base64'",
    ),
    (
        "source_url_missing",
        req({"role": "user", "content": [{"type": "image", "source": {"type": "url"}}]}),
        "messages[0].content[0].source.url",
        "required key is missing",
    ),
    (
        "source_url_extra",
        req(
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "url", "url": "u", "base64_data": "x"}}
                ],
            }
        ),
        "messages[0].content[0].source.base64_data",
        "allowed keys: type, url",
    ),
    (
        "source_inline_data_int",
        req(
            {
                "role": "user",
                "content": [{"type": "image", "source": {"type": "inline", "base64_data": 0}}],
            }
        ),
        "messages[0].content[0].source.base64_data",
        "got integer",
    ),
    (
        "image_detail_bad",
        req({"role": "user", "content": [{**IMAGE_URL, "detail": "ultra"}]}),
        "messages[0].content[0].detail",
        "expected 'auto', 'low' or 'high'",
    ),
    (
        "image_detail_int",
        req({"role": "user", "content": [{**IMAGE_URL, "detail": 1}]}),
        "messages[0].content[0].detail",
        "got 1",
    ),
    (
        "image_filename",
        req({"role": "user", "content": [{**IMAGE_URL, "filename": "a.png"}]}),
        "messages[0].content[0].filename",
        "allowed keys: type, source, media_type, detail",
    ),
    (
        "image_media_type_int",
        req({"role": "user", "content": [{**IMAGE_URL, "media_type": 5}]}),
        "messages[0].content[0].media_type",
        "expected a string",
    ),
    (
        "audio_detail",
        req({"role": "user", "content": [{**AUDIO, "detail": "low"}]}),
        "messages[0].content[0].detail",
        "allowed keys: type, source, media_type",
    ),
    (
        "file_filename_list",
        req({"role": "user", "content": [{**FILE, "filename": ["a"]}]}),
        "messages[0].content[0].filename",
        "got array",
    ),
    (
        "assistant_content_int",
        req(USER, {"role": "assistant", "content": 1}, USER),
        "messages[1].content",
        "expected a string, null or an array of content blocks",
    ),
    (
        "assistant_unknown_key",
        req(USER, {"role": "assistant", "content": "a", "refusal": None}, USER),
        "messages[1].refusal",
        "allowed keys: role, content, tool_calls",
    ),
    (
        "tool_calls_dict",
        req(USER, {"role": "assistant", "tool_calls": {}}, USER),
        "messages[1].tool_calls",
        "expected an array of tool calls",
    ),
    (
        "tool_call_not_dict",
        req(USER, {"role": "assistant", "tool_calls": [CALL, "c"]}, USER),
        "messages[1].tool_calls[1]",
        "expected a tool call object",
    ),
    (
        "tool_call_id_missing",
        req(USER, {"role": "assistant", "tool_calls": [{"name": "f", "arguments": {}}]}, USER),
        "messages[1].tool_calls[0].id",
        "required key is missing",
    ),
    (
        "tool_call_name_int",
        req(
            USER,
            {"role": "assistant", "tool_calls": [{"id": "c", "name": 1, "arguments": {}}]},
            USER,
        ),
        "messages[1].tool_calls[0].name",
        "got integer",
    ),
    (
        "tool_call_arguments_missing",
        req(USER, {"role": "assistant", "tool_calls": [{"id": "c", "name": "f"}]}, USER),
        "messages[1].tool_calls[0].arguments",
        "required key is missing; expected an object or null",
    ),
    (
        "tool_call_arguments_string",
        req(
            USER,
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": "{}"}]},
            USER,
        ),
        "messages[1].tool_calls[0].arguments",
        "expected an object or null, got string",
    ),
    (
        "tool_call_arguments_int_key",
        req(
            USER,
            {"role": "assistant", "tool_calls": [{"id": "c", "name": "f", "arguments": {1: 2}}]},
            USER,
        ),
        "messages[1].tool_calls[0].arguments",
        "argument names must be strings",
    ),
    (
        "tool_call_unknown_key",
        req(USER, {"role": "assistant", "tool_calls": [{**CALL, "type": "function"}]}, USER),
        "messages[1].tool_calls[0].type",
        "allowed keys: id, name, arguments, signature, origin",
    ),
    (
        "tool_message_id_missing",
        req(USER, {"role": "tool", "content": "r"}),
        "messages[1].tool_call_id",
        "required key is missing",
    ),
    (
        "tool_message_content_dict",
        req(USER, {"role": "tool", "tool_call_id": "c", "content": {"t": 1}}),
        "messages[1].content",
        "a string or an array of content blocks",
    ),
    (
        "tool_message_content_blocks",
        req(USER, {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": 3}]}),
        "messages[1].content[0].text",
        "expected a string",
    ),
    (
        "tool_message_name_int",
        req(USER, {"role": "tool", "tool_call_id": "c", "content": "", "name": 3}),
        "messages[1].name",
        "expected a string",
    ),
    (
        "tool_message_unknown",
        req(USER, {"role": "tool", "tool_call_id": "c", "content": "", "failed": True}),
        "messages[1].failed",
        "allowed keys: role, tool_call_id, content, name, is_error",
    ),
    (
        "tool_message_is_error_not_bool",
        req(USER, {"role": "tool", "tool_call_id": "c", "content": "", "is_error": "yes"}),
        "messages[1].is_error",
        "expected a boolean",
    ),
    ("tools_dict", req(tools={"name": "t"}), "tools", "expected an array of tools, got object"),
    ("tool_not_dict", req(tools=[{"name": "t"}, "u"]), "tools[1]", "expected a tool object"),
    (
        "tool_name_missing",
        req(tools=[{"description": "d"}]),
        "tools[0].name",
        "required key is missing",
    ),
    (
        "tool_parameters_list",
        req(tools=[{"name": "t", "parameters": []}]),
        "tools[0].parameters",
        "expected a JSON Schema object, got array",
    ),
    (
        "tool_parameters_str",
        req(tools=[{"name": "t"}, {"name": "u", "parameters": "{}"}]),
        "tools[1].parameters",
        "got string",
    ),
    (
        "tool_strict_int",
        req(tools=[{"name": "t", "strict": 1}]),
        "tools[0].strict",
        "expected a boolean, got integer",
    ),
    (
        "tool_description_int",
        req(tools=[{"name": "t", "description": 1}]),
        "tools[0].description",
        "expected a string",
    ),
    (
        "tool_openai_shape",
        req(tools=[{"type": "function", "function": {"name": "t"}}]),
        "tools[0].name",
        "found unknown key 'type'",
    ),
    (
        "tool_unknown_key",
        req(tools=[{"name": "t", "input_schema": {}}]),
        "tools[0].input_schema",
        "allowed keys: name, description, parameters, strict",
    ),
    (
        "tool_choice_unknown_mode",
        req(tool_choice="any"),
        "tool_choice",
        "expected 'auto', 'required', 'none' or {'type': 'tool', 'name': ...}, got 'any'",
    ),
    ("tool_choice_int", req(tool_choice=1), "tool_choice", "got integer"),
    (
        "tool_choice_bad_type",
        req(tool_choice={"type": "function", "name": "x"}),
        "tool_choice.type",
        "expected 'tool'",
    ),
    (
        "tool_choice_type_missing",
        req(tool_choice={"name": "x"}),
        "tool_choice.type",
        "required key is missing",
    ),
    (
        "tool_choice_name_missing",
        req(tool_choice={"type": "tool"}),
        "tool_choice.name",
        "required key is missing",
    ),
    (
        "tool_choice_name_int",
        req(tool_choice={"type": "tool", "name": 1}),
        "tool_choice.name",
        "got integer",
    ),
    (
        "tool_choice_extra",
        req(tool_choice={"type": "tool", "name": "x", "disable_parallel": True}),
        "tool_choice.disable_parallel",
        "allowed keys: type, name",
    ),
    ("config_list", req(config=[]), "config", "expected a config object, got array"),
    (
        "config_unknown",
        req(config={"repetition_penalty": 1.05}),
        "config.repetition_penalty",
        "request fields go under config.extras",
    ),
    ("config_unknown_null", req(config={"stop": None}), "config.stop", "unknown key 'stop'"),
    (
        "max_tokens_bool",
        req(config={"max_tokens": True}),
        "config.max_tokens",
        "expected an integer, got boolean",
    ),
    (
        "max_tokens_float",
        req(config={"max_tokens": 1.0}),
        "config.max_tokens",
        "expected an integer, got number",
    ),
    ("seed_bool", req(config={"seed": False}), "config.seed", "got boolean"),
    ("top_k_str", req(config={"top_k": "40"}), "config.top_k", "got string"),
    (
        "temperature_bool",
        req(config={"temperature": True}),
        "config.temperature",
        "expected a number, got boolean",
    ),
    (
        "temperature_str",
        req(config={"temperature": "0.2"}),
        "config.temperature",
        "expected a number, got string",
    ),
    ("top_p_list", req(config={"top_p": [1]}), "config.top_p", "got array"),
    (
        "penalty_dict",
        req(config={"frequency_penalty": {}}),
        "config.frequency_penalty",
        "got object",
    ),
    (
        "stop_sequences_str",
        req(config={"stop_sequences": "END"}),
        "config.stop_sequences",
        "expected an array of strings, got string",
    ),
    (
        "stop_sequences_item",
        req(config={"stop_sequences": ["a", 2]}),
        "config.stop_sequences[1]",
        "expected a string, got integer",
    ),
    ("extras_list", req(config={"extras": [1]}), "config.extras", "expected an object"),
    (
        "extras_int_key",
        req(config={"extras": {1: "a"}}),
        "config.extras",
        "extras keys must be strings",
    ),
    (
        "response_schema_str",
        req(response_schema="object"),
        "response_schema",
        "expected a JSON Schema object, got string",
    ),
    ("response_schema_bool", req(response_schema=True), "response_schema", "got boolean"),
    (
        "deep_path",
        req(
            USER,
            USER,
            USER,
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": None}],
            },
        ),
        "messages[3].content[1].text",
        "got null",
    ),
]


@pytest.mark.parametrize("d, path, fragment", [g[1:] for g in GARBAGE], ids=[g[0] for g in GARBAGE])
def test_from_dict_garbage_names_the_path(d: Any, path: str, fragment: str) -> None:
    before = copy.deepcopy(d)
    with pytest.raises(InvalidRequestError) as caught:
        Request.from_dict(d)
    error = caught.value
    assert error.path == path
    assert fragment in error.message
    assert error.category == "provider_invalid_request"
    assert str(error) == (f"{path}: {error.message}" if path else error.message)
    assert d == before


def test_from_dict_path_prefix() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        message_from_dict({"role": "user", "content": [{"type": "text"}]}, "messages[3]")
    assert caught.value.path == "messages[3].content[0].text"
    with pytest.raises(InvalidRequestError) as caught:
        block_from_dict(5, "messages[0].content[2]")
    assert caught.value.path == "messages[0].content[2]"
    with pytest.raises(InvalidRequestError) as caught:
        Tool.from_dict({"name": "t", "parameters": 1}, "tools[4]")
    assert caught.value.path == "tools[4].parameters"
    with pytest.raises(InvalidRequestError) as caught:
        Config.from_dict({"max_tokens": "1"}, "config")
    assert caught.value.path == "config.max_tokens"


def test_class_from_dict_checks_the_discriminator() -> None:
    with pytest.raises(InvalidRequestError) as caught:
        TextBlock.from_dict(THINKING, "content[0]")
    assert caught.value.path == "content[0].type"
    assert "expected a 'text' block, got 'thinking'" in caught.value.message
    with pytest.raises(InvalidRequestError) as caught:
        UserMessage.from_dict({"role": "system", "content": "s"})
    assert caught.value.path == "role"
    with pytest.raises(InvalidRequestError) as caught:
        UrlSource.from_dict({"type": "inline", "base64_data": "x"})
    assert caught.value.path == "type"
    with pytest.raises(InvalidRequestError) as caught:
        ForcedTool.from_dict("auto", "tool_choice")
    assert caught.value.path == "tool_choice"


# --- Response -------------------------------------------------------------------------------

RAW = {"id": "cc-1", "choices": [{"message": {"role": "assistant", "content": "hi"}}]}
VALID_RESPONSES: list[dict[str, Any]] = [
    {
        "message": {"role": "assistant", "content": "hi"},
        "finish_reason": "stop",
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        "raw": RAW,
    },
    {
        "message": {
            "role": "assistant",
            "content": None,
            "tool_calls": [CALL, {"id": "x", "name": "", "arguments": None}],
        },
        "finish_reason": "error",
        "usage": {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None},
        "raw": {},
    },
    {
        "message": {
            "role": "assistant",
            "content": [THINKING, {"type": "text", "text": '{"v": 1}'}],
        },
        "finish_reason": "stop",
        "usage": {
            "prompt_tokens": 10,
            "completion_tokens": 2,
            "total_tokens": 12,
            "cached_tokens": 0,
            "cache_creation_tokens": 8,
        },
        "raw": RAW,
        "parsed": {"v": 1},
    },
    {
        "message": {"role": "assistant", "content": ""},
        "finish_reason": "length",
        "usage": {
            "prompt_tokens": 1,
            "completion_tokens": 0,
            "total_tokens": None,
            "cached_tokens": None,
        },
        "raw": None,
        "parsed": None,
    },
    *(
        {
            "message": {"role": "assistant", "content": "x"},
            "finish_reason": reason,
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            "raw": [],
        }
        for reason in ("tool_calls", "content_filter")
    ),
]


@pytest.mark.parametrize("d", VALID_RESPONSES)
def test_response_round_trip_is_identity(d: dict[str, Any]) -> None:
    before = copy.deepcopy(d)
    response = Response.from_dict(d)
    out = response.to_dict()
    assert out == d
    assert out["raw"] is d["raw"]  # verbatim
    assert d == before


def test_response_defaults() -> None:
    d = {
        "message": {"role": "assistant", "content": "hi"},
        "finish_reason": "stop",
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    response = Response.from_dict(d)
    assert response.raw == {}
    assert response.parsed is NOT_GIVEN
    assert "parsed" not in response.to_dict()
    assert response.usage.cached_tokens is NOT_GIVEN
    assert "cached_tokens" not in response.to_dict()["usage"]


USAGE = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
MESSAGE = {"role": "assistant", "content": "hi"}
RESPONSE_GARBAGE: list[tuple[str, Any, str, str]] = [
    ("not_dict", "x", "", "expected a response object"),
    (
        "message_missing",
        {"finish_reason": "stop", "usage": USAGE},
        "message",
        "required key is missing",
    ),
    (
        "message_user",
        {"message": {"role": "user", "content": "x"}, "finish_reason": "stop", "usage": USAGE},
        "message.role",
        "expected 'assistant'",
    ),
    (
        "message_bad_block",
        {
            "message": {"role": "assistant", "content": [{"type": "text"}]},
            "finish_reason": "stop",
            "usage": USAGE,
        },
        "message.content[0].text",
        "required key is missing",
    ),
    (
        "message_str",
        {"message": "hi", "finish_reason": "stop", "usage": USAGE},
        "message",
        "expected an assistant message object, got string",
    ),
    (
        "finish_missing",
        {"message": MESSAGE, "usage": USAGE},
        "finish_reason",
        "required key is missing",
    ),
    (
        "finish_unknown",
        {"message": MESSAGE, "finish_reason": "end_turn", "usage": USAGE},
        "finish_reason",
        "unknown finish reason 'end_turn'; expected one of: stop, length, tool_calls, content_filter, error",
    ),
    (
        "finish_null",
        {"message": MESSAGE, "finish_reason": None, "usage": USAGE},
        "finish_reason",
        "got null",
    ),
    (
        "usage_missing",
        {"message": MESSAGE, "finish_reason": "stop"},
        "usage",
        "required key is missing",
    ),
    (
        "usage_list",
        {"message": MESSAGE, "finish_reason": "stop", "usage": []},
        "usage",
        "got array",
    ),
    (
        "usage_counter_missing",
        {
            "message": MESSAGE,
            "finish_reason": "stop",
            "usage": {"prompt_tokens": 1, "completion_tokens": 1},
        },
        "usage.total_tokens",
        "required key is missing",
    ),
    (
        "usage_bool",
        {"message": MESSAGE, "finish_reason": "stop", "usage": {**USAGE, "prompt_tokens": True}},
        "usage.prompt_tokens",
        "got boolean",
    ),
    (
        "usage_negative",
        {"message": MESSAGE, "finish_reason": "stop", "usage": {**USAGE, "completion_tokens": -1}},
        "usage.completion_tokens",
        "got -1",
    ),
    (
        "usage_float",
        {"message": MESSAGE, "finish_reason": "stop", "usage": {**USAGE, "total_tokens": 2.0}},
        "usage.total_tokens",
        "got number",
    ),
    (
        "usage_cached_str",
        {"message": MESSAGE, "finish_reason": "stop", "usage": {**USAGE, "cached_tokens": "0"}},
        "usage.cached_tokens",
        "got string",
    ),
    (
        "usage_unknown",
        {"message": MESSAGE, "finish_reason": "stop", "usage": {**USAGE, "thinking_tokens": 3}},
        "usage.thinking_tokens",
        "allowed keys: prompt_tokens",
    ),
    (
        "response_unknown",
        {"message": MESSAGE, "finish_reason": "stop", "usage": USAGE, "id": "x"},
        "id",
        "allowed keys: message, finish_reason, usage, raw, parsed",
    ),
]


@pytest.mark.parametrize(
    "d, path, fragment", [g[1:] for g in RESPONSE_GARBAGE], ids=[g[0] for g in RESPONSE_GARBAGE]
)
def test_response_from_dict_garbage_names_the_path(d: Any, path: str, fragment: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        Response.from_dict(d)
    assert caught.value.path == path
    assert fragment in caught.value.message


# --- property tests ---------------------------------------------------------------------------

text = st.text(max_size=8)
non_empty = st.text(min_size=1, max_size=8)
json_scalar = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text
json_value = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
    max_leaves=8,
)
json_object = st.dictionaries(text, json_value, max_size=3)


def optional(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """A dict holding any subset of `fields` (absent keys stay absent)."""
    return st.fixed_dictionaries({}, optional=fields)


def with_required(
    required: dict[str, Any], **fields: st.SearchStrategy[Any]
) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {k: v if isinstance(v, st.SearchStrategy) else st.just(v) for k, v in required.items()},
        optional=fields,
    )


source = st.fixed_dictionaries({"type": st.just("url"), "url": text}) | st.fixed_dictionaries(
    {"type": st.just("inline"), "base64_data": text}
)
block = st.one_of(
    with_required({"type": "text", "text": text}, signature=text, origin=text),
    with_required({"type": "thinking", "text": text}, signature=text, origin=text),
    with_required({"type": "redacted_thinking", "data": text}, origin=text),
    with_required(
        {"type": "image", "source": source},
        media_type=text,
        detail=st.sampled_from(["auto", "low", "high"]),
    ),
    with_required({"type": "audio", "source": source}, media_type=text),
    with_required({"type": "file", "source": source}, media_type=text, filename=text),
)
tool_call = with_required(
    {"id": text, "name": text, "arguments": st.none() | json_object}, signature=text, origin=text
)
message = st.one_of(
    st.fixed_dictionaries({"role": st.just("system"), "content": text}),
    st.fixed_dictionaries({"role": st.just("user"), "content": text | st.lists(block, max_size=3)}),
    with_required(
        {"role": "assistant"},
        content=st.none() | text | st.lists(block, max_size=3),
        tool_calls=st.lists(tool_call, max_size=2),
    ),
    with_required({"role": "tool", "tool_call_id": text, "content": text}, name=text),
)
number = st.integers() | st.floats(allow_nan=False)
integer = st.integers()
config = optional(
    temperature=number,
    max_tokens=integer,
    top_p=number,
    top_k=integer,
    seed=integer,
    stop_sequences=st.lists(text, max_size=3),
    frequency_penalty=number,
    presence_penalty=number,
    extras=json_object,
)
tool = with_required({"name": text}, description=text, parameters=json_object, strict=st.booleans())
request = with_required(
    {"model": text, "messages": st.lists(message, max_size=4)},
    tools=st.lists(tool, max_size=3),
    tool_choice=st.sampled_from(["auto", "required", "none"])
    | st.fixed_dictionaries({"type": st.just("tool"), "name": text}),
    config=config,
    response_schema=json_object,
)
counter = st.none() | st.integers(min_value=0)
response = with_required(
    {
        "message": with_required(
            {"role": "assistant"},
            content=st.none() | text | st.lists(block, max_size=3),
            tool_calls=st.lists(tool_call, max_size=2),
        ),
        "finish_reason": st.sampled_from(
            ["stop", "length", "tool_calls", "content_filter", "error"]
        ),
        "usage": with_required(
            {"prompt_tokens": counter, "completion_tokens": counter, "total_tokens": counter},
            cached_tokens=counter,
            cache_creation_tokens=counter,
        ),
        "raw": json_value,
    },
    parsed=json_value,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(request)
def test_property_request_round_trip(d: dict[str, Any]) -> None:
    before = copy.deepcopy(d)
    assert Request.from_dict(d).to_dict() == d
    assert d == before


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(response)
def test_property_response_round_trip(d: dict[str, Any]) -> None:
    assert Response.from_dict(d).to_dict() == d


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every location inside a JSON-like value (dict keys and list indexes)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, prefix + (index,))
    return found


def _replace(value: Any, location: tuple[Any, ...], new: Any) -> Any:
    if not location:
        return new
    head, rest = location[0], location[1:]
    if isinstance(value, dict):
        return {**value, head: _replace(value[head], rest, new)}
    copied = list(value)
    copied[head] = _replace(value[head], rest, new)
    return copied


garbage = json_value | st.sampled_from(
    [object(), (1, 2), {1: 2}, b"x", float("nan"), NOT_GIVEN, set()]
)


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(request, st.data())
def test_property_corrupted_request_raises_only_invalid_request(
    d: dict[str, Any], data: st.DataObject
) -> None:
    location = data.draw(st.sampled_from(_paths(d)))
    corrupted = _replace(d, location, data.draw(garbage))
    snapshot = repr(corrupted)
    try:
        record = Request.from_dict(corrupted)
    except InvalidRequestError as error:
        assert isinstance(error.path, str)
    else:
        record.to_dict()  # whatever was accepted can be written back
    assert repr(corrupted) == snapshot


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(garbage)
def test_property_arbitrary_values_raise_only_invalid_request(value: Any) -> None:
    for read in (Request.from_dict, Response.from_dict, message_from_dict, block_from_dict):
        try:
            read(value)
        except InvalidRequestError:
            pass


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(response, st.data())
def test_property_corrupted_response_raises_only_invalid_request(
    d: dict[str, Any], data: st.DataObject
) -> None:
    location = data.draw(st.sampled_from(_paths(d)))
    try:
        Response.from_dict(_replace(d, location, data.draw(garbage)))
    except InvalidRequestError:
        pass


def test_errors_are_provider_errors() -> None:
    with pytest.raises(ProviderError):
        Request.from_dict({})


@pytest.mark.parametrize("key", ["anthropic_messages", "openai_chat", "gemini_generate_content", "openai_responses"])
def test_a_subclass_of_a_message_record_is_written_as_its_role(key: str) -> None:
    """Validation tells roles apart with isinstance, so the writers do too: a subclass of
    UserMessage is a user turn, never dropped."""
    import wiremap

    class NotedUser(UserMessage):
        __slots__ = ()

    fmt = wiremap.get_format(key)
    plain = fmt.request_to_wire(Request(model="m", messages=[UserMessage(content="hello there")]))
    sub = fmt.request_to_wire(Request(model="m", messages=[NotedUser(content="hello there")]))
    assert sub == plain
    assert "hello there" in repr(sub)

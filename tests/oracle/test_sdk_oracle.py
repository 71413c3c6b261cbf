"""Tests for the strict SDK oracle (tests/oracle/sdk_oracle.py).

These tests exercise the oracle itself; they do not import wiremap.
"""

from __future__ import annotations

import ast
import copy
import inspect
import sys
import typing
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sdk_oracle  # noqa: E402
from sdk_oracle import (  # noqa: E402
    ANTHROPIC_HEADER_ONLY_PARAMS,
    ANTHROPIC_REQUEST_ROOT_EXTENSIONS,
    OracleError,
    check_anthropic_messages_request,
    check_anthropic_messages_response,
    check_openai_chat_request,
    check_openai_chat_response,
    check_openai_embeddings_request,
    check_openai_embeddings_response,
    check_openai_images_request,
    check_openai_images_response,
    check_typed,
)

import pydantic  # noqa: E402
from anthropic.types import Message as AnthropicMessage  # noqa: E402
from anthropic.types.message_create_params import (  # noqa: E402
    MessageCreateParamsBase as AnthropicCreateParamsBase,
)
from anthropic.types.message_create_params import (  # noqa: E402
    MessageCreateParamsNonStreaming as AnthropicCreateParamsNonStreaming,
)
from openai.types.chat import ChatCompletion  # noqa: E402
from openai.types.chat.completion_create_params import (  # noqa: E402
    CompletionCreateParamsNonStreaming as OpenAICreateParamsNonStreaming,
)

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["c", "f"]},
    },
    "required": ["city", "unit"],
    "additionalProperties": False,
}


# ======================================================================================
# Fixtures: realistic bodies
# ======================================================================================


def openai_request() -> dict:
    return {
        "model": "gpt-4o-2024-08-06",
        "messages": [
            {"role": "developer", "content": "Answer in one sentence."},
            {"role": "system", "content": "You are a helpful assistant."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in this image, audio and file?"},
                    {
                        "type": "image_url",
                        "image_url": {"url": "https://example.com/cat.png", "detail": "high"},
                    },
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
                    {"type": "input_audio", "input_audio": {"data": "UklGRiQAAABXQVZF", "format": "wav"}},
                    {
                        "type": "file",
                        "file": {
                            "filename": "report.pdf",
                            "file_data": "data:application/pdf;base64,JVBERi0xLjQK",
                        },
                    },
                    {"type": "file", "file": {"file_id": "file-abc123"}},
                ],
                "name": "alice",
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_abc123",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "c"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_abc123", "content": '{"temp": 21}'},
            {"role": "assistant", "content": [{"type": "text", "text": "It is 21°C in Paris."}]},
            {"role": "user", "content": "Thanks!"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Get the current weather for a city.",
                    "parameters": WEATHER_SCHEMA,
                    "strict": True,
                },
            }
        ],
        "tool_choice": "auto",
        "parallel_tool_calls": False,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": "answer",
                "description": "The final answer",
                "schema": {
                    "type": "object",
                    "properties": {"answer": {"type": "string"}},
                    "required": ["answer"],
                    "additionalProperties": False,
                },
                "strict": True,
            },
        },
        "max_completion_tokens": 512,
        "stop": ["\n\n", "END"],
        "seed": 42,
        "temperature": 0.2,
        "top_p": 1,  # int accepted where float is declared
        "n": 1,
        "logit_bias": {"50256": -100},
        "metadata": {"run_id": "r-1"},
        "stream": False,
        "user": "user-123",
    }


def anthropic_request() -> dict:
    return {
        "model": "claude-sonnet-4-5-20250929",
        "max_tokens": 1024,
        "system": "You are a helpful assistant.",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Describe these.", "cache_control": {"type": "ephemeral"}},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
                    },
                    {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.png"}},
                    {
                        "type": "document",
                        "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0x"},
                        "title": "Report",
                        "context": "Quarterly numbers",
                        "citations": {"enabled": True},
                    },
                    {
                        "type": "document",
                        "source": {"type": "text", "media_type": "text/plain", "data": "Plain text doc."},
                    },
                    {"type": "document", "source": {"type": "url", "url": "https://example.com/a.pdf"}},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "I should call the tool.", "signature": "EqQBCgIYAhIM1gbcDa9"},
                    {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
                    {"type": "text", "text": "Checking the weather."},
                    {
                        "type": "tool_use",
                        "id": "toolu_01A09q90qw90lq917835lq9",
                        "name": "get_weather",
                        "input": {"city": "Paris", "unit": "c"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_01A09q90qw90lq917835lq9",
                        "content": [{"type": "text", "text": "21°C, sunny"}],
                        "is_error": False,
                    },
                    {"type": "text", "text": "And tomorrow?"},
                ],
            },
            {"role": "assistant", "content": "Let me check."},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_02", "content": "timeout", "is_error": True}],
            },
        ],
        "tools": [
            {
                "name": "get_weather",
                "description": "Get the current weather for a city.",
                "input_schema": WEATHER_SCHEMA,
            },
            {
                "type": "custom",
                "name": "lookup",
                "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
                "strict": True,
                "cache_control": {"type": "ephemeral", "ttl": "1h"},
            },
        ],
        "tool_choice": {"type": "auto"},
        "stop_sequences": ["\n\nHuman:", "END"],
        "top_k": 40,  # ANTHROPIC_REQUEST_ROOT_EXTENSIONS (not in the installed SDK)
        "temperature": 1,
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "output_config": {
            "format": {
                "type": "json_schema",
                "schema": {
                    "type": "object",
                    "properties": {"answer": {"type": "string"}},
                    "required": ["answer"],
                    "additionalProperties": False,
                },
            }
        },
        "metadata": {"user_id": "u-123"},
        "stream": False,
    }


def openai_response() -> dict:
    return {
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion",
        "created": 1741569952,
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "Hello! How can I assist you today?",
                    "refusal": None,
                    "annotations": [],
                },
                "logprobs": None,
                "finish_reason": "stop",
            },
            {
                "index": 1,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "refusal": None,
                    "tool_calls": [
                        {
                            "id": "call_abc123",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris","unit":"c"}'},
                        }
                    ],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            },
        ],
        "usage": {
            "prompt_tokens": 19,
            "completion_tokens": 10,
            "total_tokens": 29,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 0,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        },
        "service_tier": "default",
        "system_fingerprint": "fp_f33640a400",
    }


def anthropic_response() -> dict:
    return {
        "id": "msg_013Zva2CMHLNnXjNJJKqJ2EF",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "thinking", "thinking": "The user wants weather.", "signature": "EqQBCgIYAhIM"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
            {"type": "text", "text": "Let me check.", "citations": None},
            {
                "type": "tool_use",
                "id": "toolu_01A09q90qw90lq917835lq9",
                "name": "get_weather",
                "input": {"city": "Paris", "unit": "c"},
            },
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 2095,
            "output_tokens": 503,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
            "service_tier": "standard",
        },
    }


def raises(fn, *args, **kwargs) -> OracleError:
    with pytest.raises(OracleError) as info:
        fn(*args, **kwargs)
    return info.value


# ======================================================================================
# Valid bodies pass
# ======================================================================================


def test_openai_realistic_request_passes():
    check_openai_chat_request(openai_request())


def test_openai_minimal_system_user_request_passes():
    check_openai_chat_request(
        {
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "Hi"},
            ],
        }
    )


@pytest.mark.parametrize(
    "tool_choice",
    [
        "none",
        "auto",
        "required",
        {"type": "function", "function": {"name": "get_weather"}},
        {
            "type": "allowed_tools",
            "allowed_tools": {
                "mode": "required",
                "tools": [{"type": "function", "function": {"name": "get_weather"}}],
            },
        },
    ],
)
def test_openai_tool_choice_forms_pass(tool_choice):
    body = openai_request()
    body["tool_choice"] = tool_choice
    check_openai_chat_request(body)


@pytest.mark.parametrize(
    "response_format",
    [
        {"type": "text"},
        {"type": "json_object"},
        {"type": "json_schema", "json_schema": {"name": "x"}},
    ],
)
def test_openai_response_format_forms_pass(response_format):
    body = openai_request()
    body["response_format"] = response_format
    check_openai_chat_request(body)


def test_openai_stop_as_string_and_nullable_scalars_pass():
    body = openai_request()
    body["stop"] = "END"
    body["temperature"] = None  # Optional[float] in the SDK
    body["max_tokens"] = 100
    check_openai_chat_request(body)


def test_anthropic_realistic_request_passes():
    check_anthropic_messages_request(anthropic_request())


def test_anthropic_system_as_text_blocks_passes():
    body = anthropic_request()
    body["system"] = [
        {"type": "text", "text": "You are a helpful assistant."},
        {"type": "text", "text": "Long cached context.", "cache_control": {"type": "ephemeral"}},
    ]
    check_anthropic_messages_request(body)


@pytest.mark.parametrize(
    "tool_choice",
    [
        {"type": "auto"},
        {"type": "auto", "disable_parallel_tool_use": True},
        {"type": "any"},
        {"type": "tool", "name": "get_weather"},
        {"type": "none"},
    ],
)
def test_anthropic_tool_choice_forms_pass(tool_choice):
    body = anthropic_request()
    body["tool_choice"] = tool_choice
    check_anthropic_messages_request(body)


def test_openai_realistic_response_passes():
    check_openai_chat_response(openai_response())


def test_anthropic_realistic_response_passes():
    check_anthropic_messages_response(anthropic_response())


def test_anthropic_minimal_text_response_passes():
    check_anthropic_messages_response(
        {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": "claude-haiku-4-5",
            "content": [{"type": "text", "text": "Hi!"}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 3},
        }
    )


# ======================================================================================
# The oracle catches what it must
# ======================================================================================


def test_misspelled_root_key_openai():
    body = openai_request()
    body["max_completion_token"] = body.pop("max_completion_tokens")
    err = raises(check_openai_chat_request, body)
    assert err.path == "max_completion_token"
    assert "unknown key" in err.message
    assert "did you mean 'max_completion_tokens'" in err.message


def test_misspelled_root_key_anthropic():
    body = anthropic_request()
    body["stop_sequence"] = body.pop("stop_sequences")
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "stop_sequence"
    assert "unknown key" in err.message


def test_misspelled_key_nested_in_iterable_openai():
    body = openai_request()
    body["messages"][2]["content"][1]["image_url"] = {"url": "https://example.com/cat.png", "detial": "high"}
    err = raises(check_openai_chat_request, body)
    assert str(err).startswith(
        "messages[2].content[1].image_url.detial: unknown key; expected one of: detail, url"
    )


def test_misspelled_key_directly_in_content_part_openai():
    body = openai_request()
    body["messages"][2]["content"][0] = {"type": "text", "txt": "hello"}
    err = raises(check_openai_chat_request, body)
    assert err.path == "messages[2].content[0].txt"


def test_misspelled_key_nested_in_iterable_anthropic():
    body = anthropic_request()
    body["messages"][1]["content"][0] = {"type": "text", "text": "x", "cache_ctrl": {"type": "ephemeral"}}
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "messages[1].content[0].cache_ctrl"
    assert "cache_control" in err.message


def test_misspelled_key_deep_in_tool_call_arguments_container():
    body = openai_request()
    body["messages"][3]["tool_calls"][0]["function"]["args"] = "{}"
    err = raises(check_openai_chat_request, body)
    assert err.path == "messages[3].tool_calls[0].function.args"


def test_wrong_literal_value():
    body = openai_request()
    body["messages"][2]["content"][3]["input_audio"]["format"] = "flac"
    err = raises(check_openai_chat_request, body)
    assert err.path == "messages[2].content[3].input_audio.format"
    assert "'flac' is not one of: 'wav', 'mp3'" in err.message


def test_wrong_discriminator_literal_names_the_discriminator():
    body = openai_request()
    body["messages"][0]["role"] = "assistent"
    err = raises(check_openai_chat_request, body)
    assert err.path == "messages[0].role"
    assert "'assistant'" in err.message and "'tool'" in err.message

    body = anthropic_request()
    body["tool_choice"] = {"type": "auto_tool"}
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "tool_choice.type"


def test_wrong_literal_image_detail_anthropic_media_type():
    body = anthropic_request()
    body["messages"][0]["content"][1]["source"]["media_type"] = "image/bmp"
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "messages[0].content[1].source.media_type"


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda b: b.pop("model"), "model"),
        (lambda b: b.pop("messages"), "messages"),
        (lambda b: b["messages"][4].pop("tool_call_id"), "messages[4].tool_call_id"),
        (lambda b: b["messages"][2]["content"][1]["image_url"].pop("url"), "messages[2].content[1].image_url.url"),
        (lambda b: b["tools"][0]["function"].pop("name"), "tools[0].function.name"),
    ],
)
def test_missing_required_key_openai(mutate, path):
    body = openai_request()
    mutate(body)
    err = raises(check_openai_chat_request, body)
    assert err.path == path
    assert "required key missing" in err.message


@pytest.mark.parametrize(
    "mutate, path",
    [
        (lambda b: b.pop("max_tokens"), "max_tokens"),
        (lambda b: b["messages"][1]["content"][0].pop("signature"), "messages[1].content[0].signature"),
        (lambda b: b["tools"][0].pop("input_schema"), "tools[0].input_schema"),
        (lambda b: b["messages"][2]["content"][0].pop("tool_use_id"), "messages[2].content[0].tool_use_id"),
    ],
)
def test_missing_required_key_anthropic(mutate, path):
    body = anthropic_request()
    mutate(body)
    err = raises(check_anthropic_messages_request, body)
    assert err.path == path
    assert "required key missing" in err.message


@pytest.mark.parametrize(
    "key, value, expected",
    [
        ("max_completion_tokens", True, "expected integer or null, got boolean True"),  # bool is not int
        ("max_completion_tokens", 1.5, "expected integer"),
        ("seed", "42", "expected integer"),
        ("temperature", False, "boolean"),
        ("temperature", float("nan"), "finite"),
        ("parallel_tool_calls", 1, "expected boolean"),
        ("stop", 5, "expected"),
        ("model", 4, "expected string"),
    ],
)
def test_wrong_scalar_type_openai(key, value, expected):
    body = openai_request()
    body[key] = value
    err = raises(check_openai_chat_request, body)
    assert err.path == key
    assert expected in err.message


def test_wrong_scalar_type_nested_anthropic():
    body = anthropic_request()
    body["thinking"]["budget_tokens"] = "2048"
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "thinking.budget_tokens"

    body = anthropic_request()
    body["messages"][2]["content"][0]["is_error"] = "false"
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "messages[2].content[0].is_error"


def test_string_is_not_an_array():
    body = anthropic_request()
    body["stop_sequences"] = "END"  # SequenceNotStr[str]
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "stop_sequences"


def test_tool_call_arguments_must_be_a_json_string_not_an_object():
    body = openai_request()
    body["messages"][3]["tool_calls"][0]["function"]["arguments"] = {"city": "Paris"}
    err = raises(check_openai_chat_request, body)
    assert err.path == "messages[3].tool_calls[0].function.arguments"


def test_dict_of_object_accepts_any_json_but_only_json():
    body = anthropic_request()
    body["messages"][1]["content"][3]["input"] = {"nested": [1, 2.5, None, {"x": True}]}
    check_anthropic_messages_request(body)
    body["messages"][1]["content"][3]["input"] = {"bad": {1, 2}}
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "messages[1].content[3].input.bad"


def test_stream_true_rejected_unless_allowed():
    body = openai_request()
    body["stream"] = True
    err = raises(check_openai_chat_request, body)
    assert err.path == "stream"
    check_openai_chat_request(body, allow_stream=True)

    body = anthropic_request()
    body["stream"] = True
    raises(check_anthropic_messages_request, body)
    check_anthropic_messages_request(body, allow_stream=True)


def test_non_object_body():
    err = raises(check_openai_chat_request, [])
    assert err.path == ""


# -- extras and documented deviations ---------------------------------------------------


def test_allow_extra_root_keys():
    body = openai_request()
    body["openarmature_trace"] = {"span": "abc"}
    err = raises(check_openai_chat_request, body)
    assert err.path == "openarmature_trace"
    check_openai_chat_request(body, allow_extra_root_keys=frozenset({"openarmature_trace"}))
    # The whitelist is root-only: the same key nested is still an error.
    body["messages"][0]["openarmature_trace"] = 1
    err = raises(check_openai_chat_request, body, allow_extra_root_keys=frozenset({"openarmature_trace"}))
    assert err.path == "messages[0].openarmature_trace"
    # Declared keys stay validated even if whitelisted.
    body = openai_request()
    body["seed"] = "x"
    raises(check_openai_chat_request, body, allow_extra_root_keys=frozenset({"seed"}))


def test_allow_extra_root_keys_anthropic_and_responses():
    body = anthropic_request()
    body["x_extra"] = [1, 2]
    raises(check_anthropic_messages_request, body)
    check_anthropic_messages_request(body, allow_extra_root_keys={"x_extra"})

    resp = openai_response()
    resp["x_request_id"] = "req_1"
    raises(check_openai_chat_response, resp)
    check_openai_chat_response(resp, allow_extra_root_keys={"x_request_id"})


def test_anthropic_sampling_extensions():
    """top_k/top_p/temperature are documented by the API but absent from the installed SDK
    params; they are accepted via ANTHROPIC_REQUEST_ROOT_EXTENSIONS (typed) unless
    use_extensions=False."""
    sdk_keys = set(typing.get_type_hints(AnthropicCreateParamsNonStreaming))
    missing_from_sdk = set(ANTHROPIC_REQUEST_ROOT_EXTENSIONS) - sdk_keys
    body = anthropic_request()
    body["top_p"] = 0.9
    check_anthropic_messages_request(body)
    if missing_from_sdk:  # the installed SDK (anthropic 2.12) lacks all three
        err = raises(check_anthropic_messages_request, body, use_extensions=False)
        assert err.path in missing_from_sdk
        assert "unknown key" in err.message
    body["top_k"] = 40.5
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "top_k"


def test_anthropic_header_only_params_rejected_in_body():
    body = anthropic_request()
    body["workspace_id"] = "wrkspc_01"
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "workspace_id"


def _sdk_create_body_keys(module, class_name: str, route: str) -> set[str] | None:
    """Keys of the dict literal that SDK ``create()`` passes as ``body=`` to ``_post(route)``."""
    tree = ast.parse(inspect.getsource(module))
    for cls in tree.body:
        if not (isinstance(cls, ast.ClassDef) and cls.name == class_name):
            continue
        for fn in cls.body:
            if not (isinstance(fn, ast.FunctionDef) and fn.name == "create"):
                continue
            for node in ast.walk(fn):
                if not (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "_post"):
                    continue
                if not (node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == route):
                    continue
                for kw in node.keywords:
                    if kw.arg == "body":
                        for d in ast.walk(kw.value):
                            if isinstance(d, ast.Dict):
                                return {k.value for k in d.keys if isinstance(k, ast.Constant)}
    return None


def test_header_only_params_match_sdk_source():
    """Drift detector: TypedDict keys that create() does not put in the body."""
    import anthropic.resources.messages.messages as anthropic_messages
    import openai.resources.chat.completions.completions as openai_completions

    a_body = _sdk_create_body_keys(anthropic_messages, "Messages", "/v1/messages")
    o_body = _sdk_create_body_keys(openai_completions, "Completions", "/chat/completions")
    if a_body is None or o_body is None:
        pytest.skip("SDK create() source layout changed; cannot derive body keys")
    a_td = set(typing.get_type_hints(AnthropicCreateParamsBase)) | {"stream"}
    o_td = set(typing.get_type_hints(OpenAICreateParamsNonStreaming))
    assert a_td - a_body == set(ANTHROPIC_HEADER_ONLY_PARAMS)
    assert a_body <= a_td
    assert o_td == o_body  # OpenAI: every TypedDict key is a body key


# -- responses --------------------------------------------------------------------------


def test_openai_response_misspelled_keys():
    resp = openai_response()
    resp["choices"][0]["finish_reson"] = resp["choices"][0].pop("finish_reason")
    err = raises(check_openai_chat_response, resp)
    assert err.path in ("choices[0].finish_reson", "choices[0].finish_reason")

    resp = openai_response()
    resp["choices"][1]["message"]["tool_calls"][0]["function"]["argument"] = "{}"
    err = raises(check_openai_chat_response, resp)
    assert err.path == "choices[1].message.tool_calls[0].function.argument"

    resp = openai_response()
    resp["usage"]["prompt_tokens_details"]["cache_tokens"] = 5
    err = raises(check_openai_chat_response, resp)
    assert err.path == "usage.prompt_tokens_details.cache_tokens"
    assert "cached_tokens" in err.message


def test_openai_response_wrong_literal_and_missing():
    resp = openai_response()
    resp["choices"][0]["finish_reason"] = "end_turn"
    err = raises(check_openai_chat_response, resp)
    assert err.path == "choices[0].finish_reason"

    resp = openai_response()
    del resp["created"]
    err = raises(check_openai_chat_response, resp)
    assert err.path == "created"


def test_anthropic_response_misspelled_keys():
    resp = anthropic_response()
    resp["usage"]["cache_read_tokens"] = resp["usage"].pop("cache_read_input_tokens")
    err = raises(check_anthropic_messages_response, resp)
    assert err.path == "usage.cache_read_tokens"

    resp = anthropic_response()
    resp["content"][3]["arguments"] = resp["content"][3].pop("input")
    err = raises(check_anthropic_messages_response, resp)
    assert err.path in ("content[3].arguments", "content[3].input")

    resp = anthropic_response()
    resp["stop_reason"] = "stop"
    err = raises(check_anthropic_messages_response, resp)
    assert err.path == "stop_reason"


def test_response_nulls_allowed_where_sdk_says_optional():
    resp = anthropic_response()
    resp["stop_reason"] = None  # Optional in the SDK model
    resp["usage"]["cache_creation"] = None
    check_anthropic_messages_response(resp)
    resp["usage"]["input_tokens"] = None  # required int
    err = raises(check_anthropic_messages_response, resp)
    assert err.path == "usage.input_tokens"


# ======================================================================================
# Why the oracle exists: plain pydantic is lenient
# ======================================================================================


def test_plain_typeadapter_misses_a_misspelled_nested_key():
    """pydantic drops unknown TypedDict keys and validates Iterable fields lazily, so the
    misspelled ``detial`` (and even a misspelled root key) sails through.  The oracle
    does not let it."""
    body = openai_request()
    body["messages"][2]["content"][1]["image_url"] = {"url": "https://example.com/cat.png", "detial": "high"}
    body["max_completion_token"] = 5
    pydantic.TypeAdapter(OpenAICreateParamsNonStreaming).validate_python(body)  # no error!
    raises(check_openai_chat_request, body)


def test_plain_typeadapter_misses_a_misspelled_nested_key_anthropic():
    body = anthropic_request()
    del body["top_k"], body["temperature"]  # not declared by the SDK at all
    body["messages"][1]["content"][0] = {"type": "thinking", "thinking": "x", "signature": "s", "signatur": "y"}
    pydantic.TypeAdapter(AnthropicCreateParamsNonStreaming).validate_python(body)  # no error!
    err = raises(check_anthropic_messages_request, body)
    assert err.path == "messages[1].content[0].signatur"


def test_sdk_model_validate_misses_a_misspelled_response_key():
    """SDK response models use extra="allow": a misspelled key becomes an extra attribute."""
    resp = openai_response()
    resp["choices"][0]["message"]["contnet"] = "oops"
    ChatCompletion.model_validate(resp)  # no error!
    raises(check_openai_chat_response, resp)

    resp = anthropic_response()
    resp["stop_sequnce"] = None
    AnthropicMessage.model_validate(resp)  # no error!
    raises(check_anthropic_messages_response, resp)


# ======================================================================================
# check_typed and oracle self-checks
# ======================================================================================


def test_check_typed_generic():
    check_typed({"a": [1, 2.0]}, typing.Dict[str, typing.List[float]])
    err = raises(check_typed, {"a": [1, "2"]}, typing.Dict[str, typing.List[float]], "root")
    assert err.path == "root.a[1]"
    err = raises(check_typed, True, int)
    assert "boolean" in err.message
    check_typed(None, typing.Optional[int])
    err = raises(check_typed, 3, typing.Literal[True, "x"])
    assert "not one of" in err.message
    raises(check_typed, 1, typing.Literal[True])  # 1 == True in Python, not in JSON
    check_typed(5, float)
    check_typed("2025-01-01T00:00:00Z", __import__("datetime").datetime)


def test_oracle_supports_every_type_reachable_from_the_sdk_roots():
    """Drift detector: a new SDK construct must not be silently accepted or crash."""
    seen: set = set()

    def walk(tp):
        bare, _ = sdk_oracle._strip(tp)
        key = repr(bare)
        if key in seen:
            return
        seen.add(key)
        sdk_oracle._kinds(bare)  # raises OracleTypeError for an unknown construct
        shape = sdk_oracle._shape(bare)
        if shape is not None:
            for field in shape.fields.values():
                walk(field.tp)
            return
        origin = typing.get_origin(bare)
        if origin is not None and origin not in sdk_oracle._LITERALS:
            for arg in typing.get_args(bare):
                if arg is not Ellipsis:
                    walk(arg)

    for root in (OpenAICreateParamsNonStreaming, ChatCompletion, AnthropicCreateParamsNonStreaming, AnthropicMessage):
        walk(root)
    assert len(seen) > 200


def test_required_keys_computed_despite_future_annotations():
    """typing's __required_keys__ is unreliable for the SDK TypedDicts (stringified
    annotations); the oracle derives requiredness from Required[]/total= itself."""
    shape = sdk_oracle._shape_of_typeddict(OpenAICreateParamsNonStreaming)
    assert {k for k, f in shape.fields.items() if f.required} == {"model", "messages"}
    shape = sdk_oracle._shape_of_typeddict(AnthropicCreateParamsNonStreaming)
    assert {k for k, f in shape.fields.items() if f.required} == {"model", "messages", "max_tokens"}


def test_fixtures_are_not_mutated_by_checks():
    body = openai_request()
    snapshot = copy.deepcopy(body)
    check_openai_chat_request(body)
    assert body == snapshot


def test_oracle_does_not_import_wiremap():
    for path in (Path(sdk_oracle.__file__), Path(__file__)):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not any(a.name.split(".")[0] == "wiremap" for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                assert (node.module or "").split(".")[0] != "wiremap"


# --- the non-chat kinds: embeddings and images ------------------------------------------------


def test_openai_embeddings_bodies_pass():
    check_openai_embeddings_request({"model": "m", "input": ["a", "b"], "dimensions": 8, "encoding_format": "float"})
    check_openai_embeddings_response(
        {
            "object": "list",
            "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 2]}],
            "model": "m",
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
    )


def test_openai_embeddings_oracle_is_strict():
    assert raises(check_openai_embeddings_request, {"model": "m", "input": "a", "dimension": 8}).path == "dimension"
    assert raises(check_openai_embeddings_request, {"model": "m", "input": "a", "encoding_format": "int8"}).path == "encoding_format"
    body = {"object": "list", "data": [{"object": "embedding", "index": 0, "embeding": [0.1]}], "model": "m", "usage": {"prompt_tokens": 1, "total_tokens": 1}}
    assert raises(check_openai_embeddings_response, body).path.startswith("data[0]")


def test_openai_images_bodies_pass():
    check_openai_images_request({"model": "gpt-image-2", "prompt": "A cat", "n": 2, "size": "1024x1024", "output_format": "webp"})
    check_openai_images_response(
        {
            "created": 1,
            "data": [{"b64_json": "AA=="}],
            "output_format": "png",
            "usage": {"input_tokens": 1, "input_tokens_details": {"image_tokens": 0, "text_tokens": 1}, "output_tokens": 2, "total_tokens": 3},
        }
    )


def test_openai_images_oracle_is_strict():
    assert raises(check_openai_images_request, {"model": "m", "prompt": "p", "qualty": "high"}).path == "qualty"
    raises(check_openai_images_request, {"model": "m"})  # prompt is required
    assert raises(check_openai_images_response, {"created": 1, "data": [{"b64": "AA=="}]}).path.startswith("data[0]")
    usage_without_details = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    assert raises(check_openai_images_response, {"created": 1, "usage": usage_without_details}).path.startswith("usage")

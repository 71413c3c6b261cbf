"""A response's tool-call arguments keep the key order the model generated them in, in every
format but the `openarmature.*` dialects (OpenArmature §8 sorts user JSON; the providers' APIs
do not). The request writers always kept the caller's order; the response writers of the
formats whose arguments are a JSON object (Anthropic `input`, Gemini `args`, Bedrock `input`)
sorted them, so an Anthropic response read and written back came out with its tool input
reordered, and the recorded-traffic harness (which compares with sorted keys) could not see it.
The embeddings and images formats sorted an extra's value the same way."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

import wiremap

ARGS = '{"zeta": {"y": 1, "b": [{"d": 1, "c": 2}]}, "alpha": "x", "mid": null}'
OPENAI_RESPONSE: dict[str, Any] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "m",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": ARGS}}],
            },
        }
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
}
CHAT = sorted(k for k in wiremap.formats() if wiremap.get_format(k).kind == "chat")


def _arguments(fmt: Any, body: dict[str, Any]) -> str:
    """The first tool call's arguments as the format's reader gives them, as JSON text in their order."""
    return json.dumps(fmt.response_from_wire(body).message.tool_calls[0].arguments)


def test_the_chat_formats_are_all_here() -> None:
    assert {"anthropic_messages", "gemini_generate_content", "bedrock_converse", "openai_responses", "openarmature.anthropic_messages"} <= set(CHAT)


@pytest.mark.parametrize("key", CHAT)
def test_a_response_written_in_a_format_keeps_the_arguments_order(key: str) -> None:
    fmt = wiremap.get_format(key)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        written = fmt.response_to_wire(wiremap.get_format("openai_chat").response_from_wire(OPENAI_RESPONSE))
        got = _arguments(fmt, written)
        again = fmt.response_to_wire(fmt.response_from_wire(written))
    given = json.dumps(json.loads(ARGS))
    if key.startswith("openarmature."):
        assert got == json.dumps(json.loads(ARGS), sort_keys=True)  # OpenArmature §8
    else:
        assert got == given
    # the same format in and out: the identity, key order included
    assert json.dumps(again) == json.dumps(written)


@pytest.mark.parametrize("target", ["anthropic_messages", "gemini_generate_content"])
def test_the_fused_response_translator_keeps_the_order_as_the_two_step_way_does(target: str) -> None:
    src, dst = wiremap.get_format("openai_chat"), wiremap.get_format(target)
    fused = wiremap.translator("openai_chat", target).response(OPENAI_RESPONSE)
    assert json.dumps(fused) == json.dumps(dst.response_to_wire(src.response_from_wire(OPENAI_RESPONSE)))
    assert _arguments(dst, fused) == json.dumps(json.loads(ARGS))


def test_an_anthropic_response_comes_back_byte_for_byte() -> None:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": json.loads(ARGS)}],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 2},
    }
    fmt = wiremap.get_format("anthropic_messages")
    again = fmt.response_to_wire(fmt.response_from_wire(body))
    assert json.dumps(again["content"]) == json.dumps(body["content"])


TASKS = sorted(k for k in wiremap.formats() if wiremap.get_format(k).kind in ("embeddings", "images"))


@pytest.mark.parametrize("key", TASKS)
def test_an_extra_of_an_embeddings_or_images_request_keeps_its_key_order(key: str) -> None:
    """mappings/README.md, `extras.placement`: an extra's value keeps the caller's key order (it
    was sorted in the embeddings and images formats)."""
    fmt = wiremap.get_format(key)
    extra = {"zeta": {"y": 1, "b": 2}, "alpha": [{"d": 1, "c": 2}]}
    request = {"model": "m", "messages": [{"role": "user", "content": "a cat"}], "config": {"extras": {"custom_option": extra}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        body = fmt.request_to_wire(request)
    assert json.dumps(body["custom_option"]) == json.dumps(extra)

"""A tool call the provider sends without its arguments key (`request.tool_calls.missing_arguments:
empty`): Gemini's FunctionCall.args is optional in its API reference, and OpenRouter answered a
recorded call of a tool whose parameters are all optional with no `function.arguments` at all
(pydantic-ai's test_openrouter_tool_optional_parameters cassette). wiremap refused both
responses. They read as a call with no arguments ({}), the same wire gets the body back as it
came, another wire gets `{}` with nothing named lost, and the OpenAI base format, whose reference
requires the key, still refuses it at its path."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import wiremap
from wiremap.runtime.errors import InvalidResponseError
from wiremap.runtime.stream import StreamAssembler, parse_stream

RECORDED = Path(__file__).resolve().parents[3] / "shared" / "recorded" / "openrouter.jsonl"

OPENROUTER: dict[str, Any] = {
    "id": "gen-1764308342-FInFdBZR9TF8jmnOwZGZ",
    "object": "chat.completion",
    "created": 1764308342,
    "model": "anthropic/claude-sonnet-4.5",
    "provider": "Google",
    "choices": [{
        "index": 0, "finish_reason": "tool_calls", "native_finish_reason": "tool_calls", "logprobs": None,
        "message": {
            "role": "assistant", "content": "I'll search for education content for you.", "refusal": None, "reasoning": None,
            "tool_calls": [{"id": "toolu_vrtx_015QAXScZzRDPttiPoc34AdD", "index": 0, "type": "function",
                            "function": {"name": "find_education_content"}}],
        },
    }],
    "usage": {"prompt_tokens": 568, "completion_tokens": 48, "total_tokens": 616},
}

GEMINI: dict[str, Any] = {
    "candidates": [{
        "content": {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "get_time"}}]},
        "finishReason": "STOP", "index": 0,
    }],
    "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 3, "totalTokenCount": 15},
    "modelVersion": "gemini-2.5-flash",
    "responseId": "r1",
}

CASES = [("openrouter", OPENROUTER, "anthropic_messages"), ("gemini_generate_content", GEMINI, "openai_chat")]


def test_the_recorded_openrouter_answer_is_the_one_tested_here() -> None:
    if not RECORDED.is_file():
        pytest.skip("../shared/recorded is not beside the repository")
    lines = [json.loads(line) for line in RECORDED.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert any(rec["kind"] == "response" and rec["body"] == OPENROUTER for rec in lines)


@pytest.mark.parametrize(("fmt", "body", "other"), CASES, ids=[c[0] for c in CASES])
def test_it_reads_as_a_call_with_no_arguments(fmt: str, body: dict[str, Any], other: str) -> None:
    given = copy.deepcopy(body)
    calls = wiremap.get_format(fmt).response_from_wire(body).message.tool_calls
    assert [(c.name, c.arguments) for c in calls] == [(calls[0].name, {})]
    assert body == given


@pytest.mark.parametrize(("fmt", "body", "other"), CASES, ids=[c[0] for c in CASES])
def test_the_same_wire_gets_the_body_back_as_it_came(fmt: str, body: dict[str, Any], other: str) -> None:
    same = wiremap.translate_response(body, fmt, fmt)
    assert same.result == body and same.losses == []


@pytest.mark.parametrize(("fmt", "body", "other"), CASES, ids=[c[0] for c in CASES])
def test_another_wire_gets_empty_arguments_and_nothing_is_named_lost(fmt: str, body: dict[str, Any], other: str) -> None:
    out = wiremap.translate_response(body, fmt, other)
    back = wiremap.get_format(other).response_from_wire(out.result)
    assert [c.arguments for c in back.message.tool_calls] == [{}]
    assert not [loss for loss in out.losses if "arguments" in loss.path or "args" in loss.path]


@pytest.mark.parametrize(("fmt", "body", "other"), CASES, ids=[c[0] for c in CASES])
def test_written_again_the_call_has_its_arguments_key(fmt: str, body: dict[str, Any], other: str) -> None:
    """The writer sends the key (the references require it on a request's history): only the
    carried data of the same wire's own answer leaves it out."""
    module = wiremap.get_format(fmt)
    read = module.response_from_wire(body)
    read.carried = None
    text = json.dumps(module.response_to_wire(read))
    assert ('"arguments": "{}"' if fmt == "openrouter" else '"args": {}') in text


def test_a_present_key_is_still_read_as_the_required_one() -> None:
    body = copy.deepcopy(OPENROUTER)
    body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = "not json"
    with pytest.raises(InvalidResponseError) as err:
        wiremap.get_format("openrouter").response_from_wire(body)
    assert "choices[0].message.tool_calls[0].function.arguments" in str(err.value)


def test_the_openai_base_format_follows_its_reference_and_refuses_it() -> None:
    with pytest.raises(InvalidResponseError) as err:
        wiremap.get_format("openai_chat").response_from_wire(OPENROUTER)
    assert "choices[0].message.tool_calls[0].function.arguments" in str(err.value)


def test_streamed_and_whole_answers_agree() -> None:
    """Gemini's stream rule already read `functionCall.args?` as no arguments: the non-streamed
    reader now gives the same call."""
    events = parse_stream(b"data: " + json.dumps(GEMINI).encode() + b"\r\n\r\n", "gemini_generate_content")
    assembler = StreamAssembler("gemini_generate_content")
    for ev in events:
        assembler.add(ev)
    streamed = assembler.response().message.tool_calls
    whole = wiremap.get_format("gemini_generate_content").response_from_wire(GEMINI).message.tool_calls
    assert [(c.id, c.name, c.arguments) for c in streamed] == [(c.id, c.name, c.arguments) for c in whole] == [("c1", "get_time", {})]

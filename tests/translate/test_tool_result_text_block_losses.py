"""A tool result whose content is a list of text blocks reads as one string; what else those
blocks hold (an Anthropic cache breakpoint on the block, its citations) is carried back to the
same provider, and named in the loss report for any other target. The report left out a key the
reading format's tables name elsewhere (`cache_control`), so a breakpoint inside a tool result
was dropped silently on the way to OpenAI or Gemini."""

from __future__ import annotations

import json
from typing import Any

import pytest

import wiremap
from wiremap import translate_request

PATH = "messages[2].content[0].content[0]"


def request_with(block: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": "look it up"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [block]}]},
        ],
    }


BREAKPOINT = {"type": "text", "text": "found it", "cache_control": {"type": "ephemeral", "ttl": "1h"}}


@pytest.mark.parametrize("target", ["openai_chat", "gemini_generate_content", "openai_responses"])
def test_a_breakpoint_inside_a_tool_result_is_named_where_it_is_dropped(target: str) -> None:
    t = translate_request(request_with(BREAKPOINT), "anthropic_messages", target)
    assert [(loss.path, loss.kind) for loss in t.losses] == [(f"{PATH}.cache_control", "dropped")]
    assert "cache_control" not in json.dumps(t.result)


def test_the_same_provider_gets_the_breakpoint_back() -> None:
    body = request_with(BREAKPOINT)
    t = translate_request(body, "anthropic_messages", "anthropic_messages")
    assert t.losses == []
    assert t.result["messages"][2] == body["messages"][2]


def test_citations_are_named_and_a_null_breakpoint_is_not() -> None:
    cited = {"type": "text", "text": "found it", "citations": [{"type": "char_location", "cited_text": "it", "document_index": 0, "start_char_index": 0, "end_char_index": 2}]}
    t = translate_request(request_with(cited), "anthropic_messages", "openai_chat")
    assert [loss.path for loss in t.losses] == [f"{PATH}.citations"]
    # a key the tables name, holding nothing: the string lacks nothing
    t = translate_request(request_with({"type": "text", "text": "found it", "cache_control": None}), "anthropic_messages", "openai_chat")
    assert t.losses == []
    assert t.result["messages"][2]["content"] == "found it"


def test_a_plain_text_block_loses_nothing() -> None:
    t = translate_request(request_with({"type": "text", "text": "found it"}), "anthropic_messages", "openai_chat")
    assert t.losses == []
    fused = wiremap.translator("anthropic_messages", "openai_chat").request(request_with({"type": "text", "text": "found it"}))
    assert fused == t.result


def gemini_with(response: dict[str, Any]) -> dict[str, Any]:
    return {
        "model": "gemini-2.5-flash",
        "contents": [
            {"role": "user", "parts": [{"text": "capital of France?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "capital", "args": {"country": "France"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "capital", "response": response}}]},
        ],
    }


def test_a_gemini_response_read_whole_as_its_json_text_loses_nothing() -> None:
    """`functionResponse.response` without a string `result` is the tool result's JSON text
    (`tool_results.other_content: json`): another provider gets all of it, and the report named
    each of its keys as dropped (a false loss, 86 values over the recorded Gemini requests)."""
    response = {"return_value": "Paris", "source": {"kind": "atlas", "page": 12}}
    t = translate_request(gemini_with(response), "gemini_generate_content", "openai_chat")
    assert t.losses == []
    assert json.loads(t.result["messages"][-1]["content"]) == response


def test_a_key_beside_the_result_text_is_still_a_loss() -> None:
    t = translate_request(gemini_with({"result": "Paris", "source": "atlas"}), "gemini_generate_content", "openai_chat")
    assert t.result["messages"][-1]["content"] == "Paris"
    assert [(x.path, x.kind) for x in t.losses] == [("contents[2].parts[0].functionResponse.response.source", "dropped")]

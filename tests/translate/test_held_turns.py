"""An assistant turn made only of wire content the canonical model does not model is *held*
(runtime/carry.py `Carried.held`): Anthropic's server-tool blocks, as a client sends them back to
continue a `pause_turn` (the recorded pydantic-ai request anthropic.messages_2023_06_01.jsonl:47).
The turn reads as empty; the same wire writes it back as it came, from the carried data; every
other wire refuses it by name, since nothing of it can go there; and a turn that is empty on the
wire itself is refused as before. A Responses message item whose output_text is "" is an
assistant turn with text (openai_responses.jsonl:251)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import wiremap
from wiremap.generated import anthropic_messages as anthropic, openai_responses as responses
from wiremap.runtime.canonical import AssistantMessage, Request, TextBlock, ToolCall, UserMessage
from wiremap.runtime.carry import Carried
from wiremap.runtime.errors import InvalidRequestError

SERVER_BLOCKS: list[dict[str, Any]] = [
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "exchange rates"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
        {"type": "web_search_result", "url": "https://example.com/rates", "title": "Rates", "encrypted_content": "EqgfCio", "page_age": None},
    ]},
]

BODY: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}],
    "messages": [
        {"role": "user", "content": [{"type": "text", "text": "What is the euro worth in yen?"}]},
        {"role": "assistant", "content": SERVER_BLOCKS},
        {"role": "user", "content": [{"type": "text", "text": "Go on."}]},
    ],
    "stream": False,
}


def test_the_same_wire_gets_the_turn_back_as_it_came() -> None:
    same = wiremap.translate_request(BODY, "anthropic_messages", "anthropic_messages")
    assert same.result == BODY and same.losses == []
    assert wiremap.translator("anthropic_messages", "anthropic_messages").request(BODY) == BODY
    request = anthropic.request_from_wire(BODY)
    assert request.messages[1] == AssistantMessage(content=[])  # nothing canonical in it
    assert request.carried is not None and request.carried.held == frozenset({1})
    assert anthropic.request_to_wire(request) == BODY


def test_the_dict_form_keeps_the_turn_held() -> None:
    """A dataset line or a gateway header holds the canonical dict: the turn is still held."""
    d = anthropic.request_from_wire(BODY).to_dict()
    assert d["carried"]["held"] == [1]
    assert anthropic.request_to_wire(Request.from_dict(d)) == BODY
    assert anthropic.request_to_wire(d) == BODY
    bad = copy.deepcopy(d)
    bad["carried"]["held"] = ["1"]
    with pytest.raises(InvalidRequestError) as exc:
        Request.from_dict(bad)
    assert exc.value.path == "carried.held"


@pytest.mark.parametrize("target", ["openai_chat", "gemini_generate_content", "bedrock_converse", "openai_responses"])
def test_another_wire_refuses_the_turn_by_name(target: str) -> None:
    with pytest.raises(InvalidRequestError) as exc:
        wiremap.translate_request(BODY, "anthropic_messages", target)
    assert exc.value.path == "messages[1].content"
    assert "anthropic/anthropic_messages" in exc.value.message and target in exc.value.message


def test_a_turn_empty_on_the_wire_is_still_refused() -> None:
    """No part of it was left out: the carried data has nothing to fill it with."""
    body = copy.deepcopy(BODY)
    body["messages"][1]["content"] = []
    request = anthropic.request_from_wire(body)
    assert request.carried is None or not request.carried.held
    with pytest.raises(InvalidRequestError) as exc:
        anthropic.request_to_wire(request)
    assert exc.value.path == "messages[1].content"
    with pytest.raises(InvalidRequestError):
        wiremap.translate_request(body, "anthropic_messages", "anthropic_messages")


def test_a_turn_empty_on_the_wire_beside_a_held_one_is_still_refused() -> None:
    """The body has parts left out (the server-tool turn), and another turn empty on the wire:
    that one said nothing, so it is not held."""
    body = copy.deepcopy(BODY)
    body["messages"][2:2] = [{"role": "user", "content": "More?"}, {"role": "assistant", "content": []}]
    request = anthropic.request_from_wire(body)
    assert request.carried is None or not request.carried.held
    with pytest.raises(InvalidRequestError) as exc:
        wiremap.translate_request(body, "anthropic_messages", "anthropic_messages")
    assert exc.value.path == "messages[1].content"  # the first empty turn the writer meets


def test_a_turn_moved_by_the_caller_is_refused_not_sent_empty() -> None:
    request = anthropic.request_from_wire(BODY)
    request.messages.insert(0, UserMessage(content="First, a word."))
    with pytest.raises(InvalidRequestError) as exc:
        anthropic.request_to_wire(request)
    assert exc.value.path == "messages[2].content"


def test_a_turn_its_carried_data_no_longer_fits_is_refused_not_sent_empty() -> None:
    d = anthropic.request_from_wire(BODY).to_dict()
    (fill,) = [op for op in d["carried"]["ops"] if op["path"] == ["messages", 1, "content"]]
    fill["anchor"] = {"role": "assistant", "content": [{"type": "text", "text": "another turn"}]}
    with pytest.raises(InvalidRequestError) as exc:
        anthropic.request_to_wire(d)
    assert exc.value.path == "messages[1].content" and "cannot be put back" in exc.value.message


def test_a_caller_who_changes_another_turn_still_gets_the_held_one() -> None:
    body = copy.deepcopy(BODY)
    body["messages"][2]["content"] = "Go on."  # a string: carried in the caller's form
    request = anthropic.request_from_wire(body)
    request.messages[2] = UserMessage(content="Go on, in yen.")
    wire = anthropic.request_to_wire(request)
    assert wire["messages"][1] == {"role": "assistant", "content": SERVER_BLOCKS}
    assert wire["messages"][2] == {"role": "user", "content": [{"type": "text", "text": "Go on, in yen."}]}


def test_a_carried_turn_of_another_origin_is_not_held() -> None:
    carried = anthropic.request_from_wire(BODY).carried
    assert isinstance(carried, Carried)
    request = Request(
        model="gpt-4o",
        messages=[UserMessage(content="hi"), AssistantMessage(content=[]), UserMessage(content="again")],
        carried=carried,
    )
    with pytest.raises(InvalidRequestError) as exc:
        wiremap.get_format("openai_chat").request_to_wire(request)
    assert exc.value.path == "messages[1].content"


def test_a_responses_turn_whose_text_is_empty_is_a_message_item() -> None:
    request = Request(
        model="gpt-5",
        messages=[UserMessage(content="Draw it."), AssistantMessage(content=[TextBlock(text="")]), UserMessage(content="Again.")],
    )
    wire = responses.request_to_wire(request)
    assert wire["input"][1] == {"role": "assistant", "content": ""}
    # with tool calls, a turn without text is the calls alone, as before
    calls = [ToolCall(id="call_1", name="draw", arguments={})]
    request.messages[1] = AssistantMessage(content=[TextBlock(text="")], tool_calls=calls)
    request.messages.insert(2, wiremap.runtime.canonical.ToolMessage(tool_call_id="call_1", content="done"))
    wire = responses.request_to_wire(request)
    assert [item.get("type") for item in wire["input"][1:3]] == ["function_call", "function_call_output"]


def test_a_gemini_code_execution_turn_comes_back_as_it_came() -> None:
    """The same rule in another table: Gemini's code execution answers with a model turn of
    `executableCode` and `codeExecutionResult` parts only, which the client sends back."""
    body = {
        "model": "gemini-2.5-flash",
        "contents": [
            {"role": "user", "parts": [{"text": "What is 2**10?"}]},
            {"role": "model", "parts": [
                {"executableCode": {"language": "PYTHON", "code": "print(2**10)"}},
                {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1024\n"}},
            ]},
            {"role": "user", "parts": [{"text": "And 2**11?"}]},
        ],
        "tools": [{"codeExecution": {}}],
    }
    same = wiremap.translate_request(body, "gemini_generate_content", "gemini_generate_content")
    assert same.result == body and same.losses == []
    assert wiremap.translator("gemini_generate_content", "gemini_generate_content").request(body) == body
    with pytest.raises(InvalidRequestError) as exc:
        wiremap.translate_request(body, "gemini_generate_content", "anthropic_messages")
    assert exc.value.path == "messages[1].content" and "google/gemini_generate_content" in exc.value.message


def test_a_pause_turn_continuation_ending_on_the_held_turn_comes_back() -> None:
    """Anthropic's documented way to continue a `pause_turn`: the assistant's answer sent back
    as the last message, as it came."""
    body = copy.deepcopy(BODY)
    body["messages"] = body["messages"][:2]
    same = wiremap.translate_request(body, "anthropic_messages", "anthropic_messages")
    assert same.result == body and same.losses == []
    assert wiremap.translator("anthropic_messages", "anthropic_messages").request(body) == body

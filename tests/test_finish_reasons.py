"""Every documented finish reason, and degraded responses (issue 14, items 3 and 4).

The canonical finish_reason is one of five values; the provider's own value stays in `raw` and the
same provider's formats write it back (docs/canonical.md "Finish reasons").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import wiremap
from wiremap.runtime.stream import parse_stream

RECORDED = Path(__file__).resolve().parents[1].parent / "shared" / "recorded"

ANTHROPIC_STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


def anthropic_body(stop_reason: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": "ok"}]
    if stop_reason == "tool_use":
        content.append({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}})
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": content,
            "stop_reason": stop_reason, "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 2}}


@pytest.mark.parametrize("key", ["anthropic_messages", "anthropic.messages_2023_06_01", "prompty.anthropic_messages"])
@pytest.mark.parametrize("stop_reason", sorted(ANTHROPIC_STOP_REASONS))
def test_anthropic_stop_reason_round_trips(key: str, stop_reason: str) -> None:
    fmt = wiremap.get_format(key)
    r = fmt.response_from_wire(anthropic_body(stop_reason))
    assert r.finish_reason == ANTHROPIC_STOP_REASONS[stop_reason]
    assert fmt.response_to_wire(r)["stop_reason"] == stop_reason
    # between the two Anthropic versions too (one provider)
    assert wiremap.translate_response(anthropic_body(stop_reason), key, "anthropic_messages").result["stop_reason"] == stop_reason


@pytest.mark.parametrize("stop_reason", sorted(ANTHROPIC_STOP_REASONS))
def test_anthropic_stream_stop_reason_round_trips(stop_reason: str) -> None:
    events = [
        {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "claude-sonnet-4-5", "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ok"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    ]
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    out = b"".join(wiremap.translate_stream([sse], "anthropic_messages", "anthropic_messages")).decode()
    finish = [e for e in parse_stream(out.encode(), "anthropic_messages") if e["type"] == "finish"]
    assert finish == [{"type": "finish", "finish_reason": ANTHROPIC_STOP_REASONS[stop_reason], "raw": stop_reason}]


GEMINI_BLOCKED = {
    "promptFeedback": {"blockReason": "PROHIBITED_CONTENT", "safetyRatings": []},
    "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7},
    "modelVersion": "gemini-2.5-flash",
    "responseId": "r1",
}


@pytest.mark.parametrize("key", ["gemini_generate_content", "openarmature.gemini_generate_content"])
def test_gemini_blocked_prompt_is_content_filter(key: str) -> None:
    fmt = wiremap.get_format(key)
    r = fmt.response_from_wire(GEMINI_BLOCKED)
    assert r.finish_reason == "content_filter"
    assert r.message.content is None and not r.message.tool_calls
    back = fmt.response_to_wire(r)
    assert back["promptFeedback"] == GEMINI_BLOCKED["promptFeedback"]  # the same provider's detail, kept
    assert fmt.response_from_wire(back).finish_reason == "content_filter"
    # another provider says content_filter in its own words
    assert wiremap.translate_response(GEMINI_BLOCKED, key, "openai_chat").result["choices"][0]["finish_reason"] == "content_filter"
    assert wiremap.translate_response(GEMINI_BLOCKED, key, "anthropic_messages").result["stop_reason"] == "refusal"


def test_gemini_candidate_safety_does_not_invent_prompt_feedback() -> None:
    fmt = wiremap.get_format("gemini_generate_content")
    body = {"candidates": [{"content": {"role": "model", "parts": [{"text": "x"}]}, "finishReason": "SAFETY", "index": 0}]}
    r = fmt.response_from_wire(body)
    assert r.finish_reason == "content_filter"
    assert "promptFeedback" not in fmt.response_to_wire(r)
    assert "promptFeedback" not in wiremap.translate_response(anthropic_body("refusal"), "anthropic_messages", "gemini_generate_content").result


def test_gemini_stream_blocked_prompt_is_content_filter() -> None:
    sse = f"data: {json.dumps(GEMINI_BLOCKED)}\n\n".encode()
    finish = [e for e in parse_stream(sse, "gemini_generate_content") if e["type"] == "finish"]
    assert [e["finish_reason"] for e in finish] == ["content_filter"]


def test_openai_content_filter_round_trips() -> None:
    fmt = wiremap.get_format("openai_chat")
    body = {"id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4o",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": None}, "finish_reason": "content_filter"}]}
    r = fmt.response_from_wire(body)
    assert r.finish_reason == "content_filter"
    assert fmt.response_to_wire(r)["choices"][0]["finish_reason"] == "content_filter"


@pytest.mark.parametrize(("reason", "canonical"), [("max_output_tokens", "length"), ("content_filter", "content_filter")])
def test_responses_incomplete_details_round_trip(reason: str, canonical: str) -> None:
    fmt = wiremap.get_format("openai_responses")
    body = {"id": "resp_1", "object": "response", "created_at": 1, "status": "incomplete", "incomplete_details": {"reason": reason},
            "model": "gpt-4o", "output": [],
            "usage": {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}}}
    r = fmt.response_from_wire(body)
    assert r.finish_reason == canonical
    back = fmt.response_to_wire(r)
    assert (back["status"], back["incomplete_details"]) == ("incomplete", {"reason": reason})


FINISH_PATHS = {
    "anthropic.messages_2023_06_01": ("stop_reason",),
    "openai_chat": ("choices", 0, "finish_reason"),
    "openai_compatible": ("choices", 0, "finish_reason"),
    "groq": ("choices", 0, "finish_reason"),
    "mistral": ("choices", 0, "finish_reason"),
    "deepseek": ("choices", 0, "finish_reason"),
    "openrouter": ("choices", 0, "finish_reason"),
    "ollama": ("choices", 0, "finish_reason"),
    "gemini_generate_content": ("candidates", 0, "finishReason"),
    "openai_responses": ("status",),
}


def _get(body: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        if isinstance(k, int):
            body = body[k] if isinstance(body, list) and len(body) > k else None
        else:
            body = body.get(k) if isinstance(body, dict) else None
    return body


@pytest.mark.parametrize("key", sorted(FINISH_PATHS))
def test_recorded_finish_reasons_come_back_unchanged(key: str) -> None:
    """Every recorded response that reads: the same format writes back the provider's own finish value."""
    path = RECORDED / f"{key}.jsonl"
    if not path.exists():
        pytest.skip("../shared/recorded is not beside the repository")
    fmt = wiremap.get_format(key)
    for line in path.read_text("utf-8").splitlines():
        rec = json.loads(line)
        if rec["kind"] != "response":
            continue
        try:
            r = fmt.response_from_wire(rec["body"])
        except wiremap.ProviderError:
            continue  # bodies refused for other reasons are other items of the issue
        sent = _get(rec["body"], FINISH_PATHS[key])
        if sent is None:
            continue
        assert _get(fmt.response_to_wire(r), FINISH_PATHS[key]) == sent, rec["source"]


CHAT_FORMATS = [k for k in wiremap.formats() if wiremap.get_format(k).kind == "chat"]


@pytest.mark.parametrize("key", CHAT_FORMATS)
def test_degraded_response_renders_a_body_its_own_format_reads_back(key: str) -> None:
    """Item 4: finish `error` and a tool call whose arguments are null (the wire bytes were not JSON)."""
    fmt = wiremap.get_format(key)
    degraded = wiremap.Response.from_dict({
        "message": {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "name": "get_weather", "arguments": None}]},
        "finish_reason": "error",
        "usage": {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None},
    })
    body = fmt.response_to_wire(degraded)
    back = fmt.response_from_wire(body)
    assert back.message.tool_calls and back.message.tool_calls[0].name == "get_weather"
    assert back.message.tool_calls[0].arguments is None
    assert fmt.response_to_wire(back) == body

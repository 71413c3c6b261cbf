"""Cache usage with each provider's accounting, both ways, streams included (issue 14, item 3).

Canonical `prompt_tokens` counts the whole input, cache reads and writes included (OpenAI's and
Gemini's accounting); Anthropic's `input_tokens` excludes both (docs/canonical.md "Usage").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import wiremap
from wiremap.runtime.stream import parse_stream

RECORDED = Path(__file__).resolve().parents[1].parent / "shared" / "recorded"


def anthropic_body(usage: dict[str, Any], stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "ok"}], "stop_reason": stop_reason, "stop_sequence": None,
        "usage": usage,
    }


def openai_body(usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
        "usage": usage,
    }


def test_anthropic_cache_read_counts_in_openai_prompt_tokens() -> None:
    """The issue's example: 100 fresh input tokens and 1 000 cached ones cost 1 100 prompt tokens."""
    body = anthropic_body({"input_tokens": 100, "output_tokens": 5, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 0})
    usage = wiremap.translate_response(body, "anthropic_messages", "openai_chat").result["usage"]
    assert usage["prompt_tokens"] == 1100
    assert usage["total_tokens"] == 1105
    assert usage["prompt_tokens_details"] == {"cached_tokens": 1000}


def test_anthropic_cache_write_counts_in_prompt_tokens() -> None:
    body = anthropic_body({"input_tokens": 10, "output_tokens": 2, "cache_creation_input_tokens": 2000})
    r = wiremap.get_format("anthropic_messages").response_from_wire(body)
    assert (r.usage.prompt_tokens, r.usage.total_tokens, r.usage.cache_creation_tokens) == (2010, 2012, 2000)
    assert r.usage.cached_tokens is wiremap.NOT_GIVEN or r.usage.cached_tokens is None


def test_openai_cached_tokens_are_taken_out_of_anthropic_input_tokens() -> None:
    body = openai_body({"prompt_tokens": 1100, "completion_tokens": 5, "total_tokens": 1105, "prompt_tokens_details": {"cached_tokens": 1000}})
    usage = wiremap.translate_response(body, "openai_chat", "anthropic_messages").result["usage"]
    assert usage == {"input_tokens": 100, "output_tokens": 5, "cache_read_input_tokens": 1000}


def test_responses_cache_writes_go_to_anthropic_cache_creation() -> None:
    body = {
        "id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-5",
        "output": [{"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                    "content": [{"type": "output_text", "text": "ok", "annotations": []}]}],
        "usage": {"input_tokens": 4020, "input_tokens_details": {"cache_write_tokens": 4012, "cached_tokens": 0},
                  "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 4025},
    }
    usage = wiremap.translate_response(body, "openai_responses", "anthropic_messages").result["usage"]
    assert usage == {"input_tokens": 8, "output_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 4012}
    back = wiremap.translate_response(wiremap.translate_response(body, "openai_responses", "anthropic_messages").result,
                                      "anthropic_messages", "openai_responses").result["usage"]
    assert back["input_tokens"] == 4020 and back["input_tokens_details"]["cache_write_tokens"] == 4012


def test_gemini_cached_content_is_part_of_the_prompt_both_ways() -> None:
    body = {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 373, "candidatesTokenCount": 89, "totalTokenCount": 462, "cachedContentTokenCount": 204},
        "modelVersion": "gemini-2.5-flash", "responseId": "r1",
    }
    to_anthropic = wiremap.translate_response(body, "gemini_generate_content", "anthropic_messages").result["usage"]
    assert to_anthropic == {"input_tokens": 169, "output_tokens": 89, "cache_read_input_tokens": 204}
    back = wiremap.translate_response(wiremap.translate_response(body, "gemini_generate_content", "anthropic_messages").result,
                                      "anthropic_messages", "gemini_generate_content").result["usageMetadata"]
    assert back["promptTokenCount"] == 373 and back["cachedContentTokenCount"] == 204


@pytest.mark.parametrize(
    "usage",
    [
        {"input_tokens": 4, "output_tokens": 193, "cache_creation_input_tokens": 6, "cache_read_input_tokens": 8845},
        {"input_tokens": 12, "output_tokens": 3},
        {"input_tokens": 12, "output_tokens": 3, "cache_read_input_tokens": 0},
    ],
)
def test_anthropic_same_format_round_trip_keeps_usage(usage: dict[str, Any]) -> None:
    fmt = wiremap.get_format("anthropic_messages")
    assert fmt.response_to_wire(fmt.response_from_wire(anthropic_body(usage)))["usage"] == usage


def test_recorded_anthropic_usage_round_trips() -> None:
    """Every recorded Anthropic response: the modelled counters come back as they were sent."""
    path = RECORDED / "anthropic.messages_2023_06_01.jsonl"
    if not path.exists():
        pytest.skip("../shared/recorded is not beside the repository")
    fmt = wiremap.get_format("anthropic.messages_2023_06_01")
    keys = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    seen = 0
    for line in path.read_text("utf-8").splitlines():
        rec = json.loads(line)
        if rec["kind"] != "response":
            continue
        try:
            r = fmt.response_from_wire(rec["body"])
        except wiremap.ProviderError:
            continue  # refusals of other shapes are other items of the issue
        sent = {k: v for k, v in rec["body"]["usage"].items() if k in keys}
        # the whole usage object comes back (the details no row names are carried: runtime/carry.py)
        assert fmt.response_to_wire(r)["usage"] == rec["body"]["usage"], rec["source"]
        plain = wiremap.Response.from_dict({**r.to_dict(), "carried": None})  # the modelled counters alone
        assert {k: v for k, v in fmt.response_to_wire(plain)["usage"].items() if k in keys} == sent, rec["source"]
        u = sent
        assert r.usage.prompt_tokens == u["input_tokens"] + u.get("cache_read_input_tokens", 0) + u.get("cache_creation_input_tokens", 0)
        seen += 1
    assert seen > 50


def test_deepseek_hit_and_miss_round_trip() -> None:
    fmt = wiremap.get_format("deepseek")
    usage = {"prompt_tokens": 1000, "completion_tokens": 5, "total_tokens": 1005, "prompt_cache_hit_tokens": 960, "prompt_cache_miss_tokens": 40}
    r = fmt.response_from_wire(openai_body(usage))
    assert (r.usage.prompt_tokens, r.usage.cached_tokens) == (1000, 960)
    assert fmt.response_to_wire(r)["usage"] == usage


def test_openarmature_dialect_keeps_input_tokens_alone() -> None:
    """oa §8.2.2: the dialect maps prompt_tokens from input_tokens alone, no cache counters."""
    body = anthropic_body({"input_tokens": 100, "output_tokens": 5, "cache_read_input_tokens": 1000})
    r = wiremap.get_format("openarmature.anthropic_messages").response_from_wire(body)
    assert (r.usage.prompt_tokens, r.usage.total_tokens) == (100, 105)
    assert r.usage.cached_tokens is wiremap.NOT_GIVEN


ANTHROPIC_SSE = "".join(
    f"event: {json.loads(d)['type']}\ndata: {d}\n\n"
    for d in [
        '{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":1000,"output_tokens":1}}}',
        '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}',
        '{"type":"content_block_stop","index":0}',
        '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}',
        '{"type":"message_stop"}',
    ]
)


def test_anthropic_stream_usage_counts_the_cache() -> None:
    events = parse_stream(ANTHROPIC_SSE.encode(), "anthropic_messages")
    last = [e for e in events if e["type"] == "usage"][-1]["usage"]
    assert last == {"prompt_tokens": 1100, "completion_tokens": 5, "total_tokens": 1105, "cached_tokens": 1000, "cache_creation_tokens": 0}


def test_anthropic_stream_to_openai_stream_reports_the_whole_prompt() -> None:
    t = wiremap.translate_stream([ANTHROPIC_SSE.encode()], "anthropic_messages", "openai_chat")
    out = b"".join(t).decode()
    chunks = [json.loads(line[6:]) for line in out.splitlines() if line.startswith("data: {")]
    usage = [c["usage"] for c in chunks if c.get("usage")][-1]
    assert usage["prompt_tokens"] == 1100 and usage["prompt_tokens_details"] == {"cached_tokens": 1000}
    assert t.response is not None and t.response.usage.prompt_tokens == 1100


def test_openai_stream_to_anthropic_stream_takes_the_cache_out_of_input_tokens() -> None:
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [],
         "usage": {"prompt_tokens": 1100, "completion_tokens": 5, "total_tokens": 1105, "prompt_tokens_details": {"cached_tokens": 1000}}},
    ]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    out = b"".join(wiremap.translate_stream([sse.encode()], "openai_chat", "anthropic_messages")).decode()
    deltas = [json.loads(line[6:]) for line in out.splitlines() if line.startswith("data: ") and '"message_delta"' in line]
    assert deltas[-1]["usage"] == {"input_tokens": 100, "output_tokens": 5, "cache_read_input_tokens": 1000}


# --- reasoning tokens: output the model spent thinking, counted in completion_tokens -----------


def gemini_body(usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage, "modelVersion": "gemini-2.5-flash", "responseId": "r1",
    }


def test_gemini_thoughts_are_completion_tokens_for_an_openai_client() -> None:
    """Gemini's candidatesTokenCount leaves the thoughts out, though they are billed as output and
    counted in totalTokenCount; OpenAI's completion_tokens counts reasoning. An OpenAI client of a
    Gemini thinking model sees completion = candidates + thoughts, and the thoughts as
    completion_tokens_details.reasoning_tokens (prompt + completion = total, as on OpenAI)."""
    body = gemini_body({"promptTokenCount": 22, "candidatesTokenCount": 1216, "thoughtsTokenCount": 179, "totalTokenCount": 1417})
    t = wiremap.translate_response(body, "gemini_generate_content", "openai_chat")
    usage = t.result["usage"]
    assert usage["completion_tokens"] == 1395 and usage["completion_tokens_details"] == {"reasoning_tokens": 179}
    assert usage["prompt_tokens"] + usage["completion_tokens"] == usage["total_tokens"] == 1417
    assert not [loss for loss in t.losses if "usage" in loss.path]


def test_openai_reasoning_tokens_become_gemini_thoughts() -> None:
    body = openai_body({"prompt_tokens": 10, "completion_tokens": 50, "total_tokens": 60, "completion_tokens_details": {"reasoning_tokens": 32}})
    usage = wiremap.translate_response(body, "openai_chat", "gemini_generate_content").result["usageMetadata"]
    assert usage == {"promptTokenCount": 10, "candidatesTokenCount": 18, "totalTokenCount": 60, "thoughtsTokenCount": 32}


def test_responses_reasoning_tokens_reach_chat_completions() -> None:
    fmt = wiremap.get_format("openai_responses")
    resp = fmt.response_from_wire({
        "id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-5", "output": [],
        "usage": {"input_tokens": 20, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 30,
                  "output_tokens_details": {"reasoning_tokens": 16}, "total_tokens": 50},
    })
    assert resp.usage.completion_tokens == 30 and resp.usage.reasoning_tokens == 16
    wire = wiremap.get_format("openai_chat").response_to_wire(resp)
    assert wire["usage"]["completion_tokens_details"] == {"reasoning_tokens": 16}


def test_recorded_gemini_thinking_usage_round_trips_and_adds_up() -> None:
    fmt = wiremap.get_format("gemini_generate_content")
    seen = 0
    for line in (RECORDED / "gemini_generate_content.jsonl").read_text("utf-8").splitlines():
        record = json.loads(line)
        u = record.get("body", {}).get("usageMetadata") if record["kind"] == "response" else None
        if not isinstance(u, dict) or "thoughtsTokenCount" not in u or "candidatesTokenCount" not in u:
            continue
        seen += 1
        usage = fmt.response_from_wire(record["body"]).usage
        assert usage.completion_tokens == u["candidatesTokenCount"] + u["thoughtsTokenCount"]
        assert usage.reasoning_tokens == u["thoughtsTokenCount"]
        back = fmt.response_to_wire(fmt.response_from_wire(record["body"]))["usageMetadata"]
        assert {k: back[k] for k in ("candidatesTokenCount", "thoughtsTokenCount")} == {k: u[k] for k in ("candidatesTokenCount", "thoughtsTokenCount")}
    assert seen > 100


def test_openarmature_gemini_keeps_the_thoughts_out_of_completion() -> None:
    """oa §8.3.2: completion_tokens is candidatesTokenCount; the thoughts stay in raw."""
    body = gemini_body({"promptTokenCount": 5, "candidatesTokenCount": 6, "thoughtsTokenCount": 24, "totalTokenCount": 35})
    usage = wiremap.get_format("openarmature.gemini_generate_content").response_from_wire(body).usage.to_dict()
    assert usage == {"prompt_tokens": 5, "completion_tokens": 6, "total_tokens": 35}

"""Recorded streams, one set per format, written after the providers' API references
(OpenAI: the chat.completion.chunk object and `stream_options.include_usage`; Anthropic:
"Streaming Messages": message_start, content_block_start/delta/stop, message_delta,
message_stop, ping, error), each with the non-streamed body of the same answer when the
format's non-streamed response can carry it.

`sse(events)` writes the bytes exactly as the servers frame them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


def sse(events: list[Any], *, named: bool = False, crlf: bool = False) -> bytes:
    nl = "\r\n" if crlf else "\n"
    out = []
    for ev in events:
        if isinstance(ev, tuple):  # (event name, data) or a raw line
            name, data = ev
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
            out.append((f"event: {name}{nl}" if name else "") + f"data: {text}{nl}{nl}")
        elif isinstance(ev, str):
            out.append(ev if ev.startswith(":") else f"data: {ev}{nl}{nl}")
        else:
            name = ev.get("type") if named else None
            text = json.dumps(ev, ensure_ascii=False)
            out.append((f"event: {name}{nl}" if name else "") + f"data: {text}{nl}{nl}")
    return "".join(out).encode("utf-8")


@dataclass
class Recorded:
    format: str
    name: str
    body: bytes
    equivalent: dict[str, Any] | None = None  # the non-streamed body of the same answer
    error: str | None = None  # the category the stream ends with

    @property
    def id(self) -> str:
        return f"{self.format}:{self.name}"


# ------------------------------------------------------------------------------------ OpenAI

def _chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"id": "chatcmpl-9x", "object": "chat.completion.chunk", "created": 1732000000, "model": "gpt-4o-2024-08-06",
                            "system_fingerprint": "fp_1"}
    if delta is None:
        base["choices"] = []
    else:
        base["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
    base["usage"] = None
    base.update(extra)
    return base


def _completion(message: dict[str, Any], finish: str, usage: dict[str, Any]) -> dict[str, Any]:
    return {"id": "chatcmpl-9x", "object": "chat.completion", "created": 1732000000, "model": "gpt-4o-2024-08-06",
            "system_fingerprint": "fp_1", "choices": [{"index": 0, "message": {"role": "assistant", **message}, "logprobs": None, "finish_reason": finish}],
            "usage": usage}


OA_USAGE = {"prompt_tokens": 19, "completion_tokens": 10, "total_tokens": 29, "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}

OPENAI = [
    Recorded(
        "openai_chat", "text",
        sse([
            _chunk({"role": "assistant", "content": "", "refusal": None}),
            _chunk({"content": "Héllo"}),
            _chunk({"content": ", wörld"}),
            _chunk({"content": " 👋"}),
            _chunk({}, "stop"),
            _chunk(None, usage=OA_USAGE),
            "[DONE]",
        ]),
        _completion({"content": "Héllo, wörld 👋", "refusal": None}, "stop", OA_USAGE),
    ),
    Recorded(
        "openai_chat", "parallel_tool_calls",
        sse([
            _chunk({"role": "assistant", "content": None, "tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": ""}}], "refusal": None}),
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "{\"ci"}}]}),
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "ty\": \"Paris\"}"}}]}),
            _chunk({"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": ""}}]}),
            _chunk({"tool_calls": [{"index": 1, "function": {"arguments": "{\"tz\": \"CET\"}"}}]}),
            _chunk({}, "tool_calls"),
            _chunk(None, usage=OA_USAGE),
            "[DONE]",
        ]),
        _completion({"content": None, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
            {"id": "call_b", "type": "function", "function": {"name": "get_time", "arguments": "{\"tz\": \"CET\"}"}},
        ], "refusal": None}, "tool_calls", OA_USAGE),
    ),
    Recorded(
        # a server that puts every call at index 0 (the table's `new_id: new_call`)
        "openai_chat", "tool_calls_all_at_index_0",
        sse([
            _chunk({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": "}}]}),
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": "\"Paris\"}"}}]}),
            _chunk({"tool_calls": [{"index": 0, "id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]}),
            _chunk({}, "tool_calls"),
            "[DONE]",
        ]),
        {"id": "chatcmpl-9x", "object": "chat.completion", "created": 1732000000, "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_1",
         "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None, "tool_calls": [
             {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
             {"id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]}}]},
    ),
    Recorded(
        # oa §8.1.6 reasoning extension: reasoning_content (DeepSeek) first, then content
        "openai_chat", "reasoning_then_text",
        sse([
            _chunk({"role": "assistant", "reasoning_content": "Think"}),
            _chunk({"reasoning_content": "ing."}),
            _chunk({"reasoning": " More."}),
            _chunk({"content": "Answer."}, "stop"),
            _chunk(None, usage={"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9}),
            "[DONE]",
        ]),
    ),
    Recorded(
        "openai_chat", "mid_stream_error",
        sse([
            _chunk({"role": "assistant", "content": "Partial"}),
            {"error": {"message": "The server had an error while processing your request.", "type": "server_error", "param": None, "code": None}},
        ]),
        error="provider_unavailable",
    ),
    Recorded(
        "openai_chat", "malformed_json",
        sse([_chunk({"role": "assistant", "content": "Partial"}), "{\"id\": \"chatcmpl-9x\", \"choices\": [{"]),
        error="provider_invalid_response",
    ),
    Recorded(
        "openai_chat", "dropped_connection",
        sse([_chunk({"role": "assistant", "content": "Partial"}), _chunk({"content": " answer"})]),
        error="provider_unavailable",
    ),
]

# ------------------------------------------------------------------------------------ Anthropic

def _start(usage: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message_start", "message": {"id": "msg_01XF", "type": "message", "role": "assistant", "content": [],
                                                 "model": "claude-sonnet-4-5", "stop_reason": None, "stop_sequence": None, "usage": usage}}


def _message(content: list[dict[str, Any]], stop: str, usage: dict[str, Any]) -> dict[str, Any]:
    return {"id": "msg_01XF", "type": "message", "role": "assistant", "content": content, "model": "claude-sonnet-4-5",
            "stop_reason": stop, "stop_sequence": None, "usage": usage}


AN_START_USAGE = {"input_tokens": 25, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}
AN_FINAL_USAGE = {"input_tokens": 25, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 15}

ANTHROPIC = [
    Recorded(
        "anthropic_messages", "text",
        sse([
            _start(AN_START_USAGE),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "ping"},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Héllo"}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " wörld 👋"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 15}},
            {"type": "message_stop"},
        ], named=True),
        _message([{"type": "text", "text": "Héllo wörld 👋"}], "end_turn", AN_FINAL_USAGE),
    ),
    Recorded(
        "anthropic_messages", "parallel_tool_calls",
        sse([
            _start(AN_START_USAGE),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Checking both."}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {}}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": ""}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Pa"}},
            {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "ris\"}"}},
            {"type": "content_block_stop", "index": 1},
            {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": {}}},
            {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": \"Oslo\"}"}},
            {"type": "content_block_stop", "index": 2},
            {"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "toolu_c", "name": "get_time", "input": {}}},
            {"type": "content_block_stop", "index": 3},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 15}},
            {"type": "message_stop"},
        ], named=True),
        _message([
            {"type": "text", "text": "Checking both."},
            {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "toolu_c", "name": "get_time", "input": {}},
        ], "tool_use", AN_FINAL_USAGE),
    ),
    Recorded(
        "anthropic_messages", "thinking_with_signatures",
        sse([
            _start(AN_START_USAGE),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me solve "}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "27 * 453."}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"}},
            {"type": "content_block_stop", "index": 1},
            {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "27 * 453 = 12,231"}},
            {"type": "content_block_stop", "index": 2},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 15}},
            {"type": "message_stop"},
        ], named=True, crlf=True),
        _message([
            {"type": "thinking", "thinking": "Let me solve 27 * 453.", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},
            {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"},
            {"type": "text", "text": "27 * 453 = 12,231"},
        ], "end_turn", AN_FINAL_USAGE),
    ),
    Recorded(
        # no `event:` lines (a proxy that drops them): the data's `type` tells the kinds apart
        "anthropic_messages", "unnamed_events_max_tokens",
        sse([
            _start(AN_START_USAGE),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Cut"}},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": "max_tokens", "stop_sequence": None}, "usage": {"output_tokens": 15}},
            {"type": "message_stop"},
        ]),
        _message([{"type": "text", "text": "Cut"}], "max_tokens", AN_FINAL_USAGE),
    ),
    Recorded(
        "anthropic_messages", "mid_stream_error",
        sse([
            _start(AN_START_USAGE),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Partial"}},
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        ], named=True),
        error="provider_unavailable",
    ),
    Recorded(
        "anthropic_messages", "dropped_connection",
        sse([
            _start(AN_START_USAGE),
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Partial"}},
        ], named=True),
        error="provider_unavailable",
    ),
]


# ------------------------------------------------------------------------------------ Gemini
# api: models.streamGenerateContent?alt=sse: every `data:` event is a partial
# GenerateContentResponse (candidates[].content.parts, usageMetadata running totals, modelVersion,
# responseId); finishReason on the last chunk; functionCall parts arrive whole; no end marker.

GE_USAGE = {"promptTokenCount": 12, "candidatesTokenCount": 9, "totalTokenCount": 21, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 12}]}
GE_THINK_USAGE = {"promptTokenCount": 40, "candidatesTokenCount": 30, "totalTokenCount": 118, "thoughtsTokenCount": 48}


def _ge(parts: list[dict[str, Any]] | None, finish: str | None = None, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    cand: dict[str, Any] = {"index": 0}
    if parts is not None:
        cand["content"] = {"role": "model", "parts": parts}
    if finish is not None:
        cand["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [cand]}
    if usage is not None:
        out["usageMetadata"] = usage
    out["modelVersion"] = "gemini-2.5-flash"
    out["responseId"] = "resp-ge-1"
    return out


def _ge_body(parts: list[dict[str, Any]], finish: str, usage: dict[str, Any]) -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish, "index": 0}],
            "usageMetadata": usage, "modelVersion": "gemini-2.5-flash", "responseId": "resp-ge-1"}


GEMINI = [
    Recorded(
        "gemini_generate_content", "text",
        sse([
            _ge([{"text": "Hél"}], usage={"promptTokenCount": 12, "totalTokenCount": 12}),
            _ge([{"text": "lo wör"}], usage={"promptTokenCount": 12, "candidatesTokenCount": 4, "totalTokenCount": 16}),
            _ge([{"text": "ld 👋"}], "STOP", GE_USAGE),
        ]),
        _ge_body([{"text": "Héllo wörld 👋"}], "STOP", GE_USAGE),
    ),
    Recorded(
        "gemini_generate_content", "thinking_then_parallel_tool_calls",
        sse([
            _ge([{"text": "Let me check", "thought": True}]),
            _ge([{"text": " both cities.", "thought": True, "thoughtSignature": "c2lnLXRob3VnaHQ="}]),
            _ge([
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris", "unit": "c"}}, "thoughtSignature": "c2lnLWNhbGw="},
                {"functionCall": {"name": "get_weather", "args": {"city": "Tōkyō"}}},
            ], "STOP", GE_THINK_USAGE),
        ], crlf=True),
        _ge_body([
            {"text": "Let me check both cities.", "thought": True, "thoughtSignature": "c2lnLXRob3VnaHQ="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Paris", "unit": "c"}}, "thoughtSignature": "c2lnLWNhbGw="},
            {"functionCall": {"name": "get_weather", "args": {"city": "Tōkyō"}}},
        ], "STOP", GE_THINK_USAGE),
    ),
    Recorded(
        "gemini_generate_content", "text_then_call_with_id_max_tokens",
        sse([
            _ge([{"text": "Checking."}, {"functionCall": {"id": "fc-1", "name": "lookup", "args": {}}}]),
            _ge([], "MAX_TOKENS", GE_USAGE),
        ]),
        _ge_body([{"text": "Checking."}, {"functionCall": {"id": "fc-1", "name": "lookup", "args": {}}}], "MAX_TOKENS", GE_USAGE),
    ),
    Recorded(
        # api (thought-signatures): a signature on a plain text part, the second one on an empty
        # text part after its text; each signs the text part it ends
        "gemini_generate_content", "text_signatures",
        sse([
            _ge([{"text": "Hel"}]),
            _ge([{"text": "lo", "thoughtSignature": "c2lnVA=="}]),
            _ge([{"text": " again"}], usage={"promptTokenCount": 12, "totalTokenCount": 12}),
            _ge([{"text": "", "thoughtSignature": "c2lnVTI="}], "STOP", GE_USAGE),
        ]),
        _ge_body([{"text": "Hello", "thoughtSignature": "c2lnVA=="}, {"text": " again", "thoughtSignature": "c2lnVTI="}], "STOP", GE_USAGE),
    ),
    Recorded(
        "gemini_generate_content", "mid_stream_error",
        sse([
            _ge([{"text": "Partial ans"}]),
            {"error": {"code": 503, "message": "The model is overloaded. Please try again later.", "status": "UNAVAILABLE"}},
        ]),
        error="provider_unavailable",
    ),
    Recorded(
        "gemini_generate_content", "connection_closed_mid_stream",
        sse([_ge([{"text": "Partial"}]), _ge([{"text": " answer"}])]),
        error="provider_unavailable",
    ),
]

ALL = OPENAI + ANTHROPIC + GEMINI

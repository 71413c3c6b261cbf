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

# ------------------------------------------------------------------------------------ OpenAI Responses
# api-ref "Responses streaming events" (the ResponseStreamEvent union; openai SDK types/responses):
# named events whose `type` repeats the name, each with a sequence_number; response.created first;
# output items opened and closed by output_item.added/.done with their content and argument deltas
# between; reasoning summary parts; the whole Response in response.completed / .incomplete /
# .failed; a bare `error` event; no [DONE].

RS_USAGE = {"input_tokens": 19, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0}, "output_tokens": 10,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 29}
RS_THINK_USAGE = {"input_tokens": 40, "input_tokens_details": {"cached_tokens": 8, "cache_write_tokens": 0}, "output_tokens": 90,
                  "output_tokens_details": {"reasoning_tokens": 64}, "total_tokens": 130}


def _rs_response(status: str, output: list[dict[str, Any]], usage: dict[str, Any] | None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "resp_68a1", "object": "response", "created_at": 1756000000, "status": status, "background": False,
        "error": None, "incomplete_details": None, "instructions": None, "max_output_tokens": None,
        "model": "gpt-5-2025-08-07", "output": output, "parallel_tool_calls": True, "previous_response_id": None,
        "reasoning": {"effort": "medium", "summary": "auto"}, "store": False, "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"}, "tool_choice": "auto", "tools": [], "top_p": 1.0,
        "truncation": "disabled", "usage": usage, "user": None, "metadata": {},
    }
    body.update(extra)
    return body


def _rs(events: list[dict[str, Any]], *, crlf: bool = False) -> bytes:
    """Named SSE events, sequence_number counted from 0 as the API does."""
    return sse([{**ev, "sequence_number": i} for i, ev in enumerate(events)], named=True, crlf=crlf)


def _rs_open() -> list[dict[str, Any]]:
    return [{"type": "response.created", "response": _rs_response("in_progress", [], None)},
            {"type": "response.in_progress", "response": _rs_response("in_progress", [], None)}]


def _rs_message(item_id: str, index: int, pieces: list[str]) -> list[dict[str, Any]]:
    text = "".join(pieces)
    part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
    return [
        {"type": "response.output_item.added", "output_index": index, "item": {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}},
        {"type": "response.content_part.added", "item_id": item_id, "output_index": index, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": [], "logprobs": []}},
        *({"type": "response.output_text.delta", "item_id": item_id, "output_index": index, "content_index": 0, "delta": p, "logprobs": []} for p in pieces),
        {"type": "response.output_text.done", "item_id": item_id, "output_index": index, "content_index": 0, "text": text, "logprobs": []},
        {"type": "response.content_part.done", "item_id": item_id, "output_index": index, "content_index": 0, "part": part},
        {"type": "response.output_item.done", "output_index": index, "item": _rs_message_item(item_id, text)},
    ]


def _rs_message_item(item_id: str, text: str) -> dict[str, Any]:
    return {"id": item_id, "type": "message", "status": "completed", "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}], "role": "assistant"}


def _rs_call(item_id: str, call_id: str, name: str, index: int, pieces: list[str]) -> list[dict[str, Any]]:
    args = "".join(pieces)
    return [
        {"type": "response.output_item.added", "output_index": index, "item": {"id": item_id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": call_id, "name": name}},
        *({"type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": index, "delta": p} for p in pieces),
        {"type": "response.function_call_arguments.done", "item_id": item_id, "output_index": index, "arguments": args},
        {"type": "response.output_item.done", "output_index": index, "item": _rs_call_item(item_id, call_id, name, args)},
    ]


def _rs_call_item(item_id: str, call_id: str, name: str, args: str) -> dict[str, Any]:
    return {"id": item_id, "type": "function_call", "status": "completed", "arguments": args, "call_id": call_id, "name": name}


def _rs_reasoning(item_id: str, index: int, summaries: list[list[str]], encrypted: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"type": "response.output_item.added", "output_index": index, "item": {"id": item_id, "type": "reasoning", "summary": [], "encrypted_content": None}}]
    for j, pieces in enumerate(summaries):
        text = "".join(pieces)
        out.append({"type": "response.reasoning_summary_part.added", "item_id": item_id, "output_index": index, "summary_index": j, "part": {"type": "summary_text", "text": ""}})
        out += [{"type": "response.reasoning_summary_text.delta", "item_id": item_id, "output_index": index, "summary_index": j, "delta": p} for p in pieces]
        out.append({"type": "response.reasoning_summary_text.done", "item_id": item_id, "output_index": index, "summary_index": j, "text": text})
        out.append({"type": "response.reasoning_summary_part.done", "item_id": item_id, "output_index": index, "summary_index": j, "part": {"type": "summary_text", "text": text}})
    out.append({"type": "response.output_item.done", "output_index": index, "item": _rs_reasoning_item(item_id, summaries, encrypted)})
    return out


def _rs_reasoning_item(item_id: str, summaries: list[list[str]], encrypted: str) -> dict[str, Any]:
    return {"id": item_id, "type": "reasoning", "summary": [{"type": "summary_text", "text": "".join(p)} for p in summaries], "encrypted_content": encrypted}


_RS_PLAN = [["**Plan**\n\nCheck ", "both cities."], ["Then ", "compare."]]

RESPONSES = [
    Recorded(
        "openai_responses", "text",
        _rs([
            *_rs_open(),
            *_rs_message("msg_1", 0, ["Héllo", ", wörld", " 👋"]),
            {"type": "response.completed", "response": _rs_response("completed", [_rs_message_item("msg_1", "Héllo, wörld 👋")], RS_USAGE)},
        ]),
        _rs_response("completed", [_rs_message_item("msg_1", "Héllo, wörld 👋")], RS_USAGE),
    ),
    Recorded(
        "openai_responses", "parallel_tool_calls",
        _rs([
            *_rs_open(),
            *_rs_call("fc_1", "call_a", "get_weather", 0, ["{\"ci", "ty\": \"Paris\"}"]),
            *_rs_call("fc_2", "call_b", "get_time", 1, ["{\"tz\": \"CET\"}"]),
            *_rs_call("fc_3", "call_c", "ping", 2, ["{}"]),
            {"type": "response.completed", "response": _rs_response("completed", [
                _rs_call_item("fc_1", "call_a", "get_weather", "{\"city\": \"Paris\"}"),
                _rs_call_item("fc_2", "call_b", "get_time", "{\"tz\": \"CET\"}"),
                _rs_call_item("fc_3", "call_c", "ping", "{}"),
            ], RS_USAGE)},
        ], crlf=True),
        _rs_response("completed", [
            _rs_call_item("fc_1", "call_a", "get_weather", "{\"city\": \"Paris\"}"),
            _rs_call_item("fc_2", "call_b", "get_time", "{\"tz\": \"CET\"}"),
            _rs_call_item("fc_3", "call_c", "ping", "{}"),
        ], RS_USAGE),
    ),
    Recorded(
        # two reasoning items (one with encrypted content only, one with two summary parts), then
        # text and a call: each reasoning item is a thinking block signed with the whole item
        "openai_responses", "reasoning_encrypted_then_text_and_call",
        _rs([
            *_rs_open(),
            *_rs_reasoning("rs_0", 0, [], "gAAAAABoZW5jcnlwdGVkLTA="),
            *_rs_reasoning("rs_1", 1, _RS_PLAN, "gAAAAABoZW5jcnlwdGVkLTE="),
            *_rs_message("msg_2", 2, ["Checking ", "both."]),
            *_rs_call("fc_3", "call_w", "get_weather", 3, ["{\"city\":\"Tōkyō\"}"]),
            {"type": "response.completed", "response": _rs_response("completed", [
                _rs_reasoning_item("rs_0", [], "gAAAAABoZW5jcnlwdGVkLTA="),
                _rs_reasoning_item("rs_1", _RS_PLAN, "gAAAAABoZW5jcnlwdGVkLTE="),
                _rs_message_item("msg_2", "Checking both."),
                _rs_call_item("fc_3", "call_w", "get_weather", "{\"city\":\"Tōkyō\"}"),
            ], RS_THINK_USAGE)},
        ]),
        _rs_response("completed", [
            _rs_reasoning_item("rs_0", [], "gAAAAABoZW5jcnlwdGVkLTA="),
            _rs_reasoning_item("rs_1", _RS_PLAN, "gAAAAABoZW5jcnlwdGVkLTE="),
            _rs_message_item("msg_2", "Checking both."),
            _rs_call_item("fc_3", "call_w", "get_weather", "{\"city\":\"Tōkyō\"}"),
        ], RS_THINK_USAGE),
    ),
    Recorded(
        # no `event:` lines (a proxy that drops them): the data's `type` tells the kinds apart;
        # response.incomplete for max_output_tokens reads as length
        "openai_responses", "unnamed_events_incomplete",
        sse([{**ev, "sequence_number": i} for i, ev in enumerate([
            *_rs_open(),
            *_rs_message("msg_1", 0, ["Cut"]),
            {"type": "response.incomplete", "response": _rs_response("incomplete", [_rs_message_item("msg_1", "Cut")], RS_USAGE,
                                                                     incomplete_details={"reason": "max_output_tokens"})},
        ])]),
        _rs_response("incomplete", [_rs_message_item("msg_1", "Cut")], RS_USAGE, incomplete_details={"reason": "max_output_tokens"}),
    ),
    Recorded(
        # response.failed carries the whole (failed) Response: finish_reason error, as the same body non-streamed
        "openai_responses", "response_failed",
        _rs([
            *_rs_open(),
            *_rs_message("msg_1", 0, ["Partial"]),
            {"type": "response.failed", "response": _rs_response("failed", [_rs_message_item("msg_1", "Partial")], None,
                                                                 error={"code": "server_error", "message": "The model failed to generate a response."})},
        ]),
        _rs_response("failed", [_rs_message_item("msg_1", "Partial")], None, error={"code": "server_error", "message": "The model failed to generate a response."}),
    ),
    Recorded(
        "openai_responses", "mid_stream_error",
        _rs([
            *_rs_open(),
            {"type": "response.output_item.added", "output_index": 0, "item": {"id": "msg_1", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}},
            {"type": "response.content_part.added", "item_id": "msg_1", "output_index": 0, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}},
            {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Partial", "logprobs": []},
            {"type": "error", "code": "server_error", "message": "The server had an error while processing your request.", "param": None},
        ]),
        error="provider_unavailable",
    ),
    Recorded(
        "openai_responses", "dropped_connection",
        _rs([
            *_rs_open(),
            {"type": "response.output_item.added", "output_index": 0, "item": {"id": "msg_1", "type": "message", "status": "in_progress", "content": [], "role": "assistant"}},
            {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Partial", "logprobs": []},
        ]),
        error="provider_unavailable",
    ),
]

# ------------------------------------------------------------------------------------ Mistral
# api (mistralai SDK, generated from Mistral's OpenAPI spec): CompletionChunk {id, object?, created?,
# model, usage?, choices: [{index, delta: DeltaMessage {role?, content?, tool_calls?}, finish_reason}]};
# a ToolCall {id?, type?, function {name, arguments}, index?} arrives whole; UsageInfo on the last
# chunk; `data: [DONE]` (the SDK's sentinel) ends the stream. Tool-call ids are 9 letters/digits.

def _mi(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": "cmpl-e5cc70bb28c4", "object": "chat.completion.chunk", "created": 1702256327, "model": "mistral-large-latest",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


def _mi_body(message: dict[str, Any], finish: str, usage: dict[str, Any]) -> dict[str, Any]:
    return {"id": "cmpl-e5cc70bb28c4", "object": "chat.completion", "created": 1702256327, "model": "mistral-large-latest",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish}], "usage": usage}


MI_USAGE = {"prompt_tokens": 21, "completion_tokens": 9, "total_tokens": 30}
MI_CALLS = [
    {"id": "Dq8zRk2Ws", "type": "function", "function": {"name": "get_weather_T3RehTJ5", "arguments": "{\"city\": \"Rome\"}"}, "index": 0},
    {"id": "pDxlfVnZ9", "type": "function", "function": {"name": "get_weather_T3RehTJ5", "arguments": "{\"city\": \"Oslo\"}"}, "index": 1},
]

MISTRAL = [
    Recorded(
        "mistral", "text",
        sse([
            _mi({"role": "assistant", "content": ""}),
            _mi({"content": "Héllo"}),
            _mi({"content": " wörld 👋"}),
            _mi({"content": ""}, "stop", usage=MI_USAGE),
            "[DONE]",
        ]),
        _mi_body({"content": "Héllo wörld 👋"}, "stop", MI_USAGE),
    ),
    Recorded(
        # the tool name is the one wire_rules renamed (get.weather -> get_weather_T3RehTJ5);
        # tests/stream/test_stream_wire_rules.py reads it back with the call's WireMap
        "mistral", "parallel_tool_calls",
        sse([
            _mi({"role": "assistant", "content": ""}),
            _mi({"tool_calls": MI_CALLS}),
            _mi({"content": ""}, "tool_calls", usage=MI_USAGE),
            "[DONE]",
        ]),
        # (the deltas' empty content is no text: the equivalent message has content null)
        _mi_body({"content": None, "tool_calls": [{k: v for k, v in c.items() if k != "index"} for c in MI_CALLS]}, "tool_calls", MI_USAGE),
    ),
    Recorded(
        # api: CompletionResponseStreamChoice.finish_reason is stop | length | error | tool_calls (the
        # non-streamed choice also has model_length; the stream's enum does not)
        "mistral", "length",
        sse([_mi({"role": "assistant", "content": "Cut"}), _mi({"content": ""}, "length", usage=MI_USAGE), "[DONE]"]),
        _mi_body({"content": "Cut"}, "length", MI_USAGE),
    ),
    Recorded(
        "mistral", "mid_stream_error",
        sse([
            _mi({"role": "assistant", "content": "Partial"}),
            {"object": "error", "message": "Service unavailable.", "type": "internal_error", "param": None, "code": "3000"},
        ]),
        error="provider_unavailable",
    ),
    Recorded(
        "mistral", "dropped_connection",
        sse([_mi({"role": "assistant", "content": "Partial"}), _mi({"content": " answer"})]),
        error="provider_unavailable",
    ),
]

# ------------------------------------------------------------------------------------ OpenRouter
# api (reasoning-tokens guide, streaming): OpenAI chunks whose delta carries `reasoning` (text) and
# `reasoning_details` pieces; the pieces of one entry share its `index` (text/summary in pieces,
# signature and encrypted data whole); non-streamed, `message.reasoning_details` holds the whole
# entries, one block each.

def _or(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"id": "gen-1758885012-2qVP", "provider": "Anthropic", "model": "anthropic/claude-sonnet-4.5",
                            "object": "chat.completion.chunk", "created": 1758885012}
    base["choices"] = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish, "native_finish_reason": finish, "logprobs": None}]
    base.update(extra)
    return base


def _or_body(message: dict[str, Any], finish: str, usage: dict[str, Any]) -> dict[str, Any]:
    return {"id": "gen-1758885012-2qVP", "provider": "Anthropic", "model": "anthropic/claude-sonnet-4.5", "object": "chat.completion",
            "created": 1758885012, "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish,
                                                "native_finish_reason": finish, "logprobs": None}], "usage": usage}


OR_USAGE = {"prompt_tokens": 50, "completion_tokens": 30, "total_tokens": 80}
OR_TEXT_ENTRY = {"type": "reasoning.text", "text": "Look up the weather.", "signature": "EqQBCkgIARABGAIiQL", "format": "anthropic-claude-v1", "index": 0}
OR_ENC_ENTRY = {"type": "reasoning.encrypted", "data": "gAAAAABo", "id": "rs_2", "format": "anthropic-claude-v1", "index": 1}
OR_SUMMARIES = [{"type": "reasoning.summary", "summary": "**Plan** compare.", "format": "openai-responses-v1", "index": 0},
                {"type": "reasoning.summary", "summary": "Then answer.", "format": "openai-responses-v1", "index": 1},
                {"type": "reasoning.encrypted", "data": "gAAAAABoOpenAI", "id": "rs_68", "format": "openai-responses-v1", "index": 2}]


def _piece(entry: dict[str, Any], **kv: Any) -> dict[str, Any]:
    return {**{k: v for k, v in entry.items() if k in ("type", "format", "index")}, **kv}


OPENROUTER = [
    Recorded(
        # Claude through OpenRouter: a signed reasoning.text entry in pieces (signature last), an
        # encrypted entry whole, then two parallel tool calls
        "openrouter", "reasoning_details_then_tool_calls",
        sse([
            _or({"role": "assistant", "content": "", "reasoning": "Look up", "reasoning_details": [_piece(OR_TEXT_ENTRY, text="Look up")]}),
            _or({"content": "", "reasoning": " the weather.", "reasoning_details": [_piece(OR_TEXT_ENTRY, text=" the weather.")]}),
            _or({"content": "", "reasoning": "", "reasoning_details": [_piece(OR_TEXT_ENTRY, text="", signature="EqQBCkgIARABGAIiQL")]}),
            _or({"content": "", "reasoning_details": [OR_ENC_ENTRY]}),
            _or({"content": None, "tool_calls": [{"index": 0, "id": "toolu_01", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]}),
            _or({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\":\"Oslo\"}"}}]}),
            _or({"tool_calls": [{"index": 1, "id": "toolu_02", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\""}}]}),
            _or({"tool_calls": [{"index": 1, "function": {"arguments": ":\"Rome\"}"}}]}),
            _or({"content": ""}, "tool_calls"),
            _or(None, usage=OR_USAGE),
            "[DONE]",
        ]),
        _or_body({"content": None, "reasoning": "Look up the weather.", "reasoning_details": [OR_TEXT_ENTRY, OR_ENC_ENTRY],
                  "tool_calls": [{"id": "toolu_01", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}},
                                 {"id": "toolu_02", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Rome\"}"}}]},
                 "tool_calls", OR_USAGE),
    ),
    Recorded(
        # an OpenAI model through OpenRouter: two summary entries in pieces, an encrypted one, then text
        "openrouter", "summary_entries_then_text",
        sse([
            _or({"role": "assistant", "content": "", "reasoning": "**Plan**", "reasoning_details": [_piece(OR_SUMMARIES[0], summary="**Plan**")]}),
            _or({"content": "", "reasoning": " compare.", "reasoning_details": [_piece(OR_SUMMARIES[0], summary=" compare.")]}),
            _or({"content": "", "reasoning": "Then ", "reasoning_details": [_piece(OR_SUMMARIES[1], summary="Then ")]}),
            _or({"content": "", "reasoning": "answer.", "reasoning_details": [_piece(OR_SUMMARIES[1], summary="answer.")]}),
            _or({"content": "", "reasoning_details": [OR_SUMMARIES[2]]}),
            _or({"content": "Oslo is colder."}),
            _or({"content": ""}, "stop", usage=OR_USAGE),
            "[DONE]",
        ], crlf=True),
        _or_body({"content": "Oslo is colder.", "reasoning": "**Plan** compare.Then answer.", "reasoning_details": OR_SUMMARIES}, "stop", OR_USAGE),
    ),
    Recorded(
        # a model with reasoning text and no details (DeepSeek through OpenRouter): one unsigned block
        "openrouter", "reasoning_text_only",
        sse([
            _or({"role": "assistant", "content": "", "reasoning": "Think"}),
            _or({"content": "", "reasoning": "ing."}),
            _or({"content": "Answer."}, "stop"),
            _or(None, usage=OR_USAGE),
            "[DONE]",
        ]),
        _or_body({"content": "Answer.", "reasoning": "Thinking."}, "stop", OR_USAGE),
    ),
    Recorded(
        # api (errors guide: "errors during streaming"): an error object in a chunk, finish_reason error
        "openrouter", "mid_stream_error",
        sse([
            _or({"role": "assistant", "content": "Partial"}),
            _or({"content": ""}, "error", error={"code": "server_error", "message": "Provider disconnected unexpectedly"}),
        ]),
        error="provider_unavailable",
    ),
    Recorded(
        "openrouter", "dropped_connection",
        sse([_or({"role": "assistant", "content": "Partial", "reasoning_details": [_piece(OR_TEXT_ENTRY, text="x")]}), _or({"content": " answer"})]),
        error="provider_unavailable",
    ),
]


# ------------------------------------------------------------------------------------ Cohere
# api: Cohere v2 chat streaming (V2ChatStreamResponse in the cohere SDK; docs "A Guide to Streaming
# Responses"): every event named by its `type`, message-end carrying finish_reason and usage.

def _co(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return (kind, {"type": kind, **fields})


def _co_text(index: int, text: str) -> tuple[str, dict[str, Any]]:
    return _co("content-delta", index=index, delta={"message": {"content": {"text": text}}})


CO_START = _co("message-start", id="7f4c1a2e-co", delta={"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}})
CO_USAGE = {"billed_units": {"input_tokens": 9, "output_tokens": 7}, "tokens": {"input_tokens": 215, "output_tokens": 7}}


def _co_body(message: dict[str, Any], finish: str, usage: dict[str, Any] = CO_USAGE) -> dict[str, Any]:
    return {"id": "7f4c1a2e-co", "finish_reason": finish, "message": {"role": "assistant", **message}, "usage": usage}


COHERE = [
    Recorded(
        "cohere_chat", "text",
        sse([
            CO_START,
            _co("content-start", index=0, delta={"message": {"content": {"type": "text", "text": ""}}}),
            _co_text(0, "Héllo"),
            _co_text(0, ", wörld 👋"),
            _co("content-end", index=0),
            _co("message-end", delta={"finish_reason": "COMPLETE", "usage": CO_USAGE}),
        ]),
        _co_body({"content": [{"type": "text", "text": "Héllo, wörld 👋"}]}, "COMPLETE"),
    ),
    Recorded(
        # a reasoning model: a thinking part, the tool plan, two tool calls in pieces
        "cohere_chat", "thinking_plan_tool_calls",
        sse([
            CO_START,
            _co("content-start", index=0, delta={"message": {"content": {"type": "thinking", "thinking": ""}}}),
            _co("content-delta", index=0, delta={"message": {"content": {"thinking": "Both cities "}}}),
            _co("content-delta", index=0, delta={"message": {"content": {"thinking": "are needed."}}}),
            _co("content-end", index=0),
            _co("tool-plan-delta", delta={"message": {"tool_plan": "I will look up "}}),
            _co("tool-plan-delta", delta={"message": {"tool_plan": "both cities."}}),
            _co("tool-call-start", index=0, delta={"message": {"tool_calls": {"id": "get_weather_9q1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}}}),
            _co("tool-call-delta", index=0, delta={"message": {"tool_calls": {"function": {"arguments": "{\"city\": "}}}}),
            _co("tool-call-delta", index=0, delta={"message": {"tool_calls": {"function": {"arguments": "\"Paris\"}"}}}}),
            _co("tool-call-end", index=0),
            _co("tool-call-start", index=1, delta={"message": {"tool_calls": {"id": "get_weather_7w3", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}}}),
            _co("tool-call-end", index=1),
            _co("message-end", delta={"finish_reason": "TOOL_CALL", "usage": CO_USAGE}),
        ]),
        _co_body({"content": [{"type": "thinking", "thinking": "Both cities are needed."}],
                  "tool_calls": [{"id": "get_weather_9q1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
                                 {"id": "get_weather_7w3", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
                 "TOOL_CALL"),
    ),
    Recorded(
        # retrieval: citations between the text events; usage from billed_units only
        "cohere_chat", "citations_billed_units",
        sse([
            CO_START,
            _co("content-start", index=0, delta={"message": {"content": {"type": "text", "text": ""}}}),
            _co_text(0, "Ann wrote it."),
            _co("citation-start", index=0, delta={"message": {"citations": {"start": 0, "end": 3, "text": "Ann", "sources": [{"type": "document", "id": "doc1", "document": {"author": "Ann"}}], "type": "TEXT_CONTENT"}}}),
            _co("citation-end", index=0),
            _co("content-end", index=0),
            _co("message-end", delta={"finish_reason": "MAX_TOKENS", "usage": {"billed_units": {"input_tokens": 12, "output_tokens": 4}}}),
        ]),
        _co_body({"content": [{"type": "text", "text": "Ann wrote it."}]}, "MAX_TOKENS", {"billed_units": {"input_tokens": 12, "output_tokens": 4}}),
    ),
    Recorded(
        # api: ChatMessageEndEventDelta.error: the generation failed after some text
        "cohere_chat", "mid_stream_error",
        sse([
            CO_START,
            _co("content-start", index=0, delta={"message": {"content": {"type": "text", "text": ""}}}),
            _co_text(0, "Partial"),
            _co("message-end", delta={"finish_reason": "ERROR", "error": "internal error while generating"}),
        ]),
        error="provider_unavailable",
    ),
    Recorded(
        "cohere_chat", "dropped_connection",
        sse([CO_START, _co("content-start", index=0, delta={"message": {"content": {"type": "text", "text": ""}}}), _co_text(0, "Partial"), _co_text(0, " answer")]),
        error="provider_unavailable",
    ),
]

ALL = OPENAI + ANTHROPIC + GEMINI + RESPONSES + MISTRAL + OPENROUTER + COHERE

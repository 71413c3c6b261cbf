"""Writes bench/corpus/*.json (deterministic; committed). `long_conversation(n)` is also used
by bench/run.py for the scaling runs (100, 1 000, 10 000 messages).

Every request item is written in both source formats of the measured pairs: `<name>.json` is
its OpenAI Chat form, `<name>.anthropic.json` its Anthropic Messages form. The synthetic items
are written in OpenAI Chat form and their Anthropic form is what wiremap sends for them; the
recorded items (RECORDED: real client traffic from ../shared/recorded, see its README) keep the
form they were recorded in, and their other form is what wiremap sends for them.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "corpus"

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city.",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["c", "f"]}}, "required": ["city"]}}},
    {"type": "function", "function": {"name": "search_flights", "description": "Flights between two airports on a date.",
     "parameters": {"type": "object", "properties": {"from": {"type": "string", "minLength": 3, "maxLength": 3}, "to": {"type": "string"},
                    "date": {"type": "string", "format": "date"}, "passengers": {"type": "integer", "minimum": 1}}, "required": ["from", "to", "date"]}}},
    {"type": "function", "function": {"name": "book_hotel", "description": "Book a hotel room.",
     "parameters": {"type": "object", "properties": {"hotel_id": {"type": "string"}, "nights": {"type": "integer"},
                    "guests": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name"]}}},
                    "required": ["hotel_id", "nights"]}}},
]


def small_chat() -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 256, "messages": [
        {"role": "system", "content": "You are a concise assistant."},
        {"role": "user", "content": "What is the capital of France?"}]}


def tool_turn() -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "temperature": 0.2, "top_p": 0.9, "stop": ["\n\nHuman:"],
            "tools": TOOLS, "tool_choice": "auto", "messages": [
        {"role": "system", "content": "You plan trips. Use the tools."},
        {"role": "user", "content": "Weather in Paris and Rome, and flights CDG to FCO on 2026-12-01?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": "Paris", "unit": "c"})}},
            {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": "Rome", "unit": "c"})}},
            {"id": "call_3", "type": "function", "function": {"name": "search_flights", "arguments": json.dumps({"from": "CDG", "to": "FCO", "date": "2026-12-01", "passengers": 2})}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\": 8, \"sky\": \"rain\"}"},
        {"role": "tool", "tool_call_id": "call_2", "content": "{\"temp\": 14, \"sky\": \"sun\"}"},
        {"role": "tool", "tool_call_id": "call_3", "content": "[{\"flight\": \"AZ317\", \"dep\": \"07:10\"}, {\"flight\": \"AF1204\", \"dep\": \"09:45\"}]"},
        {"role": "user", "content": "Book the cheapest option and a hotel for two nights."}]}


def multimodal() -> dict[str, Any]:
    rnd = random.Random(4)
    png = base64.b64encode(bytes(rnd.randrange(256) for _ in range(3072))).decode()  # ~4 KB of base64
    return {"model": "claude-sonnet-4-5", "max_tokens": 512, "messages": [
        {"role": "user", "content": [
            {"type": "text", "text": "Compare these two images."},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}}]}]}


def long_conversation(n: int = 240) -> dict[str, Any]:
    """n messages: user/assistant turns, every 10th exchange a tool round trip."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a helpful assistant with tools."}]
    i = 0
    while len(messages) < n:
        i += 1
        messages.append({"role": "user", "content": f"Question {i}: tell me something about topic number {i}, with a few details."})
        if i % 10 == 0 and len(messages) + 3 <= n:
            cid = f"call_{i}"
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": "get_weather", "arguments": json.dumps({"city": f"City{i}"})}}]})
            messages.append({"role": "tool", "tool_call_id": cid, "content": f"{{\"temp\": {i % 30}}}"})
        messages.append({"role": "assistant", "content": f"Answer {i}: topic {i} is interesting because of reasons one, two and three."})
    if messages[-1]["role"] != "user":
        messages.append({"role": "user", "content": "Thanks, summarise everything."})
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "tools": TOOLS[:1], "messages": messages}


def openai_response() -> dict[str, Any]:
    return {"id": "chatcmpl-abc123", "object": "chat.completion", "created": 1764000000, "model": "gpt-4o-2024-08-06",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None, "message": {
                "role": "assistant", "content": "Checking both cities.", "refusal": None, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}}]}}],
            "usage": {"prompt_tokens": 412, "completion_tokens": 58, "total_tokens": 470, "prompt_tokens_details": {"cached_tokens": 128}}}


def anthropic_response() -> dict[str, Any]:
    return {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "Checking both cities."},
                        {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {"city": "Paris"}},
                        {"type": "tool_use", "id": "toolu_02", "name": "get_weather", "input": {"city": "Rome"}}],
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 412, "output_tokens": 58, "cache_read_input_tokens": 128, "cache_creation_input_tokens": 0}}


# Real requests from ../shared/recorded (pydantic-ai's cassettes, recorded against the live APIs):
# name -> (recorded file, its `source` field, the wiremap format the body is written in).
RECORDED = {
    # the largest recorded OpenAI Chat agent request: 21 tools, a history of parallel tool calls
    "agent_openai": ("openai_chat.jsonl", "pydantic/pydantic-ai:tests/cassettes/test_prefect/test_complex_agent_run_in_flow.yaml#2", "openai_chat"),
    # the largest recorded Anthropic agent request with cache markers (cache_control on the body,
    # the system block and the tools) among those with tools and a tool-call history
    "agent_anthropic_cached": ("anthropic.messages_2023_06_01.jsonl",
                               "pydantic/pydantic-ai:tests/cassettes/test_tool_search/test_anthropic_to_google_deferred_capability_history_replay.yaml#2",
                               "anthropic_messages"),
    # a reasoning turn sent back: a thinking block with its signature, extended thinking on
    "reasoning_turn": ("anthropic.messages_2023_06_01.jsonl",
                       "pydantic/pydantic-ai:tests/cassettes/test_cache_prefix_stability/test_anthropic_thinking_roundtrip_wire_stable[vercel].yaml#1",
                       "anthropic_messages"),
}
RECORDED_DIR = Path(__file__).resolve().parents[2] / "shared" / "recorded"


def recorded(name: str) -> dict[str, Any]:
    """The recorded request body of RECORDED[name], as it was sent."""
    file, source, _ = RECORDED[name]
    with open(RECORDED_DIR / file, encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["kind"] == "request" and row["source"] == source:
                body: dict[str, Any] = row["body"]
                return body
    raise LookupError(f"{source} is not in {RECORDED_DIR / file}")


REQUESTS = {"small_chat": small_chat, "tool_turn": tool_turn, "multimodal": multimodal, "long_conversation": long_conversation,
            **{name: (lambda name=name: recorded(name)) for name in RECORDED}}
RESPONSES = {"openai_response": openai_response, "anthropic_response": anthropic_response}


def main() -> None:
    HERE.mkdir(exist_ok=True)
    import warnings

    import wiremap

    warnings.simplefilter("ignore", wiremap.UnsupportedOptionWarning)
    to_anthropic = wiremap.translator("openai_chat", "anthropic_messages").request
    to_openai = wiremap.translator("anthropic_messages", "openai_chat").request

    def write(name: str, body: dict[str, Any]) -> None:
        (HERE / name).write_text(json.dumps(body, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    for name, fn in REQUESTS.items():
        body = fn()
        native = RECORDED[name][2] if name in RECORDED else "openai_chat"
        if native == "openai_chat":
            write(f"{name}.json", body)
            write(f"{name}.anthropic.json", to_anthropic(body))
        else:
            write(f"{name}.anthropic.json", body)
            write(f"{name}.json", to_openai(body))
    for name, fn in RESPONSES.items():
        write(f"{name}.json", fn())


if __name__ == "__main__":
    main()

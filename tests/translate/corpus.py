"""The shared translation corpus: canonical conversations, each exercising one feature.

Every item is a canonical request (or response) plus a `select` function that extracts what the
feature is about from a canonical dict; the translation matrix (matrix.py) sends each item
through every source -> target pair and compares the selections before and after.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
PDF = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK"
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA="
WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@dataclass(frozen=True)
class Item:
    feature: str
    kind: str  # request | response
    record: dict[str, Any]
    paths: tuple[str, ...]  # canonical paths the feature lives at (dotted, [i] indexes)


def user(text: str = "Hi") -> dict[str, Any]:
    return {"role": "user", "content": text}


def req(messages: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"model": "m-1", "messages": messages, **more}


TOOL_TURN = [
    user("Weather in Paris and Oslo?"),
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris"}},
            {"id": "call_b", "name": "get_weather", "arguments": {"city": "Oslo"}},
        ],
    },
    {"role": "tool", "tool_call_id": "call_a", "content": "18C"},
    {"role": "tool", "tool_call_id": "call_b", "content": "9C"},
]
TOOLS = [{"name": "get_weather", "description": "Weather for a city", "parameters": WEATHER}]


def _image(source: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "image", "source": source, **more}


REQUESTS: list[Item] = [
    Item("system prompt", "request", req([{"role": "system", "content": "Be brief."}, user()]), ("messages[0]",)),
    Item("multi-turn text", "request", req([user("A?"), {"role": "assistant", "content": "B."}, user("C?")]), ("messages",)),
    Item("image by URL", "request", req([{"role": "user", "content": [{"type": "text", "text": "What?"}, _image({"type": "url", "url": "https://example.com/a.png"})]}]), ("messages[0].content[1]",)),
    Item("inline image", "request", req([{"role": "user", "content": [{"type": "text", "text": "What?"}, _image({"type": "inline", "base64_data": PNG}, media_type="image/png")]}]), ("messages[0].content[1]",)),
    Item("image detail hint", "request", req([{"role": "user", "content": [{"type": "text", "text": "What?"}, _image({"type": "url", "url": "https://example.com/a.png"}, detail="low")]}]), ("messages[0].content[1].detail",)),
    Item("inline audio (wav)", "request", req([{"role": "user", "content": [{"type": "text", "text": "Transcribe"}, {"type": "audio", "source": {"type": "inline", "base64_data": WAV}, "media_type": "audio/wav"}]}]), ("messages[0].content[1]",)),
    Item("inline PDF", "request", req([{"role": "user", "content": [{"type": "text", "text": "Summarise"}, {"type": "file", "source": {"type": "inline", "base64_data": PDF}, "media_type": "application/pdf", "filename": "a.pdf"}]}]), ("messages[0].content[1]",)),
    Item("tool definitions", "request", req([user()], tools=TOOLS), ("tools",)),
    Item("strict tool", "request", req([user()], tools=[{**TOOLS[0], "strict": True}]), ("tools[0].strict", "tools[0].parameters")),
    Item("tool_choice required", "request", req([user()], tools=TOOLS, tool_choice="required"), ("tool_choice",)),
    Item("forced tool", "request", req([user()], tools=TOOLS, tool_choice={"type": "tool", "name": "get_weather"}), ("tool_choice",)),
    Item("tool_choice none", "request", req([user()], tools=TOOLS, tool_choice="none"), ("tool_choice",)),
    Item("parallel tool calls + results", "request", req(TOOL_TURN, tools=TOOLS), ("messages[1].tool_calls", "messages[2]", "messages[3]")),
    Item("temperature", "request", req([user()], config={"temperature": 0.3}), ("config.temperature",)),
    Item("top_p", "request", req([user()], config={"top_p": 0.9}), ("config.top_p",)),
    Item("top_k", "request", req([user()], config={"top_k": 40}), ("config.top_k",)),
    Item("max_tokens", "request", req([user()], config={"max_tokens": 77}), ("config.max_tokens",)),
    Item("seed", "request", req([user()], config={"seed": 7}), ("config.seed",)),
    Item("stop sequences", "request", req([user()], config={"stop_sequences": ["END"]}), ("config.stop_sequences",)),
    Item("penalties", "request", req([user()], config={"frequency_penalty": 0.5, "presence_penalty": 0.25}), ("config.frequency_penalty", "config.presence_penalty")),
    Item("structured output", "request", req([user("Pick a city")], response_schema={**WEATHER, "additionalProperties": False}), ("response_schema",)),
]


def resp(message: dict[str, Any], finish: str = "stop", usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "message": {"role": "assistant", **message},
        "finish_reason": finish,
        "usage": usage or {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        "raw": {},
    }


RESPONSES: list[Item] = [
    Item("response text", "response", resp({"content": "Hello."}), ("message.content",)),
    Item("response tool calls", "response", resp({"content": None, "tool_calls": TOOL_TURN[1]["tool_calls"]}, "tool_calls"), ("message.tool_calls", "finish_reason")),
    Item("response signed thinking", "response", resp({"content": [{"type": "thinking", "text": "Hmm.", "signature": "sig-1"}, {"type": "text", "text": "Yes."}]}), ("message.content[0]",)),
    Item("finish: length", "response", resp({"content": "Cut"}, "length"), ("finish_reason",)),
    Item("finish: content_filter", "response", resp({"content": "No."}, "content_filter"), ("finish_reason",)),
    Item("usage: cached tokens", "response", resp({"content": "Hi"}, usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15, "cached_tokens": 4}), ("usage.cached_tokens",)),
]

CORPUS: list[Item] = REQUESTS + RESPONSES

# The embeddings formats' corpus (issue 17): what a client asks for and what comes back.
EMBEDDINGS_CORPUS: list[Item] = [
    Item("one text", "request", req([user("hello")]), ("messages",)),
    Item("several texts", "request", req([{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]), ("messages",)),
    Item("input_type", "request", req([user("hello")], config={"input_type": "search_query"}), ("config.input_type",)),
    Item("dimensions", "request", req([user("hello")], config={"dimensions": 256}), ("config.dimensions",)),
    Item("encoding_format", "request", req([user("hello")], config={"encoding_format": "base64"}), ("config.encoding_format",)),
    Item("one vector", "response", {"embeddings": [[0.5, -0.25]], "model": "m-1", "usage": {"prompt_tokens": 3, "completion_tokens": None, "total_tokens": 3}, "raw": {}}, ("embeddings",)),
    Item("several vectors", "response", {"embeddings": [[0.5, -0.25], [0.125, 1.0]], "model": "m-1", "usage": {"prompt_tokens": 6, "completion_tokens": None, "total_tokens": 6}, "raw": {}}, ("embeddings",)),
    Item("usage", "response", {"embeddings": [[0.5, -0.25]], "model": "m-1", "usage": {"prompt_tokens": 3, "completion_tokens": None, "total_tokens": 3}, "raw": {}}, ("usage.prompt_tokens", "usage.total_tokens")),
]


def select(record: Any, path: str) -> Any:
    """The value at a canonical path (`messages[1].tool_calls`), or a marker when absent."""
    import re

    value = record
    for name, index in re.findall(r"([A-Za-z_]+)|\[(\d+)\]", path):
        if name:
            if not isinstance(value, dict) or name not in value:
                return MISSING
            value = value[name]
        else:
            i = int(index)
            if not isinstance(value, list) or i >= len(value):
                return MISSING
            value = value[i]
    return value


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
Selector = Callable[[dict[str, Any]], Any]

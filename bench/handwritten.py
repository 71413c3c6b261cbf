"""Straight-line hand-written converters for the bench corpus: the practical floor.

They do what the corpus needs and nothing else: no validation beyond what building the output
needs, no error paths, no options the corpus does not use. They produce the same bytes as wiremap
(key order; user JSON -- tool schemas and arguments -- copied in the caller's key order, as the
base formats send it since issue #14), which bench/run.py checks with `json.dumps` of both, so the
floor is doing the same work. `openai_to_anthropic_reshape` is kept for scale: the same reshaping
with schemas and arguments shared with the input, not copied (equal bytes, less work).
"""

from __future__ import annotations

import json
from typing import Any

from wiremap.runtime.canonical import (
    NOT_GIVEN,
    AssistantMessage,
    ImageBlock,
    InlineSource,
    Response,
    TextBlock,
    ToolCall,
    ToolMessage,
    UrlSource,
    Usage,
)

_STOP = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}
_OA_STOP = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}


def _an_part(part: dict[str, Any]) -> dict[str, Any]:
    if part["type"] == "text":
        return {"type": "text", "text": part["text"]}
    url = part["image_url"]["url"]
    if url.startswith("data:"):
        head, data = url[5:].split(",", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": head.split(";", 1)[0], "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _sorted(value: Any) -> Any:
    """A copy of user JSON (tool schemas, arguments) in the caller's key order: the body owns its
    data, as wiremap's does. (The name is the floor's history: under OpenArmature §8, the
    openarmature.* dialects', this copy sorts.)"""
    if type(value) is dict:
        return {k: _sorted(v) for k, v in value.items()}
    if type(value) is list:
        return [_sorted(v) for v in value]
    return value


def openai_to_anthropic_request(body: dict[str, Any]) -> dict[str, Any]:
    """OpenAI Chat request body -> Anthropic Messages request body, byte for byte what wiremap
    sends (keys in its order, schemas and arguments in the caller's; bench/run.py compares the bytes)."""
    out: dict[str, Any] = {"model": body["model"]}
    system = []
    messages: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    for m in body["messages"]:
        role = m["role"]
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}
            if results is None:
                results = [block]
                messages.append({"role": "user", "content": results})
            else:
                results.append(block)
            continue
        results = None
        if role == "system":
            system.append(m["content"])
        elif role == "user":
            c = m["content"]
            parts = [{"type": "text", "text": c}] if type(c) is str else [_an_part(p) for p in c]
            messages.append({"role": "user", "content": parts})
        else:
            blocks: list[dict[str, Any]] = []
            c = m.get("content")
            if c:
                blocks.append({"type": "text", "text": c})
            for call in m.get("tool_calls") or ():
                f = call["function"]
                blocks.append({"type": "tool_use", "id": call["id"], "name": f["name"], "input": _sorted(json.loads(f["arguments"]))})
            messages.append({"role": "assistant", "content": blocks})
    if system:
        out["system"] = "\n\n".join(system)
    out["messages"] = messages
    out["max_tokens"] = body["max_tokens"]
    if "stop" in body:
        out["stop_sequences"] = body["stop"]
    if "tools" in body:
        out["tools"] = [
            {"name": t["function"]["name"], "input_schema": _sorted(t["function"]["parameters"]), "description": t["function"]["description"]}
            for t in body["tools"]
        ]
    if "tool_choice" in body:
        out["tool_choice"] = {"type": body["tool_choice"]}
    return out


def openai_to_anthropic_reshape(body: dict[str, Any]) -> dict[str, Any]:
    """The same reshaping with schemas and arguments shared with the input, not copied: the same
    bytes, less work. Reported beside the floor, for scale."""
    out: dict[str, Any] = {"model": body["model"]}
    system = []
    messages: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    for m in body["messages"]:
        role = m["role"]
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": m["tool_call_id"], "content": m["content"]}
            if results is None:
                results = [block]
                messages.append({"role": "user", "content": results})
            else:
                results.append(block)
            continue
        results = None
        if role == "system":
            system.append(m["content"])
        elif role == "user":
            c = m["content"]
            parts = [{"type": "text", "text": c}] if type(c) is str else [_an_part(p) for p in c]
            messages.append({"role": "user", "content": parts})
        else:
            blocks: list[dict[str, Any]] = []
            c = m.get("content")
            if c:
                blocks.append({"type": "text", "text": c})
            for call in m.get("tool_calls") or ():
                f = call["function"]
                blocks.append({"type": "tool_use", "id": call["id"], "name": f["name"], "input": json.loads(f["arguments"])})
            messages.append({"role": "assistant", "content": blocks})
    if system:
        out["system"] = "\n\n".join(system)
    out["messages"] = messages
    out["max_tokens"] = body["max_tokens"]
    if "stop" in body:
        out["stop_sequences"] = body["stop"]
    if "tools" in body:
        out["tools"] = [
            {"name": t["function"]["name"], "description": t["function"]["description"], "input_schema": t["function"]["parameters"]}
            for t in body["tools"]
        ]
    if "tool_choice" in body:
        out["tool_choice"] = {"type": body["tool_choice"]}
    return out


def _openai_usage(u: dict[str, Any]) -> dict[str, Any]:
    """Anthropic usage in OpenAI's accounting: prompt_tokens counts cache reads and writes, which
    Anthropic's input_tokens leaves out (docs/canonical.md); cached reads in the details."""
    read = u.get("cache_read_input_tokens")
    prompt = u["input_tokens"] + (read or 0) + (u.get("cache_creation_input_tokens") or 0)
    out: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": u["output_tokens"], "total_tokens": prompt + u["output_tokens"]}
    if read is not None:
        out["prompt_tokens_details"] = {"cached_tokens": read}
    return out


def anthropic_to_openai_response(body: dict[str, Any]) -> dict[str, Any]:
    """Anthropic Messages response body -> OpenAI Chat response body."""
    text = []
    calls = []
    for block in body["content"]:
        if block["type"] == "text":
            text.append(block["text"])
        elif block["type"] == "tool_use":
            calls.append({"id": block["id"], "type": "function", "function": {"name": block["name"], "arguments": json.dumps(block["input"], separators=(",", ":"), ensure_ascii=False)}})
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) if text else None}
    if calls:
        message["tool_calls"] = calls
    u = body["usage"]
    return {
        "id": body["id"], "object": "chat.completion", "created": 0, "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": _STOP[body["stop_reason"]]}],
        "usage": _openai_usage(u),
    }


def canonical_to_anthropic_request(req: Any) -> dict[str, Any]:
    """A typed canonical Request -> Anthropic Messages request body (single direction), byte for
    byte what wiremap sends."""
    out: dict[str, Any] = {"model": req.model}
    messages: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    for m in req.messages:
        role = m.role
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.content}
            if results is None:
                results = [block]
                messages.append({"role": "user", "content": results})
            else:
                results.append(block)
            continue
        results = None
        if role == "system":
            out["system"] = m.content
        elif role == "user":
            c = m.content
            if type(c) is str:
                messages.append({"role": "user", "content": [{"type": "text", "text": c}]})
                continue
            parts = []
            for b in c:
                if type(b) is TextBlock:
                    parts.append({"type": "text", "text": b.text})
                elif type(b.source) is UrlSource:
                    parts.append({"type": "image", "source": {"type": "url", "url": b.source.url}})
                else:
                    parts.append({"type": "image", "source": {"type": "base64", "media_type": b.media_type, "data": b.source.base64_data}})
            messages.append({"role": "user", "content": parts})
        else:
            blocks: list[dict[str, Any]] = []
            c = m.content
            if type(c) is str and c:
                blocks.append({"type": "text", "text": c})
            elif type(c) is list:
                blocks.extend({"type": "text", "text": b.text} for b in c)
            if m.tool_calls is not NOT_GIVEN:
                for call in m.tool_calls:
                    blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": _sorted(call.arguments)})
            messages.append({"role": "assistant", "content": blocks})
    out["messages"] = messages
    cfg = req.config
    out["max_tokens"] = cfg.max_tokens
    if cfg.stop_sequences is not NOT_GIVEN:
        out["stop_sequences"] = cfg.stop_sequences
    if req.tools is not NOT_GIVEN:
        out["tools"] = [{"name": t.name, "input_schema": _sorted(t.parameters), "description": t.description} for t in req.tools]
    if req.tool_choice is not NOT_GIVEN:
        out["tool_choice"] = {"type": req.tool_choice}
    return out


def anthropic_response_to_canonical(body: dict[str, Any]) -> Response:
    """Anthropic Messages response body -> typed canonical Response (single direction)."""
    content: list[Any] = []
    calls = []
    for block in body["content"]:
        if block["type"] == "text":
            content.append(block["text"])
        elif block["type"] == "tool_use":
            calls.append(ToolCall(id=block["id"], name=block["name"], arguments=block["input"]))
    u = body["usage"]
    read, written = u.get("cache_read_input_tokens"), u.get("cache_creation_input_tokens")
    prompt = u["input_tokens"] + (read or 0) + (written or 0)  # docs/canonical.md: cache included
    usage = Usage(prompt_tokens=prompt, completion_tokens=u["output_tokens"], total_tokens=prompt + u["output_tokens"])
    if read is not None:
        usage.cached_tokens = read
    if written is not None:
        usage.cache_creation_tokens = written
    message = AssistantMessage(content="".join(content) if content else None, tool_calls=calls or NOT_GIVEN)
    return Response(message=message, finish_reason=_STOP[body["stop_reason"]], usage=usage, raw=body)  # type: ignore[arg-type]


_unused = (ImageBlock, InlineSource, ToolMessage, _OA_STOP)

"""Straight-line hand-written converters for the bench corpus: the practical floor.

They do what the corpus needs and nothing else: no validation beyond what building the output
needs, no error paths, no options the corpus does not use. They produce the same bytes as wiremap
(key order; user JSON -- tool schemas and arguments -- copied in the caller's key order, as the
base formats send it since issue #14), which bench/run.py checks with `json.dumps` of both, so the
floor is doing the same work. Pairs: OpenAI Chat -> Anthropic Messages and -> Gemini
generateContent, Anthropic Messages -> OpenAI Chat (requests and responses), and the typed
canonical single directions of Anthropic Messages.
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
_GEMINI_STOP = {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS"}
# The corpus's reasoning turn: effort low <-> a 1024-token thinking budget (the mappings' tables)
_BUDGET = {"low": 1024}
_EFFORT = {1024: "low"}
_AN_CHOICE = {"auto": "auto", "required": "any"}
_OA_CHOICE = {"auto": "auto", "any": "required"}
_GEMINI_CHOICE = {"auto": "AUTO", "required": "ANY"}
_COMPACT = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _an_part(part: dict[str, Any]) -> dict[str, Any]:
    if part["type"] == "text":
        return {"type": "text", "text": part["text"]}
    url = part["image_url"]["url"]
    if url.startswith("data:"):
        head, data = url[5:].split(",", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": head.split(";", 1)[0], "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def _copy(value: Any) -> Any:
    """A copy of user JSON (tool schemas, arguments) in the caller's key order, not sorted: the
    body owns its data, as wiremap's does (the base formats send user JSON in the caller's order
    since issue #14; only the openarmature.* dialects sort, OpenArmature §8)."""
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
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
                blocks.append({"type": "tool_use", "id": call["id"], "name": f["name"], "input": json.loads(f["arguments"])})
            messages.append({"role": "assistant", "content": blocks})
    if system:
        out["system"] = "\n\n".join(system)
    out["messages"] = messages
    out["max_tokens"] = body.get("max_tokens") or body.get("max_completion_tokens") or 4096
    if "stop" in body:
        out["stop_sequences"] = body["stop"]
    if "reasoning_effort" in body:
        out["thinking"] = {"type": "enabled", "budget_tokens": _BUDGET[body["reasoning_effort"]]}
    if "tools" in body:
        tools = out["tools"] = []
        for t in body["tools"]:
            f = t["function"]
            tool = {"name": f["name"], "input_schema": _copy(f["parameters"]), "description": f["description"]}
            if "strict" in f:
                tool["strict"] = f["strict"]
            tools.append(tool)
    if "tool_choice" in body:
        out["tool_choice"] = {"type": _AN_CHOICE[body["tool_choice"]]}
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
                    blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": _copy(call.arguments)})
            messages.append({"role": "assistant", "content": blocks})
    out["messages"] = messages
    cfg = req.config
    if cfg is NOT_GIVEN:
        out["max_tokens"] = 4096
    else:
        out["max_tokens"] = 4096 if cfg.max_tokens is NOT_GIVEN else cfg.max_tokens
        if cfg.stop_sequences is not NOT_GIVEN:
            out["stop_sequences"] = cfg.stop_sequences
        if cfg.reasoning_effort is not NOT_GIVEN:
            out["thinking"] = {"type": "enabled", "budget_tokens": _BUDGET[cfg.reasoning_effort]}
    if req.tools is not NOT_GIVEN:
        tools = out["tools"] = []
        for t in req.tools:
            tool = {"name": t.name, "input_schema": _copy(t.parameters), "description": t.description}
            if t.strict is not NOT_GIVEN:
                tool["strict"] = t.strict
            tools.append(tool)
    if req.tool_choice is not NOT_GIVEN:
        out["tool_choice"] = {"type": _AN_CHOICE[req.tool_choice]}
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


def _text_of(content: Any) -> str:
    """An Anthropic tool_result's content as OpenAI tool-message text: a string as it is, blocks'
    texts joined (a block without text, such as a tool_reference, adds nothing)."""
    if type(content) is str:
        return content
    return "".join(b.get("text", "") for b in content)


def anthropic_to_openai_request(body: dict[str, Any]) -> dict[str, Any]:
    """Anthropic Messages request body -> OpenAI Chat request body, byte for byte what wiremap
    sends: thinking blocks, cache markers, server tools and `defer_loading` have no OpenAI Chat
    field and are not sent; the thinking budget becomes an effort."""
    messages: list[dict[str, Any]] = []
    system = body.get("system")
    if system is not None:
        messages.append({"role": "system", "content": system if type(system) is str else "\n\n".join(b["text"] for b in system)})
    for m in body["messages"]:
        c = m["content"]
        if m["role"] == "user":
            if type(c) is str:
                messages.append({"role": "user", "content": c})
                continue
            parts: list[dict[str, Any]] = []
            for b in c:
                t = b["type"]
                if t == "tool_result":
                    messages.append({"role": "tool", "tool_call_id": b["tool_use_id"], "content": _text_of(b["content"])})
                elif t == "text":
                    parts.append({"type": "text", "text": b["text"]})
                else:
                    src = b["source"]
                    url = src["url"] if src["type"] == "url" else f"data:{src['media_type']};base64,{src['data']}"
                    parts.append({"type": "image_url", "image_url": {"url": url}})
            if len(parts) == 1 and parts[0]["type"] == "text":
                messages.append({"role": "user", "content": parts[0]["text"]})
            elif parts:
                messages.append({"role": "user", "content": parts})
        else:
            text: list[str] = []
            calls: list[dict[str, Any]] = []
            for b in c:
                t = b["type"]
                if t == "text":
                    text.append(b["text"])
                elif t == "tool_use":
                    calls.append({"id": b["id"], "type": "function", "function": {"name": b["name"], "arguments": _COMPACT(b["input"])}})
            msg: dict[str, Any] = {"role": "assistant", "content": "".join(text) if text else None}
            if calls:
                msg["tool_calls"] = calls
            messages.append(msg)
    out: dict[str, Any] = {"model": body["model"], "messages": messages, "max_completion_tokens": body["max_tokens"]}
    if "stop_sequences" in body:
        out["stop"] = body["stop_sequences"]
    thinking = body.get("thinking")
    if thinking is not None:
        out["reasoning_effort"] = _EFFORT[thinking["budget_tokens"]]
    if "tools" in body:
        tools = out["tools"] = []
        for t in body["tools"]:
            if "input_schema" not in t:  # a server tool
                continue
            f = {"name": t["name"], "description": t["description"], "parameters": _copy(t["input_schema"])}
            if "strict" in t:
                f["strict"] = t["strict"]
            tools.append({"type": "function", "function": f})
    if "tool_choice" in body:
        out["tool_choice"] = _OA_CHOICE[body["tool_choice"]["type"]]
    return out


_MIME = {"jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp"}


def _gemini_part(part: dict[str, Any]) -> dict[str, Any]:
    if part["type"] == "text":
        return {"text": part["text"]}
    url = part["image_url"]["url"]
    if url.startswith("data:"):
        head, data = url[5:].split(",", 1)
        return {"inlineData": {"mimeType": head.split(";", 1)[0], "data": data}}
    return {"fileData": {"fileUri": url, "mimeType": _MIME[url.rsplit(".", 1)[1]]}}


def openai_to_gemini_request(body: dict[str, Any]) -> dict[str, Any]:
    """OpenAI Chat request body -> Gemini generateContent request body, byte for byte what wiremap
    sends (a tool result names its function, found from the call it answers)."""
    out: dict[str, Any] = {"model": body["model"]}
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    names: dict[str, str] = {}
    results: list[dict[str, Any]] | None = None
    for m in body["messages"]:
        role = m["role"]
        if role == "tool":
            cid = m["tool_call_id"]
            part = {"functionResponse": {"id": cid, "name": names[cid], "response": {"result": m["content"]}}}
            if results is None:
                results = [part]
                contents.append({"role": "user", "parts": results})
            else:
                results.append(part)
            continue
        results = None
        if role == "system":
            system.append(m["content"])
        elif role == "user":
            c = m["content"]
            contents.append({"role": "user", "parts": [{"text": c}] if type(c) is str else [_gemini_part(p) for p in c]})
        else:
            parts: list[dict[str, Any]] = []
            c = m.get("content")
            if c:
                parts.append({"text": c})
            for call in m.get("tool_calls") or ():
                f = call["function"]
                names[call["id"]] = f["name"]
                parts.append({"functionCall": {"id": call["id"], "name": f["name"], "args": json.loads(f["arguments"])}})
            contents.append({"role": "model", "parts": parts})
    if system:
        out["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
    out["contents"] = contents
    if "tools" in body:
        out["tools"] = [{"functionDeclarations": [
            {"name": t["function"]["name"], "description": t["function"]["description"], "parametersJsonSchema": _copy(t["function"]["parameters"])}
            for t in body["tools"]]}]
    if "tool_choice" in body:
        out["toolConfig"] = {"functionCallingConfig": {"mode": _GEMINI_CHOICE[body["tool_choice"]]}}
    config: dict[str, Any] = {}
    if "temperature" in body:
        config["temperature"] = body["temperature"]
    limit = body.get("max_tokens") or body.get("max_completion_tokens")
    if limit is not None:
        config["maxOutputTokens"] = limit
    if "top_p" in body:
        config["topP"] = body["top_p"]
    if "stop" in body:
        config["stopSequences"] = body["stop"]
    if "reasoning_effort" in body:
        config["thinkingConfig"] = {"thinkingLevel": body["reasoning_effort"]}
    if config:
        out["generationConfig"] = config
    return out


def openai_to_anthropic_response(body: dict[str, Any]) -> dict[str, Any]:
    """OpenAI Chat response body -> Anthropic Messages response body (input_tokens leaves the
    cached reads out, which OpenAI's prompt_tokens counts; docs/canonical.md)."""
    choice = body["choices"][0]
    message = choice["message"]
    content: list[dict[str, Any]] = []
    if message.get("content"):
        content.append({"type": "text", "text": message["content"]})
    for call in message.get("tool_calls") or ():
        f = call["function"]
        content.append({"type": "tool_use", "id": call["id"], "name": f["name"], "input": json.loads(f["arguments"])})
    u = body["usage"]
    cached = (u.get("prompt_tokens_details") or {}).get("cached_tokens")
    usage: dict[str, Any] = {"input_tokens": u["prompt_tokens"] - (cached or 0), "output_tokens": u["completion_tokens"]}
    if cached is not None:
        usage["cache_read_input_tokens"] = cached
    return {"id": body["id"], "type": "message", "role": "assistant", "model": body["model"],
            "stop_reason": _OA_STOP[choice["finish_reason"]], "stop_sequence": None, "usage": usage, "content": content}


def openai_to_gemini_response(body: dict[str, Any]) -> dict[str, Any]:
    """OpenAI Chat response body -> Gemini generateContent response body, what wiremap sends."""
    choice = body["choices"][0]
    message = choice["message"]
    parts: list[dict[str, Any]] = []
    if message.get("content"):
        parts.append({"text": message["content"]})
    for call in message.get("tool_calls") or ():
        f = call["function"]
        parts.append({"functionCall": {"id": call["id"], "name": f["name"], "args": json.loads(f["arguments"])}})
    u = body["usage"]
    usage = {"promptTokenCount": u["prompt_tokens"], "candidatesTokenCount": u["completion_tokens"], "totalTokenCount": u["total_tokens"]}
    cached = (u.get("prompt_tokens_details") or {}).get("cached_tokens")
    if cached is not None:
        usage["cachedContentTokenCount"] = cached
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": _GEMINI_STOP[choice["finish_reason"]], "index": 0}],
            "usageMetadata": usage, "modelVersion": body["model"], "responseId": body["id"]}


_unused = (ImageBlock, InlineSource, ToolMessage)

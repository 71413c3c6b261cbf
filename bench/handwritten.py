"""Straight-line hand-written converters for the bench corpus: the practical floor.

They do what the corpus needs and nothing else: no validation beyond what building the output
needs, no error paths, no options the corpus does not use. They produce the same bytes as wiremap
(key order; user JSON -- tool schemas and arguments -- copied in the caller's key order, as the
base formats send it since issue #14), which bench/run.py checks with `json.dumps` of both, so the
floor is doing the same work. Pairs: OpenAI Chat -> Anthropic Messages and -> Gemini
generateContent, Anthropic Messages -> OpenAI Chat (requests and responses), and the typed
canonical single directions of Anthropic Messages.

Two of them also come with the checks (`*_checked`, issue 19): the same converter plus what one
that must never change a body's meaning has to check before it writes, and nothing more; it
answers as wiremap does or raises `NotTaken` (tests/test_bench_floor.py). Timed beside the floor,
they say what the checks alone cost: the least a converter that validates adds to the floor.
"""

from __future__ import annotations

import dataclasses
import json
import math
import operator
import re
import warnings
from typing import Any

import wiremap
from wiremap import UnsupportedOptionWarning
from wiremap.runtime.canonical import (
    NOT_GIVEN,
    AssistantMessage,
    Config,
    ImageBlock,
    InlineSource,
    Request,
    Response,
    SystemMessage,
    TextBlock,
    Tool,
    ToolCall,
    ToolMessage,
    UrlSource,
    Usage,
    UserMessage,
)
from wiremap.runtime.carry import Carried

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


# ------------------------------------------------------------------------------------------
# The floor with the checks (issue 19, target 1): what any converter that validates must add


class NotTaken(Exception):
    """The checked floor does not take this body: a value the two-step way refuses or changes,
    or a construct outside the corpus's (a converter would check it, then take another path)."""


_CHECKED_TOP = frozenset({"model", "messages", "max_tokens", "max_completion_tokens", "stop", "reasoning_effort", "tools",
                          "tool_choice", "temperature", "top_p", "stream", "stream_options"})
_ROLE_KEYS = {"system": frozenset({"role", "content"}), "user": frozenset({"role", "content"}),
              "assistant": frozenset({"role", "content", "tool_calls"}), "tool": frozenset({"role", "content", "tool_call_id"})}
_CALL_KEYS = frozenset({"id", "type", "function"})
_CALLED_KEYS = frozenset({"name", "arguments"})
_TOOL_KEYS = frozenset({"type", "function"})
_FUNCTION_KEYS = frozenset({"name", "description", "parameters", "strict"})
_LEAVES = frozenset({int, bool, type(None)})  # str: checked for lone surrogates
_SURROGATE = re.compile("[\ud800-\udfff]")
_DEPTH = 64  # deeper than the corpus needs, within wiremap's limit (validate.MAX_JSON_DEPTH)
_DROPPED = {"temperature": (2, "temperature is not supported by anthropic_messages; dropped"),
            "top_p": (1, "top_p is not supported by anthropic_messages; dropped")}


def _checked_json(value: Any, depth: int = 0) -> None:
    """Plain JSON within the depth limit: JSON types only, finite numbers (json.loads takes NaN;
    the two-step way refuses it), text without lone surrogates (json.loads takes `"\\ud800"`).
    Checked in place: the caller owns the value (json.loads' result)."""
    if depth > _DEPTH:
        raise NotTaken
    if type(value) is dict:
        for k in value:
            if not k.isascii() and _SURROGATE.search(k):
                raise NotTaken
        items: Any = value.values()
    else:
        items = value
    for v in items:
        t = type(v)
        if t is str:
            if not v.isascii() and _SURROGATE.search(v):
                raise NotTaken
        elif t in _LEAVES:
            continue
        elif t is dict or t is list:
            _checked_json(v, depth + 1)
        elif t is not float or v != v or v in (math.inf, -math.inf):
            raise NotTaken


def _checked_copy(value: Any, depth: int = 0) -> Any:
    """`_copy` with the same checks (and string keys): the caller's JSON, copied, in its order."""
    t = type(value)
    if t is dict:
        if depth > _DEPTH:
            raise NotTaken
        out = {}
        for k, v in value.items():
            if type(k) is not str or (not k.isascii() and _SURROGATE.search(k)):
                raise NotTaken
            out[k] = v if type(v) in _LEAVES else _checked_copy(v, depth + 1)
        return out
    if t is list:
        if depth > _DEPTH:
            raise NotTaken
        return [v if type(v) in _LEAVES else _checked_copy(v, depth + 1) for v in value]
    if t is str:
        if not value.isascii() and _SURROGATE.search(value):
            raise NotTaken
        return value
    if t is not float or value != value or value in (math.inf, -math.inf):
        raise NotTaken
    return value


def _checked_part(p: Any) -> dict[str, Any]:
    if type(p) is not dict:
        raise NotTaken
    kind = p.get("type")
    if kind == "text":
        text = p.get("text")
        if len(p) != 2 or type(text) is not str or not text:
            raise NotTaken
        return {"type": "text", "text": text}
    image = p.get("image_url")
    if kind != "image_url" or len(p) != 2 or type(image) is not dict or len(image) != 1 or type(image.get("url")) is not str:
        raise NotTaken
    url = image["url"]
    if url.startswith("data:"):
        head, sep, data = url[5:].partition(",")
        media = head.split(";", 1)[0]
        if not sep or not head.endswith(";base64") or media not in _IMAGE_TYPES or not data:
            raise NotTaken
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    if not url.startswith("https://"):
        raise NotTaken
    return {"type": "image", "source": {"type": "url", "url": url}}


_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def openai_to_anthropic_request_checked(body: Any) -> dict[str, Any]:
    """`openai_to_anthropic_request` with the checks it leaves out: the same bytes where it takes
    the body, else NotTaken. Before it writes, it checks each thing it reads (the body and every
    message an object, each key one it writes or drops as wiremap does, each value of the type
    and range the two-step way takes, tool results answering calls, the caller's JSON plain and
    within the depth limit) and warns for each option the target drops, as wiremap does. It
    covers the corpus only (tests/test_bench_floor.py: on the corpus and on mutated bodies it
    answers what `wiremap.translator` answers, or not at all). bench/run.py times it beside the
    floor: what the checks alone cost, the least a converter that validates can add."""
    if type(body) is not dict or not _CHECKED_TOP.issuperset(body):
        raise NotTaken
    model = body.get("model")
    items = body.get("messages")
    if type(model) is not str or not model or type(items) is not list or not items:
        raise NotTaken
    out: dict[str, Any] = {"model": model}
    system: list[str] = []
    messages: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    called: set[str] = set()
    last = ""
    for i, m in enumerate(items):
        if type(m) is not dict:
            raise NotTaken
        role = m.get("role")
        keys = _ROLE_KEYS.get(role) if type(role) is str else None
        if keys is None or not keys.issuperset(m):
            raise NotTaken
        c = m.get("content")
        if role == "tool":
            call_id = m.get("tool_call_id")
            if type(call_id) is not str or call_id not in called or type(c) is not str:
                raise NotTaken
            block = {"type": "tool_result", "tool_use_id": call_id, "content": c}
            if results is None:
                results = [block]
                messages.append({"role": "user", "content": results})
            else:
                results.append(block)
            last = role
            continue
        results = None
        if role == "system":
            if i or type(c) is not str or not c:
                raise NotTaken
            system.append(c)
        elif role == "user":
            if type(c) is str and c:
                parts = [{"type": "text", "text": c}]
            elif type(c) is list and c:
                parts = [_checked_part(p) for p in c]
            else:
                raise NotTaken
            messages.append({"role": "user", "content": parts})
        else:
            blocks: list[dict[str, Any]] = []
            if c is not None:
                if type(c) is not str:
                    raise NotTaken
                if c:
                    blocks.append({"type": "text", "text": c})
            calls = m.get("tool_calls")
            if calls is not None:
                if type(calls) is not list:
                    raise NotTaken
                ids: set[str] = set()
                for call in calls:
                    if type(call) is not dict or not _CALL_KEYS.issuperset(call) or call.get("type") != "function":
                        raise NotTaken
                    call_id, f = call.get("id"), call.get("function")
                    if type(call_id) is not str or not call_id or call_id in ids or type(f) is not dict or not _CALLED_KEYS.issuperset(f):
                        raise NotTaken
                    name, arguments = f.get("name"), f.get("arguments")
                    if type(name) is not str or not name or type(arguments) is not str:
                        raise NotTaken
                    try:
                        parsed = json.loads(arguments)
                    except ValueError:
                        raise NotTaken from None
                    if type(parsed) is not dict:
                        raise NotTaken
                    _checked_json(parsed)
                    ids.add(call_id)
                    blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": parsed})
                called |= ids
            if not blocks:
                raise NotTaken
            messages.append({"role": "assistant", "content": blocks})
        last = role
    if last != "user" and last != "tool":
        raise NotTaken
    if system:
        out["system"] = "\n\n".join(system)
    out["messages"] = messages
    limit = body.get("max_tokens")
    if limit is None:
        limit = body.get("max_completion_tokens")
        if limit is None and "max_tokens" not in body and "max_completion_tokens" not in body:
            limit = 4096
    if type(limit) is not int or limit < 1:
        raise NotTaken
    out["max_tokens"] = limit
    if "stop" in body:
        stop = body["stop"]
        if type(stop) is not list or not stop or not all(type(s) is str and s for s in stop):
            raise NotTaken
        out["stop_sequences"] = stop
    dropped = []
    for name in ("temperature", "top_p"):
        if name in body:
            v = body[name]
            top, text = _DROPPED[name]
            if (type(v) is not int and (type(v) is not float or not math.isfinite(v))) or not 0 <= v <= top:
                raise NotTaken
            dropped.append(text)
    if "stream" in body and type(body["stream"]) is not bool:
        raise NotTaken
    if "stream_options" in body:
        options = body["stream_options"]
        if type(options) is not dict or len(options) != 1 or type(options.get("include_usage")) is not bool:
            raise NotTaken
    choice = body.get("tool_choice", "auto")  # checked against the tools below
    if type(choice) is not str or choice not in _AN_CHOICE:
        raise NotTaken
    if "reasoning_effort" in body:
        effort = body["reasoning_effort"]
        budget = _BUDGET.get(effort) if type(effort) is str else None
        if budget is None or budget >= limit or choice == "required":  # clamped, or not sent: not the corpus's
            raise NotTaken
        out["thinking"] = {"type": "enabled", "budget_tokens": budget}
    names: set[str] = set()
    if "tools" in body:
        tools = body["tools"]
        if type(tools) is not list or not tools:
            raise NotTaken
        wired: list[dict[str, Any]] = []
        for t in tools:
            if type(t) is not dict or not _TOOL_KEYS.issuperset(t) or t.get("type") != "function":
                raise NotTaken
            f = t.get("function")
            if type(f) is not dict or not _FUNCTION_KEYS.issuperset(f):
                raise NotTaken
            name, text, schema = f.get("name"), f.get("description"), f.get("parameters")
            if type(name) is not str or not name or name in names or type(text) is not str or type(schema) is not dict:
                raise NotTaken
            if schema.get("type", "object") != "object" or type(schema.get("type", "")) is not str:  # an object schema
                raise NotTaken
            names.add(name)
            tool = {"name": name, "input_schema": _checked_copy(schema), "description": text}
            if "strict" in f:
                if type(f["strict"]) is not bool:
                    raise NotTaken
                tool["strict"] = f["strict"]
            wired.append(tool)
        out["tools"] = wired
    if "tool_choice" in body:
        if not names:
            raise NotTaken
        out["tool_choice"] = {"type": _AN_CHOICE[choice]}
    for text in dropped:
        warnings.warn(text, UnsupportedOptionWarning, stacklevel=2)
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


_CONFIG_HANDLED = ("max_tokens", "stop_sequences", "reasoning_effort", "temperature", "top_p")
_config_rest = operator.attrgetter(*(f.name for f in dataclasses.fields(Config) if f.name not in _CONFIG_HANDLED and f.name != "extras"))
_NONE_SET = tuple(NOT_GIVEN for f in dataclasses.fields(Config) if f.name not in _CONFIG_HANDLED and f.name != "extras")
_ANTHROPIC_ORIGIN: str = wiremap.get_format("anthropic_messages").module.ORIGIN  # what apply_carried writes back


def _checked_text_block(b: Any) -> dict[str, Any]:
    if type(b) is not TextBlock or type(b.text) is not str or not b.text:
        raise NotTaken
    if b.signature is not NOT_GIVEN or b.origin is not NOT_GIVEN or b.cache_control is not NOT_GIVEN:
        raise NotTaken
    return {"type": "text", "text": b.text}


def canonical_to_anthropic_request_checked(req: Any) -> dict[str, Any]:
    """`canonical_to_anthropic_request` with the checks it leaves out, on the typed input: the
    same bytes where it takes the request, else NotTaken. Every field it does not write is
    checked unset (a field left out without a word would change the request's meaning), every
    value it writes checked as `request_to_wire`'s validation checks it (the Anthropic format's
    rules: content and structure, not OpenArmature's ordering), each dropped option warned. For
    the corpus only (tests/test_bench_floor.py: where it answers, it answers as
    `request_to_wire` does)."""
    if type(req) is not Request:
        raise NotTaken
    model, items, cfg = req.model, req.messages, req.config
    if type(model) is not str or not model or type(items) is not list or not items or req.response_schema is not NOT_GIVEN:
        raise NotTaken
    carried = req.carried
    if carried is not None and (type(carried) is not Carried or carried.origin == _ANTHROPIC_ORIGIN):
        raise NotTaken  # (wire data for this provider goes back into the body: not covered)
    out: dict[str, Any] = {"model": model}
    messages: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    called: set[str] = set()
    for i, m in enumerate(items):
        t = type(m)
        if t is ToolMessage:
            call_id, c = m.tool_call_id, m.content
            if type(call_id) is not str or call_id not in called or type(c) is not str:
                raise NotTaken
            if m.name is not NOT_GIVEN or m.is_error is not NOT_GIVEN or m.cache_control is not NOT_GIVEN:
                raise NotTaken
            block = {"type": "tool_result", "tool_use_id": call_id, "content": c}
            if results is None:
                results = [block]
                messages.append({"role": "user", "content": results})
            else:
                results.append(block)
            continue
        results = None
        if t is SystemMessage:
            c = m.content
            if i or type(c) is not str or not c or m.cache_control is not NOT_GIVEN or m.name is not NOT_GIVEN:
                raise NotTaken
            out["system"] = c
        elif t is UserMessage:
            c = m.content
            if m.name is not NOT_GIVEN:
                raise NotTaken
            if type(c) is str and c:
                messages.append({"role": "user", "content": [{"type": "text", "text": c}]})
                continue
            if type(c) is not list or not c:
                raise NotTaken
            parts = []
            for b in c:
                if type(b) is not ImageBlock:
                    parts.append(_checked_text_block(b))
                    continue
                source = b.source
                if b.detail is not NOT_GIVEN or b.cache_control is not NOT_GIVEN:
                    raise NotTaken
                if type(source) is UrlSource and type(source.url) is str and source.url.startswith("https://"):
                    parts.append({"type": "image", "source": {"type": "url", "url": source.url}})
                elif type(source) is InlineSource and b.media_type in _IMAGE_TYPES and type(source.base64_data) is str and source.base64_data:
                    parts.append({"type": "image", "source": {"type": "base64", "media_type": b.media_type, "data": source.base64_data}})
                else:
                    raise NotTaken
            messages.append({"role": "user", "content": parts})
        elif t is AssistantMessage:
            if m.name is not NOT_GIVEN:
                raise NotTaken
            blocks: list[dict[str, Any]] = []
            c = m.content
            if type(c) is str:
                if c:
                    blocks.append({"type": "text", "text": c})
            elif type(c) is list:
                blocks.extend(_checked_text_block(b) for b in c)
            elif c is not None and c is not NOT_GIVEN:
                raise NotTaken
            calls = m.tool_calls
            if calls is not NOT_GIVEN:
                if type(calls) is not list or not calls:
                    raise NotTaken
                ids: set[str] = set()
                for call in calls:
                    if type(call) is not ToolCall or call.signature is not NOT_GIVEN or call.origin is not NOT_GIVEN:
                        raise NotTaken
                    call_id, name, arguments = call.id, call.name, call.arguments
                    if type(call_id) is not str or not call_id or call_id in ids or type(name) is not str or not name or type(arguments) is not dict:
                        raise NotTaken
                    ids.add(call_id)
                    blocks.append({"type": "tool_use", "id": call_id, "name": name, "input": _checked_copy(arguments)})
                called |= ids
            if not blocks:
                raise NotTaken
            messages.append({"role": "assistant", "content": blocks})
        else:
            raise NotTaken
    out["messages"] = messages
    dropped = []
    if cfg is NOT_GIVEN:
        out["max_tokens"] = 4096
    else:
        if type(cfg) is not Config or _config_rest(cfg) != _NONE_SET or (cfg.extras is not NOT_GIVEN and cfg.extras):
            raise NotTaken
        limit = cfg.max_tokens
        if limit is NOT_GIVEN:
            limit = 4096
        elif type(limit) is not int or limit < 1:
            raise NotTaken
        out["max_tokens"] = limit
        stop = cfg.stop_sequences
        if stop is not NOT_GIVEN:
            if type(stop) is not list or not stop or not all(type(x) is str and x for x in stop):
                raise NotTaken
            out["stop_sequences"] = stop
        for name in ("temperature", "top_p"):
            v = getattr(cfg, name)
            if v is not NOT_GIVEN:
                top, text = _DROPPED[name]
                if (type(v) is not int and (type(v) is not float or not math.isfinite(v))) or not 0 <= v <= top:
                    raise NotTaken
                dropped.append(text)
        effort = cfg.reasoning_effort
        if effort is not NOT_GIVEN:
            budget = _BUDGET.get(effort) if type(effort) is str else None
            if budget is None or budget >= limit or req.tool_choice == "required":
                raise NotTaken
            out["thinking"] = {"type": "enabled", "budget_tokens": budget}
    names: set[str] = set()
    tools = req.tools
    if tools is not NOT_GIVEN:
        if type(tools) is not list or not tools:
            raise NotTaken
        wired = []
        for tool in tools:
            if type(tool) is not Tool or tool.cache_control is not NOT_GIVEN:
                raise NotTaken
            name, text, schema, strict = tool.name, tool.description, tool.parameters, tool.strict
            if type(name) is not str or not name or name in names or type(text) is not str or type(schema) is not dict:
                raise NotTaken
            if schema.get("type", "object") != "object" or type(schema.get("type", "")) is not str:
                raise NotTaken
            names.add(name)
            wire = {"name": name, "input_schema": _checked_copy(schema), "description": text}
            if strict is not NOT_GIVEN:
                if type(strict) is not bool:
                    raise NotTaken
                wire["strict"] = strict
            wired.append(wire)
        out["tools"] = wired
    choice = req.tool_choice
    if choice is not NOT_GIVEN:
        if type(choice) is not str or choice not in _AN_CHOICE or not names:
            raise NotTaken
        out["tool_choice"] = {"type": _AN_CHOICE[choice]}
    for text in dropped:
        warnings.warn(text, UnsupportedOptionWarning, stacklevel=2)
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


_AN_TOP = frozenset({"model", "messages", "max_tokens", "system", "stop_sequences", "tools", "tool_choice", "thinking",
                     "stream", "cache_control"})
_AN_TEXT_CACHED = frozenset({"type", "text", "cache_control"})
_AN_IMAGE = frozenset({"type", "source", "cache_control"})
_AN_RESULT = frozenset({"type", "tool_use_id", "content", "is_error"})
_AN_USE = frozenset({"type", "id", "name", "input"})
_AN_THINKING = frozenset({"type", "thinking", "signature"})
_AN_TOOL = frozenset({"name", "description", "input_schema", "strict", "cache_control", "defer_loading"})
_AN_SERVER_TOOL = frozenset({"name", "type"})
_SCALAR_TYPES = frozenset({str, int, bool})


def _checked_cache(value: Any) -> None:
    """A prompt-cache breakpoint, which OpenAI Chat does not carry: checked as wiremap checks it
    (an object with a string `type`, plain JSON), then not sent."""
    if type(value) is not dict or type(value.get("type")) is not str or not all(type(v) is str for v in value.values()):
        raise NotTaken
    _checked_json(value)


def _checked_an_part(p: Any) -> tuple[dict[str, Any], str | None]:
    """A user turn's text or image block as its OpenAI Chat part, and its text (None: an image)."""
    if type(p) is not dict:
        raise NotTaken
    kind = p.get("type")
    if kind == "text":
        text = p.get("text")
        if not _AN_TEXT_CACHED.issuperset(p) or type(text) is not str or not text:
            raise NotTaken
        if "cache_control" in p:
            _checked_cache(p["cache_control"])
        return {"type": "text", "text": text}, text
    source = p.get("source")
    if kind != "image" or not _AN_IMAGE.issuperset(p) or type(source) is not dict:
        raise NotTaken
    if "cache_control" in p:
        _checked_cache(p["cache_control"])
    if source.get("type") == "url" and len(source) == 2:
        url = source.get("url")
        if type(url) is not str or not url.startswith("https://"):
            raise NotTaken
    elif source.get("type") == "base64" and len(source) == 3:
        media, data = source.get("media_type"), source.get("data")
        if type(media) is not str or media not in _IMAGE_TYPES or type(data) is not str or not data:
            raise NotTaken
        url = f"data:{media};base64,{data}"
    else:
        raise NotTaken
    return {"type": "image_url", "image_url": {"url": url}}, None


def _checked_result_text(content: Any) -> str:
    """A tool_result's content as OpenAI tool-message text: a non-empty string, or text blocks
    joined (a tool_reference block, which OpenAI Chat does not carry, adds nothing)."""
    if type(content) is str:
        if not content:
            raise NotTaken
        return content
    if type(content) is not list or not content:
        raise NotTaken
    texts: list[str] = []
    for b in content:
        if type(b) is not dict:
            raise NotTaken
        kind = b.get("type")
        if kind == "text" and len(b) == 2 and type(b.get("text")) is str:
            texts.append(b["text"])
        elif kind == "tool_reference" and len(b) == 2 and type(b.get("tool_name")) is str and b["tool_name"]:
            continue
        else:
            raise NotTaken
    return "".join(texts)  # empty when it holds only references: as wiremap sends it


def _closed(schema: Any) -> Any:
    """A strict tool's schema (a fresh copy, changed in place) as OpenAI's strict mode takes it:
    every object schema closed (`additionalProperties: false`), nested ones too, where wiremap's
    openai_chat table closes them (mapping `tools.strict: close_all_object_schemas`)."""
    if type(schema) is list:
        return [_closed(s) for s in schema]
    if type(schema) is not dict:
        return schema
    for key in ("items", "anyOf", "prefixItems"):
        if key in schema:
            schema[key] = _closed(schema[key])
    for key in ("properties", "$defs", "definitions"):
        if type(schema.get(key)) is dict:
            schema[key] = {n: _closed(s) for n, s in schema[key].items()}
    if schema.get("type") == "object" or "properties" in schema:
        schema["additionalProperties"] = False
    return schema


def anthropic_to_openai_request_checked(body: Any) -> dict[str, Any]:
    """`anthropic_to_openai_request` with the checks it leaves out, as the OpenAI-source ones: the
    same bytes where it takes the body, else NotTaken. Before it writes, it checks each thing it
    reads: each key one it writes, or drops as wiremap does into OpenAI Chat (prompt-cache
    breakpoints, signed thinking blocks, `defer_loading`, server tools, a tool_reference block,
    `is_error: false`, the top-level `stream` and `cache_control` carried for Anthropic's wire),
    each value of the type and range the two-step way takes, tool results answering calls, the
    caller's JSON plain and within the depth limit. Nothing it takes is dropped with a warning."""
    if type(body) is not dict or not _AN_TOP.issuperset(body):
        raise NotTaken
    model = body.get("model")
    items = body.get("messages")
    if type(model) is not str or not model or type(items) is not list or not items:
        raise NotTaken
    if "stream" in body and type(body["stream"]) is not bool:
        raise NotTaken
    if "cache_control" in body:
        cache = body["cache_control"]
        if type(cache) is not dict or not all(type(k) is str and type(v) in _SCALAR_TYPES for k, v in cache.items()):
            raise NotTaken
    messages: list[dict[str, Any]] = []
    if "system" in body:
        system = body["system"]
        if type(system) is list:
            if len(system) != 1 or type(system[0]) is not dict or not _AN_TEXT_CACHED.issuperset(system[0]) or system[0].get("type") != "text":
                raise NotTaken
            block = system[0]
            if "cache_control" in block:
                _checked_cache(block["cache_control"])
            system = block.get("text")
        if type(system) is not str or not system:
            raise NotTaken
        messages.append({"role": "system", "content": system})
    called: set[str] = set()
    last = ""
    for m in items:
        if type(m) is not dict or len(m) != 2:
            raise NotTaken
        role, c = m.get("role"), m.get("content")
        if role == "user":
            if type(c) is str:
                if not c:
                    raise NotTaken
                messages.append({"role": "user", "content": c})
                last = role
                continue
            if type(c) is not list or not c:
                raise NotTaken
            first = c[0]
            if type(first) is dict and first.get("type") == "tool_result":  # tool results only: each a tool message
                if not messages or last == "tool":
                    raise NotTaken
                for b in c:
                    if type(b) is not dict or b.get("type") != "tool_result" or not _AN_RESULT.issuperset(b):
                        raise NotTaken
                    call_id = b.get("tool_use_id")
                    if type(call_id) is not str or call_id not in called or b.get("is_error", False) is not False:
                        raise NotTaken
                    messages.append({"role": "tool", "tool_call_id": call_id, "content": _checked_result_text(b.get("content"))})
                last = "tool"
                continue
            parts: list[dict[str, Any]] = []
            text: str | None = None
            for p in c:
                part, text = _checked_an_part(p)
                parts.append(part)
            messages.append({"role": "user", "content": text if len(parts) == 1 and text is not None else parts})
            last = role
            continue
        if role != "assistant" or type(c) is not list or not c or not messages:
            raise NotTaken
        k = 0
        while k < len(c) - 1 and type(c[k]) is dict and c[k].get("type") == "thinking":  # signed thinking: not sent
            b = c[k]
            if len(b) != 3 or not _AN_THINKING.issuperset(b) or type(b.get("thinking")) is not str or type(b.get("signature")) is not str:
                raise NotTaken
            k += 1
        said: str | None = None
        calls: list[dict[str, Any]] = []
        ids: set[str] = set()
        for b in c[k:]:
            if type(b) is not dict:
                raise NotTaken
            kind = b.get("type")
            if kind == "text" and len(b) == 2 and said is None and "text" in b:
                said = b["text"]
                if type(said) is not str or not said:
                    raise NotTaken
            elif kind == "tool_use" and len(b) == 4 and _AN_USE.issuperset(b) and not k:
                call_id, name, arguments = b.get("id"), b.get("name"), b.get("input")
                if type(call_id) is not str or not call_id or call_id in ids or type(name) is not str or not name or type(arguments) is not dict:
                    raise NotTaken
                _checked_json(arguments)
                ids.add(call_id)
                calls.append({"id": call_id, "type": "function", "function": {"name": name, "arguments": _COMPACT(arguments)}})
            else:
                raise NotTaken
        if said is None and not calls:
            raise NotTaken
        msg: dict[str, Any] = {"role": "assistant", "content": said}
        if calls:
            msg["tool_calls"] = calls
            called |= ids
        messages.append(msg)
        last = role
    if last != "user" and last != "tool":
        raise NotTaken
    limit = body.get("max_tokens")
    if type(limit) is not int or limit < 1:
        raise NotTaken
    out: dict[str, Any] = {"model": model, "messages": messages, "max_completion_tokens": limit}
    if "stop_sequences" in body:
        stop = body["stop_sequences"]
        if type(stop) is not list or not stop or not all(type(s) is str and s for s in stop):
            raise NotTaken
        out["stop"] = stop
    if "thinking" in body:
        thinking = body["thinking"]
        if type(thinking) is not dict or len(thinking) != 2 or thinking.get("type") != "enabled":
            raise NotTaken
        budget = thinking.get("budget_tokens")
        if type(budget) is not int or not 1024 <= budget < limit:
            raise NotTaken
        out["reasoning_effort"] = "low" if budget <= 1024 else "medium" if budget <= 8192 else "high"
    names: set[str] = set()
    if "tools" in body:
        tools = body["tools"]
        if type(tools) is not list or not tools:
            raise NotTaken
        wired: list[dict[str, Any]] = []
        for t in tools:
            if type(t) is not dict:
                raise NotTaken
            if "input_schema" not in t:  # a server tool: OpenAI Chat has none, and it is not sent
                kind = t.get("type")
                if t.keys() != _AN_SERVER_TOOL or type(kind) is not str or kind == "custom" or type(t.get("name")) is not str or not kind[-8:].isdigit():
                    raise NotTaken
                continue
            if not _AN_TOOL.issuperset(t):
                raise NotTaken
            name, text, schema = t.get("name"), t.get("description"), t.get("input_schema")
            if type(name) is not str or not name or name in names or type(text) is not str or type(schema) is not dict:
                raise NotTaken
            if schema.get("type", "object") != "object" or type(schema.get("type", "")) is not str:  # an object schema
                raise NotTaken
            if "cache_control" in t:
                _checked_cache(t["cache_control"])
            if "defer_loading" in t and type(t["defer_loading"]) is not bool:
                raise NotTaken
            names.add(name)
            f: dict[str, Any] = {"name": name, "description": text, "parameters": _checked_copy(schema)}
            if "strict" in t:
                if type(t["strict"]) is not bool:
                    raise NotTaken
                if t["strict"]:
                    f["parameters"] = _closed(f["parameters"])
                f["strict"] = t["strict"]
            wired.append({"type": "function", "function": f})
        if not wired:
            raise NotTaken
        out["tools"] = wired
    if "tool_choice" in body:
        choice = body["tool_choice"]
        mode = choice.get("type") if type(choice) is dict and len(choice) == 1 else None
        if type(mode) is not str or mode not in _OA_CHOICE or not names:
            raise NotTaken
        out["tool_choice"] = _OA_CHOICE[mode]
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


_GEMINI_EFFORTS = frozenset({"low", "medium", "high", "minimal"})


def _checked_gemini_part(p: Any) -> dict[str, Any]:
    """`_gemini_part` with the checks: a non-empty text, or an image URL with nothing beside it:
    inline data of an image type, or an address whose file extension names one."""
    if type(p) is not dict:
        raise NotTaken
    kind = p.get("type")
    if kind == "text":
        text = p.get("text")
        if len(p) != 2 or type(text) is not str or not text:
            raise NotTaken
        return {"text": text}
    image = p.get("image_url")
    if kind != "image_url" or len(p) != 2 or type(image) is not dict or len(image) != 1 or type(image.get("url")) is not str:
        raise NotTaken
    url = image["url"]
    if url.startswith("data:"):
        head, sep, data = url[5:].partition(",")
        media, base64 = head[:-7], head[-7:]
        if not sep or base64 != ";base64" or media not in _IMAGE_TYPES or not data:
            raise NotTaken
        return {"inlineData": {"mimeType": media, "data": data}}
    tail = url.rsplit("/", 1)[-1]
    if not url.startswith("https://") or "?" in url or "#" in url or "." not in tail:
        raise NotTaken
    media = _MIME.get(tail.rsplit(".", 1)[1])
    if media is None:
        raise NotTaken
    return {"fileData": {"fileUri": url, "mimeType": media}}


def openai_to_gemini_request_checked(body: Any) -> dict[str, Any]:
    """`openai_to_gemini_request` with the checks it leaves out, as `openai_to_anthropic_request_checked`
    for Anthropic: the same bytes where it takes the body, else NotTaken. It reads the source as
    that one does (the same OpenAI checks: each key one it writes or drops as wiremap does, each
    value of the type the two-step way takes, tool results answering calls, the caller's JSON
    plain and within the depth limit); the target takes every option the corpus sends (nothing
    dropped, nothing warned), and a tool result names the function of the call it answers. A
    model the effort rows treat apart (Gemini 1 and 2: a thinking budget) is not the corpus's."""
    if type(body) is not dict or not _CHECKED_TOP.issuperset(body):  # the same keys as into Anthropic
        raise NotTaken
    model = body.get("model")
    items = body.get("messages")
    if type(model) is not str or not model or type(items) is not list or not items:
        raise NotTaken
    out: dict[str, Any] = {"model": model}
    system: list[str] = []
    contents: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    called: dict[str, str] = {}
    last = ""
    for i, m in enumerate(items):
        if type(m) is not dict:
            raise NotTaken
        role = m.get("role")
        keys = _ROLE_KEYS.get(role) if type(role) is str else None
        if keys is None or not keys.issuperset(m):
            raise NotTaken
        c = m.get("content")
        if role == "tool":
            call_id = m.get("tool_call_id")
            if type(call_id) is not str or call_id not in called or type(c) is not str:
                raise NotTaken
            part = {"functionResponse": {"id": call_id, "name": called[call_id], "response": {"result": c}}}
            if results is None:
                results = [part]
                contents.append({"role": "user", "parts": results})
            else:
                results.append(part)
            last = role
            continue
        results = None
        if role == "system":
            if i or type(c) is not str or not c:
                raise NotTaken
            system.append(c)
        elif role == "user":
            if type(c) is str and c:
                parts = [{"text": c}]
            elif type(c) is list and c:
                parts = [_checked_gemini_part(p) for p in c]
            else:
                raise NotTaken
            contents.append({"role": "user", "parts": parts})
        else:
            blocks: list[dict[str, Any]] = []
            if c is not None:
                if type(c) is not str:
                    raise NotTaken
                if c:
                    blocks.append({"text": c})
            calls = m.get("tool_calls")
            if calls is not None:
                if type(calls) is not list:
                    raise NotTaken
                ids: dict[str, str] = {}
                for call in calls:
                    if type(call) is not dict or not _CALL_KEYS.issuperset(call) or call.get("type") != "function":
                        raise NotTaken
                    call_id, f = call.get("id"), call.get("function")
                    if type(call_id) is not str or not call_id or call_id in ids or type(f) is not dict or not _CALLED_KEYS.issuperset(f):
                        raise NotTaken
                    name, arguments = f.get("name"), f.get("arguments")
                    if type(name) is not str or not name or type(arguments) is not str:
                        raise NotTaken
                    try:
                        parsed = json.loads(arguments)
                    except ValueError:
                        raise NotTaken from None
                    if type(parsed) is not dict:
                        raise NotTaken
                    _checked_json(parsed)
                    ids[call_id] = name
                    blocks.append({"functionCall": {"id": call_id, "name": name, "args": parsed}})
                called.update(ids)
            if not blocks:
                raise NotTaken
            contents.append({"role": "model", "parts": blocks})
        last = role
    if last != "user" and last != "tool":
        raise NotTaken
    if system:
        out["systemInstruction"] = {"parts": [{"text": "\n\n".join(system)}]}
    out["contents"] = contents
    config: dict[str, Any] = {}
    if "temperature" in body:
        v = body["temperature"]
        if type(v) is not int and (type(v) is not float or not math.isfinite(v)):
            raise NotTaken
        config["temperature"] = v
    if "max_tokens" in body and "max_completion_tokens" in body:
        raise NotTaken
    limit = body.get("max_completion_tokens", body.get("max_tokens"))
    if limit is not None:
        if type(limit) is not int or not 1 <= limit <= 2147483647:
            raise NotTaken
        config["maxOutputTokens"] = limit
    elif "max_tokens" in body or "max_completion_tokens" in body:
        raise NotTaken
    if "top_p" in body:
        v = body["top_p"]
        if type(v) is not int and (type(v) is not float or not math.isfinite(v)):
            raise NotTaken
        config["topP"] = v
    if "stop" in body:
        stop = body["stop"]
        if type(stop) is not list or not stop or not all(type(s) is str and s for s in stop):
            raise NotTaken
        config["stopSequences"] = stop
    if "stream" in body and type(body["stream"]) is not bool:
        raise NotTaken
    if "stream_options" in body:
        options = body["stream_options"]
        if type(options) is not dict or len(options) != 1 or type(options.get("include_usage")) is not bool:
            raise NotTaken
    if "reasoning_effort" in body:
        effort = body["reasoning_effort"]
        if type(effort) is not str or effort not in _GEMINI_EFFORTS or model.startswith(("gemini-", "models/gemini-")):
            raise NotTaken
        config["thinkingConfig"] = {"thinkingLevel": effort}
    choice = body.get("tool_choice", "auto")  # checked against the tools below
    if type(choice) is not str or choice not in _GEMINI_CHOICE:
        raise NotTaken
    names: set[str] = set()
    if "tools" in body:
        tools = body["tools"]
        if type(tools) is not list or not tools:
            raise NotTaken
        declared: list[dict[str, Any]] = []
        for t in tools:
            if type(t) is not dict or not _TOOL_KEYS.issuperset(t) or t.get("type") != "function":
                raise NotTaken
            f = t.get("function")
            if type(f) is not dict or not _FUNCTION_KEYS.issuperset(f):
                raise NotTaken
            name, text, schema = f.get("name"), f.get("description"), f.get("parameters")
            if type(name) is not str or not name or name in names or type(text) is not str or type(schema) is not dict:
                raise NotTaken
            if schema.get("type", "object") != "object" or type(schema.get("type", "")) is not str:  # an object schema
                raise NotTaken
            if "strict" in f and type(f["strict"]) is not bool:  # checked, and not sent: Gemini has no strict mode
                raise NotTaken
            names.add(name)
            declared.append({"name": name, "description": text, "parametersJsonSchema": _checked_copy(schema)})
        out["tools"] = [{"functionDeclarations": declared}]
    if "tool_choice" in body:
        if not names:
            raise NotTaken
        out["toolConfig"] = {"functionCallingConfig": {"mode": _GEMINI_CHOICE[choice]}}
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


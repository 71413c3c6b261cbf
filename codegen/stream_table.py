"""The `stream:` section: its JSON Schema and its compilation into the generated `STREAM` table.

The runtime's one generic engine (`wiremap.runtime.stream`) interprets the compiled table; nothing
here emits code. The compiled table adds, read off the mapping's own `response` rows, the finish
reason map (wire -> canonical and back) and the usage counters, so a stream reads and writes them
exactly as the non-streamed converters do.
"""

from __future__ import annotations

import re
from typing import Any, Callable

__all__ = ["STREAM_SCHEMA", "compile_stream", "PARSE_KINDS", "EMIT_KINDS"]

_EXT = {"^x-": {}}
_PATH_RE = re.compile(r"^(|[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?)*)\??$")


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, "patternProperties": _EXT, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


_PATH = {"type": "string", "pattern": _PATH_RE.pattern}

# rule kind -> (required fields, optional fields)
PARSE_KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "message_start": ((), ("raw",)),
    "text": (("text",), ("index",)),
    "reasoning": (("text",), ("index",)),
    "signature": (("signature",), ("index",)),
    "redacted_reasoning": (("data",), ("index",)),
    "tool_call": ((), ("index", "id", "name", "arguments", "signature")),
    "block_end": (("index",), ()),
    "usage": (("usage",), ()),
    "finish": (("reason",), ()),
    "error": ((), ("error", "code")),
    "end": ((), ()),
    "ignore": ((), ()),
}

_COMMON = ("id", "model", "created", "usage")
# emit key -> placeholders its templates may use (besides id, model, created, usage)
EMIT_KINDS: dict[str, tuple[str, ...]] = {
    "message_start": (),
    "text_delta": ("index", "text", "block"),
    "reasoning_delta": ("index", "text", "block"),
    "reasoning_signature": ("index", "signature", "block"),
    "redacted_reasoning": ("index", "data", "block"),
    "tool_call_start": ("index", "call_id", "name"),
    "tool_call_delta": ("index", "arguments", "block"),
    "tool_call_end": ("index",),
    "finish": ("finish_reason",),
    "usage": (),
    "finish_usage": ("finish_reason",),
    "error": ("error",),
    "end": (),
    "tool_call_whole": ("index", "call_id", "name", "arguments", "signature"),
}
_BLOCK_START_KINDS = ("text", "reasoning", "redacted_reasoning", "tool_call")
_BLOCK_PLACEHOLDERS = ("block", "index", "call_id", "name", "data")

_WIRE_EVENT = _obj({"event": {"type": "string", "minLength": 1}, "data": {}}, required=["data"])
_WIRE_EVENTS = {"type": "array", "items": _WIRE_EVENT}

_RULE = _obj(
    {
        "event": {"oneOf": [{"type": "string", "minLength": 1}, {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}]},
        "when": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}},
        "unless": {"type": "object", "minProperties": 1, "additionalProperties": {"type": ["string", "number", "boolean", "null"]}},
        "each": _PATH,
        "emit": {"enum": sorted(PARSE_KINDS)},
        "fields": {"type": "object", "additionalProperties": _PATH},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "doc": {"type": "string"},
    },
    required=["emit"],
)

STREAM_SCHEMA: dict[str, Any] = _obj(
    {
        "request": {"type": "object", "description": "wire fields a streaming call sets (managed); empty only with `endpoint`"},
        "endpoint": _obj({"path": {"type": "string", "pattern": "^/"}}, required=["path"]),
        "framing": {"enum": ["sse"]},
        "parse": _obj(
            {
                "done": {"type": "string", "minLength": 1},
                "event_from": {"type": "string", "minLength": 1},
                "rules": {"type": "array", "minItems": 1, "items": _RULE},
            },
            required=["rules"],
        ),
        "tool_calls": _obj({"new_id": {"enum": ["same_call", "new_call", "always"]}, "doc": {"type": "string"}}, required=["new_id"]),
        "emit": _obj(
            {
                "defaults": _obj({"id": {"type": "string"}, "model": {"type": "string"}, "created": {"type": "integer"}}),
                **{k: _WIRE_EVENTS for k in EMIT_KINDS},
                "blocks": _obj(
                    {
                        "start": _obj({k: _WIRE_EVENT for k in _BLOCK_START_KINDS}, required=list(_BLOCK_START_KINDS)),
                        "stop": _WIRE_EVENT,
                    },
                    required=["start", "stop"],
                ),
            },
            required=["message_start", "text_delta", "tool_call_start", "tool_call_delta", "error", "end"],
        ),
    },
    required=["request", "framing", "parse", "tool_calls", "emit"],
)


def _path(text: str) -> tuple[list[Any], bool]:
    optional = text.endswith("?")
    text = text[:-1] if optional else text
    out: list[Any] = []
    if text:
        for part in text.split("."):
            m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[([0-9]+)\])?", part)
            assert m is not None  # the schema's pattern
            out.append(m.group(1))
            if m.group(2) is not None:
                out.append(int(m.group(2)))
    return out, optional


def _placeholders(node: Any) -> list[str]:
    if isinstance(node, str):
        if len(node) > 2 and node[0] == "{" and node[-1] == "}":
            return [node[1:-1].rstrip("?")]
        return []
    if isinstance(node, dict):
        return [p for v in node.values() for p in _placeholders(v)]
    if isinstance(node, list):
        return [p for v in node for p in _placeholders(v)]
    return []


def _strip_ext(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if not (isinstance(k, str) and k.startswith("x-"))}
    return value


def compile_stream(data: dict[str, Any], ir_usage: dict[str, Any], usage_path: tuple[Any, ...], usage_unreported: str,
                   finish_path: tuple[Any, ...], finish_map: list[tuple[str, str]], finish_default: str,
                   finish_emit: dict[str, str], response_content: str, err: Callable[[str, str], Exception],
                   finish_with_tool_calls: str | None = None, missing_id: str | None = None) -> dict[str, Any] | None:
    """The `STREAM` table of one mapping (None when it has no `stream:` section)."""
    spec = data.get("stream")
    if spec is None:
        return None
    if not spec["request"] and spec.get("endpoint") is None:
        raise err("/stream/request", "a streaming call must differ from a plain one: give the wire fields it sets "
                  "(`{stream: true}`) or its own `endpoint`")
    rules = []
    for i, rule in enumerate(spec["parse"]["rules"]):
        pointer = f"/stream/parse/rules/{i}"
        kind = rule["emit"]
        required, optional = PARSE_KINDS[kind]
        fields = {k: v for k, v in (rule.get("fields") or {}).items() if not k.startswith("x-")}
        for name in fields:
            if name not in required + optional:
                legal = ", ".join(required + optional) or "(none)"
                raise err(f"{pointer}/fields/{name}", f"{name!r} is not a field of a {kind} rule; expected one of: {legal}")
        for name in required:
            if name not in fields:
                raise err(f"{pointer}/fields", f"a {kind} rule needs the field {name!r} (the wire path it is read from)")
        if "status" in rule and kind != "error":
            raise err(f"{pointer}/status", "`status:` classifies an error event; only an error rule takes it")
        compiled_fields = []
        for name, text in fields.items():
            path, opt = _path(text)
            compiled_fields.append([name, path, opt])
        events = rule.get("event")
        compiled: dict[str, Any] = {
            "emit": kind,
            "fields": compiled_fields,
            "event": None if events is None else ([events] if isinstance(events, str) else list(events)),
            "when": [[_path(k)[0], v] for k, v in (rule.get("when") or {}).items()],
            "unless": [[_path(k)[0], v] for k, v in (rule.get("unless") or {}).items()],
            "each": None if rule.get("each") is None else _path(rule["each"])[0],
        }
        if kind == "error":
            compiled["status"] = rule.get("status", 500)
        rules.append(compiled)
    emit: dict[str, Any] = {}
    for key, value in spec["emit"].items():
        if key.startswith("x-"):
            continue
        if key == "defaults":
            emit[key] = dict(value)
            continue
        if key == "blocks":
            for kind, event in value["start"].items():
                if kind.startswith("x-"):
                    continue
                for name in _placeholders(event["data"]):
                    if name not in _COMMON + _BLOCK_PLACEHOLDERS:
                        raise err(f"/stream/emit/blocks/start/{kind}", f"{{{name}}} is not a field of a block start; expected one of: {', '.join(_COMMON + _BLOCK_PLACEHOLDERS)}")
            for name in _placeholders(value["stop"]["data"]):
                if name not in _COMMON + ("block",):
                    raise err("/stream/emit/blocks/stop", f"{{{name}}} is not a field of a block stop; expected one of: {', '.join(_COMMON + ('block',))}")
            emit[key] = {"start": {k: _strip_ext(v) for k, v in value["start"].items() if not k.startswith("x-")}, "stop": _strip_ext(value["stop"])}
            continue
        legal = _COMMON + EMIT_KINDS[key]
        for j, event in enumerate(value):
            for name in _placeholders(event["data"]):
                if name not in legal:
                    raise err(f"/stream/emit/{key}/{j}/data", f"{{{name}}} is not a field of {key}; expected one of: {', '.join(legal)}")
        emit[key] = [_strip_ext(e) for e in value]
    if "tool_call_whole" in emit and (emit.get("tool_call_start") or emit.get("tool_call_delta")):
        raise err("/stream/emit/tool_call_whole", "`tool_call_whole` writes each call once, at its end; "
                  "`tool_call_start` and `tool_call_delta` must then be empty lists")
    if "finish" not in emit and "finish_usage" not in emit:
        raise err("/stream/emit", "the emit table needs `finish` or `finish_usage` (where the finish reason goes)")
    counters: dict[str, Any] = {}
    for name, src in ir_usage.items():
        if isinstance(src, tuple) and src and src[0] == "sum":
            counters[name] = {"sum": [list(p) for p in src[1]]}
        else:
            counters[name] = list(src)
    compiled_table: dict[str, Any] = {
        "request": dict(spec["request"]),
        "content": response_content,
        "parse": {
            "done": spec["parse"].get("done"),
            "event_from": spec["parse"].get("event_from"),
            "rules": rules,
        },
        "tool_calls": {"new_id": spec["tool_calls"]["new_id"]},
        "emit": emit,
        "finish": {
            "path": list(finish_path),
            "map": dict(finish_map),
            "default": finish_default,
            "emit": dict(finish_emit),
        },
        "usage": {"path": list(usage_path), "counters": counters, "unreported": usage_unreported},
    }
    # optional keys only when used, so tables without them compile as before
    if spec.get("endpoint") is not None:
        compiled_table["endpoint"] = {"path": spec["endpoint"]["path"]}
    if missing_id == "synthesize":  # request.tool_calls.missing_id: whole calls without an id get the same id
        compiled_table["tool_calls"]["missing_id"] = "synthesize"
    if finish_with_tool_calls is not None:
        compiled_table["finish"]["with_tool_calls"] = finish_with_tool_calls
    for rule in rules:
        if not rule["unless"]:
            del rule["unless"]
    return compiled_table

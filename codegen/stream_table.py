"""The `stream:` section: its JSON Schema and its compilation into the generated `STREAM` table.

The runtime's one generic engine (`wiremap.runtime.stream`) interprets the compiled table; nothing
here emits code. The compiled table adds, read off the mapping's own `response` rows, the finish
reason map (wire -> canonical and back) and the usage counters, so a stream reads and writes them
exactly as the non-streamed converters do.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from .usage import stream_counters

__all__ = ["STREAM_SCHEMA", "compile_stream", "PARSE_KINDS", "EMIT_KINDS"]

_EXT: dict[str, dict[str, Any]] = {"^x-": {}}  # x- extension keys: anything
_PATH_RE = re.compile(r"^(|[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?)*)\??$")


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, "patternProperties": _EXT, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


_PATH = {"type": "string", "pattern": _PATH_RE.pattern}

# rule kind -> (required fields, optional fields)
PARSE_KINDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "message_start": ((), ("raw", "id", "model", "created")),  # id/model/created: where this wire names them
    "text": (("text",), ("index", "signature")),
    "reasoning": (("text",), ("index",)),
    "signature": (("signature",), ("index",)),
    "redacted_reasoning": (("data",), ("index",)),
    "tool_call": ((), ("index", "id", "name", "arguments", "signature")),
    "block_end": (("index",), ()),
    "usage": (("usage",), ()),
    "finish": (("reason",), ("detail",)),
    "entry": (("entry",), ("index",)),
    "error": ((), ("error", "code")),
    "end": ((), ()),
    "ignore": ((), ()),
}

_COMMON = ("id", "model", "created", "usage", "sequence", "response")
# emit key -> placeholders its templates may use (besides id, model, created, usage)
EMIT_KINDS: dict[str, tuple[str, ...]] = {
    "message_start": (),
    "text_delta": ("index", "text", "block"),
    "text_signature": ("index", "signature", "block"),
    "reasoning_delta": ("index", "text", "block"),
    "reasoning_signature": ("index", "signature", "block"),
    "redacted_reasoning": ("index", "data", "block"),
    "tool_call_start": ("index", "call_id", "name"),
    "tool_call_delta": ("index", "arguments", "block"),
    "tool_call_end": ("index",),
    "finish": ("finish_reason",),
    "usage": (),
    "finish_usage": ("finish_reason",),
    "error": ("error", "status"),  # status: the HTTP status the error stands for (error_to_wire)
    "end": (),
    "tool_call_whole": ("index", "call_id", "name", "arguments", "signature"),
    "reasoning_whole": ("index", "text", "signature", "block"),
}
_BLOCK_START_KINDS = ("text", "reasoning", "redacted_reasoning", "tool_call")
_BLOCK_PLACEHOLDERS = ("block", "index", "call_id", "name", "data")
# a block stop may also name what the block accumulated
_BLOCK_STOP_PLACEHOLDERS = ("block", "index", "call_id", "name", "data", "text", "arguments", "signature")
_CODECS = ("json",)

_WIRE_EVENT = _obj({"event": {"type": "string", "minLength": 1}, "data": {}}, required=["data"])
_WIRE_EVENTS = {"type": "array", "items": _WIRE_EVENT}
_ONE_OR_MORE = {"oneOf": [_WIRE_EVENT, {"type": "array", "items": _WIRE_EVENT, "minItems": 1}]}

_RULE = _obj(
    {
        "event": {"oneOf": [{"type": "string", "minLength": 1}, {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1}]},
        "when": {"type": "object", "additionalProperties": {"type": ["string", "number", "boolean", "null"]}},
        "unless": {"type": "object", "minProperties": 1, "additionalProperties": {"type": ["string", "number", "boolean", "null"]}},
        # the rule fires only where the value at each path has that JSON type (Mistral's delta.content:
        # a string, or a list of content chunks that other rules read)
        "when_type": {"type": "object", "minProperties": 1, "additionalProperties": {"enum": ["string", "number", "boolean", "object", "array"]}},
        "each": _PATH,
        "emit": {"enum": sorted(PARSE_KINDS)},
        "fields": {"type": "object", "additionalProperties": {"oneOf": [_PATH, {"type": "array", "items": _PATH, "minItems": 2}]}},
        "const": {"type": "object", "minProperties": 1, "additionalProperties": {"type": ["string", "number", "boolean"]}},
        "wrap": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
        "concat": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "text_keys": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
        "status": {"type": "integer", "minimum": 400, "maximum": 599},
        "doc": {"type": "string"},
    },
    required=["emit"],
)

STREAM_SCHEMA: dict[str, Any] = _obj(
    {
        "request": {"type": "object", "description": "wire fields a streaming call sets (managed); empty only with `endpoint`"},
        "endpoint": _obj({"path": {"type": "string", "pattern": "^/"}}, required=["path"]),
        # sse: server-sent events; aws_eventstream: AWS's binary event-stream (runtime/eventstream.py)
        "framing": {"enum": ["sse", "aws_eventstream"]},
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
                # the `usage` rows are written only when the client's own streaming request has these values
                "usage_when": {"type": "object", "minProperties": 1, "additionalProperties": {"type": ["string", "number", "boolean", "null"]}},
                **{k: _WIRE_EVENTS for k in EMIT_KINDS},
                "blocks": _obj(
                    {
                        "start": _obj({k: _ONE_OR_MORE for k in _BLOCK_START_KINDS}, required=["text", "tool_call"]),
                        "stop": {"oneOf": [_WIRE_EVENT, _obj({k: _WIRE_EVENTS for k in _BLOCK_START_KINDS}, required=["text", "tool_call"])]},
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


_SLOT_RE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_SLOT_NAME_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(\?)?(?:\|([A-Za-z_]+))?$")


def template_slots(text: str) -> list[tuple[str, bool, str | None, bool]]:
    """The placeholders of one template string: (dotted name, optional, codec). A string that
    is one placeholder (`"{usage?}"`, `"{signature|json}"`) gives the value itself; placeholders
    inside other text (`"msg_{block}"`) are interpolated, so they may carry neither `?` nor a
    codec. `{{` / `}}` are literal braces. Each slot: (name, optional, codec, whole string).
    Raises ValueError naming what is wrong."""
    whole = _SLOT_NAME_RE.match(text[1:-1]) if len(text) > 2 and text[0] == "{" and text[-1] == "}" and "{" not in text[1:-1] and "}" not in text[1:-1] else None
    if whole is not None:
        return [(whole.group(1), bool(whole.group(2)), whole.group(3), True)]
    out: list[tuple[str, bool, str | None, bool]] = []
    for m in _SLOT_RE.finditer(text):
        token = m.group(0)
        if token in ("{{", "}}"):
            continue
        if m.group(1) is None:
            raise ValueError(f"a lone {token!r} in {text!r}; write {{{{ or }}}} for a literal brace")
        slot = _SLOT_NAME_RE.match(m.group(1))
        if slot is None:
            raise ValueError(f"{{{m.group(1)}}} in {text!r} is not a placeholder (a name, dotted path, `?`, `|codec`)")
        if slot.group(2) or slot.group(3):
            raise ValueError(f"{{{m.group(1)}}} in {text!r}: `?` and codecs are for a placeholder that is the whole string")
        out.append((slot.group(1), False, None, False))
    return out


def _placeholders(node: Any) -> list[tuple[str, bool, str | None, bool]]:
    if isinstance(node, str):
        return template_slots(node) if ("{" in node or "}" in node) else []
    if isinstance(node, dict):
        return [p for v in node.values() for p in _placeholders(v)]
    if isinstance(node, list):
        return [p for v in node for p in _placeholders(v)]
    return []


def _strip_ext(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if not (isinstance(k, str) and k.startswith("x-"))}
    return value


def _check_slots(node: Any, legal: tuple[str, ...], pointer: str, what: str, err: Callable[[str, str], Exception]) -> None:
    try:
        slots = _placeholders(node)
    except ValueError as exc:
        raise err(pointer, str(exc)) from None
    for name, optional, codec, whole in slots:
        head = name.split(".")[0]
        if head not in legal:
            raise err(pointer, f"{{{name}}} is not a field of {what}; expected one of: {', '.join(legal)}")
        if head in ("response", "usage") and not whole:
            raise err(pointer, f"{{{name}}} is an object (the format's own {head} body): it must be a whole value, "
                      "not text inside a string")
        if head == "response" and optional:
            raise err(pointer, "{response?}: the assembled response is always there; write {response}")
        if codec is not None and codec not in _CODECS:
            raise err(pointer, f"{{{name}|{codec}}}: unknown codec {codec!r}; expected one of: {', '.join(_CODECS)}")
        if codec is not None and head in ("usage", "response", "sequence", "block", "index"):
            raise err(pointer, f"{{{name}|{codec}}}: `|json` decodes a JSON text (a signature, data); {head} is not one")


def _events(value: Any) -> list[Any]:
    return [_strip_ext(e) for e in (value if isinstance(value, list) else [value])]


def _emit_rows(emit: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every wire event row of an `emit` table, with its JSON pointer."""
    out: list[tuple[str, dict[str, Any]]] = []
    for key, value in emit.items():
        if key.startswith("x-") or key in ("defaults", "usage_when"):
            continue
        if key == "blocks":
            for side in ("start", "stop"):
                block = value[side]
                if "data" in block:
                    out.append((f"/stream/emit/blocks/{side}", block))
                    continue
                for kind, rows in block.items():
                    if not kind.startswith("x-"):
                        listed = rows if isinstance(rows, list) else [rows]
                        out += [(f"/stream/emit/blocks/{side}/{kind}" + (f"/{j}" if isinstance(rows, list) else ""), r) for j, r in enumerate(listed)]
            continue
        out += [(f"/stream/emit/{key}/{j}", row) for j, row in enumerate(value)]
    return out


def compile_stream(data: dict[str, Any], ir_usage: dict[str, Any], usage_path: tuple[Any, ...], usage_unreported: str,
                   finish_path: tuple[Any, ...], finish_map: list[tuple[str, str]], finish_default: str,
                   finish_emit: dict[str, str], response_content: str, err: Callable[[str, str], Exception],
                   finish_with_tool_calls: str | None = None, missing_id: str | None = None,
                   finish_detail_map: dict[str, str] | None = None) -> dict[str, Any] | None:
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
        const = {k: v for k, v in (rule.get("const") or {}).items() if not k.startswith("x-")}
        for name in list(fields) + list(const):
            if name not in required + optional:
                legal = ", ".join(required + optional) or "(none)"
                where = "fields" if name in fields else "const"
                raise err(f"{pointer}/{where}/{name}", f"{name!r} is not a field of a {kind} rule; expected one of: {legal}")
        for name in const:
            if name in fields:
                raise err(f"{pointer}/const/{name}", f"{name!r} is given both a wire path (fields) and a fixed value (const); give one")
            if name == "index":
                raise err(f"{pointer}/const/index", "`index` keys parts by the wire's own block index; a fixed value would merge every match into one part")
        for name in required:
            if name not in fields and name not in const:
                raise err(f"{pointer}/fields", f"a {kind} rule needs the field {name!r} (the wire path it is read from)")
        for name, value in fields.items():
            if isinstance(value, list) and name != "index":
                raise err(f"{pointer}/fields/{name}", f"only `index` may list several paths (a composite key); {name!r} is one path")
        if kind == "finish" and "detail" in fields and not finish_detail_map:
            raise err(f"{pointer}/fields/detail", "a finish `detail` is read through `response.finish_reason.detail_map`, which this mapping does not have")
        if "status" in rule and kind != "error":
            raise err(f"{pointer}/status", "`status:` classifies an error event; only an error rule takes it")
        if "wrap" in rule and kind != "error":
            raise err(f"{pointer}/wrap", "`wrap:` puts a bare error object into the format's error envelope; only an error rule takes it")
        for key in ("concat", "text_keys"):
            if key in rule and kind != "entry":
                raise err(f"{pointer}/{key}", f"`{key}:` says how the pieces of a reasoning entry merge; only an entry rule takes it")
        compiled_fields = []
        for name, text in fields.items():
            if isinstance(text, list):
                compiled_fields.append([name, [_path(t)[0] for t in text], any(_path(t)[1] for t in text)])
            else:
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
        if const:
            compiled["const"] = dict(const)
        if rule.get("when_type"):
            compiled["when_type"] = [[_path(k)[0], v] for k, v in rule["when_type"].items() if not k.startswith("x-")]
        if kind == "error":
            compiled["status"] = rule.get("status", 500)
            if "wrap" in rule:
                compiled["wrap"] = rule["wrap"]
        if kind == "entry":
            compiled["concat"] = list(rule.get("concat") or [])
            if "text_keys" in rule:
                compiled["text_keys"] = list(rule["text_keys"])
        rules.append(compiled)
    emit: dict[str, Any] = {}
    for key, value in spec["emit"].items():
        if key.startswith("x-"):
            continue
        if key == "defaults":
            emit[key] = dict(value)
            continue
        if key == "usage_when":
            if "usage" not in spec["emit"]:
                raise err("/stream/emit/usage_when", "`usage_when` says when the `usage` rows are written; this table has no `usage` row")
            emit[key] = [[_path(k)[0], v] for k, v in value.items() if not k.startswith("x-")]
            continue
        if key == "blocks":
            start: dict[str, list[Any]] = {}
            for kind, event in value["start"].items():
                if kind.startswith("x-"):
                    continue
                for j, one in enumerate(event if isinstance(event, list) else [event]):
                    _check_slots(one["data"], _COMMON + _BLOCK_PLACEHOLDERS, f"/stream/emit/blocks/start/{kind}" + (f"/{j}" if isinstance(event, list) else ""), "a block start", err)
                start[kind] = _events(event)
            stop_spec = value["stop"]
            stop: dict[str, list[Any]] = {}
            if "data" in stop_spec:  # one stop event for every kind of block
                _check_slots(stop_spec["data"], _COMMON + ("block",), "/stream/emit/blocks/stop", "a block stop", err)
                stop = {k: _events(stop_spec) for k in _BLOCK_START_KINDS}
            else:
                for kind, evs in stop_spec.items():
                    if kind.startswith("x-"):
                        continue
                    for j, one in enumerate(evs):
                        _check_slots(one["data"], _COMMON + _BLOCK_STOP_PLACEHOLDERS, f"/stream/emit/blocks/stop/{kind}/{j}/data", "a block stop", err)
                    stop[kind] = _events(evs)
            emit[key] = {"start": start, "stop": stop}
            continue
        placeholders = _COMMON + EMIT_KINDS[key]
        for j, event in enumerate(value):
            _check_slots(event["data"], placeholders, f"/stream/emit/{key}/{j}/data", key, err)
            if "event" in event:
                _check_slots(event["event"], placeholders, f"/stream/emit/{key}/{j}/event", key, err)
        emit[key] = [_strip_ext(e) for e in value]
    if spec["framing"] == "aws_eventstream":  # every message carries its name (`:event-type` / `:exception-type`)
        for pointer, wire_row in _emit_rows(spec["emit"]):
            if "event" not in wire_row:
                raise err(pointer, "with `framing: aws_eventstream` every emitted row needs an `event` "
                          "(its `:event-type` header; in `error` rows, the `:exception-type`)")
    if "tool_call_whole" in emit and (emit.get("tool_call_start") or emit.get("tool_call_delta")):
        raise err("/stream/emit/tool_call_whole", "`tool_call_whole` writes each call once, at its end; "
                  "`tool_call_start` and `tool_call_delta` must then be empty lists")
    if "reasoning_whole" in emit and (emit.get("reasoning_delta") or emit.get("reasoning_signature")):
        raise err("/stream/emit/reasoning_whole", "`reasoning_whole` writes each reasoning part once, at its end; "
                  "`reasoning_delta` and `reasoning_signature` must then be empty lists")
    if "blocks" in emit:
        starts = emit["blocks"]["start"]
        for row, kind in (("reasoning_delta", "reasoning"), ("reasoning_signature", "reasoning")):
            if emit.get(row) and kind not in starts:
                raise err("/stream/emit/blocks/start", f"`{row}` writes into a {kind} block: `blocks.start.{kind}` must open it")
        if "reasoning_whole" in emit and "reasoning" in starts:
            raise err("/stream/emit/blocks/start/reasoning", "reasoning parts are written whole (`reasoning_whole`); they open no block")
    if "finish" not in emit and "finish_usage" not in emit:
        raise err("/stream/emit", "the emit table needs `finish` or `finish_usage` (where the finish reason goes)")
    counters = stream_counters(ir_usage)  # codegen/usage.py: plain paths and sums with their inverse
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
    if spec["framing"] != "sse":
        compiled_table["framing"] = spec["framing"]
    if spec.get("endpoint") is not None:
        compiled_table["endpoint"] = {"path": spec["endpoint"]["path"]}
    if missing_id == "synthesize":  # request.tool_calls.missing_id: whole calls without an id get the same id
        compiled_table["tool_calls"]["missing_id"] = "synthesize"
    if finish_with_tool_calls is not None:
        compiled_table["finish"]["with_tool_calls"] = finish_with_tool_calls
    if finish_detail_map:  # response.finish_reason.detail_map: a finish rule's `detail` field reads through it
        compiled_table["finish"]["detail_map"] = dict(finish_detail_map)
    for rule in rules:
        if not rule["unless"]:
            del rule["unless"]
    return compiled_table

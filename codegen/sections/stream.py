"""The `stream:` section: its JSON Schema and its compilation into the generated `STREAM` table.

The runtime's one generic engine (`wiremap.runtime.stream`) reads the compiled table. Its emit
rows are the exception: each row's `event` and `data` templates are parsed here by the one
template parser (codegen/wiretemplate.py, as the non-streamed converters' are), checked, and
kept as an `EmitRow` that codegen/emit/stream.py compiles into a function of the converter
module; the table names the function, and no template text reaches the runtime. A template that
cannot be compiled is a MappingError at its place. The compiled table adds, read off the mapping's own `response` rows, the finish
reason map (wire -> canonical and back) and the usage counters, so a stream reads and writes them
exactly as the non-streamed converters do.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ..emit.stream import EmitRow, ParseRules
from .usage import stream_counters
from ..wiretemplate import Arr, Interp, Node, Obj, TemplateSyntaxError, parse_template, slots_of

__all__ = ["STREAM_SCHEMA", "compile_stream", "emit_rows_of", "parse_rules_of", "PARSE_KINDS", "EMIT_KINDS"]

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
    "error": ((), ("error", "code", "message")),  # message: where the event says the error in words
    "end": ((), ()),
    "ignore": ((), ()),
    # wire data the canonical model has no field for, carried for the same wire (runtime/carry.py)
    # at the non-streamed body's path `to`, its pieces merged by `merge` (docs/canonical.md
    # "Carried data in streams")
    "carry": (("value",), ()),
}
CARRY_MERGES = ("last", "concat", "append")

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
    # status: the HTTP status the error stands for, type: its errors.emit type (error_to_wire; the
    # type may go in a header, errors.emit.headers, not in the body)
    "error": ("error", "status", "type"),
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
# a text or reasoning block may open with its first delta (an empty list: no start event; Bedrock
# ConverseStream sends contentBlockStart for toolUse blocks only); a tool call's start names it
_ZERO_OR_MORE = {"oneOf": [_WIRE_EVENT, {"type": "array", "items": _WIRE_EVENT}]}

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
        # a carry rule: the non-streamed body's path its value is carried at, and how pieces merge
        "to": {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?)*$"},
        "merge": {"enum": list(CARRY_MERGES)},
        "doc": {"type": "string"},
    },
    required=["emit"],
)

STREAM_SCHEMA: dict[str, Any] = _obj(
    {
        "request": {"type": "object", "description": "wire fields a streaming call sets (managed); empty only with `endpoint`"},
        "endpoint": _obj({"path": {"type": "string", "pattern": "^/"}}, required=["path"]),
        # sse: server-sent events; aws_eventstream: AWS's binary event-stream (runtime/eventstream.py);
        # aws_eventstream_chunks: the same messages, each event a `chunk` whose payload is
        # {"bytes": base64 of one event's JSON} (Bedrock InvokeModelWithResponseStream PayloadPart)
        "framing": {"enum": ["sse", "aws_eventstream", "aws_eventstream_chunks"]},
        "parse": _obj(
            {
                "done": {"type": "string", "minLength": 1},
                "event_from": {"type": "string", "minLength": 1},
                "rules": {"type": "array", "minItems": 1, "items": _RULE},
                # event keys that carry no data (random padding): never carried (docs/canonical.md)
                "ignore_keys": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
                # events whose whole content a later event repeats (a snapshot the final event
                # restates): rules read them, but what no rule reads in them is not carried twice
                "restated": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
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
                        "start": _obj({k: _ZERO_OR_MORE if k in ("text", "reasoning") else _ONE_OR_MORE for k in _BLOCK_START_KINDS}, required=["text", "tool_call"]),
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


def _template(value: Any, legal: tuple[str, ...], pointer: str, what: str, err: Callable[[str, str], Exception], maps: frozenset[str] = frozenset()) -> Node:
    """One emit template (a row's `data` or `event`), parsed by the one template parser
    (codegen/wiretemplate.py) and checked: what codegen/emit/stream.py can compile, or a
    MappingError at `pointer`. A string that is one placeholder (`"{usage?}"`,
    `"{signature|json}"`) gives the value itself; placeholders inside other text (`"msg_{block}"`)
    are interpolated, so they may carry neither `?` nor a codec. `{{` / `}}` are literal braces.
    `maps`: the mapping's string value maps, codecs of a whole string value (`{error.__type|name}`)."""
    try:
        node = parse_template(value, pointer, emit_only=True)
    except TemplateSyntaxError as exc:
        raise err(pointer, str(exc)) from None
    interpolated = {id(s) for n in _interpolations(node) for s in n.slots}
    slots = slots_of(node)
    for slot in slots:  # the forms a stream row does not have, before what the names mean
        if slot.has_default:
            raise err(pointer, f"{{{slot.field}=...}}: a stream row has no defaults; write {{{slot.field}?}} to leave the value out when there is none")
        if id(slot) in interpolated and slot.codec is not None:
            raise err(pointer, f"{{{slot.field}|{slot.codec}}}: a codec is for a placeholder that is the whole string, not text inside one")
    for slot in slots:
        name, optional, codec, whole = slot.field, slot.optional, slot.codec, id(slot) not in interpolated
        head = name.split(".")[0]
        if head not in legal:
            raise err(pointer, f"{{{name}}} is not a field of {what}; expected one of: {', '.join(legal)}")
        if head in ("response", "usage") and not whole:
            raise err(pointer, f"{{{name}}} is an object (the format's own {head} body): it must be a whole value, "
                      "not text inside a string")
        if head == "response" and optional:
            raise err(pointer, "{response?}: the assembled response is always there; write {response}")
        if codec is not None and codec not in _CODECS and codec not in maps:
            raise err(pointer, f"{{{name}|{codec}}}: unknown codec {codec!r}; expected one of: {', '.join([*_CODECS, *sorted(maps)])}")
        if codec in maps and head in ("usage", "response", "block", "index", "sequence"):
            raise err(pointer, f"{{{name}|{codec}}}: a value map maps a string; {head} is not one")
        if codec is not None and codec not in maps and head in ("usage", "response", "sequence", "block", "index"):
            raise err(pointer, f"{{{name}|{codec}}}: `|json` decodes a JSON text (a signature, data); {head} is not one")
    return node


def _interpolations(node: Node) -> list[Interp]:
    if isinstance(node, Interp):
        return [node]
    if isinstance(node, Obj):
        return [i for _, n in node.items for i in _interpolations(n)]
    if isinstance(node, Arr):
        return [i for n in node.items for i in _interpolations(n)]
    return []


class _Rows:
    """The emit table's rows as they are compiled: each an `EmitRow` named in table order."""

    def __init__(self, err: Callable[[str, str], Exception], maps: frozenset[str] = frozenset()) -> None:
        self.err = err
        self.maps = maps  # the string value maps a whole placeholder may go through
        self.rows: list[EmitRow] = []

    def row(self, row: dict[str, Any], legal: tuple[str, ...], pointer: str, what: str, data_pointer: str | None = None) -> EmitRow:
        data = _template(row["data"], legal, data_pointer or f"{pointer}/data", what, self.err, self.maps)
        event = _template(row["event"], legal, f"{pointer}/event", what, self.err, self.maps) if row.get("event") else None
        compiled = EmitRow(f"_stream_emit_{len(self.rows)}", pointer, event, data)
        self.rows.append(compiled)
        return compiled

    def names_response(self) -> bool:
        """Whether a row names `{response}` (the emitter then assembles the answer as it goes)."""
        nodes = [n for r in self.rows for n in (r.data, r.event) if n is not None]
        return any(s.field.split(".")[0] == "response" for n in nodes for s in slots_of(n))


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


def emit_rows_of(table: dict[str, Any] | None) -> list[EmitRow]:
    """Every row of a compiled table's `emit`, once each, in the order they were compiled (the
    functions codegen/emit/stream.py writes for them)."""
    found: dict[str, EmitRow] = {}

    def walk(value: Any) -> None:
        if isinstance(value, EmitRow):
            found[value.name] = value
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk((table or {}).get("emit"))
    return sorted(found.values(), key=lambda row: int(row.name.rsplit("_", 1)[1]))


def parse_rules_of(table: dict[str, Any] | None) -> ParseRules | None:
    """A compiled table's parse rules, whose function codegen/emit/stream.py writes (None: the
    mapping does not stream)."""
    if table is None:
        return None
    match: ParseRules = table["parse"]["match"]
    return match


def compile_stream(data: dict[str, Any], ir_usage: dict[str, Any], usage_path: tuple[Any, ...], usage_unreported: str,
                   finish_path: tuple[Any, ...], finish_map: list[tuple[str, str]], finish_default: str,
                   finish_emit: dict[str, str], response_content: str, err: Callable[[str, str], Exception],
                   finish_with_tool_calls: str | None = None, missing_id: str | None = None,
                   finish_detail_map: dict[str, str] | None = None,
                   usage_fallback: dict[str, str] | None = None) -> dict[str, Any] | None:
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
        for key in ("to", "merge"):
            if key in rule and kind != "carry":
                raise err(f"{pointer}/{key}", f"`{key}:` says where carried wire data goes; only a carry rule takes it")
        if kind == "carry" and "to" not in rule:
            raise err(f"{pointer}", "a carry rule needs `to`: the path of the non-streamed body the value is carried at")
        if kind == "carry" and "each" in rule:
            raise err(f"{pointer}/each", "a carry rule reads one value per event; `each` would merge the items of a list by position")
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
        if kind == "carry":
            compiled["to"] = _path(rule["to"])[0]
            compiled["merge"] = rule.get("merge", "last")
        if kind == "entry":
            compiled["concat"] = list(rule.get("concat") or [])
            if "text_keys" in rule:
                compiled["text_keys"] = list(rule["text_keys"])
        rules.append(compiled)
    emit: dict[str, Any] = {}
    # the string value maps (a boolean one, "true"/"false", maps is_error only)
    maps = frozenset(n for n, t in (data.get("value_maps") or {}).items() if not n.startswith("x-") and {k for k in t if k != "*"} != {"true", "false"})
    rows = _Rows(err, maps)
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
            start: dict[str, list[EmitRow]] = {}
            for kind, event in value["start"].items():
                if kind.startswith("x-"):
                    continue
                listed = event if isinstance(event, list) else [event]
                start[kind] = []
                for j, one in enumerate(listed):
                    pointer = f"/stream/emit/blocks/start/{kind}" + (f"/{j}" if isinstance(event, list) else "")
                    start[kind].append(rows.row(one, _COMMON + _BLOCK_PLACEHOLDERS, pointer, "a block start", pointer))
            stop_spec = value["stop"]
            stop: dict[str, list[EmitRow]] = {}
            if "data" in stop_spec:  # one stop event for every kind of block
                one_stop = rows.row(stop_spec, _COMMON + ("block",), "/stream/emit/blocks/stop", "a block stop", "/stream/emit/blocks/stop")
                stop = {k: [one_stop] for k in _BLOCK_START_KINDS}
            else:
                for kind, evs in stop_spec.items():
                    if kind.startswith("x-"):
                        continue
                    stop[kind] = [rows.row(one, _COMMON + _BLOCK_STOP_PLACEHOLDERS, f"/stream/emit/blocks/stop/{kind}/{j}", "a block stop")
                                  for j, one in enumerate(evs)]
            emit[key] = {"start": start, "stop": stop}
            continue
        placeholders = _COMMON + EMIT_KINDS[key]
        emit[key] = [rows.row(event, placeholders, f"/stream/emit/{key}/{j}", key) for j, event in enumerate(value)]
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
    counters = stream_counters(ir_usage)  # codegen/sections/usage.py: plain paths and sums with their inverse
    # what the rules read, for the parser's carried data (runtime/stream.py `StreamParser`): the
    # event names a rule lists (None: a rule reads every event), those only `ignore` rules list
    # (keep-alives: nothing in them is carried), every key a rule's paths name (a key no rule and no
    # table names is carried), and the keys that carry nothing (`ignore_keys`)
    read_events: list[str] | None = None if any(r["event"] is None for r in rules) else sorted({n for r in rules for n in r["event"]})
    quiet = sorted({n for r in rules if r["emit"] == "ignore" for n in (r["event"] or ())}
                   - {n for r in rules if r["emit"] != "ignore" for n in (r["event"] or ())})
    names: set[str] = set()
    for r in rules:
        paths = [p for _n, p, _o in r["fields"]] + [p for p, _v in r["when"] + r.get("unless", []) + r.get("when_type", [])]
        paths += [r["each"]] if r["each"] else []
        for p in paths:
            for part in (p if p and isinstance(p[0], list) else [p]):
                names.update(k for k in part if isinstance(k, str))
    # the values a rule reads whole (tool-call arguments, a reasoning entry, a signature, an
    # error, a carry rule's value): nothing inside them is carried; paths inside the event, list positions as "*"
    whole: set[tuple[Any, ...]] = set()
    for r in rules:
        for name, path, _o in r["fields"]:
            if name in ("arguments", "entry", "signature", "data", "error", "value") and not (path and isinstance(path[0], list)):
                full = (r["each"] + ["*"] if r["each"] else []) + list(path)
                whole.add(tuple("*" if isinstance(k, int) else k for k in full))
    carry: dict[str, Any] = {"events": read_events, "quiet": quiet, "keys": sorted(names), "whole": sorted(list(w) for w in whole)}
    restated = list(spec["parse"].get("restated") or ())
    for j, name in enumerate(restated):
        if read_events is not None and name not in read_events:
            raise err(f"/stream/parse/restated/{j}", f"no rule reads the event {name!r}: an event no rule names is carried whole; "
                      "give it an `ignore` rule if it holds nothing new")
    if restated:
        carry["quiet"] = sorted(set(quiet) | set(restated))
    ignore_keys = [k for k in spec["parse"].get("ignore_keys") or () if not k.startswith("x-")]
    if ignore_keys:
        carry["ignore_keys"] = ignore_keys
    compiled_table: dict[str, Any] = {
        "request": dict(spec["request"]),
        "content": response_content,
        "parse": {
            "done": spec["parse"].get("done"),
            "event_from": spec["parse"].get("event_from"),
            "rules": rules,
            "carry": carry,
            "match": ParseRules("_stream_parse", rules),  # the function that matches them (codegen/emit/stream.py)
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
    if usage_fallback:  # response.usage.fallback: read as the non-streamed reader does
        compiled_table["usage"]["fallback"] = dict(usage_fallback)
    # optional keys only when used, so tables without them compile as before
    if spec["framing"] != "sse":
        compiled_table["framing"] = spec["framing"]
    if rows.names_response():  # the emitter assembles the answer only for a table that writes it
        compiled_table["emit"]["names_response"] = True
    # each row that writes a delta's text or arguments verbatim: what it reads, and those of them it
    # writes only as whole JSON values (EmitRow.plain); the emitter's fast lane pre-splits its bytes
    plain = {row: [row.reads(), row.plain()] for row in rows.rows if {"text", "arguments"} & set(row.plain())}
    if plain:
        compiled_table["emit"]["plain"] = plain
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

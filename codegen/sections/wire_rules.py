"""The `wire_rules:` section: provider limits on ids, tool names, empty text and JSON Schemas.

Schema (merged into MAPPING_SCHEMA), IR check and emission live here, so that the section's
hooks in the rest of the generator are one line each. The generated converter gets a
`WIRE_RULES` constant and public functions that wrap the plain ones with the runtime pass
(`wiremap.runtime.wire_rules`): `request_to_wire(..., wire_map=None)` applies the rules before
building the body; `response_from_wire(..., wire_map=None)` and `request_from_wire(...,
wire_map=None)` map ids and names back to the caller's.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..emit.lines import Func

if TYPE_CHECKING:
    from ..emit.emitter import Emitter
    from ..ir.chat import Builder

__all__ = ["WIRE_RULES_SCHEMA", "TOOL_NAME_SCHEMA", "FIXTURE_KEYS", "build_wire_rules", "build_tool_name_rule", "emit_wire_rules"]

_EXT: dict[str, dict[str, Any]] = {"^x-": {}}  # x- extension keys: anything


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props, "patternProperties": _EXT, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def _token_rule(actions: list[str]) -> dict[str, Any]:
    return _obj(
        {
            "chars": {"type": "string", "minLength": 1, "description": "a regex character class body, e.g. a-zA-Z0-9"},
            "length": {"type": "integer", "minimum": 1},
            "min_length": {"type": "integer", "minimum": 1},
            "max_length": {"type": "integer", "minimum": 1},
            "first": {"type": "string", "minLength": 1, "description": "the class of the first character, when narrower than chars"},
            "action": {"enum": actions},
            "doc": {"type": "string"},
        },
        required=["chars", "action"],
    )


#: `request.tools.name`: the API's rule for a tool name (`^[first][chars]{0,max_length-1}$`).
TOOL_NAME_SCHEMA: dict[str, Any] = _obj(
    {
        "chars": {"type": "string", "minLength": 1, "description": "a regex character class body, e.g. a-zA-Z0-9_-"},
        "first": {"type": "string", "minLength": 1, "description": "the class of the first character, when narrower than chars"},
        "max_length": {"type": "integer", "minimum": 10},
        "doc": {"type": "string"},
    },
    required=["chars", "max_length"],
)

WIRE_RULES_SCHEMA: dict[str, Any] = _obj(
    {
        "tool_call_id": _token_rule(["rewrite", "reject"]),
        "tool_name": _token_rule(["rename", "reject"]),
        "empty_text": {"enum": ["drop", "reject"]},
        "schema": _obj(
            {
                "keywords": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}, "uniqueItems": True},
                "action": {"enum": ["drop", "reject"]},
                "doc": {"type": "string"},
            },
            required=["keywords", "action"],
        ),
    }
)

#: Fixture keys this section adds: the map passed to the call, and the changes it must record.
FIXTURE_KEYS: dict[str, Any] = {
    "wire_map": {"type": "object", "description": "a WireMap (ids, names) passed as wire_map="},
    "expect_changes": {"type": "array", "items": {"type": "object"}, "description": "WireMap.changes after the call"},
}

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def build_wire_rules(b: "Builder") -> dict[str, Any] | None:
    """The checked `wire_rules` table, or None. Errors name the rule's pointer."""
    rules = b.data.get("wire_rules")
    if rules is None:
        for i, fx in enumerate(b.data.get("fixtures", [])):
            for key in FIXTURE_KEYS:
                if key in fx:
                    raise b.err(f"/fixtures/{i}/{key}", f"`{key}:` needs a `wire_rules:` section in the mapping")
        return None
    out: dict[str, Any] = {}
    for name in ("tool_call_id", "tool_name"):
        rule = rules.get(name)
        if rule is None:
            continue
        pointer = f"/wire_rules/{name}"
        allowed = _char_class(b, pointer + "/chars", rule["chars"])
        if "first" in rule:
            _char_class(b, pointer + "/first", rule["first"])
        if "length" in rule and ("min_length" in rule or "max_length" in rule):
            raise b.err(pointer, "`length:` and `min_length:`/`max_length:` exclude each other")
        lo = rule.get("length", rule.get("min_length", 1))
        hi = rule.get("length", rule.get("max_length"))
        if hi is not None and lo > hi:
            raise b.err(pointer, f"min_length {lo} is greater than max_length {hi}")
        alphabet = "".join(c for c in _BASE62 if allowed.fullmatch(c))
        if rule["action"] == "rewrite":
            if hi is None:
                raise b.err(pointer, "action rewrite needs `length:` or `max_length:` (the size of the generated id)")
            if len(alphabet) < 16:
                raise b.err(pointer + "/chars", f"action rewrite generates ids from the letters and digits of chars; [{rule['chars']}] has {len(alphabet)} of them, at least 16 are needed")
        if rule["action"] == "rename":
            if hi is not None and hi < 10:
                raise b.err(pointer + "/max_length", "action rename appends `_` and 8 hash characters to a shortened name; max_length must be at least 10")
            if not allowed.fullmatch("_") or len(alphabet) < 16:
                raise b.err(pointer + "/chars", f"action rename needs `_` and at least 16 letters or digits in chars; [{rule['chars']}] does not have them")
        out[name] = {k: v for k, v in rule.items() if k != "doc" and not k.startswith("x-")}
    if "empty_text" in rules:
        out["empty_text"] = rules["empty_text"]
    if "schema" in rules:
        out["schema"] = {"keywords": list(rules["schema"]["keywords"]), "action": rules["schema"]["action"]}
        if "type" not in out["schema"]["keywords"]:
            raise b.err("/wire_rules/schema/keywords", "the accepted keywords must include `type`")
    if not out:
        raise b.err("/wire_rules", "wire_rules is empty; give at least one of: empty_text, schema, tool_call_id, tool_name (or leave the section out)")
    return out


def _char_class(b: "Builder", pointer: str, chars: str) -> "re.Pattern[str]":
    if "[" in chars or "]" in chars:
        raise b.err(pointer, f"{chars!r}: write the body of one character class, without brackets (e.g. a-zA-Z0-9_-)")
    try:
        return re.compile(f"[{chars}]")
    except re.error as exc:
        raise b.err(pointer, f"{chars!r} is not a regex character class body ({exc}); write e.g. a-zA-Z0-9") from None


def build_tool_name_rule(b: "Builder") -> dict[str, Any] | None:
    """`request.tools.name`, checked: `{chars, first?, max_length}`, or None."""
    rule = b.data["request"]["tools"].get("name")
    if rule is None:
        return None
    pointer = "/request/tools/name"
    allowed = _char_class(b, pointer + "/chars", rule["chars"])
    if "first" in rule:
        first = _char_class(b, pointer + "/first", rule["first"])
        if not any(first.fullmatch(c) and allowed.fullmatch(c) for c in _BASE62 + "_"):
            raise b.err(pointer + "/first", f"no letter, digit or _ is in both [{rule['first']}] and chars [{rule['chars']}]")
    if not allowed.fullmatch("_") or sum(1 for c in _BASE62 if allowed.fullmatch(c)) < 16:
        raise b.err(pointer + "/chars", f"a name is fitted to the rule with `_` and hash letters; [{rule['chars']}] needs `_` and at least 16 letters or digits")
    return {k: v for k, v in rule.items() if k != "doc" and not k.startswith("x-")}


def _rename(em: "Emitter", old: str, new: str) -> Any:
    for fn in em.parts.functions:
        if fn.name == old:
            fn.name = new
            em.parts.public.remove(old)
            return fn
    raise AssertionError(f"no generated function {old}")


def _with_param(signature: str, param: str) -> str:
    """`(params) -> Return` with `param` added last."""
    params, arrow, returns = signature.rpartition(") -> ")
    assert arrow, signature
    return f"{params}, {param}{arrow}{returns}"


def emit_wire_rules(em: "Emitter") -> None:
    """Wraps the public converters with the wire-rules pass (only for mappings that declare it)."""
    name_rule = em.ir.tools.name_rule
    if name_rule is not None:
        em.parts.constants.append(f"TOOL_NAME_RULE: Final = {name_rule!r}  # request.tools.name: the API's tool-name rule (wiremap.tools fits names to it)")
        em.parts.public.append("TOOL_NAME_RULE")
    rules = em.ir.wire_rules
    if rules is None:
        return
    em.parts.constants.append(f"WIRE_RULES: Final = {rules!r}  # the mapping's wire_rules (runtime/wire_rules.py applies them)")
    em.parts.public.append("WIRE_RULES")

    plain = _rename(em, "request_to_wire", "_request_to_wire_plain")
    sig = _with_param(plain.signature, "wire_map: _rules.WireMap | None = None")  # returns the wire TypedDict
    body = [
        "    try:",
        "        req = _w.as_request(request, _w.new_memo(RULES), RULES, ORIGIN)  # validated first: the rules see a valid request",
        "        req = _rules.apply_request_rules(req, WIRE_RULES, wire_map, KEY)",
        "    except RecursionError:  # a request nested past Python's limit",
        "        raise InvalidRequestError('request nested too deeply') from None",
        "    return _request_to_wire_plain(req, structured_output=structured_output)",
    ]
    em.parts.functions.append(Func("request_to_wire", sig, plain.doc + " Applies WIRE_RULES first; pass `wire_map=WireMap()` to record the repairs (and to read the response back with it).", body))
    em.parts.public.append("request_to_wire")

    plain = _rename(em, "response_from_wire", "_response_from_wire_plain")
    sig = _with_param(plain.signature, "wire_map: _rules.WireMap | None = None")
    body = [
        "    response = _response_from_wire_plain(body, response_schema=response_schema, structured_output=structured_output)",
        "    return _rules.restore_response(response, wire_map)  # the caller's own ids and tool names",
    ]
    em.parts.functions.append(Func("response_from_wire", sig, plain.doc + " With the call's `wire_map`, tool calls carry the caller's ids and names.", body))
    em.parts.public.append("response_from_wire")

    plain = _rename(em, "request_from_wire", "_request_from_wire_plain")
    sig = _with_param(plain.signature, "*, wire_map: _rules.WireMap | None = None")
    body = ["    return _rules.restore_request(_request_from_wire_plain(body), wire_map)"]
    em.parts.functions.append(Func("request_from_wire", sig, plain.doc + " With a `wire_map`, ids and names are the caller's again.", body))
    em.parts.public.append("request_from_wire")

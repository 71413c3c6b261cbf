"""Provider wire rules (mapping section `wire_rules:`): repair passes over a canonical request.

Some providers accept only a subset of what the canonical model can say: tool-call ids of one
exact shape (Mistral: 9 alphanumeric characters), tool names of a limited alphabet and length,
no empty text, a JSON-Schema subset. A mapping states these limits as data; the generated
converter calls `apply_request_rules` before building the wire body and `restore_response` /
`restore_request` after reading one. Each rule either repairs (rewrite, rename, drop) or rejects
with `InvalidRequestError` naming the canonical path.

Repairs are stateless and deterministic: the same caller id always becomes the same wire id (a
hash), so a conversation resent turn after turn keeps matching ids without any stored state.
What was changed is recorded on a `WireMap` the caller passes in (`wire_map=`): its `ids` and
`names` tables map wire values back to the caller's own (so `response_from_wire(...,
wire_map=m)` returns the caller's tool names and ids), and `changes` lists every rewrite, rename
and drop as a `WireChange` (the loss report of issue #5 builds on it). Without a `wire_map` the
same repairs happen and a `WireRepairWarning` names each one: nothing is changed silently.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping
from typing import Any

from .records import DICT, LIST, FrozenRecord, Record, replace
from .canonical import (
    NOT_GIVEN,
    AssistantMessage,
    ForcedTool,
    Message,
    Request,
    Response,
    ToolCall,
    ToolMessage,
)
from .errors import InvalidRequestError

__all__ = ["WireChange", "WireMap", "WireRepairWarning", "apply_request_rules", "fit_tool_names", "restore_response", "restore_request"]

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

# JSON-Schema keywords whose value is a schema, a list of schemas, or a map of schemas.
_SUB_SCHEMA = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
               "unevaluatedItems", "unevaluatedProperties", "additionalItems")
_SUB_LIST = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUB_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")


class WireRepairWarning(UserWarning):
    """A wire rule repaired a request and no `wire_map` was passed to record it."""


class WireChange(FrozenRecord):
    """One repair: `rule` (tool_call_id, tool_name, empty_text, schema), `action` (rewrite,
    rename, drop), the canonical `path`, and the value `before` and `after` (None when dropped)."""

    __slots__ = ("rule", "action", "path", "before", "after")
    __match_args__ = ("rule", "action", "path", "before", "after")

    rule: str
    action: str
    path: str
    before: Any
    after: Any

    def __init__(self, rule: str, action: str, path: str, before: Any, after: Any = None) -> None:
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "before", before)
        object.__setattr__(self, "after", after)

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.rule, self.action, self.path, self.before, self.after) == (
                other.rule, other.action, other.path, other.before, other.after
            )
        return NotImplemented

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "action": self.action, "path": self.path, "before": self.before, "after": self.after}


class WireMap(Record):
    """What the wire rules changed in one call: `ids` and `names` (caller value -> wire value)
    and the `changes` log. Pass the same object to `request_to_wire` and to the
    `response_from_wire` of that call; a Provider does this on every call."""

    __slots__ = ("ids", "names", "changes")
    __match_args__ = ("ids", "names", "changes")

    ids: dict[str, str]
    names: dict[str, str]
    changes: list[WireChange]

    def __init__(
        self, ids: dict[str, str] = DICT, names: dict[str, str] = DICT, changes: list[WireChange] = LIST
    ) -> None:
        self.ids = {} if ids is DICT else ids
        self.names = {} if names is DICT else names
        self.changes = [] if changes is LIST else changes

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is self.__class__:
            return (self.ids, self.names, self.changes) == (other.ids, other.names, other.changes)
        return NotImplemented

    def caller_id(self, wire_id: str) -> str:
        for caller, wire in self.ids.items():
            if wire == wire_id:
                return caller
        return wire_id

    def caller_name(self, wire_name: str) -> str:
        for caller, wire in self.names.items():
            if wire == wire_name:
                return caller
        return wire_name

    def to_dict(self) -> dict[str, Any]:
        return {"ids": dict(self.ids), "names": dict(self.names), "changes": [c.to_dict() for c in self.changes]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "WireMap":
        return cls(
            ids=dict(d.get("ids") or {}),
            names=dict(d.get("names") or {}),
            changes=[WireChange(**c) for c in d.get("changes") or []],
        )


def _digest(text: str, salt: int) -> int:
    import hashlib  # here, not at module level: hashlib loads OpenSSL (issue #6, cold import)

    data = text if salt == 0 else f"{text}\x00{salt}"
    return int.from_bytes(hashlib.sha256(data.encode("utf-8", "surrogatepass")).digest(), "big")


def _encode(number: int, alphabet: str, length: int) -> str:
    out = []
    for _ in range(length):
        number, digit = divmod(number, len(alphabet))
        out.append(alphabet[digit])
    return "".join(out)


def _alphabet(chars: str) -> str:
    """The characters of a `chars` class (`a-zA-Z0-9`), in a fixed order, for generated ids."""
    allowed = re.compile(f"[{chars}]")
    return "".join(c for c in _BASE62 if allowed.fullmatch(c))


class RulePass:
    """One application of the rules to one request."""

    def __init__(self, rules: Mapping[str, Any], wire_map: WireMap, key: str) -> None:
        self.rules = rules
        self.map = wire_map
        self.key = key

    def record(self, change: WireChange) -> None:
        if change not in self.map.changes:
            self.map.changes.append(change)

    # ------------------------------------------------------------------ ids
    def fits(self, rule: Mapping[str, Any], value: str) -> bool:
        lo, hi = rule.get("min_length", 1), rule.get("max_length")
        if "length" in rule:
            lo = hi = rule["length"]
        if len(value) < lo or (hi is not None and len(value) > hi):
            return False
        if "first" in rule and value and re.match(f"[{rule['first']}]", value) is None:
            return False
        return re.fullmatch(f"[{rule['chars']}]*", value) is not None

    def wire_id(self, caller: str, path: str, taken: set[str]) -> str:
        rule = self.rules.get("tool_call_id")
        if rule is None or self.fits(rule, caller):
            return caller
        if caller in self.map.ids:
            wire = self.map.ids[caller]
        else:
            if rule["action"] == "reject":
                raise InvalidRequestError(
                    f"tool call id {caller!r} does not fit {self.key} (wire_rules.tool_call_id: {_describe(rule)})", path=path
                )
            alphabet = _alphabet(rule["chars"])
            length = rule.get("length") or rule.get("max_length") or 9
            salt = 0
            wire = _encode(_digest(caller, 0), alphabet, length)
            while wire in taken or wire in self.map.ids.values():
                salt += 1  # a hash collision with another id of this request: deterministic retry
                wire = _encode(_digest(caller, salt), alphabet, length)
            self.map.ids[caller] = wire
        self.record(WireChange("tool_call_id", "rewrite", path, caller, wire))
        return wire

    # ------------------------------------------------------------------ names
    def wire_name(self, caller: str, path: str) -> str:
        rule = self.rules.get("tool_name")
        if rule is None or self.fits(rule, caller):
            return caller
        if caller in self.map.names:
            wire = self.map.names[caller]
        else:
            if rule["action"] == "reject":
                raise InvalidRequestError(
                    f"tool name {caller!r} does not fit {self.key} (wire_rules.tool_name: {_describe(rule)})", path=path
                )
            hi = rule.get("max_length") or 64
            clean = re.sub(f"[^{rule['chars']}]", "_", caller)
            if "first" in rule and re.match(f"[{rule['first']}]", clean) is None:
                clean = ("_" if re.fullmatch(f"[{rule['first']}]", "_") else "t") + clean  # the rule's first character
            suffix = "_" + _encode(_digest(caller, 0), _alphabet(rule["chars"]), 8)
            wire = clean[: max(hi - len(suffix), 1)] + suffix
            salt = 0
            while wire in self.map.names.values():
                salt += 1
                wire = clean[: max(hi - len(suffix), 1)] + "_" + _encode(_digest(caller, salt), _alphabet(rule["chars"]), 8)
            self.map.names[caller] = wire
        self.record(WireChange("tool_name", "rename", path, caller, wire))
        return wire

    # ------------------------------------------------------------------ schemas
    def schema(self, schema: Any, path: str) -> Any:
        rule = self.rules.get("schema")
        if rule is None or not isinstance(schema, dict):
            return schema
        allowed = set(rule["keywords"])
        out: dict[str, Any] = {}
        for key, value in schema.items():
            sub = f"{path}.{key}"
            if key not in allowed:
                if rule["action"] == "reject":
                    raise InvalidRequestError(
                        f"JSON-Schema keyword {key!r} is not accepted by {self.key} (wire_rules.schema)", path=sub
                    )
                self.record(WireChange("schema", "drop", sub, value))
                continue
            if key in _SUB_SCHEMA and isinstance(value, dict):
                value = self.schema(value, sub)
            elif key in _SUB_LIST and isinstance(value, list):
                value = [self.schema(v, f"{sub}[{i}]") for i, v in enumerate(value)]
            elif key in _SUB_MAP and isinstance(value, dict):
                value = {k: self.schema(v, f"{sub}.{k}") for k, v in value.items()}
            out[key] = value
        return out

    # ------------------------------------------------------------------ empty text
    def empty(self, path: str, before: Any) -> None:
        if self.rules["empty_text"] == "reject":
            raise InvalidRequestError(f"empty text is not accepted by {self.key} (wire_rules.empty_text)", path=path)
        self.record(WireChange("empty_text", "drop", path, before))

    # ------------------------------------------------------------------ the request
    def request(self, req: Request) -> Request:
        taken = {c.id for m in req.messages if type(m) is AssistantMessage and m.tool_calls for c in m.tool_calls}
        taken |= {m.tool_call_id for m in req.messages if type(m) is ToolMessage}
        rule = self.rules.get("tool_call_id")
        taken = {t for t in taken if rule is not None and self.fits(rule, t)}
        messages: list[Message] = []
        for i, m in enumerate(req.messages):
            path = f"messages[{i}]"
            if type(m) is AssistantMessage:
                calls = m.tool_calls
                if calls:
                    calls = [
                        replace(
                            c, id=self.wire_id(c.id, f"{path}.tool_calls[{k}].id", taken),
                            name=self.wire_name(c.name, f"{path}.tool_calls[{k}].name"),
                        )
                        for k, c in enumerate(calls)
                    ]
                content = m.content
                # Canonical validation already refuses empty text blocks and empty user/system
                # content; what it allows is "" beside tool calls.
                if content == "" and calls and self.rules.get("empty_text") is not None:
                    self.empty(f"{path}.content", "")
                    content = None  # the tool calls alone
                messages.append(replace(m, content=content, tool_calls=calls))
            elif type(m) is ToolMessage:
                name = m.name if m.name is NOT_GIVEN else self.wire_name(m.name, f"{path}.name")  # type: ignore[arg-type]
                messages.append(replace(m, tool_call_id=self.wire_id(m.tool_call_id, f"{path}.tool_call_id", taken), name=name))
            else:
                messages.append(m)
        tools = req.tools
        if isinstance(tools, list):
            tools = [
                replace(
                    t, name=self.wire_name(t.name, f"tools[{j}].name"),
                    parameters=t.parameters if t.parameters is NOT_GIVEN else self.schema(t.parameters, f"tools[{j}].parameters"),
                )
                for j, t in enumerate(tools)
            ]
        choice = req.tool_choice
        if type(choice) is ForcedTool:
            choice = replace(choice, name=self.wire_name(choice.name, "tool_choice.name"))
        schema = req.response_schema
        if isinstance(schema, dict):
            schema = self.schema(schema, "response_schema")
        return replace(req, messages=messages, tools=tools, tool_choice=choice, response_schema=schema)


def _describe(rule: Mapping[str, Any]) -> str:
    size = f"{rule['length']}" if "length" in rule else f"{rule.get('min_length', 1)}..{rule.get('max_length', '')}"
    first = f"[{rule['first']}] then " if "first" in rule else ""
    return f"{first}[{rule['chars']}]{{{size}}}"


def apply_request_rules(req: Request, rules: Mapping[str, Any], wire_map: WireMap | None, key: str) -> Request:
    """The request with every wire rule applied (a copy; `req` is not changed). Repairs are
    recorded on `wire_map`, or warned about when there is none."""
    target = wire_map if wire_map is not None else WireMap()
    before = len(target.changes)
    out = RulePass(rules, target, key).request(req)
    if wire_map is None:
        for change in target.changes[before:]:
            warnings.warn(
                f"{key} wire_rules.{change.rule}: {change.action} at {change.path} (pass wire_map= to record it)",
                WireRepairWarning,
                stacklevel=3,
            )
    return out


def fit_tool_names(request: Any, rule: Mapping[str, Any] | None, wire_map: WireMap, key: str) -> Any:
    """`request` (a Request or its dict) with the tool names that break a format's declared
    tool-name rule (`request.tools.name`, generated TOOL_NAME_RULE) renamed, reversibly, on
    `wire_map`: what a Provider does before it sends, so that an MCP tool named `files.read`
    reaches OpenAI as `files_read_<hash>` and comes back as `files.read` (restore_response).
    Unchanged (the same object) when every name fits."""
    if not rule:
        return request
    tools = request.tools if isinstance(request, Request) else request.get("tools") if isinstance(request, Mapping) else None
    if not isinstance(tools, list):
        return request
    rules = {"tool_name": {**rule, "action": "rename"}}
    probe = RulePass(rules, wire_map, key)
    names = [t.name if hasattr(t, "name") else t.get("name") if isinstance(t, Mapping) else None for t in tools]
    if all(isinstance(n, str) and probe.fits(rules["tool_name"], n) for n in names):
        return request
    req = request if isinstance(request, Request) else Request.from_dict(request)
    return probe.request(req)


def _restore_call(call: ToolCall, wire_map: WireMap) -> ToolCall:
    return replace(call, id=wire_map.caller_id(call.id), name=wire_map.caller_name(call.name))


def restore_response(response: Response, wire_map: WireMap | None) -> Response:
    """Tool calls of a response carry the caller's own ids and names again."""
    if wire_map is None or not (wire_map.ids or wire_map.names):
        return response
    calls = response.message.tool_calls
    if calls:
        response.message = replace(response.message, tool_calls=[_restore_call(c, wire_map) for c in calls])
    return response


def restore_request(req: Request, wire_map: WireMap | None) -> Request:
    """A request read from the wire, with the caller's ids and names (the reverse of the rules)."""
    if wire_map is None or not (wire_map.ids or wire_map.names):
        return req
    messages: list[Message] = []
    for m in req.messages:
        if type(m) is AssistantMessage and m.tool_calls:
            m = replace(m, tool_calls=[_restore_call(c, wire_map) for c in m.tool_calls])
        elif type(m) is ToolMessage:
            name = m.name if m.name is NOT_GIVEN else wire_map.caller_name(m.name)  # type: ignore[arg-type]
            m = replace(m, tool_call_id=wire_map.caller_id(m.tool_call_id), name=name)
        messages.append(m)
    tools = req.tools
    if isinstance(tools, list):
        tools = [replace(t, name=wire_map.caller_name(t.name)) for t in tools]
    choice = req.tool_choice
    if type(choice) is ForcedTool:
        choice = replace(choice, name=wire_map.caller_name(choice.name))
    return replace(req, messages=messages, tools=tools, tool_choice=choice)


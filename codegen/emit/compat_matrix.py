"""generated/COMPATIBILITY.md: what each format does with each canonical feature, read off the IR.

Every cell is derived from the mapping tables (never written by hand): `supported`, `renamed → x`,
`dropped`, `rejected` or `repaired (how)`, with the wire spelling where it differs. Base formats
are the columns; each dialect is listed with the cells where it differs from the format it
extends.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..ir.catalog import FINISH_REASONS
from .errors import error_emit_table
from ..ir.chat import FormatIR
from ..load.schema import ERROR_CATEGORIES, OPTION_NAMES, PART_KINDS
from ..sections.task import TaskIR
from ..wiretemplate import Arr, Interp, Lit, Node, Obj, Slot, slot_path, slots_of

__all__ = ["render_compatibility"]

SUPPORTED = "supported"
DROPPED = "dropped"
REJECTED = "rejected"
NA = "—"

Row = tuple[str, Callable[[FormatIR], str]]


def _code(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), sort_keys=False)
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`"


def _literal(node: Node) -> Any:
    """A template as a JSON value, placeholders written `{field}` (for showing wire shapes)."""
    if isinstance(node, Lit):
        return node.value
    if isinstance(node, Slot):
        return "{" + node.field + ("?" if node.optional else "") + "}"
    if isinstance(node, Interp):
        return "".join(p if isinstance(p, str) else "{" + p.field + "}" for p in node.pieces)
    if isinstance(node, Obj):
        return {k: _literal(v) for k, v in node.items}
    if isinstance(node, Arr):
        return [_literal(v) for v in node.items]
    return None


def _lit_key(node: Node | None, key: str) -> Any:
    if isinstance(node, Obj):
        for k, v in node.items:
            if k == key and isinstance(v, Lit):
                return v.value
    return None


def _renamed(canonical: str, wire: str) -> str:
    return SUPPORTED if canonical == wire else f"renamed → {_code(wire)}"


# ---- roles ------------------------------------------------------------------------------


def _role(template: Node | None) -> Any:
    return _lit_key(template, "role")


def _system(ir: FormatIR) -> str:
    if ir.system.strategy == "hoist":
        cell = f"renamed → top-level {_code(ir.system.field or '')}"
    else:
        cell = _renamed("system", str(_role(ir.system.template)))
    if ir.system.read_also:
        cell += " (also reads " + ", ".join(_code(r) for r in ir.system.read_also) + ")"
    return cell


def _tool_role(ir: FormatIR) -> str:
    if ir.tool_results.strategy == "group_into_user_message":
        kind = _lit_key(ir.tool_results.template, "type")
        if kind is None and isinstance(ir.tool_results.template, Obj) and ir.tool_results.template.items:
            kind = ir.tool_results.template.items[0][0]  # a key-dispatched part (Gemini functionResponse)
        return f"renamed → {_code(kind)} {'blocks' if _lit_key(ir.tool_results.template, 'type') else 'parts'} in a {_code(_role(ir.user.template))} turn"
    if _role(ir.tool_results.template) is None:  # told apart by `type` (emit_items)
        return f"renamed → {_code(_lit_key(ir.tool_results.template, 'type'))} items"
    return _renamed("tool", str(_role(ir.tool_results.template)))


def _user(ir: FormatIR) -> str:
    cell = _renamed("user", str(_role(ir.user.template)))
    if ir.user.bare_string == "read":
        cell += f" (also reads a bare-string {_code(ir.messages_field)} as one user turn)"
    return cell


def _message_name(ir: FormatIR) -> str:
    """Which roles' templates place the participant's `{name?}` (canonical message `name`)."""
    roles = [role for role, node in (("system", ir.system.template), ("user", ir.user.template), ("assistant", ir.assistant.template))
             if isinstance(node, Obj) and any(isinstance(c, Slot) and c.field == "name" for _, c in node.items)]
    return f"`name` on {', '.join(roles)}" if roles else DROPPED


ROLES: list[Row] = [
    ("system", _system),
    ("user", _user),
    ("assistant", lambda ir: _renamed("assistant", str(_role(ir.assistant.template)))),
    ("tool", _tool_role),
    ("message `name`", _message_name),
]


# ---- content parts ----------------------------------------------------------------------


def _value_map_note(ir: FormatIR, node: Node) -> str:
    notes = []
    for slot in slots_of(node):
        vm = ir.value_maps.get(slot.codec or "")
        if vm is None:
            continue
        accepted = ", ".join(_code(k) for k, _ in vm.pairs)
        if vm.default == "reject":
            notes.append(f"only {accepted}; other {slot.field} rejected")
        elif vm.default == "pass":
            notes.append(f"{slot.field} mapped for {accepted}, others passed through")
        else:
            notes.append(f"{slot.field} mapped for {accepted}")
    return "; ".join(notes)


def _part(kind: str) -> Callable[[FormatIR], str]:
    canonical_type = kind.split(".")[0]

    def cell(ir: FormatIR) -> str:
        row = ir.parts.get(kind)
        if kind == "thinking" and ir.items.reasoning_match is not None:  # request.reasoning_items
            return f"renamed → {_code(_lit_key(ir.items.reasoning_match, 'type'))} items (their own, resent verbatim; unsigned dropped)"
        schemes = [k.partition("@")[2] for k in ir.parts if k.startswith(kind + "@")]
        by_scheme = "by URL scheme: " + ", ".join(f"`{s}:` {_scheme_cell(ir.parts[kind + '@' + s])}" for s in schemes)
        if row == "strip":
            return DROPPED + (f" ({by_scheme})" if schemes else "")
        if row == "reject" or row is None:
            return REJECTED + (f" ({by_scheme})" if schemes else "")
        assert not isinstance(row, str)  # a part row is a template, "strip" or "reject"
        wire_type = _lit_key(row, "type")
        out = SUPPORTED if wire_type in (None, canonical_type) else f"renamed → {_code(wire_type)}"
        note = _value_map_note(ir, row)
        if kind == "thinking" and not any(s.field == "signature" and s.optional for s in slots_of(row)):
            if any(s.field == "signature" for s in slots_of(row)):
                note = "; ".join(filter(None, [note, "unsigned thinking dropped"]))
        if schemes:  # content_parts `image.url@s3`: a row of its own per URL scheme
            note = "; ".join(filter(None, [note, by_scheme]))
        return out + (f" ({note})" if note else "")

    return cell


def _scheme_cell(row: Any) -> str:
    if row == "strip":
        return "dropped"
    if row == "reject":
        return "refused"
    return "sent as " + " / ".join(_code(k) for k, _ in row.items) if isinstance(row, Obj) else "sent"


PARTS: list[Row] = [(f"`{k}`", _part(k)) for k in PART_KINDS if k not in ("thinking", "redacted_thinking")]


def _content_strategy(ir: FormatIR) -> str:
    return {
        "string_or_parts": "repaired: one text block sent as a plain string",
        "always_parts": "repaired: a string sent as one text part",
        "as_given": SUPPORTED,
    }.get(ir.user.content, ir.user.content)


PARTS.insert(0, ("user content string vs blocks", _content_strategy))


# ---- options ----------------------------------------------------------------------------


_ACTIONS = {"drop": DROPPED, "warn": "dropped with a warning", "reject": REJECTED}


def _option(name: str) -> Callable[[FormatIR], str]:
    def cell(ir: FormatIR) -> str:
        opt = next((o for o in ir.options if o.name == name), None)
        if opt is None:
            return NA
        if opt.header is not None:
            return f"header `{opt.header}`"
        if opt.unsupported is not None:
            derived = [o.name for o in ir.options if o.derive is not None and o.derive.source == name and o.unsupported is None]
            return _ACTIONS.get(opt.unsupported, opt.unsupported) + (f" (derives `{derived[0]}`)" if derived else "")
        out = _renamed(name, opt.wire or "")
        notes = []
        if opt.required:
            notes.append("required")
        if opt.has_default:
            notes.append(f"default {_code(opt.default)}")
        if opt.merge:
            notes.append("merged with extras" + (", a string becomes a list" if opt.merge_coerce_string else ""))
        if opt.read_also:
            notes.append("also reads " + ", ".join(_code(r) for r in opt.read_also))
        for rule in opt.model_rules:
            action = f"sent as {_code(rule.wire)}" if rule.wire is not None else _ACTIONS.get(rule.action, rule.action)
            notes.append(f"{action} for " + ("models other than " if rule.excepted else "") + ", ".join(_code(p) for p in rule.patterns))
        if opt.negate:
            notes.append("negated")
        if opt.with_keys:
            notes.append("with " + ", ".join(f"{_code(k)}: {_code(v)}" for k, v in opt.with_keys.items()))
        if opt.requires == "tools":
            notes.append("only beside tools")
        elif opt.requires == "response_schema":
            notes.append("only with a response schema")
        elif opt.requires == "no_response_schema":
            notes.append("not beside a response schema")
        if opt.values:
            notes.append("values " + ", ".join(sorted({_code(v) for _, v in opt.values})) + ", others not sent")
        if opt.derive is not None:
            notes.append(f"derived from `{opt.derive.source}` when that is not sent")
        return out + (f" ({'; '.join(notes)})" if notes else "")

    return cell


def _extras(ir: FormatIR) -> str:
    out = "passed through"
    if ir.extras.collision == "managed":
        out += " (a key the mapping sets must agree with it, else rejected)"
    elif ir.extras.collision == "mapped_wins":
        out += " (mapped fields win)"
    if ir.extras.reserved:
        out += "; reserved: " + ", ".join(_code(k) for k in ir.extras.reserved)
    return out


OPTIONS: list[Row] = [(f"`{n}`", _option(n)) for n in OPTION_NAMES] + [("`extras`", _extras)]


# ---- tools ------------------------------------------------------------------------------


def _tools(ir: FormatIR) -> str:
    where = slot_path(ir.tools.template, "parameters")
    return f"supported → {_code(ir.tools.field)}" + (f", schema at {_code(where)}" if where else "")


def _strict(ir: FormatIR) -> str:
    if not any(s.field == "strict" for s in slots_of(ir.tools.template)):
        return DROPPED
    return {
        "as_given": SUPPORTED,
        "close_object_schema": "repaired: root schema closed (`additionalProperties: false`)",
        "close_all_object_schemas": "repaired: every object schema closed",
    }.get(ir.tools.strict, ir.tools.strict)


def _choice(mode: str) -> Callable[[FormatIR], str]:
    def cell(ir: FormatIR) -> str:
        how = ir.tool_choice.special.get(mode)
        if how is not None:
            return {
                "omit": "left out (the provider's default)",
                "omit_tools": "left out with the tools (refused after tool calls)",
            }.get(how, "refused")
        node = ir.tool_choice.modes.get(mode)
        if node is None:
            return NA
        return _code(_literal(node)) + f" in {_code(ir.tool_choice.field)}"

    return cell


def _tool_calls(ir: FormatIR) -> str:
    if ir.tool_calls.placement == "content_blocks":
        return f"{_code(_lit_key(ir.tool_calls.template, 'type'))} content blocks"
    if ir.tool_calls.placement == "items":
        return f"{_code(_lit_key(ir.tool_calls.template, 'type'))} items after the assistant message, arguments as a JSON string"
    where = slot_path(ir.assistant.template, "tool_calls")
    args = slot_path(ir.tool_calls.template, "arguments")
    as_json = any(s.field == "arguments" and s.codec == "json" for s in slots_of(ir.tool_calls.template))
    return f"{_code(where or 'tool_calls')} field" + (f", arguments as a JSON string at {_code(args)}" if as_json else "")


def _tool_results(ir: FormatIR) -> str:
    if ir.tool_results.strategy == "group_into_user_message":
        return "repaired: consecutive results grouped into one user turn"
    if _role(ir.tool_results.template) is None:
        return "one item per result"
    return "one message per result"


def _failed_results(ir: FormatIR) -> str:
    if ir.tool_results.error_template is not None:
        return f"{{content}} at {_code('.'.join(ir.tool_results.content_paths[1]))} (`error_wire`)"
    key = slot_path(ir.tool_results.template, "is_error")
    return _code(key) if key else DROPPED


TOOLS: list[Row] = [
    ("tool definitions", _tools),
    ("`strict` tools", _strict),
    ("tool calls", _tool_calls),
    ("tool results", _tool_results),
    ("failed tool results (`is_error`)", _failed_results),
    *[(f"tool_choice `{m}`", _choice(m)) for m in ("auto", "required", "none", "tool")],
]


# ---- structured output ------------------------------------------------------------------


def _structured(ir: FormatIR) -> str:
    st = ir.structured
    if st is None:
        return REJECTED
    mode = st["mode"]
    if mode == "native":
        where = st.get("field", "")
        return f"native → {_code(where)}" if where else "native"
    if mode == "tool_coercion":
        return f"repaired: forced tool {_code(st['tool']['name'])}"
    return "repaired: schema in a prompt directive"


def _structured_strict(ir: FormatIR) -> str:
    st = ir.structured
    template = ir.structured_template
    if st is None or st["mode"] != "native" or template is None or not any(s.field == "strict" for s in slots_of(template)):
        return NA
    return {"when_schema_qualifies": "sent when the schema qualifies, else `false`", "always": "always `true`"}.get(
        st.get("strict", ""), str(st.get("strict", ""))
    )


STRUCTURED: list[Row] = [("`response_schema`", _structured), ("strict schema", _structured_strict)]


# ---- reasoning --------------------------------------------------------------------------


def _signature_slot(node: Node | str | None) -> bool:
    return isinstance(node, Obj) and any(s.field == "signature" for s in slots_of(node))


def _signatures(ir: FormatIR) -> str:
    if ir.signatures == "strip_foreign":
        return f"kept when origin is {_code(ir.provider)} (or absent), stripped otherwise"
    return ir.signatures


REASONING: list[Row] = [
    ("thinking blocks", _part("thinking")),
    ("redacted thinking", _part("redacted_thinking")),
    ("thinking order", lambda ir: "repaired: thinking first in its turn" if ir.assistant.order == "thinking_first" else "as given"),
    ("text signatures", lambda ir: SUPPORTED if _signature_slot(ir.parts.get("text")) else DROPPED),
    ("tool-call signatures", lambda ir: SUPPORTED if _signature_slot(ir.tool_calls.template) else DROPPED),
    ("foreign signed data", _signatures),
]


# ---- prompt-cache breakpoints ----------------------------------------------------------


def _cache_key(node: Node | str | None) -> str | None:
    """The wire key a template writes the canonical `cache_control` to, if it has one."""
    if not isinstance(node, Obj):
        return None
    return next((k for k, c in node.items if isinstance(c, Slot) and c.field == "cache_control"), None)


def _cache(*where: str) -> Callable[[FormatIR], str]:
    def cell(ir: FormatIR) -> str:
        for name in where:
            node = {"system": ir.system.blocks, "tool_result": ir.tool_results.template, "tool": ir.tools.template}.get(name, ir.parts.get(name))
            if ir.cache_point is not None and isinstance(node, Obj) and (name != "system" or ir.system.strategy == "hoist") and (name != "tool_result" or ir.tool_results.strategy == "group_into_user_message"):
                return f"a {_code(ir.cache_point.items[0][0])} item after it (`cache_points`)"
            key = _cache_key(node)
            if key is not None:
                note = " on a text block of the system field" if name == "system" and ir.system.strategy == "hoist" else (" on a one-part content" if name == "system" else "")
                return f"{_code(key)}{note}"
        return DROPPED

    return cell


CACHE: list[Row] = [
    ("system messages", _cache("system")),
    ("text parts", _cache("text")),
    ("image parts", _cache("image.url", "image.inline")),
    ("file parts", _cache("file.url", "file.inline")),
    ("tool results", _cache("tool_result")),
    ("tools", _cache("tool")),
]


# ---- finish reasons, errors -------------------------------------------------------------


def _finish(reason: str) -> Callable[[FormatIR], str]:
    def cell(ir: FormatIR) -> str:
        wire = [_code(w) for w, c in ir.finish.map if c == reason]
        if ir.finish.default == reason:
            wire.append("any other value")
        it = ir.items
        if it.finish_detail_path is not None:  # finish_reason.detail_map (emit_items)
            path = ".".join(str(k) for k in it.finish_detail_path)
            wire += [f"{_code(path)} {_code(w)}" for w, c in it.finish_detail_map if c == reason]
        if ir.finish.with_tool_calls == reason:
            wire.append("a `stop` with tool calls")
        return ", ".join(wire) if wire else NA

    return cell


FINISH: list[Row] = [(f"`{r}`", _finish(r)) for r in FINISH_REASONS]

_PARSER_CATEGORIES = {
    "provider_invalid_response": "malformed body (parser)",
    "structured_output_invalid": "content fails `response_schema` (parser)",
}


def _error(category: str) -> Callable[[FormatIR], str]:
    def cell(ir: FormatIR) -> str:
        found = []
        for rule in ir.errors.rules:
            if rule.category != category:
                continue
            if rule.statuses is not None:
                status = "/".join(str(s) for s in rule.statuses)
            elif rule.status_class is not None:
                status = f"{rule.status_class}xx"
            else:
                status = "any status"
            conds = [status]
            if rule.types:
                conds.append("type " + "/".join(_code(t) for t in rule.types))
            if rule.codes:
                conds.append("code " + "/".join(_code(c) for c in rule.codes))
            if rule.body_pattern:
                conds.append(f"body ~ {_code(rule.body_pattern)}")
            found.append(" + ".join(conds))
        if category in _PARSER_CATEGORIES:
            found.append(_PARSER_CATEGORIES[category])
        read = "; ".join(found) if found else NA
        _, table = error_emit_table(ir)
        row = table[category]
        sent = f"{row['status']} {_code(row['type'])}" + (f" {_code(row['code'])}" if row.get("code") else "")
        return f"read from: {read} · sent as: {sent}"

    return cell


ERRORS: list[Row] = [(f"`{c}`", _error(c)) for c in ERROR_CATEGORIES]

SECTIONS: list[tuple[str, list[Row]]] = [
    ("Roles", ROLES),
    ("Content parts", PARTS),
    ("Options", OPTIONS),
    ("Tools", TOOLS),
    ("Structured output", STRUCTURED),
    ("Reasoning", REASONING),
    ("Prompt-cache breakpoints (canonical `cache_control`; docs/canonical.md)", CACHE),
    ("Finish reasons (wire values read as each canonical reason)", FINISH),
    ("Error categories (read by error_from_wire, first matching rule wins; sent by error_to_wire)", ERRORS),
]


def _cells(ir: FormatIR) -> dict[tuple[str, str], str]:
    out = {}
    for section, rows in SECTIONS:
        for label, fn in rows:
            out[(section, label)] = fn(ir)
    return out


def _table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def render_compatibility(irs: Sequence[FormatIR | TaskIR], bases: dict[str, str | None], folder: str) -> str:
    """The whole document. `bases` maps each key to the key it extends (or None)."""
    chat = [ir for ir in irs if isinstance(ir, FormatIR)]
    columns = [ir for ir in chat if bases.get(ir.key) is None or "." not in ir.key]
    cells = {ir.key: _cells(ir) for ir in chat}
    lines = [
        f"<!-- Code generated by wiremap.codegen from {folder}. DO NOT EDIT. -->",
        "# Compatibility matrix",
        "",
        f"What each format does with each canonical feature, derived from the tables in `{folder}` "
        "by `wiremap generate` (and checked by `wiremap check`). A cell says `supported`, "
        "`renamed → wire name`, `dropped`, `rejected` (a typed error before anything is sent) or "
        "`repaired` (changed to fit the wire, and how); `—` means the table has no such row. "
        "Dialects follow the base formats, with only the cells where they differ.",
        "",
        "Formats: " + ", ".join(f"`{ir.key}` ({ir.title}{', API ' + ir.api_version if ir.api_version else ''})" for ir in columns) + ".",
    ]
    for section, rows in SECTIONS:
        lines += ["", f"## {section}", ""]
        lines += _table(
            ["feature", *(f"`{ir.key}`" for ir in columns)],
            ([label, *(cells[ir.key][(section, label)] for ir in columns)] for label, _ in rows),
        )
    dialects = [ir for ir in chat if ir not in columns]
    if dialects:
        lines += ["", "## Dialects", ""]
        for ir in dialects:
            base = bases.get(ir.key)
            lines += [f"### `{ir.key}` (extends `{base}`)", ""]
            if base not in cells:
                lines += ["(its base is not a chat format)", ""]
                continue
            diff = [
                [section.split(" (")[0], label, cells[base][(section, label)], cells[ir.key][(section, label)]]
                for (section, label), value in cells[ir.key].items()
                if cells[base][(section, label)] != value
            ]
            if diff:
                lines += _table(["section", "feature", f"`{base}`", f"`{ir.key}`"], diff)
            else:
                lines.append("Same cells as its base (it differs in fixtures or in details the matrix does not show).")
            lines.append("")
    others = [ir for ir in irs if isinstance(ir, TaskIR)]  # kind embeddings / images
    if others:  # mapping `kind:` embeddings / images (codegen/sections/task.py): the chat features do not apply
        lines += ["", "## Other kinds", "", "Formats that are not chat (mapping `kind:`, see mappings/README.md); the features above do not apply to them.", ""]
        lines += _table(
            ["format", "kind", "extends", "title"],
            ([f"`{ir.key}`", ir.kind, f"`{bases[ir.key]}`" if bases.get(ir.key) else NA, ir.title] for ir in others),
        )
    return "\n".join(lines).rstrip("\n") + "\n"

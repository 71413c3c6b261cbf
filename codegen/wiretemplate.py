"""Wire templates: JSON with `{placeholders}`, declared once, compiled both ways.

    {field}          the canonical field's value (required)
    {field?}         omitted from the wire when the canonical field is absent
    {field=value}    the literal `value` when the canonical field is absent (a JSON scalar, else a string)
    {field|codec}    passed through a codec: `json` (a JSON-encoded string) or a value map
    "data:{a};base64,{b}"   string interpolation; parsed back with an anchored pattern

Literal braces are written `{{` and `}}`.

A stream emit row (codegen/sections/stream.py) is parsed with `emit_only=True`: it is only ever
written, never parsed back, so its placeholders may touch (`{a}{b}`), and the segments of a
dotted name (`{error.error.message}`, a path into an object value) are wire keys in any case.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Union

__all__ = ["Lit", "Slot", "Interp", "Obj", "Arr", "Node", "parse_template", "TemplateSyntaxError", "slot_path", "slots_of"]


class TemplateSyntaxError(ValueError):
    def __init__(self, pointer: str, message: str) -> None:
        self.pointer = pointer
        super().__init__(message)


@dataclass(frozen=True)
class Lit:
    value: Any


@dataclass(frozen=True)
class Slot:
    field: str
    optional: bool = False
    codec: str | None = None
    pointer: str = ""
    has_default: bool = False  # `{field=value}`: the literal sent when the field is absent
    default: Any = None


@dataclass(frozen=True)
class Interp:
    pieces: tuple[Union[str, Slot], ...]
    pointer: str = ""

    @property
    def slots(self) -> list[Slot]:
        return [p for p in self.pieces if isinstance(p, Slot)]

    def pattern(self) -> str:
        """An anchored regex with one group per slot (non-greedy but the last)."""
        out: list[str] = []
        slots = self.slots
        for piece in self.pieces:
            if isinstance(piece, str):
                out.append(re.escape(piece))
            else:
                out.append("(.*)" if piece is slots[-1] else "(.*?)")
        return "".join(out)

    @property
    def literal_prefix(self) -> str:
        first = self.pieces[0]
        return first if isinstance(first, str) else ""


@dataclass(frozen=True)
class Obj:
    items: tuple[tuple[str, "Node"], ...]
    pointer: str = ""


@dataclass(frozen=True)
class Arr:
    items: tuple["Node", ...]
    pointer: str = ""


Node = Union[Lit, Slot, Interp, Obj, Arr]

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_SLOT = re.compile(r"^([a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)*)(?:(\?)|=([A-Za-z0-9_.\-]*))?(?:\|([a-z_][a-z0-9_]*))?$")
_EMIT_SLOT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)(?:(\?)|=([A-Za-z0-9_.\-]*))?(?:\|([A-Za-z_][A-Za-z0-9_]*))?$")


def _default_value(text: str) -> Any:
    """`{field=value}`: JSON scalars (true, false, null, numbers) are typed; anything else is a string."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return value if not isinstance(value, (list, dict)) else text


def _parse_string(text: str, pointer: str, emit_only: bool = False) -> Node:
    pieces: list[Union[str, Slot]] = []
    pos = 0
    buf: list[str] = []
    while pos < len(text):
        if text.startswith("{{", pos):
            buf.append("{")
            pos += 2
            continue
        if text.startswith("}}", pos):
            buf.append("}")
            pos += 2
            continue
        ch = text[pos]
        if ch == "{":
            match = _PLACEHOLDER.match(text, pos)
            if match is None:
                raise TemplateSyntaxError(pointer, f"unclosed placeholder in {text!r}; write {{{{ for a literal brace")
            spec = (_EMIT_SLOT if emit_only else _SLOT).match(match.group(1))
            if spec is None:
                raise TemplateSyntaxError(
                    pointer,
                    f"bad placeholder {match.group(0)!r}; expected {{field}}, {{field?}}, {{field=value}} or {{field|codec}}",
                )
            if buf:
                pieces.append("".join(buf))
                buf = []
            has_default = spec.group(3) is not None
            pieces.append(
                Slot(spec.group(1), spec.group(2) == "?", spec.group(4), pointer, has_default, _default_value(spec.group(3)) if has_default else None)
            )
            pos = match.end()
            continue
        if ch == "}":
            raise TemplateSyntaxError(pointer, f"stray '}}' in {text!r}; write }}}} for a literal brace")
        buf.append(ch)
        pos += 1
    if buf:
        pieces.append("".join(buf))
    if not any(isinstance(p, Slot) for p in pieces):
        return Lit("".join(p for p in pieces if isinstance(p, str)))
    if len(pieces) == 1 and isinstance(pieces[0], Slot):
        return pieces[0]  # a whole-value slot
    slots = [p for p in pieces if isinstance(p, Slot)]
    for a, b in zip(pieces, pieces[1:]):
        if isinstance(a, Slot) and isinstance(b, Slot) and not emit_only:
            raise TemplateSyntaxError(pointer, f"two placeholders touch in {text!r}; they could not be told apart when parsing")
    for slot in slots:
        if slot.optional:
            raise TemplateSyntaxError(pointer, f"{{{slot.field}?}}: optional placeholders must stand alone, not inside a string")
        if slot.has_default:
            raise TemplateSyntaxError(pointer, f"{{{slot.field}=...}}: placeholders with a default must stand alone, not inside a string")
    return Interp(tuple(pieces), pointer)


def parse_template(value: Any, pointer: str = "", *, emit_only: bool = False) -> Node:
    """The syntax tree of a template; `emit_only`: a template that is only written (module docstring)."""
    if isinstance(value, str):
        return _parse_string(value, pointer, emit_only)
    if isinstance(value, dict):
        return Obj(
            tuple((k, parse_template(v, f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}", emit_only=emit_only)) for k, v in value.items()),
            pointer,
        )
    if isinstance(value, list):
        return Arr(tuple(parse_template(v, f"{pointer}/{i}", emit_only=emit_only) for i, v in enumerate(value)), pointer)
    return Lit(value)


def slots_of(node: Node) -> list[Slot]:
    if isinstance(node, Slot):
        return [node]
    if isinstance(node, Interp):
        return node.slots
    if isinstance(node, Obj):
        return [s for _, n in node.items for s in slots_of(n)]
    if isinstance(node, Arr):
        return [s for n in node.items for s in slots_of(n)]
    return []


def slot_path(node: Node, field: str, prefix: str = "") -> str | None:
    """Where a template places a field: `function.parameters`."""
    if isinstance(node, Slot) and node.field == field:
        return prefix or "."
    if isinstance(node, Interp) and any(s.field == field for s in node.slots):
        return prefix
    if isinstance(node, Obj):
        for k, v in node.items:
            found = slot_path(v, field, f"{prefix}.{k}" if prefix else k)
            if found is not None:
                return found
    if isinstance(node, Arr):
        for i, v in enumerate(node.items):
            found = slot_path(v, field, f"{prefix}[{i}]")
            if found is not None:
                return found
    return None


@dataclass
class Condition:
    """One fact a wire value must satisfy to match a template alternative when parsing."""

    keys: tuple[str, ...]
    literal: Any = None
    pattern: str | None = None


def conditions_of(node: Node, keys: tuple[str, ...] = ()) -> list[Condition]:
    """Literal leaves and interpolation patterns: what tells this template apart from others."""
    out: list[Condition] = []
    if isinstance(node, Lit) and keys:
        out.append(Condition(keys, literal=node.value))
    elif isinstance(node, Interp):
        out.append(Condition(keys, pattern=node.pattern()))
    elif isinstance(node, Obj):
        for k, n in node.items:
            out.extend(conditions_of(n, keys + (k,)))
    return out


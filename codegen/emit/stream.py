"""Stream emit rows -> Python: one straight-line function per row of a `stream.emit` table.

codegen/sections/stream.py parses each row's `event` and `data` with the one template parser
(codegen/wiretemplate.py) and keeps them as an `EmitRow`; this module writes the row as
`_stream_emit_<n>(values) -> (event, data)`, and the `STREAM` table names the function
(`EmitRow`'s repr). `StreamEmitter` (runtime/stream.py) calls it with the values of the event
being written, so no template text is read at run time. What a row writes (mappings/README.md
"Emit rows"):

- `"{name}"`, a whole value: the value itself; an object or list leaves it out when there is
  none. `"{name?}"` also leaves out null and an unreported usage (`Unreported`). A dotted name
  is a path into an object value (`{error.error.message}`).
- `"{name|json}"`: the value, JSON text, decoded (`json_slot`; `{signature.id|json}` a path into
  it); without `?`, none or no object there raises `Unwritable` and the row is not written.
- Text around placeholders: each slot as a string, else its JSON text, missing as nothing.
- A `Lazy` value (`{response}`) is resolved the first time the row names it.

Slots are looked up, and `|json` ones checked, in the template's order (data, then event), as
the interpreter this replaces did: the first unwritable slot is the one reported, and nothing
after it (a `{response}`, assembled on demand) is computed.
"""

from __future__ import annotations

from .lines import Func, Lines, lit
from ..wiretemplate import Arr, Interp, Lit, Node, Obj, Slot

__all__ = ["EmitRow", "row_function"]


class EmitRow:
    """One wire event row of an emit table: its templates and its function's name, which is
    what the row is in the generated `STREAM` literal (`repr`)."""

    __slots__ = ("name", "pointer", "event", "data")

    def __init__(self, name: str, pointer: str, event: Node | None, data: Node) -> None:
        self.name = name
        self.pointer = pointer
        self.event = event
        self.data = data

    def __repr__(self) -> str:
        return self.name


class _Row:
    """The body of one row function: a statement per lookup, in template order, then the
    expression that builds the value from them."""

    def __init__(self) -> None:
        self.out = Lines()
        self.heads: dict[str, str] = {}

    def head(self, name: str) -> str:
        """The local holding `values[name]`, looked up (and a `Lazy` resolved) on first use."""
        var = self.heads.get(name)
        if var is None:
            var = self.heads[name] = f"v_{name}"
            self.out.add(f"{var} = values.get({lit(name)}, _MISSING)")
            self.out.add(f"if type({var}) is _Lazy:")
            self.out.add(f"    {var} = {var}.fn()")
        return var

    def value(self, slot: Slot) -> str:
        """The local holding a slot's value (MISSING when there is none)."""
        name, *rest = slot.field.split(".")
        head = self.head(name)
        if slot.codec == "json":
            var = self.out.fresh("r")
            self.out.add(f"{var} = _json_slot({head}, {lit(name)}, {lit(tuple(rest))}, {slot.optional})")
            return var
        var = head
        for key in rest:
            step = self.out.fresh("r") if var == head else var
            self.out.add(f"{step} = {var}.get({lit(key)}, _MISSING) if isinstance({var}, dict) else _MISSING")
            var = step
        if slot.optional:
            step = self.out.fresh("r") if var == head else var
            self.out.add(f"{step} = _MISSING if {var} is None or type({var}) is _Unreported else {var}")
            var = step
        return var

    def expr(self, node: Node) -> tuple[str, bool]:
        """A Python expression for the node's value, and whether it may be MISSING."""
        if isinstance(node, Lit):
            return lit(node.value), False  # JSON scalars only (codegen/load/source.py)
        if isinstance(node, Slot):
            return self.value(node), True
        if isinstance(node, Interp):
            parts = [lit(p) if isinstance(p, str) else f"_slot_text({self.value(p)})" for p in node.pieces]
            return f"''.join(({', '.join(parts)}))", False  # an interpolation has two pieces or more
        if isinstance(node, Obj):
            items = [(key, *self.expr(child)) for key, child in node.items]
            literal = "{" + ", ".join(f"{lit(key)}: {text}" for key, text, _ in items) + "}"
            gaps = [(key, text) for key, text, maybe in items if maybe]
            if not gaps:
                return literal, False
            var = self.out.fresh("o")
            self.out.add(f"{var} = {literal}")
            for key, text in gaps:  # deleting keeps the others in the template's order
                self.out.add(f"if {text} is _MISSING:")
                self.out.add(f"    del {var}[{lit(key)}]")
            return var, False
        assert isinstance(node, Arr)
        elements = [self.expr(child) for child in node.items]
        listed = ", ".join(text for text, _ in elements)
        if not any(maybe for _, maybe in elements):
            return f"[{listed}]", False
        return f"[item for item in ({listed},) if item is not _MISSING]", False


def row_function(row: EmitRow) -> Func:
    """The function that writes one emit row: `(values) -> (event, data)`; event None: none.
    Its text names no mapping file, so a dialect's row that is its base's, letter for letter, is
    imported from the base (codegen/emit/share.py)."""
    body = _Row()
    data, _ = body.expr(row.data)
    event = body.expr(row.event)[0] if row.event is not None else "None"
    body.out.add(f"return {event}, {data}")
    return Func(
        row.name,
        "(values: Mapping[str, Any]) -> tuple[Any, Any]",
        f"The stream emit row {row.pointer}: its (event, data) from the values of the event being written.",
        body.out.lines,
    )

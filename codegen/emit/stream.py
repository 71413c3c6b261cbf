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

from typing import Any

from .lines import Func, Lines, lit
from ..wiretemplate import Arr, Interp, Lit, Node, Obj, Slot, slots_of

__all__ = ["EmitRow", "row_function", "ParseRules", "parse_function"]


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

    def reads(self) -> list[str]:
        """The values the row's function looks up (`values[name]`), sorted."""
        nodes = [self.data] if self.event is None else [self.data, self.event]
        return sorted({s.field.split(".")[0] for n in nodes for s in slots_of(n)})

    def plain(self) -> list[str]:
        """The values the row writes only verbatim: every placeholder naming one is a whole
        value inside the data's object or list (no codec, no path into it, not the data itself,
        not in text, not in the event), so a string there is the JSON string of the value and
        nothing else. `StreamEmitter` pre-splits such a row's bytes around it (its fast lane)."""
        names = self.reads()
        event = {s.field.split(".")[0] for s in slots_of(self.event)} if self.event is not None else set()
        whole: set[str] = set()
        bad: set[str] = set(event)

        def walk(node: Node, root: bool) -> None:
            if isinstance(node, Slot):
                head = node.field.split(".")[0]
                if root or node.codec is not None or "." in node.field:
                    bad.add(head)
                else:
                    whole.add(head)
            elif isinstance(node, Interp):
                bad.update(s.field.split(".")[0] for s in node.slots)
            elif isinstance(node, Obj):
                for _key, child in node.items:
                    walk(child, False)
            elif isinstance(node, Arr):
                for child in node.items:
                    walk(child, False)

        walk(self.data, True)
        return [n for n in names if n in whole and n not in bad]


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
        if slot.codec is not None:  # a value map: a string through it, anything else as it is
            step = self.out.fresh("r")
            self.out.add(f"{step} = _vm_{slot.codec}({var}, {lit(slot.field)}) if type({var}) is str else {var}")
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


# ------------------------------------------------------------------------------------ parse


_JSON_TYPE_TESTS = {  # `when_type`: the test runtime/stream.py's interpreter made (`type(v) in ...`)
    "string": "type({v}) is str",
    "number": "type({v}) in (int, float)",
    "boolean": "type({v}) is bool",
    "object": "type({v}) is dict",
    "array": "type({v}) is list",
}


class ParseRules:
    """The rules of a `stream.parse` table, as the generated `STREAM` literal holds them: the
    rule dicts themselves (the engine reads an error rule's `status`/`wrap` and an entry rule's
    `concat`/`text_keys` when it applies one) and, under `match`, this object, whose repr is the
    name of the function that matches them against one decoded event."""

    __slots__ = ("name", "rules")

    def __init__(self, name: str, rules: list[dict[str, Any]]) -> None:
        self.name = name
        self.rules = rules

    def __repr__(self) -> str:
        return self.name


class _Parse:
    """The body of a parse function. A wire path is looked up once per place it is known to have
    been read: a lookup written at one indent level is reused by what follows it at that level
    or deeper, never by a branch beside it (`scope` is copied on the way in and dropped on the
    way out). The lookups are pure, so reading one earlier than the interpreter did (a `when`
    path before the event name was compared, say) cannot change what a rule sees."""

    def __init__(self) -> None:
        self.out = Lines()
        self.scope: dict[tuple[str, tuple[Any, ...]], str] = {}
        self.dicts: set[str] = {"obj"}  # locals known to be a dict (the event itself)

    def enter(self) -> dict[tuple[str, tuple[Any, ...]], str]:
        saved = self.scope
        self.scope = dict(saved)
        self.out.indent()
        return saved

    def leave(self, saved: dict[tuple[str, tuple[Any, ...]], str]) -> None:
        self.scope = saved
        self.out.dedent()

    def get(self, root: str, path: tuple[Any, ...]) -> str:
        """The local holding the value at `path` under `root` (`_MISSING` where there is none):
        what the interpreter's `_get` gave -- a key of a dict, an index inside a list, nothing
        inside anything else."""
        var = root
        for n in range(len(path), 0, -1):  # the longest prefix already read
            found = self.scope.get((root, path[:n]))
            if found is not None:
                var, done = found, n
                break
        else:
            done = 0
        for n in range(done, len(path)):
            key = path[n]
            step = self.out.fresh("v")
            if isinstance(key, int):
                self.out.add(f"{step} = {var}[{key}] if type({var}) is list and len({var}) > {key} else _MISSING")
            elif var in self.dicts:
                self.out.add(f"{step} = {var}.get({lit(key)}, _MISSING)")
            else:
                self.out.add(f"{step} = {var}.get({lit(key)}, _MISSING) if type({var}) is dict else _MISSING")
            self.scope[(root, path[: n + 1])] = step
            var = step
        return var

    def rule(self, index: int, rule: dict[str, Any], item: str, base: str) -> None:
        """One rule against `item` (the event, or one item of its `each` list at `base`): its
        tests, its values, and the call that applies it; the function returns when the parser
        has stopped (an error, the end)."""
        self.out.add(f"# /stream/parse/rules/{index}: {rule['emit']}")
        tests: list[str] = []
        for path, value in rule.get("when") or ():
            tests.append(f"{self.get(item, tuple(path))} == {lit(value)}")
        unless = [f"{self.get(item, tuple(path))} == {lit(value)}" for path, value in rule.get("unless") or ()]
        if unless:
            tests.append(f"not ({' or '.join(unless)})")
        for path, kind in rule.get("when_type") or ():
            tests.append(_JSON_TYPE_TESTS[kind].format(v=self.get(item, tuple(path))))
        saved = None
        if tests:
            self.out.add(f"if {' and '.join(tests)}:")
            saved = self.enter()
        fields: list[tuple[str, str, str, bool]] = []  # name, local, where path literal, optional
        for name, path, optional in rule["fields"]:
            if path and isinstance(path[0], list):  # a composite key: one value per path, all there
                parts = [self.get(item, tuple(p)) for p in path]
                var = self.out.fresh("k")
                there = " and ".join(f"{p} is not _MISSING and {p} is not None" for p in parts)
                self.out.add(f"{var} = ({', '.join(parts)},) if {there} else _MISSING")
                where = tuple(path[0])
            else:
                var, where = self.get(item, tuple(path)), tuple(path)
            fields.append((name, var, lit(where), optional))
        required = [var for _, var, _, optional in fields if not optional]
        inner = None
        if required:
            self.out.add(f"if {' and '.join(f'{v} is not _MISSING and {v} is not None' for v in required)}:")
            inner = self.enter()
        leading = 0  # the values up to the first optional one are one dict display
        while leading < len(fields) and not fields[leading][3]:
            leading += 1
        shown = ", ".join(f"{lit(name)}: ({local}, ({at}, {base}))" for name, local, at, _ in fields[:leading])
        self.out.add(f"values = {{{shown}}}")
        for name, local, at, optional in fields[leading:]:
            if optional:
                self.out.add(f"if {local} is not _MISSING and {local} is not None:")
                self.out.add(f"    values[{lit(name)}] = ({local}, ({at}, {base}))")
            else:
                self.out.add(f"values[{lit(name)}] = ({local}, ({at}, {base}))")
        for name, value in (rule.get("const") or {}).items():
            self.out.add(f"values[{lit(name)}] = ({lit(value)}, ((), {base}))")
        self.out.add(f"if apply({index}, values, obj, out):")
        self.out.add("    return")
        if inner is not None:
            self.leave(inner)
        if saved is not None:
            self.leave(saved)

    def filtered(self, events: list[str] | None) -> dict[tuple[str, tuple[Any, ...]], str] | None:
        """Opens the test of a rule's `event` names (None: the rule reads every event)."""
        if events is None:
            return None
        names = sorted(set(events))
        test = f"name == {lit(names[0])}" if len(names) == 1 else f"name in {lit(tuple(names))}"
        self.out.add(f"if {test}:")
        return self.enter()

    def rules(self, indexed: list[tuple[int, dict[str, Any]]], item: str, base: str) -> None:
        """Rules in order, those with the same `event` names one after another under one test."""
        at = 0
        while at < len(indexed):
            events = indexed[at][1].get("event")
            end = at + 1
            while end < len(indexed) and indexed[end][1].get("event") == events:
                end += 1
            saved = self.filtered(events)
            for index, rule in indexed[at:end]:
                self.rule(index, rule, item, base)
            if saved is not None:
                self.leave(saved)
            at = end


def parse_function(parse: ParseRules) -> Func:
    """The function that matches a format's stream parse rules against one decoded event:
    `(obj, name, out, apply) -> None`, `name` the event's name (SSE `event:`, the `:event-type`,
    or the table's `event_from` key) or None. For each rule in order that matches, it gathers the
    rule's values -- `{field: (value, (path, base))}`, `base` the `each` list and item index, or
    None; the paths are what error messages name -- and calls `apply(rule_index, values, obj,
    out)`, which applies the rule (runtime/stream.py `StreamParser`) and says whether the parser
    has stopped; then it returns. Consecutive rules over one `each` list are applied item by
    item, so the parts keep the wire's order. Its text names no mapping file, so a dialect with
    its base's rules imports it (codegen/emit/share.py)."""
    body = _Parse()
    body.out.add("values: dict[str, Any]")
    groups: list[list[tuple[int, dict[str, Any]]]] = []
    for index, rule in enumerate(parse.rules):  # consecutive rules over the event, or over one list
        each = rule.get("each")
        if groups and groups[-1][0][1].get("each") == each:
            groups[-1].append((index, rule))
        else:
            groups.append([(index, rule)])
    for group in groups:
        each = group[0][1].get("each")
        if each is None:
            body.rules(group, "obj", "None")
            continue
        # an `each` group: the event names, when all its rules share them, are tested once
        events = group[0][1].get("event")
        shared = events is not None and all(rule.get("event") == events for _, rule in group)
        saved = body.filtered(events) if shared else None
        seq = body.get("obj", tuple(each))
        n = body.out.counter + 1
        body.out.counter = n
        position, item = f"i_{n}", f"item_{n}"
        body.out.add(f"if type({seq}) is list:")
        outer = body.enter()
        body.out.add(f"for {position}, {item} in enumerate({seq}):")
        inner = body.enter()
        listed = [(index, {**rule, "event": None}) for index, rule in group] if shared else group
        body.rules(listed, item, f"({lit(tuple(each))}, {position})")
        body.leave(inner)
        body.leave(outer)
        if saved is not None:
            body.leave(saved)
    return Func(
        parse.name,
        "(obj: dict[str, Any], name: str | None, out: list[dict[str, Any]], apply: _RuleApply) -> None",
        "The stream parse rules /stream/parse/rules, matched against one decoded event: each rule that "
        "matches is applied (`apply`), in order, until the parser stops.",
        body.out.lines,
    )

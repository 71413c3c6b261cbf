"""Stage 3 (emit): turn IR templates into straight-line Python.

Each wire template compiles twice: to a builder (canonical object -> wire dict) and to a reader
(wire dict -> canonical object). Strings from a mapping only ever reach the output through
`repr()`, so a mapping holding quotes, newlines or `__import__('os')` yields harmless literals.
The jinja2 templates lay the module and its functions out (codegen/emit/shapes.py); the
per-construct pieces, a template's builder and reader, are written here.
"""

from __future__ import annotations

from typing import Any

from ..ir.catalog import CONTEXTS, PART_CLASS, base_kind, context_for_part, part_ident
from ..ir.chat import FormatIR
from .lines import FORMAT_KEY, Func, Lines, ModuleParts, lit
from .shapes import shape, shaped
from ..wiretemplate import Arr, Interp, Lit, Node, Obj, Slot, conditions_of, slots_of

__all__ = ["Emitter"]


class Emitter:
    def __init__(self, ir: FormatIR) -> None:
        self.ir = ir
        #: while True, schema/object slots are written with `_w.memo_json(value, memo)`: the
        #: builder has validation's memo in scope (the tool and tool-call writers)
        self.json_memo = False
        self.parts = ModuleParts()
        self.regexes: dict[str, str] = {}
        #: the value tables the option rows look values up in (`_MAP_<n>`, `table`), by literal
        self.tables: dict[str, str] = {}
        #: the module tables of option rows written so far (`_OPTIONS_TO_<n>` / `_OPTIONS_FROM_<n>`, codegen/emit/messages.py)
        # numbered per direction, so that a dialect with another number of tables one way still
        # names the other way's as its base does (and shares the code that reads them)
        self.option_tables = {"TO": 0, "FROM": 0}

    # ----------------------------------------------------------------- helpers
    def unmodeled(self, out: "Lines", context: str, var: str, path: str) -> None:
        """Wire keys the canonical model cannot carry, as the mapping's `unmodeled:` table says:
        `reject` fails when the key holds a value (it would change the meaning if dropped),
        `drop` documents that it is read and discarded, `carry` that it is left out of the
        canonical record and carried for this wire (runtime/carry.py), a named loss for any
        other; in a format that carries nothing (request.unknown: reject) it is `reject`, unless an
        option row reads the key (`tool_choice.disable_parallel_tool_use`): then it is modelled."""
        read = self.option_keys(context)
        for key, action in self.ir.unmodeled.get(context, {}).items():
            if action == "carry" and (self.ir.unknown == "carry" or key in read):
                continue
            if action == "drop":
                continue
            out.add(f"if {var}.get({lit(key)}) not in (None, False):")
            out.add(
                f"    raise _w.WireShapeError({path} + {lit('.' + key)}, "
                f"{lit('the canonical model cannot carry this; dropping it would change the meaning (mapping: unmodeled.' + context + ')')})"
            )


    def option_keys(self, context: str) -> set[str]:
        """The keys of a request's `tool_choice` or structured-output object (`context`) that an
        option row reads (its `wire` inside that object's field)."""
        ir = self.ir
        structured = getattr(ir, "structured", None)
        field = {"tool_choice": getattr(getattr(ir, "tool_choice", None), "field", None),
                 "structured_output": structured["field"] if structured else None}.get(context)
        if not field:
            return set()
        keys: set[str] = set()
        for opt in getattr(ir, "options", ()):
            for wire in (opt.wire, *opt.read_also):
                if wire and wire.startswith(field + "."):
                    keys.add(wire[len(field) + 1:].split(".")[0])
        return keys

    def regex(self, pattern: str, dotall: bool = True) -> str:
        """A module-level compiled pattern; DOTALL for template patterns (values may hold newlines)."""
        key = ("(?s)" if dotall else "") + pattern
        if key not in self.regexes:
            self.regexes[key] = f"_RE_{len(self.regexes) + 1}"
        return self.regexes[key]

    def table(self, value: dict[Any, Any]) -> str:
        """A module-level dict for a value table of the option rows (a `values:` spelling, a
        `derive` table): built once at import, not on every call. Named by order of first use, as
        the patterns are, so that a dialect whose table differs binds the same code to its own.
        A table holding an object or an array stays a literal: built on each call, the body never
        shares a value with the module."""
        key = lit(value)
        if any(isinstance(v, (dict, list)) for v in value.values()):
            return key
        if key not in self.tables:
            name = self.tables[key] = self._table_name(len(self.tables) + 1)
            self.parts.constants.append(f"{name}: Final[dict[Any, Any]] = {key}  # an option row's value table")
        return self.tables[key]

    def _table_name(self, n: int) -> str:
        return f"_MAP_{n}"

    def func(self, name: str, signature: str, doc: str, body: list[str]) -> None:
        self.parts.functions.append(Func(name, signature, doc, body))

    @property
    def call_memo(self) -> str:
        """The memo argument a response writer passes `_tool_call_to_wire` (", <expr>", or none):
        a format that sends user JSON in the caller's key order writes a response's tool-call
        arguments in that order too, where `_w.memo_json` without a memo sorts them (OpenArmature
        §8). None where the tool-call template writes no JSON through the memo (`slot_value`)."""
        if self.ir.rules.json_keys == "sorted":
            return ""
        fields = CONTEXTS["tool_call"]
        memo = any(s.codec is None and fields[s.field].kind in ("schema", "object") for s in slots_of(self.ir.tool_calls.template))
        return ", {_w.KEEP_ORDER: True}" if memo else ""

    # ------------------------------------------------------------ build side
    def slot_value(self, slot: Slot, env: dict[str, str], context: str, path_expr: str) -> str:
        spec = CONTEXTS[context][slot.field]
        expr = env[slot.field]
        if slot.has_default:  # `{field=value}`: the literal stands in for an absent field
            present = Slot(slot.field, True, slot.codec, slot.pointer)
            return f"({self.slot_value(present, env, context, path_expr)} if {expr} is not NOT_GIVEN else {lit(slot.default)})"
        if slot.codec == "json":
            return f"_w.dumps({expr})" if self.ir.rules.json_keys == "sorted" else f"_w.dumps_kept({expr})"
        if slot.codec is not None:
            arg = f"cast({'bool' if spec.kind == 'bool' else 'str'}, {expr})" if spec.narrowed or spec.optional else expr
            return f"_vm_{slot.codec}({arg}, {path_expr})"
        if spec.kind == "cache":  # a cache breakpoint, written as given (never sorted)
            return f"_w.json_copy({expr})"
        if spec.kind in ("schema", "object"):
            if self.json_memo:
                return f"_w.memo_json({expr}, memo)"
            return f"_w.canonical_json({expr})" if self.ir.rules.json_keys == "sorted" else f"_w.json_copy({expr})"
        if spec.narrowed or (spec.optional and not slot.optional and spec.kind == "str"):
            # present here: validation requires it, or the part is only sent when it is
            return f"cast(str, {expr})"
        return expr

    def build_node(self, out: Lines, node: Node, env: dict[str, str], context: str, path_expr: str) -> str:
        """Statements appended to `out`; returns the expression of the built value."""
        if isinstance(node, Lit):
            return lit(node.value)
        if isinstance(node, Slot):
            return self.slot_value(node, env, context, path_expr)
        if isinstance(node, Interp):
            pieces = []
            for piece in node.pieces:
                pieces.append(lit(piece) if isinstance(piece, str) else self.slot_value(piece, env, context, path_expr))
            return " + ".join(pieces)
        if isinstance(node, Arr) and len(node.items) >= 2 and any(_optional_item(n) for n in node.items):
            # Keyed items (codegen/ir/chat.py `keyed_items`): an item of optional placeholders only is
            # written when one of them is present.
            items = out.fresh("items")
            out.add(f"{items}: list[Any] = []")
            for item in node.items:
                present = [env[s.field] for s in slots_of(item) if env.get(s.field, "NOT_GIVEN") != "NOT_GIVEN"]
                if _optional_item(item) and not present:
                    continue  # the context never has these fields here
                if _optional_item(item):
                    out.add(f"if {' or '.join(f'{e} is not NOT_GIVEN' for e in present)}:")
                    out.indent()
                    out.add(f"{items}.append({self.build_node(out, item, env, context, path_expr)})")
                    out.dedent()
                else:
                    out.add(f"{items}.append({self.build_node(out, item, env, context, path_expr)})")
            return items
        if isinstance(node, Arr):
            return "[" + ", ".join(self.build_node(out, n, env, context, path_expr) for n in node.items) + "]"
        assert isinstance(node, Obj)
        required: list[tuple[str, str]] = []
        optional: list[tuple[str, Slot]] = []
        for key, child in node.items:
            if isinstance(child, Slot) and child.optional:
                optional.append((key, child))
            else:
                required.append((key, self.build_node(out, child, env, context, path_expr)))
        literal = "{" + ", ".join(f"{lit(k)}: {v}" for k, v in required) + "}"
        # an optional field the context never has here (a string's text part) writes no key; a
        # `from_url` media type without one is still inferred from the URL
        optional = [
            (k, c)
            for k, c in optional
            if env.get(c.field, "NOT_GIVEN") != "NOT_GIVEN" or (c.codec == "from_url" and env.get("source.url", "NOT_GIVEN") != "NOT_GIVEN")
        ]
        if not optional:
            return literal
        var = out.fresh("wire")
        out.add(f"{var}: dict[str, Any] = {literal}")
        for key, slot in optional:
            expr = env.get(slot.field, "NOT_GIVEN")
            if slot.codec == "from_url":  # the media type, or one inferred from the URL
                guess = out.fresh("media_type")
                out.add(f"{guess} = _w.guess_media_type({expr}, {env['source.url']})")
                out.add(f"if {guess} is not NOT_GIVEN:")
                out.add(f"    {var}[{lit(key)}] = {guess}")
                continue
            out.add(f"if {expr} is not NOT_GIVEN:")
            out.indent()
            out.add(f"{var}[{lit(key)}] = {self.slot_value(slot, env, context, path_expr)}")
            out.dedent()
        return var

    # ------------------------------------------------------------ read side
    def read_node(
        self,
        out: Lines,
        node: Node,
        src: str,
        path: str,
        context: str,
        got: dict[str, str],
        lenient: str | None = None,
        optional_fields: frozenset[str] = frozenset(),
        matched: dict[tuple[str, ...], str] | None = None,
        at: tuple[str, ...] = (),
    ) -> None:
        """Statements reading `src` (a wire dict) per `node`; binds canonical fields in `got`.
        `matched`: the interpolations the dispatch condition already matched (`pattern_matches`),
        whose match objects are reused instead of matching the value again."""
        assert isinstance(node, Obj)
        for key, child in node.items:
            child_path = f"{path} + {lit('.' + key)}"
            if isinstance(child, Lit):
                continue  # checked by the dispatcher
            if isinstance(child, Slot):
                if child.field in optional_fields and not child.optional:
                    child = Slot(child.field, True, child.codec, child.pointer)
                got[child.field] = self.read_slot(out, child, src, key, path, context, lenient)
            elif isinstance(child, Arr) and len(child.items) == 1 and isinstance(child.items[0], Slot):
                # A one-placeholder array (Gemini allowedFunctionNames: ["{name}"]): exactly one item.
                items = out.fresh("items")
                out.add(f"{items} = _w.member_list({src}, {lit(key)}, {path})")
                out.add(f"if len({items}) != 1:")
                out.add(f"    raise _w.WireShapeError({child_path}, 'expected exactly one item, got ' + str(len({items})))")
                var = out.fresh(child.items[0].field)
                out.add(f"{var} = _w.expect_str({items}[0], {child_path} + '[0]')")
                got[child.items[0].field] = var
            elif isinstance(child, Arr) and len(child.items) == 1 and isinstance(child.items[0], Obj):
                # Chunks (Mistral thinking: [{type: text, text: "{text}"}]): a non-empty list of such
                # objects, each checked against the literals, their placeholder texts joined.
                item_node = child.items[0]
                items = out.fresh("chunks")
                texts = out.fresh("texts")
                j = out.fresh("j")
                chunk = out.fresh("chunk")
                out.add(f"{items} = _w.member_list({src}, {lit(key)}, {path})")
                out.add(f"if not {items}:")
                out.add(f"    raise _w.WireShapeError({child_path}, 'expected at least one chunk')")
                out.add(f"{texts}: list[str] = []")
                out.add(f"for {j}, {chunk} in enumerate({items}):")
                out.indent()
                chunk_path = f"{child_path} + f'[{{{j}}}]'"
                out.add(f"{chunk} = _w.expect_dict({chunk}, {chunk_path})")
                for lit_key, lit_node in item_node.items:
                    if isinstance(lit_node, Lit):
                        out.add(f"if {chunk}.get({lit(lit_key)}) != {lit(lit_node.value)}:")
                        out.add(f"    raise _w.WireShapeError({chunk_path} + {lit('.' + lit_key)}, {lit('expected ' + repr(lit_node.value))})")
                inner: dict[str, str] = {}
                self.read_node(out, item_node, chunk, chunk_path, context, inner, lenient)
                (field_name, value), = inner.items()
                out.add(f"{texts}.append({value})")
                out.dedent()
                got[field_name] = f"''.join({texts})"
            elif isinstance(child, Arr) and len(child.items) >= 2:
                self.read_keyed_items(out, child, src, key, path, context, got, lenient, optional_fields)
            elif isinstance(child, Interp) and matched and at + (key,) in matched:
                for i, slot in enumerate(child.slots, start=1):  # matched by the dispatch condition
                    value = f"{matched[at + (key,)]}.group({i})"
                    if slot.codec is not None and slot.codec != "json":
                        value = f"_vm_{slot.codec}_reverse({value}, {child_path})"
                    got[slot.field] = value
            elif isinstance(child, Interp):
                var = out.fresh("text")
                self.read_member(out, var, "member_str", src, key, path)
                m = out.fresh("match")
                out.add(f"{m} = {self.regex(child.pattern())}.fullmatch({var})")
                out.add(f"if {m} is None:")
                out.indent()
                out.add(f"raise _w.WireShapeError({child_path}, {lit('expected the form ' + self.interp_form(child))})")
                out.dedent()
                for i, slot in enumerate(child.slots, start=1):
                    value = f"{m}.group({i})"
                    if slot.codec is not None and slot.codec != "json":
                        value = f"_vm_{slot.codec}_reverse({value}, {child_path})"
                    got[slot.field] = value
            elif isinstance(child, Obj):
                needed = any(not s.optional for s in slots_of(child)) or any(
                    isinstance(n, Lit) for _, n in child.items
                )
                sub = out.fresh("obj")
                if needed:
                    self.read_member(out, sub, "member_dict", src, key, path)
                    self.read_node(out, child, sub, child_path, context, got, lenient, optional_fields, matched, at + (key,))
                else:
                    out.add(f"{sub} = {src}.get({lit(key)})")
                    inner = {}
                    sub_lines = Lines()
                    sub_lines.level = 0
                    sub_lines.counter = out.counter + 1000
                    self.read_node(sub_lines, child, sub, child_path, context, inner, lenient, optional_fields, matched, at + (key,))
                    for name in inner:
                        out.add(f"{name.replace('.', '_')}_{sub} = NOT_GIVEN")
                    out.add(f"if {sub} is not None:")
                    out.indent()
                    out.add(f"{sub} = _w.expect_dict({sub}, {child_path})")
                    for line in sub_lines.lines:
                        out.add(line)
                    for name, expr in inner.items():
                        out.add(f"{name.replace('.', '_')}_{sub} = {expr}")
                    out.dedent()
                    for name in inner:
                        got[name] = f"{name.replace('.', '_')}_{sub}"
            else:
                raise AssertionError("arrays inside part templates are not readable")

    def read_keyed_items(
        self, out: Lines, child: Arr, src: str, key: str, path: str, context: str, got: dict[str, str],
        lenient: str | None, optional_fields: frozenset[str],
    ) -> None:
        """Keyed items (codegen/ir/chat.py `keyed_items`, Bedrock `[{text: "{text}"}, {cachePoint: ...}]`):
        each wire item is the template item whose own key it holds; each item at most once, the
        items not made of optional placeholders exactly once."""
        child_path = f"{path} + {lit('.' + key)}"
        markers: list[str] = []
        for i, item in enumerate(child.items):
            assert isinstance(item, Obj)
            others = {k for j, o in enumerate(child.items) if j != i and isinstance(o, Obj) for k, _ in o.items}
            markers.append(next(k for k, _ in item.items if k not in others))
        items = out.fresh("items")
        j = out.fresh("j")
        entry = out.fresh("entry")
        found = [out.fresh("item") for _ in child.items]
        out.add(f"{items} = _w.member_list({src}, {lit(key)}, {path})")
        for var in found:
            out.add(f"{var}: dict[str, Any] | None = None")
        out.add(f"for {j}, {entry} in enumerate({items}):")
        out.indent()
        entry_path = f"{child_path} + f'[{{{j}}}]'"
        out.add(f"{entry} = _w.expect_dict({entry}, {entry_path})")
        for i, (marker, var) in enumerate(zip(markers, found)):
            out.add(f"{'if' if i == 0 else 'elif'} {lit(marker)} in {entry}:")
            out.indent()
            out.add(f"if {var} is not None:")
            out.add(f"    raise _w.WireShapeError({entry_path}, {lit('a second item with the key ' + repr(marker))})")
            out.add(f"{var} = {entry}")
            out.dedent()
        out.add("else:")
        out.add(f"    raise _w.WireShapeError({entry_path}, {lit('expected an item with one of the keys ' + ', '.join(map(repr, markers)))})")
        out.dedent()
        for item, marker, var in zip(child.items, markers, found):
            assert isinstance(item, Obj)
            if _optional_item(item):
                read = out.fresh("read")
                out.add(f"{read}: dict[str, Any] = {var} if {var} is not None else {{}}")
            else:
                out.add(f"if {var} is None:")
                out.add(f"    raise _w.WireShapeError({child_path}, {lit('expected an item with the key ' + repr(marker))})")
                read = var
                for lit_key, lit_node in item.items:
                    if isinstance(lit_node, Lit):
                        out.add(f"if {var}.get({lit(lit_key)}) != {lit(lit_node.value)}:")
                        out.add(f"    raise _w.WireShapeError({child_path} + {lit('.' + lit_key)}, {lit('expected ' + repr(lit_node.value))})")
            self.read_node(out, item, read, child_path, context, got, lenient, optional_fields)

    _FAST_TYPES: dict[str, str] = {"member_str": "str", "member_dict": "dict", "member_list": "list"}

    def read_member(self, out: Lines, var: str, fn: str, src: str, key: str, path: str) -> None:
        """`var = _w.<fn>(src, key, path)`; a required string, object or array is read inline
        first (one `.get` and a type test), the helper only on the way to its error."""
        call = f"_w.{fn}({src}, {lit(key)}, {path})"
        if fn == "optional_cache" and src.isidentifier():  # mostly absent: one `.get`, the helper only when present
            out.add(f"{var} = {src}.get({lit(key)})")
            out.add(f"{var} = NOT_GIVEN if {var} is None else {call}")
            return
        kind = self._FAST_TYPES.get(fn)
        if kind is None or not src.isidentifier():
            out.add(f"{var} = {call}")
            return
        out.add(f"{var} = {src}.get({lit(key)})")
        out.add(f"if type({var}) is not {kind}:")
        out.add(f"    {var} = {call}")

    def interp_form(self, node: Interp) -> str:
        return "".join(p if isinstance(p, str) else "{" + p.field + "}" for p in node.pieces)

    def read_slot(self, out: Lines, slot: Slot, src: str, key: str, path: str, context: str, lenient: str | None) -> str:
        if slot.has_default:  # read like an optional field: the wire value, whatever it is
            slot = Slot(slot.field, True, slot.codec, slot.pointer)
        if context == "tool_call" and slot.field == "arguments" and slot.optional:
            # tool_calls.missing_arguments: empty -- a call without the key has no arguments; a
            # present key is read as the required field is
            var = out.fresh("arguments")
            out.add(f"{var}: Any = {{}}  # tool_calls.missing_arguments: empty")
            out.add(f"if {lit(key)} in {src}:")
            out.indent()
            value = self.read_slot(out, Slot(slot.field, False, slot.codec, slot.pointer), src, key, path, context, lenient)
            out.add(f"{var} = {value}")
            out.dedent()
            return var
        spec = CONTEXTS[context][slot.field]
        var = out.fresh(slot.field.replace(".", "_"))
        child_path = f"{path} + {lit('.' + key)}"
        if slot.codec == "json":
            flag = lenient or "False"
            out.add(f"{var} = _w.member_json({src}, {lit(key)}, {path}, {flag})")  # loads_object(member(...), child_path, ...)
            return var
        if slot.codec is not None and slot.codec != "from_url":
            if slot.optional:
                # a fresh name for the wire string: mypy does not narrow `is not NOT_GIVEN`, and a
                # boolean map reads back a bool
                raw = out.fresh(f"wire_{slot.field.replace('.', '_')}")
                out.add(f"{raw} = _w.optional_str({src}, {lit(key)}, {path})")
                out.add(f"{var} = _vm_{slot.codec}_reverse({raw}, {child_path}) if isinstance({raw}, str) else NOT_GIVEN")
            else:
                out.add(f"{var} = _vm_{slot.codec}_reverse(_w.member_str({src}, {lit(key)}, {path}), {child_path})")
            return var
        kind = spec.kind
        # Structured output's name and strict flag are derived when writing; a reader must not
        # require them (the APIs default them: OpenAI `strict` is optional).
        optional = slot.optional or (context == "structured_output" and slot.field in ("name", "strict"))
        if kind == "detail":
            fn = "optional_detail"
        elif kind == "text" and context == "tool_result" and self.ir.tool_results.content in ("parts", "always_parts"):
            # tool_results.content: parts: a string, joined text parts, or parts (issue 20)
            out.add(f"{var} = _w.member_tool_parts({src}, {lit(key)}, {path}, _read_user_part)")
            return var
        elif kind == "text" and context == "tool_result" and self.ir.tool_results.other_content == "json":
            fn = "text_or_json"  # tool_results.other_content: json (the holder's JSON text otherwise)
        elif kind == "text" and context == "tool_result" and self.ir.unknown == "carry":
            fn = "member_text_carry"  # text parts joined; other parts carried (request.unknown: carry)
        elif kind == "text":
            fn = "member_text"  # a string, or an array of text parts (joined)
        elif kind == "str":
            fn = "optional_str" if optional else "member_str"
        elif kind == "bool":
            fn = "optional_bool" if optional else "member"
        elif kind == "cache":
            fn = "optional_cache"
        elif kind in ("schema", "object"):
            fn = "optional_json" if optional else "member_dict"
        else:
            fn = "member"
        if lenient is not None and context == "tool_call" and slot.field == "arguments" and fn == "member_dict":
            # a response's JSON-null arguments read as null (how response_to_wire writes a degraded call)
            out.add(f"{var} = {src}.get({lit(key)})")
            out.add(f"if type({var}) is not dict:")
            out.add(f"    {var} = _w.member_arguments({src}, {lit(key)}, {path}, {lenient})")
            return var
        self.read_member(out, var, fn, src, key, path)
        if kind == "bool" and not optional:
            out.add(f"{var} = _w.expect_bool({var}, {child_path})")
        return var

    def cache_point_condition(self, var: str) -> str:
        """Whether the wire item `var` is a cache point (`request.cache_points`): its literals and
        the keys that hold its required placeholders."""
        assert self.ir.cache_point is not None
        conds = [*self.dispatch_condition_list(self.ir.cache_point, var), *self.presence_conditions(self.ir.cache_point, var)]
        return " and ".join(conds) or "True"

    def dispatch_conditions(self, node: Node, var: str) -> str:
        return " and ".join(self.dispatch_condition_list(node, var)) or "True"

    def presence_conditions(self, node: Node, var: str) -> list[str]:
        """`part_dispatch: keys`: the top-level keys that hold a required placeholder (or an
        object with one) must be present, since the wire parts carry no type tag."""
        conds = []
        shared = self.shared_part_keys()

        def walk(node: Node, keys: tuple[str, ...]) -> None:
            if not isinstance(node, Obj):
                return
            for key, child in node.items:
                if isinstance(child, Lit) or not any(not s.optional for s in slots_of(child)):
                    continue
                if keys and not isinstance(child, Obj):
                    continue  # a missing leaf is named by the reader, not skipped by the dispatch
                path = keys + (key,)
                conds.append(f"{lit(key)} in {var}" if not keys else f"{self.key_path(var, path)} is not None")
                if path in shared:
                    # nested keys too where part templates share a key: `reasoningContent.reasoningText`
                    # beside `reasoningContent.redactedContent` (Bedrock), `image.source.s3Location`
                    # beside `image.source.bytes`
                    walk(child, path)

        walk(node, ())
        return conds

    def shared_part_keys(self) -> frozenset[tuple[str, ...]]:
        """The key paths that more than one part template writes an object at, or a value."""
        seen: dict[tuple[str, ...], int] = {}

        def walk(node: Node, keys: tuple[str, ...]) -> None:
            for key, child in node.items if isinstance(node, Obj) else ():
                seen[keys + (key,)] = seen.get(keys + (key,), 0) + 1
                walk(child, keys + (key,))

        for node in self.ir.parts.values():
            if isinstance(node, Obj):
                walk(node, ())
        return frozenset(k for k, n in seen.items() if n > 1)

    def part_condition_list(self, kind: str, node: Node, var: str, bind: bool = False, carry_forms: bool = False) -> list[str]:
        conds = self.dispatch_condition_list(node, var, bind)
        if self.ir.part_dispatch != "keys" and self.literal_twins(node):
            # part templates with the same type tag (`image.url@s3` beside `image.url@gs`): the
            # keys they hold tell them apart, as in `part_dispatch: keys`
            return self.presence_conditions(node, var) + conds
        if self.ir.part_dispatch != "keys":
            if carry_forms and kind != "tool_result":
                # a user part of a known type without a key its row requires (a Responses
                # input_image by file_id, no image_url) is a form no row reads: carried, not
                # refused (request.unknown: carry). Response parts and tool results missing
                # one stay errors: they must not vanish from what a provider answered
                conds += self.presence_conditions(node, var)
            return conds
        conds = self.presence_conditions(node, var) + conds
        family = kind.split(".")[0]
        if family in ("image", "audio"):
            where = _slot_keys(node, "media_type")
            if where is not None:
                access = f"{var}.get({lit(where[0])})" if len(where) == 1 else f"_w.get_in({var}, {lit(where)})"
                slot = _slot_at(node, where)
                vm = self.ir.value_maps.get(slot.codec) if slot is not None and slot.codec else None
                if vm is None:
                    conds.append(f"str({access}).startswith({lit(family + '/')})")
                elif vm.default == "reject":
                    # a value map (Bedrock `format: png`): the wire values it writes for this family
                    wires = sorted({w for c, w in vm.pairs if c.startswith(family + "/")})
                    conds.append(f"{access} in {lit(tuple(wires))}")
                # a map that passes other values through: the keys alone tell the templates
                # apart, and the generator's proof refuses templates they do not
        return conds

    def literal_twins(self, node: Node) -> bool:
        """Whether another part template has the same literal dispatch conditions as `node` and
        holds other keys, which then tell the two apart."""
        mine = self.dispatch_condition_list(node, "part")
        keys = self.presence_conditions(node, "part")
        return any(
            other is not node
            and isinstance(other, Obj)
            and self.dispatch_condition_list(other, "part") == mine
            and self.presence_conditions(other, "part") != keys
            for other in self.ir.parts.values()
        )

    def part_branches(self, out: Lines, alts: list[tuple[str, Node]], bind: bool = False, user: bool = False) -> list[tuple[int, str]]:
        """The part dispatcher's alternatives over the wire part `part`, in the order it tries
        them (most conditions first, then author order): `(index into alts, condition)`. Reads
        the type tag once into `kind` (a line added to `out`) when the conditions compare it.
        Used by the converters' dispatchers and by the fused translators, which must try the
        alternatives exactly as the source does; `bind`: a pattern condition keeps its match
        (`pattern_matches`) for the branch to read."""
        carry_forms = user and self.ir.unknown == "carry"  # the user parts of a request
        conds = [self.part_condition_list(label, node, "part", bind, carry_forms) for label, node in alts]
        tag = "part.get('type') == "
        if any(c and c[0].startswith(tag) for c in conds):
            out.add("kind = part.get('type')")
            conds = [[("kind == " + c[len(tag):]) if c.startswith(tag) else c for c in cs] for cs in conds]
        # a template's literal conditions (type tags, patterns) rank before the key presence that
        # only tells literal twins apart: `data:` URLs stay with the inline row
        twins = self.ir.part_dispatch != "keys"
        rank = [len(conds[i]) - (len(self.presence_conditions(node, "part")) if twins and self.literal_twins(node) else 0) for i, (_, node) in enumerate(alts)]
        ordered = sorted(range(len(alts)), key=lambda i: (-rank[i], -len(conds[i]), i))
        return [(i, " and ".join(conds[i]) or "True") for i in ordered]

    @staticmethod
    def pattern_matches(node: Node) -> dict[tuple[str, ...], str]:
        """The name a bound dispatch condition gives each pattern's match, by its keys."""
        patterns = [c for c in conditions_of(node) if c.pattern is not None]
        return {c.keys: f"pattern_match_{i}" for i, c in enumerate(patterns)}

    @staticmethod
    def key_path(var: str, keys: tuple[str, ...]) -> str:
        """The value at `keys` under the dict `var`, None when a step is missing or not an object
        (what `_w.get_in` answers), as one inline expression: each step is read once."""
        if len(keys) == 1 or any(type(k) is not str for k in keys) or len(keys) > 4:
            return f"{var}.get({lit(keys[0])})" if len(keys) == 1 else f"_w.get_in({var}, {lit(keys)})"
        expr = f"{var}.get({lit(keys[0])})"
        for depth, key in enumerate(keys[1:], start=1):
            step = f"step_{depth}"
            expr = f"({step}.get({lit(key)}) if type({step} := {expr}) is dict else None)"
        return f"({expr} if type({var}) is dict else None)"

    def dispatch_condition_list(self, node: Node, var: str, bind: bool = False) -> list[str]:
        conds = []
        names = self.pattern_matches(node) if bind else {}
        for cond in conditions_of(node):
            access = self.key_path(var, cond.keys)
            if cond.pattern is not None:
                # the value is read once (walrus) for both the type test and the pattern
                match = f"{self.regex(cond.pattern)}.fullmatch(pattern_value)"
                if cond.keys in names:
                    match = f"({names[cond.keys]} := {match})"
                conds.append(f"isinstance(pattern_value := {access}, str) and {match} is not None")
            elif cond.literal is None:
                conds.append(f"{access} is None")
            else:
                conds.append(f"{access} == {lit(cond.literal)}")
        return conds

    # ------------------------------------------------------------------ parts
    def part_templates(self) -> list[tuple[str, Node]]:
        return [(k, v) for k, v in self.ir.parts.items() if not isinstance(v, str)]

    def emit_value_maps(self) -> None:
        for vm in self.ir.value_maps.values():
            kind = "bool" if vm.boolean else "str"
            rows = [(f"value is {canonical == 'true'}" if vm.boolean else f"value == {lit(canonical)}", wire) for canonical, wire in vm.pairs]
            allowed = ", ".join(c for c, _ in vm.pairs)
            self.func(
                f"_vm_{vm.name}", f"(value: {kind}, path: str) -> str", f"Value map `{vm.name}`: canonical -> wire.",
                shaped("parts", "value_map", rows=rows, default=vm.default, allowed=allowed),
            )
            reverse: list[tuple[str, str]] = []
            seen: set[str] = set()
            for canonical, wire in vm.pairs:
                if wire in seen:
                    continue
                seen.add(wire)
                reverse.append((wire, str(canonical == "true") if vm.boolean else lit(canonical)))
            self.func(
                f"_vm_{vm.name}_reverse", f"(value: str, path: str) -> {kind}", f"Value map `{vm.name}`: wire -> canonical.",
                shaped("parts", "value_map_reverse", rows=reverse, default=vm.default, wires=", ".join(sorted(seen))),
            )

    def signature_guard(self, kind: str, var: str) -> str | None:
        """Condition under which a block is sent (provider-bound data, CANONICAL.md)."""
        node = self.ir.parts[kind]
        conds = []
        if kind in ("thinking", "redacted_thinking"):
            if self.ir.signatures == "strip_all":
                return "False"
            conds.append(f"({var}.origin is NOT_GIVEN or {var}.origin == PROVIDER)")
        if not isinstance(node, str):
            for slot in slots_of(node):
                spec = CONTEXTS[context_for_part(kind)][slot.field]
                if spec.optional and not slot.optional and not slot.has_default:
                    conds.append(f"{var}.{spec.attr} is not NOT_GIVEN")
        return " and ".join(conds) if conds else None

    def scheme_variants(self, kind: str) -> list[str]:
        """The URL-scheme variants of a url part kind (`image.url@s3`), in the mapping's order."""
        return [k for k in self.ir.parts if base_kind(k) == kind and k != kind]

    def emit_part_builders(self) -> None:
        out = Lines()
        texts = []
        for cls in ("TextBlock", "ThinkingBlock", "RedactedThinkingBlock"):
            kind = {"TextBlock": "text", "ThinkingBlock": "thinking", "RedactedThinkingBlock": "redacted_thinking"}[cls]
            part = out.part()
            self.emit_one_part(part, kind, "block")
            texts.append((cls, part))
        media = []
        for cls, stem in (("ImageBlock", "image"), ("AudioBlock", "audio"), ("FileBlock", "file")):
            schemes = []
            for kind in self.scheme_variants(f"{stem}.url"):  # content_parts `image.url@s3`: by the URL's scheme
                part = out.part()
                self.emit_one_part(part, kind, "block")
                schemes.append((kind.partition("@")[2], part))
            url, inline = out.part(), out.part()
            self.emit_one_part(url, f"{stem}.url", "block")
            self.emit_one_part(inline, f"{stem}.inline", "block")
            media.append((cls, schemes, url, inline))
        shape(out, "parts", "part_to_wire", texts=texts, media=media)
        self.func(
            "_part_to_wire",
            "(block: Block, path: str) -> dict[str, Any] | None",
            "One canonical content block -> its wire part; None when the mapping strips it.",
            out.lines,
        )

    def emit_one_part(self, out: Lines, kind: str, var: str, node: "Node | str | None" = None) -> None:
        if node is None:
            node = self.ir.parts[kind]
        if isinstance(node, str):  # strip or reject
            schemes = [k.partition("@")[2] + ":" for k in self.scheme_variants(kind)]
            what = f"{kind} content is not supported by {FORMAT_KEY}"
            if schemes:  # the url kind beside its scheme variants: the URLs it does take
                what = f"{kind} content with this URL scheme is not supported by {FORMAT_KEY}; it takes {', '.join(schemes)} URLs"
            shape(out, "parts", "one_part", action=node, refused=what, guard=None, signed=False, var=var, prelude=None, expr=None)
            return
        guard = self.signature_guard(kind, var)
        env = {}
        for name, spec in CONTEXTS[context_for_part(kind)].items():
            attr = spec.attr
            env[name] = ("source." + attr[len("source."):]) if attr.startswith("source.") else f"{var}.{attr}"
        signed = kind == "text" and any(s.field == "signature" for s in slots_of(node))
        if signed:
            env["signature"] = "text_signature"
        prelude = out.part()
        expr = self.build_node(prelude, node, env, context_for_part(kind), "path + '.media_type'")
        shape(out, "parts", "one_part", action=None, refused=None, guard=guard, signed=signed, var=var, prelude=prelude, expr=expr)

    def emit_part_readers(self) -> None:
        """Dispatchers for wire parts: user content, assistant content (with tool calls when they
        are content blocks) and tool results grouped into user turns."""
        ir = self.ir
        readers = [(kind, node, kind) for kind, node in self.part_templates()]
        if ir.assistant.text_part is not None:  # assistant.text_part: the assistant role's text part
            readers.append(("text", ir.assistant.text_part, "assistant.text"))
        for kind, node, reader in readers:
            out = Lines()
            read = out.part()
            got: dict[str, str] = {}
            self.unmodeled(read, base_kind(kind), "part", "path")
            self.read_node(read, node, "part", "path", context_for_part(kind), got)
            cls, source_cls = PART_CLASS[base_kind(kind)]
            args = []
            for name, spec in CONTEXTS[context_for_part(kind)].items():
                if name.startswith("source."):
                    continue
                value = got.get(name, "NOT_GIVEN")
                if value == "NOT_GIVEN":
                    continue  # a field the template does not read: the record's default
                args.append(f"{spec.attr}={value}")
            if source_cls == "UrlSource":
                args.insert(0, f"source=UrlSource(url={got['source.url']})")
            elif source_cls == "InlineSource":
                args.insert(0, f"source=InlineSource(base64_data={got['source.base64_data']})")
            origin = None
            if kind in ("thinking", "redacted_thinking"):
                args.append("origin=PROVIDER")
            elif kind == "text" and "signature" in got:
                origin = got["signature"]
                args.append("origin=origin_")
            shape(out, "parts", "part_reader", reader=read, origin=origin, cls=cls, args=", ".join(args))
            self.func(f"_read_part_{part_ident(reader)}", "(part: dict[str, Any], path: str) -> Block", f"Wire `{reader}` part -> canonical block.", out.lines)

        # tool call reader
        out = Lines()
        read = out.part()
        got = {}
        self.unmodeled(read, "tool_call", "call", "path")
        synth = ir.tool_calls.missing_id == "synthesize"
        self.read_node(
            read, ir.tool_calls.template, "call", "path", "tool_call", got, lenient="lenient",
            optional_fields=(frozenset({"id"}) if synth else frozenset())
            | (frozenset({"arguments"}) if ir.tool_calls.missing_arguments == "empty" else frozenset()),
        )
        synth_id = got["id"] if synth else None
        if synth:
            got["id"] = "call_id"
        args = [f"id={got['id']}", f"name={got['name']}", f"arguments={got['arguments']}"]
        if "signature" in got:
            args += [f"signature={got['signature']}", "origin=origin_"]
        shape(out, "parts", "tool_call_reader", reader=read, synth_id=synth_id, signature=got.get("signature"), args=", ".join(args))
        self.func("_read_tool_call", "(call: dict[str, Any], path: str, lenient: bool | None) -> ToolCall", "Wire tool call -> canonical ToolCall (lenient None: a response, whose JSON-null arguments read as null).", out.lines)

        # tool result reader
        out = Lines()
        checks = out.part()
        got = {}
        self.unmodeled(checks, "tool_result", "result", "path")
        media = ir.tool_results.media
        error_reader = error_message = None
        ok_path = err_path = None
        if ir.tool_results.error_template is not None:
            ok_path, err_path = ir.tool_results.content_paths
            error_reader, error_message = out.part(), out.part()
            err_got: dict[str, str] = {}
            self.read_node(
                error_reader, ir.tool_results.error_template, "result", "path", "tool_result", err_got,
                optional_fields=frozenset({"tool_call_id"}) if synth else frozenset(),
            )
            call_id = err_got["tool_call_id"]
            if synth:
                call_id = f"({call_id} if isinstance({call_id}, str) else '')"
            extra = ", is_error=True" + (f", cache_control={err_got['cache_control']}" if "cache_control" in err_got else "")
            shape(
                error_message, "parts", "tool_message",
                call_id=call_id, content=err_got["content"], local="err_content_", media=media, name=err_got.get("name", "NOT_GIVEN"), extra=extra,
            )
        read, message = out.part(), out.part()
        self.read_node(
            read, ir.tool_results.template, "result", "path", "tool_result", got,
            optional_fields=frozenset({"tool_call_id"}) if synth else frozenset(),
        )
        synth_id = got["tool_call_id"] if synth else None
        extra = f", is_error={got['is_error']}" if "is_error" in got else ""
        extra += f", cache_control={got['cache_control']}" if "cache_control" in got else ""
        shape(
            message, "parts", "tool_message",
            call_id="result_id" if synth else got["tool_call_id"], content=got["content"], local="content_", media=media,
            name=got.get("name", "NOT_GIVEN"), extra=extra,
        )
        shape(
            out, "parts", "tool_result_reader",
            checks=checks, error_reader=error_reader, ok_path=ok_path, err_path=err_path, error_message=error_message,
            reader=read, synth_id=synth_id, message=message,
        )
        self.func("_read_tool_result", "(result: dict[str, Any], path: str) -> ToolMessage", "Wire tool result -> canonical tool message.", out.lines)

        # dispatchers
        def dispatcher(name: str, alts: list[tuple[str, Node, str]], doc: str, ret: str) -> None:
            out = Lines()
            cache_cond = None
            if ir.cache_point is not None:  # request.cache_points: a breakpoint item, for the part before it
                cache_cond = self.cache_point_condition("part")
                ret += " | _w.CachePoint"
            kind = out.part()
            branches = [(cond, alts[index][2]) for index, cond in self.part_branches(kind, [(label, node) for label, node, _ in alts], user=name == "_read_user_part")]
            refused_at = refusal = ""
            if ir.unknown != "carry" and ir.part_dispatch == "keys":
                keys = sorted({k for _, n, _ in alts if isinstance(n, Obj) for k, c in n.items if not isinstance(c, Lit) and any(not s.optional for s in slots_of(c))})
                refused_at = "path"
                refusal = f"'unsupported part with keys ' + repr(sorted(part)) + {lit('; expected a part template of this format: one of the keys ' + ', '.join(keys) + ', with the values its template requires')}"
            elif ir.unknown != "carry":
                names = sorted({str(c.literal) for _, n, _ in alts for c in conditions_of(n) if c.keys == ("type",) and c.literal is not None})
                refused_at = "path + '.type'"
                refusal = f"'unsupported part ' + repr(part.get('type')) + {lit('; expected one of: ' + ', '.join(names))}"
            shape(out, "parts", "dispatcher", cache_cond=cache_cond, kind=kind, branches=branches, carry=ir.unknown == "carry", refused_at=refused_at, refusal=refusal)
            if ir.unknown == "carry":
                ret += " | _w.Skipped"  # a part no row reads (request.unknown: carry)
            self.func(name, f"(value: Any, path: str, lenient: bool | None = False) -> {ret}", doc, out.lines)

        user_alts = [
            (k, n, f"_read_part_{part_ident(k)}(part, path)")
            for k, n in self.part_templates()
            if k not in ("thinking", "redacted_thinking")
        ]
        if ir.tool_results.strategy == "group_into_user_message":
            user_alts.append(("tool_result", ir.tool_results.template, "_read_tool_result(part, path)"))
            dispatcher("_read_user_part", user_alts, "A part of a wire user turn (tool results included).", "Block | ToolMessage")
        else:
            dispatcher("_read_user_part", user_alts, "A part of a wire user turn.", "Block")
        asst_alts = [
            (k, n, f"_read_part_{part_ident(k)}(part, path)")
            for k, n in self.part_templates()
            if k in ("text", "thinking", "redacted_thinking")
        ]
        if ir.assistant.text_part is not None:  # assistant.text_part replaces the shared text part
            asst_alts = [a for a in asst_alts if a[0] != "text"]
            asst_alts.insert(0, ("text", ir.assistant.text_part, "_read_part_assistant_text(part, path)"))
        if ir.tool_calls.placement == "content_blocks":
            asst_alts.append(("tool_call", ir.tool_calls.template, "_read_tool_call(part, path, lenient)"))
            dispatcher("_read_assistant_part", asst_alts, "A part of a wire assistant turn (tool calls included).", "Block | ToolCall")
        else:
            dispatcher("_read_assistant_part", asst_alts, "A part of a wire assistant turn.", "Block")


def _slot_at(node: Node, keys: tuple[str, ...]) -> Slot | None:
    """The whole-value slot at `keys` in an object template, or None."""
    current: Node | None = node
    for key in keys:
        if not isinstance(current, Obj):
            return None
        current = dict(current.items).get(key)
    return current if isinstance(current, Slot) else None


def _slot_keys(node: Node, field_name: str, keys: tuple[str, ...] = ()) -> tuple[str, ...] | None:
    """The key path of a field's whole-value slot in an object template, or None."""
    if isinstance(node, Slot) and node.field == field_name:
        return keys
    if isinstance(node, Obj):
        for key, child in node.items:
            found = _slot_keys(child, field_name, keys + (key,))
            if found is not None:
                return found
    return None


def _optional_item(node: Node) -> bool:
    """An array item of optional whole-value placeholders only (`{cachePoint: "{cache_control?}"}`):
    written only when one of them is present, read back as absent when the wire has no such item."""
    return isinstance(node, Obj) and bool(node.items) and all(isinstance(n, Slot) and n.optional for _, n in node.items)

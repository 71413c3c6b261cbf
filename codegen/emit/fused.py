"""Fused translators: one format's wire request -> another's, in one pass, from both tables.

A mapping asks for them with `fuse: {from: [openai_chat]}` (mappings/README.md "fuse"). The
generated module `fused__<source>__TO__<target>.py` has `request(body)`, which returns exactly
what `target.request_to_wire(source.request_from_wire(body))` returns -- the same body, the same
warnings, the same errors -- without building the canonical `Request` in between:

- the source's reader chain (`emit_role_readers`, the very code its `_messages_from_wire` runs)
  reads each wire message, and a sink hands the canonical fields straight to the target's role
  writers (`_user_to_wire`, `_assistant_to_wire`, ... of the target module);
- the OpenArmature rules are checked as the messages go by (`wiremap.runtime.validate`'s
  per-part checks, and inline checks for the common cases);
- the options are read from the source body and written by the target's own option rows
  (`emit_options_to_wire`).

Anything outside that path -- a key the source would carry as an extra, structured output, a
value that breaks a rule, a shape the source reader refuses -- raises `_Deopt` (or the reader's
own error) before anything is returned, and the body goes the two-step way, which gives the
canonical error or result. So the fused path only ever answers what the two-step path answers.

A pair takes part when both tables use the strategies this compiler knows; `fused_blockers`
says why not otherwise, and the generator reports it at the `fuse` row.
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any, Final

from .emitter import Emitter
from .shapes import shape
from .lines import Lines, lit
from ..ir.catalog import CONTEXTS
from .messages import block_fields, assign, build_message, text_content, emit_options_to_wire, emit_role_readers, emit_tools_to_wire
from ..wiretemplate import Interp, Lit, Obj, Slot, slots_of
from ..ir.chat import STRING_OPTIONS, FormatIR
from .fused_response import emit_fused_response, header_names, response_blockers, response_function

__all__ = ["fused_blockers", "emit_fused_module", "fused_module_name", "fused_header"]

#: OpenArmature §6 RuntimeConfig: the check each option's value gets (Config.from_dict and
#: validate._config together); anything else goes the two-step way
_OPTION_CHECKS = {
    "temperature": "number",
    "top_p": "number",
    "frequency_penalty": "number",
    "presence_penalty": "number",
    "max_tokens": "positive",
    "top_k": "integer",
    "seed": "integer",
    "stop_sequences": "strings",
    "parallel_tool_calls": "boolean",
    "n": "positive",
    "logprobs": "boolean",
    "top_logprobs": "nonnegative",
    "user": "string",
    "reasoning_effort": "string",
    "reasoning_budget": "integer",
    "json_mode": "boolean",
    "schema_name": "string",
    "schema_description": "string",
    "schema_strict": "boolean",
    "prompt_cache_key": "string",
    "metadata": "string_map",
    "betas": "strings",
}


def fused_module_name(source_module: str, target_module: str) -> str:
    return f"fused__{source_module}__TO__{target_module}"


def fused_blockers(ir: Any, side: str) -> list[str]:
    """Why `ir` cannot be the `side` (source or target) of a fused translator, as phrases
    ("has a `wire_rules` section"); [] = it can."""
    if not isinstance(ir, FormatIR):
        return [f"is a `kind: {getattr(ir, 'kind', '?')}` mapping (fused translators are for chat)"]
    why = []
    if ir.tool_calls.placement == "items":
        why.append("tool calls placement `items`")
    if ir.wire_rules is not None:
        why.append("a `wire_rules` section (its repairs are recorded on a WireMap per call)")
    if ir.tools.strict_all is not None:
        why.append("a tools `strict_all` field")
    if ir.cache_point is not None:
        why.append("`request.cache_points` (breakpoint items beside the parts and tools)")
    if ir.tool_choice.special:
        why.append("tool_choice modes `omit`, `omit_tools` or `reject`")
    if ir.strategy_hooks:
        why.append("`strategies` hooks (the converter calls them; the fused path would not)")
    unknown = [opt.name for opt in ir.options if opt.name not in _OPTION_CHECKS]
    if unknown:
        why.append(f"options the fused compiler has no check for ({', '.join(unknown)})")
    if side == "source":
        # the target's side of these is written by its own code (`assign`, `emit_tools_to_wire`, the
        # system `wire` template, the from_call names), as its request_to_wire writes them; the
        # source's would need a reader of their own
        if ir.path_params:
            why.append("fields bound into the endpoint path")
        if ir.tools.group is not None:
            why.append("a tools `group`")
        fields = [("model", ir.model_field), ("messages", ir.messages_field), ("tools", ir.tools.field), ("tool_choice", ir.tool_choice.field)]
        if ir.system.strategy == "hoist":
            fields.append(("system", ir.system.field or ""))
        for name, field in fields:
            if "." in field:
                why.append(f"a nested `{name}` field ({field})")
        if ir.system.hoist_template is not None:
            why.append("system `hoist` through a `wire` template")
        if ir.system.blocks is not None and ir.system.strategy == "inline":
            why.append("inline system `blocks` (a one-block system content is read whole)")
        if ir.tool_calls.missing_id == "synthesize":
            why.append("tool calls `missing_id: synthesize` (results are paired after reading)")
        if ir.items.reasoning_match is not None:
            why.append("reasoning items")
        for opt in ir.options:
            for wire in (opt.wire, *opt.read_also):
                # a field one object deep is read in place (metadata.user_id, thinking.budget_tokens);
                # a deeper one only inside an object the fused path refuses (structured output)
                deep_ok = wire is not None and opt.requires == "response_schema" and ir.structured is not None and wire.split(".")[0] == ir.structured["field"].split(".")[0]
                if wire is not None and ((wire.count(".") > 1 and not deep_ok) or ("." in wire and opt.read_also)):
                    why.append(f"a nested option field ({wire})")
            if opt.values and opt.wire is not None and "." not in opt.wire:
                why.append(f"option `values` on a top-level field ({opt.name})")
        if ir.tool_results.strategy == "message" and not _role_literal(ir.tool_results.template):
            why.append("tool results told apart by a type literal")
    return [w if w.startswith("is ") else "has " + w for w in why]


def _role_literal(node: Any) -> bool:
    from ..sections.items import role_literal

    return role_literal(node) is not None


class _Scoped(Emitter):
    """An emitter for one side of a fused module: its regexes get names of their own."""

    def __init__(self, ir: FormatIR, prefix: str) -> None:
        super().__init__(ir)
        self.prefix = prefix

    def regex(self, pattern: str, dotall: bool = True) -> str:
        key = ("(?s)" if dotall else "") + pattern
        if key not in self.regexes:
            self.regexes[key] = f"_RE_{self.prefix}{len(self.regexes) + 1}"
        return self.regexes[key]

    def _table_name(self, n: int) -> str:
        return f"_MAP_{self.prefix}{n}"


#: the canonical rules for a content part's fields (validate._text_block / _media_block), as
#: conditions on the value the source's reader gave (None: the part takes the canonical path)
_PART_RULES = {
    "text": "{v}",
    "source.url": "{v}",
    "source.base64_data": "{v}",
    "detail": "{v} is NOT_GIVEN or {v} in ('auto', 'low', 'high')",
    "filename": "{v} is NOT_GIVEN or (type({v}) is str and {v})",
    "media_type.inline": "type({v}) is str and {v}",
    "media_type.url": "{v} is NOT_GIVEN or (type({v}) is str and {v})",
    # validate._cache_control: a prompt-cache breakpoint is an object whose `type` is a string,
    # plain JSON throughout (it is sent as given)
    "cache_control": "{v} is NOT_GIVEN or (type({v}) is dict and type({v}.get('type')) is str and _v.is_plain_json({v}))",
}
_DST_NAME = re.compile(r"(?<![\w.])(_vm_\w+)\(")


_KEY_IN_MESSAGE: Final = re.compile(r"(?<=\+ )KEY\b|(?<![\w.])KEY(?= \+)")


def _dst_names(code: str) -> str:
    """Target-side code refers to the target module's value maps."""
    return _DST_NAME.sub(r"_dst.\1(", code)


@contextmanager
def _exact_only(out: Lines) -> Iterator[None]:
    """The lines written inside run only on the lossless variant (`request_with_losses`): behind
    `if exact:` (left out when nothing is written), so `request` passes them at the cost of a
    local test."""
    out.add("if exact:")
    start = len(out.lines)
    out.indent()
    yield
    out.dedent()
    if len(out.lines) == start:
        out.lines.pop()


def _emit_user_parts(s_em: "_Scoped", d_em: "_Scoped", exact: "_Exact") -> list[str] | None:
    """The body of `_user_parts(raw, exact)` (its shape: templates/functions/fused.jinja): the
    source's part dispatcher (its alternatives in its order), each part read by the source's part
    template and written by the target's, the canonical part rules checked on the way. None when
    the pair has nothing to gain (the source tells parts apart by keys, or the target joins them
    into text). With `exact` true (the lossless variant) it answers None also for a part the target
    would not carry as it is (its shape checked by `_exact_shape`) or would drop."""
    src, dst = s_em.ir, d_em.ir
    if src.part_dispatch != "literals" or dst.user.content not in ("always_parts", "string_or_parts"):
        return None
    alts = [(k, n) for k, n in s_em.part_templates() if k not in ("thinking", "redacted_thinking")]
    if src.tool_results.strategy == "group_into_user_message":
        alts.append(("tool_result", src.tool_results.template))
    joins = dst.user.content == "string_or_parts"
    out = Lines()
    branches = out.part()
    for i, cond in s_em.part_branches(branches, alts, bind=True, user=True):  # as the source's dispatcher tries them
        label, node = alts[i]
        target = dst.parts.get(label)
        by_scheme = "@" in label or any(k.startswith(label + "@") for k in dst.parts)
        if label == "tool_result" or by_scheme or not _part_fusable(label, node, target):  # a URL-scheme row: the canonical path
            shape(branches, "fused", "part_branch", cond=cond, canonical=True, exact=None, read=None, fields=(), ok=None, checks=None,
                  action=None, guards=None, prelude=None, expr=None, joins=joins, text=None, after=())
            continue
        checks_part = branches.part()
        if isinstance(target, str):  # strip or reject: the part does not arrive
            checks_part.add("return None")
        elif not isinstance(node, Obj):
            checks_part.add("return None")
        elif _infers(node, target):
            checks_part.add("return None  # the target infers a field the source does not give (from_url): it may read back otherwise")
        else:
            _exact_shape(checks_part, exact, node, "part", _slots_by_field(target))
        read: dict[str, str] = {}
        reader = branches.part()
        s_em.unmodeled(reader, label, "part", "path")
        s_em.read_node(reader, node, "part", "path", "part." + label, read, matched=s_em.pattern_matches(node))
        got: dict[str, str] = {}
        fields = []
        for name, value in read.items():  # each field once, as Any (the target's template casts)
            var = branches.fresh("f_" + name.replace(".", "_"))
            fields.append((var, value))
            got[name] = var
        inline = label.endswith(".inline")
        checks = []
        for name, var in got.items():
            rule = _PART_RULES["media_type." + ("inline" if inline else "url")] if name == "media_type" else _PART_RULES[name]
            checks.append("(" + rule.format(v=var) + ")")
        if inline and "media_type" not in got:
            checks.append("False")  # an inline part needs its media type (validate._media_block)
        ok = branches.fresh("ok") if checks else None  # through a flag: the target's template keeps its own view of the types
        inline_back = _inline_twin(label, target, dst.parts)
        if inline_back is not None and "source.url" in got and not isinstance(target, str):
            # the target writes a URL where its inline twin writes a pattern (`data:{media_type};base64,...`):
            # a URL of that form reads back as inline data, a loss the lossless variant leaves to the two-step way
            guard = f"{d_em.regex(inline_back)}.fullmatch({got['source.url']}) is not None" if isinstance(inline_back, str) else "True"
            checks_after = [f"if exact and type({got['source.url']}) is str and {guard}:", "    return None  # read back as inline data"]
        else:
            checks_after = []
        guards: str | None = None
        prelude: list[str] | None = None
        written_expr: str | None = None
        if not isinstance(target, str):
            assert target is not None  # _part_fusable: a template
            env = {name: got.get(name, "NOT_GIVEN") for name in CONTEXTS["part." + label]}
            guards = " and ".join(  # a field the target's template needs, absent: the target drops the part
                f"{env[slot.field]} is not NOT_GIVEN"
                for slot in slots_of(target)
                if CONTEXTS["part." + label][slot.field].optional and not slot.optional and not slot.has_default
            )
            written = Lines()
            written.level = 0
            written.counter = branches.counter + 500
            written_expr = _dst_names(d_em.build_node(written, target, env, "part." + label, "''"))
            prelude = [_dst_names(line) for line in written.lines]
        shape(
            branches, "fused", "part_branch", cond=cond, canonical=False, exact=checks_part, read=reader, fields=fields, ok=ok,
            checks=" and ".join(checks), action=target if isinstance(target, str) else None, guards=guards, prelude=prelude, expr=written_expr,
            joins=joins, text=got["text"] if label == "text" else "None", after=checks_after,
        )
    shape(out, "fused", "user_parts", joins=joins, branches=branches)
    return out.lines


def _inline_twin(label: str, target: Any, parts: dict[str, Any]) -> str | bool | None:
    """For a `.url` part kind: where the target's `.inline` twin writes its data into the wire key
    the URL template puts `{source.url}` in, the pattern its reader tells inline data by there (a
    URL matching it reads back as inline data); True when the twin puts a plain slot there (any
    URL may read back otherwise); None when no twin shares the key."""
    if not label.endswith(".url") or not isinstance(target, Obj):
        return None
    twin = parts.get(label[: -len(".url")] + ".inline")
    if not isinstance(twin, Obj):
        return None

    def where(node: Any, path: tuple[str, ...]) -> tuple[str, ...] | None:
        if isinstance(node, Slot) and node.field == "source.url":
            return path
        if isinstance(node, Obj):
            for key, child in node.items:
                found = where(child, path + (key,))
                if found is not None:
                    return found
        return None

    path = where(target, ())
    if path is None:
        return None
    node: Any = twin
    for key in path:
        if not isinstance(node, Obj):
            return None
        node = dict(node.items).get(key)
    if isinstance(node, Interp):
        return node.pattern()
    return True if isinstance(node, Slot) else None


def _infers(node: Any, target: Any) -> bool:
    """The target's part template fills a field from another (`{media_type?|from_url}`) that the
    source's template does not give: the value it writes is a guess, which the target may read
    back as another kind (a URL with no known extension) or with a field the source never said."""
    given = {s.field for s in slots_of(node)}
    return any(s.codec == "from_url" and s.field not in given for s in slots_of(target))


def _part_fusable(label: str, node: Any, target: Any) -> bool:
    """A part kind the one-pass path takes: no signature in the source's template (provider-bound
    data follows the origin rule of the canonical path) nor a required one in the target's (an
    optional one is left out, as the canonical path leaves out the signature the source never
    gave: Gemini's signed text parts), every field one the part rules know."""
    if isinstance(node, str) or any(s.field == "signature" for s in slots_of(node)):
        return False
    if target is None or (not isinstance(target, str) and any(s.field == "signature" and not s.optional for s in slots_of(target))):
        return False
    return all(s.field in _PART_RULES or s.field == "media_type" for s in slots_of(node))


class _Exact:
    """What the lossless variant (`request_with_losses`) checks, decided from both tables: a body
    takes it only when every construct in it is one the source's own writer says back as the
    body says it (no carried data: the carried-data residual is empty of losses) and the target
    writes and reads back unchanged (no canonical difference); anything else raises `_Deopt` and
    `translate_request` takes the two-step way, which computes the loss report. The module-level
    key sets its checks use are collected here (`_EXACT_<n>`)."""

    def __init__(self) -> None:
        self.sets: dict[tuple[str, ...], str] = {}
        self.plain: dict[tuple[str, tuple[str, ...]], str] = {}

    def key_set(self, keys: list[str]) -> str:
        key = tuple(sorted(set(keys)))
        if key not in self.sets:
            self.sets[key] = f"_EXACT_{len(self.sets) + 1}"
        return self.sets[key]

    def plain_keys(self, keys: list[str], stem: str = "_PLAIN_") -> str:
        """The module-level set of the keys a plain wire object may hold on a fast path of
        `request` (`_PLAIN_<n>`; `stem`: another kind of key set, numbered with them)."""
        key = (stem, tuple(sorted(set(keys))))  # a set of each kind has its own name, even of the same keys
        if key not in self.plain:
            self.plain[key] = f"{stem}{len(self.plain) + 1}"
        return self.plain[key]


def _carries(slot: Slot, dst_slots: dict[str, Slot] | None) -> bool:
    """A source template slot whose value the target writes and reads back as it is: the target's
    template for the same construct has a slot for its field, and neither side maps the value
    through a value map (JSON text is the same value in another form: no loss)."""
    if slot.codec not in (None, "json"):
        return False
    if dst_slots is None:
        return True
    other = dst_slots.get(slot.field)
    return other is not None and other.codec in (None, "json")


def _needed(slot: Slot, dst_slots: dict[str, Slot] | None) -> bool:
    """An optional source field the target's template needs (or fills with a default): absent,
    the target adds or refuses it, so the lossless path wants it present."""
    if dst_slots is None or not (slot.optional or slot.has_default):
        return False
    other = dst_slots.get(slot.field)
    return other is not None and (not other.optional or other.has_default)


#: what a fast path's reading (`_walk_plain`) has proven of a wire object, by the identity of its
#: template node: the keys the object may hold (no other), and those it holds with a value that is
#: not null (its literals as the template writes them, its nested objects, the fields read as
#: values that cannot be null)
Walked = dict[int, tuple[frozenset[str], frozenset[str]]]


def _exact_shape(
    out: Lines, exact: _Exact, node: Obj, var: str, dst_slots: dict[str, Slot] | None, structural: frozenset[str] = frozenset(),
    matched: frozenset[str] = frozenset(), nullable: str | None = None, walked: Walked | None = None,
) -> None:
    """Lossless variant: the wire object `var` (a dict the source's reader took) holds only the keys
    the source's template `node` reads, each literal as the template writes it, and no field the
    target cannot carry (`dst_slots`: the target template's slots by field; None: any): then the
    source's re-write says it as the body does and the target reads it back unchanged. Keys whose
    slot field is in `structural` (content, tool_calls) are checked by the caller; literals under
    the keys in `matched` (the role a message was dispatched on) are known equal already.

    `walked`: where a fast path has read the object already (`_walk_plain`), what it proved is not
    checked again: the keys it allows that the target carries, its literals, its nested objects
    being objects, and the nulls of the keys it read as values that cannot be null. Only what the
    walk leaves open is written, so a plain object usually costs no check at all."""
    proven = walked.get(id(node)) if walked is not None else None
    keys_held, non_null = proven if proven is not None else (None, frozenset())
    allowed: list[str] = []
    for key, child in node.items:
        if isinstance(child, Lit):
            allowed.append(key)
            value = child.value
            if key in matched or key in non_null:
                continue
            if isinstance(value, str):
                out.add(f"if {var}.get({lit(key)}, {lit(value)}) != {lit(value)}:  # the source writes this literal")
            else:
                out.add(f"if {lit(key)} in {var} and ({var}[{lit(key)}] != {lit(value)} or type({var}[{lit(key)}]) is not {type(value).__name__}):")
            out.add("    raise _Deopt")
        elif isinstance(child, Slot):
            if child.field in structural:
                allowed.append(key)
            elif _carries(child, dst_slots):
                allowed.append(key)
                if _needed(child, dst_slots) and key not in non_null:
                    out.add(f"if {lit(key)} not in {var}:  # the target needs it")
                    out.add("    raise _Deopt")
        elif isinstance(child, Interp):
            if all(_carries(s, dst_slots) for s in child.slots):
                allowed.append(key)
        elif isinstance(child, Obj):
            allowed.append(key)
            if key in non_null:  # an object, read by the walk: only what it left open inside
                sub = out.fresh("sub")
                inner = out.part()
                _exact_shape(inner, exact, child, sub, dst_slots, structural, walked=walked)
                if inner.lines:
                    out.add(f"{sub} = {var}[{lit(key)}]")
                    out.lines.extend("    " * out.level + line for line in inner.lines)
                continue
            if any(s.field not in structural and _needed(s, dst_slots) for s in slots_of(child)):
                out.add(f"if {lit(key)} not in {var}:  # the target needs a field inside it")
                out.add("    raise _Deopt")
            if keys_held is not None and key not in keys_held:  # the walk allows no such key
                continue
            sub = out.fresh("sub")
            out.add(f"if {lit(key)} in {var}:")
            out.indent()
            out.add(f"{sub} = {var}[{lit(key)}]")
            out.add(f"if type({sub}) is not dict:")
            out.add("    raise _Deopt")
            _exact_shape(out, exact, child, sub, dst_slots, structural, walked=walked)
            out.dedent()
        # any other node (an array template): its key is not on the lossless path
    # a null the reader takes for absent is carried data for the source's own wire: the two-step way
    # (but at `nullable`, a key whose null the reader reads into the canonical record: the caller checks it)
    nulls = f"None in {var}.values()"
    if nullable is not None:
        nulls = f"({nulls} and ({var}.get({lit(nullable)}, 0) is not None or sum(v is None for v in {var}.values()) > 1))"
    tests = []
    if keys_held is None or not keys_held.issubset(allowed):
        tests.append(f"not {exact.key_set(allowed)}.issuperset({var})")
    if keys_held is None or not keys_held.issubset(non_null | {nullable}):  # (a lone null at `nullable` is read)
        tests.append(nulls)
    if tests:
        out.add(f"if {' or '.join(tests)}:  # a key the target cannot carry, or the source carries")
        out.add("    raise _Deopt")


def _slots_by_field(node: Any) -> dict[str, Slot]:
    return {s.field: s for s in slots_of(node)} if node is not None and not isinstance(node, str) else {}


#: a message's `role` literal, which the reader's dispatch (`if role == ...`) has matched already
_ROLE: Final = frozenset({"role"})


def _slot_key(node: Any, field: str) -> str | None:
    """The key of `node` (an object template) whose value is the slot of `field`."""
    if not isinstance(node, Obj):
        return None
    return next((k for k, c in node.items if isinstance(c, Slot) and c.field == field), None)


def _exact_message(o: Lines, exact: _Exact, src: FormatIR, dst: FormatIR, role: str, env: dict[str, str]) -> None:
    """Lossless variant: the checks on one message the source's reader took (`message`), before it
    is written: its shape (`_exact_shape`, against the target's template of the same role), its
    content said as a string, its tool calls each as the source's template says them."""
    if role == "system":
        node = src.system.template
        if src.system.strategy == "inline" and isinstance(node, Obj):
            dst_slots = _slots_by_field(dst.system.template) if dst.system.strategy == "inline" else {}
            # `developer` (read_also) is read as `system`, which the source writes back: its literal is checked
            _exact_shape(o, exact, node, "message", dst_slots, frozenset({"content"}), frozenset() if src.system.read_also else _ROLE)
            o.add(f"if type(message.get({lit(_slot_key(node, 'content'))})) is not str:  # parts: joined into one string")
            o.add("    raise _Deopt")
    elif role == "user":
        if "list" in env:  # tool results among a user message's parts (checked in the user list hook too)
            o.add("raise _Deopt")
            return
        o.add(f"if type({env['content']}) is not str:")
        o.add("    raise _Deopt")
    elif role == "assistant":
        content_key = _slot_key(src.assistant.template, "content")
        # `content: null` beside tool calls (what the OpenAI SDKs send) is read as the canonical None
        _exact_shape(
            o, exact, src.assistant.template, "message", _slots_by_field(dst.assistant.template), frozenset({"content", "tool_calls"}), _ROLE,
            nullable=content_key,
        )
        c, calls = env["content"], env["tool_calls"]
        blocks = _exact_assistant_blocks(o, exact, src, dst, c)
        o.add(f"{'elif' if blocks else 'if'} {c} is not NOT_GIVEN and (type({c}) is not str or not {c}) and ({c} is not None or {calls} is NOT_GIVEN):  # text, said as one string")
        o.add("    raise _Deopt")
        o.add(f"if {calls} is not NOT_GIVEN:")
        o.indent()
        calls_key = _slot_key(src.assistant.template, "tool_calls")
        if blocks and src.tool_calls.placement == "content_blocks":
            checked = True  # each checked among the content blocks
        elif src.tool_calls.placement != "field" or calls_key is None or not isinstance(src.tool_calls.template, Obj):
            o.add("raise _Deopt")
            checked = False
        else:
            checked = True
            raw = o.fresh("raw_calls")
            o.add(f"{raw} = message.get({lit(calls_key)})")
            o.add(f"if type({raw}) is not list or not {raw}:")
            o.add("    raise _Deopt")
            o.add(f"for call_raw in {raw}:")
            o.indent()
            o.add("if type(call_raw) is not dict:")
            o.add("    raise _Deopt")
            _exact_shape(o, exact, src.tool_calls.template, "call_raw", _slots_by_field(dst.tool_calls.template))
            o.dedent()
        if checked:
            o.add(f"for call in {calls}:")
            o.indent()
            o.add("if type(call.arguments) is not dict:")
            o.add("    raise _Deopt")
            if dst.tool_calls.unique_ids:
                o.add("if call.id in exact_ids:  # reused: the target renames it")
                o.add("    raise _Deopt")
                o.add("exact_ids.add(call.id)")
            o.dedent()
        o.dedent()
    else:
        if src.tool_results.strategy == "group_into_user_message":  # each checked by _exact_results
            o.add(f"if type({env['message']}.content) is not str:")
            o.add("    raise _Deopt")
            return
        if not isinstance(src.tool_results.template, Obj):
            o.add("raise _Deopt")
            return
        _exact_shape(o, exact, src.tool_results.template, "message", _slots_by_field(dst.tool_results.template), frozenset({"content"}), _ROLE)
        m = env["message"]
        o.add(f"if type({m}.content) is not str or not {m}.content:")
        o.add("    raise _Deopt")
        content_key = _slot_key(src.tool_results.template, "content")
        if content_key is not None:
            # parts the reader joins into one string (a malformed one carried for the source's wire):
            # the source re-writes a string, so the body says it in another form
            o.add(f"if type(message.get({lit(content_key)})) is not str:")
            o.add("    raise _Deopt")


def _exact_results(o: Lines, exact: _Exact, src: FormatIR, dst: FormatIR, raw: str) -> bool:
    """Lossless variant: a user message whose parts are all tool results (Anthropic's answer to
    its tool calls), each as the source's template says it, its content a non-empty string, with
    nothing the target's template lacks: the generic reader after it splits them into tool
    messages. False when the source has no such form (the list then leaves the path)."""
    node = src.tool_results.template
    kind = _type_literal(node)
    key = _slot_key(node, "content")
    if src.tool_results.strategy != "group_into_user_message" or not isinstance(node, Obj) or kind is None or key is None:
        return False
    # the source's own re-write joins a run of tool results into one message: a second message of
    # them right after the first says the conversation in another form, which the source carries
    o.add("if last == 'tool':")
    o.add("    raise _Deopt")
    o.add(f"for result_raw in {raw}:  # tool results only: split into tool messages below")
    o.indent()
    o.add(f"if type(result_raw) is not dict or result_raw.get('type') != {lit(kind)}:")
    o.add("    raise _Deopt")
    _exact_shape(o, exact, node, "result_raw", _slots_by_field(dst.tool_results.template), frozenset({"content"}))
    o.add(f"text = result_raw.get({lit(key)})")
    o.add("if type(text) is not str or not text:")
    o.add("    raise _Deopt")
    o.dedent()
    return True


def _type_literal(node: Any) -> Any:
    """The `type` literal of a part or block template (None: it has none)."""
    if not isinstance(node, Obj):
        return None
    return next((c.value for k, c in node.items if k == "type" and isinstance(c, Lit)), None)


def _exact_assistant_blocks(o: Lines, exact: _Exact, src: FormatIR, dst: FormatIR, content: str) -> bool:
    """Lossless variant: an assistant content given as a list of blocks (Anthropic's form): text
    blocks, then (where the source places them there) tool-call blocks, each as the source's
    template says it and with nothing the target's template lacks; False when the source has no
    such form this path takes (a list then leaves it)."""
    key = _slot_key(src.assistant.template, "content")
    text_node = src.parts.get("text")
    text_type = _type_literal(text_node)
    call_node = src.tool_calls.template if src.tool_calls.placement == "content_blocks" else None
    call_type = _type_literal(call_node)
    if key is None or not isinstance(text_node, Obj) or text_type is None or src.assistant.content not in ("always_parts", "string_or_parts"):
        return False
    o.add(f"if type({content}) is list:  # blocks: text first, then tool calls")
    o.indent()
    raw = o.fresh("raw_blocks")
    o.add(f"{raw} = message.get({lit(key)})")
    o.add(f"if type({raw}) is not list or not {raw}:")
    o.add("    raise _Deopt")
    o.add("calls_seen = False")
    o.add(f"for block in {raw}:")
    o.indent()
    o.add("if type(block) is not dict:")
    o.add("    raise _Deopt")
    o.add("kind = block.get('type')")
    o.add(f"if kind == {lit(text_type)}:")
    o.indent()
    o.add("if calls_seen:  # text after a call: the source's re-write orders them")
    o.add("    raise _Deopt")
    _exact_shape(o, exact, text_node, "block", _slots_by_field(dst.parts.get("text")))
    o.dedent()
    if isinstance(call_node, Obj) and call_type is not None:
        o.add(f"elif kind == {lit(call_type)}:")
        o.indent()
        o.add("calls_seen = True")
        _exact_shape(o, exact, call_node, "block", _slots_by_field(dst.tool_calls.template))
        o.dedent()
    o.add("else:")
    o.add("    raise _Deopt")
    o.dedent()
    o.add(f"for text_block in {content}:")
    o.add("    if type(text_block) is not TextBlock or not text_block.text:")
    o.add("        raise _Deopt")
    o.dedent()
    return True


def _plain_option(opt: Any, ir: FormatIR, target: bool = False) -> bool:
    """An option row that writes and reads the value as it is, in one place: no value map, no
    negation, no condition, no model rule, no derived value, no header, not dropped. On the
    source's side the field is top-level or alone in an object one level deep (the pass reads
    it in place); the target's writer puts a nested field where its reader reads it back, in an
    object beside other options too (Gemini's `generationConfig`)."""
    if opt is None or opt.wire is None:
        return False
    # (`merge` acts on config.extras, which this path never has; a `maximum` refuses a larger value)
    if opt.values or opt.negate or opt.requires or opt.header or opt.derive is not None or opt.with_keys:
        return False
    if opt.model_rules or opt.unsupported is not None or (opt.read_also and "." in opt.wire):
        return False
    if "." in opt.wire:
        root = opt.wire.split(".")[0]
        if root in (ir.tool_choice.field, ir.tools.field, ir.messages_field, ir.model_field, ir.system.field):
            return False
        if target:
            return True
        if opt.wire.count(".") > 1:
            return False
        if any(o is not opt and o.wire is not None and o.wire.split(".")[0] == root for o in ir.options):
            return False  # the object holds another option too
    return True


def _exact_options(out: Lines, src: FormatIR, dst: FormatIR, read: set[str]) -> None:
    """Lossless variant: an option is on it only when both rows are plain (`_plain_option`); a
    target default stands in for an absent one (an added loss), a derived value for a set one."""
    dst_by = {opt.name: opt for opt in dst.options}
    for opt in src.options:
        if opt.wire is None or opt.requires == "response_schema":
            continue
        var = f"value_{opt.name}"
        other = dst_by.get(opt.name)
        if not (_plain_option(opt, src) and _plain_option(other, dst, target=True)):
            out.add(f"if {var} is not NOT_GIVEN:  # {opt.name}: the target does not carry it as it is")
            out.add("    raise _Deopt")
            continue
        assert other is not None
        if opt.merge_coerce_string:
            names = " or ".join(f"type(src_body.get({lit(w)})) is str" for w in (opt.wire, *opt.read_also))
            out.add(f"if {names}:  # the scalar form: the source re-writes a list")
            out.add("    raise _Deopt")
        if other.has_default and other is not _default_loss(dst):
            out.add(f"if {var} is NOT_GIVEN:  # {opt.name}: the target adds its default")
            out.add("    raise _Deopt")
    default = _default_loss(dst)
    if default is not None:  # (`added` starts empty: `_emit_request_body`)
        out.add(f"if value_{default.name} is NOT_GIVEN:")
        out.add(f"    added = (({lit('config.' + default.name)}, {lit(default.default)}),)")
    for opt in dst.options:
        if opt.derive is not None and opt.derive.source in read and opt.name not in read:
            out.add(f"if value_{opt.derive.source} is not NOT_GIVEN:  # the target derives {opt.name} from it")
            out.add("    raise _Deopt")


def _default_loss(dst: FormatIR) -> Any:
    """The target's one option row with a default, when it has exactly one and the default is a
    scalar: an absent value is written as that default, and the loss report's one entry for it is
    `config.<name>` added (the canonical diff of the read-back, which has it, against the source's
    record, which has not). None: any default leaves the lossless path."""
    defaults = [opt for opt in dst.options if opt.has_default]
    if len(defaults) == 1 and type(defaults[0].default) in (int, float, str, bool):
        return defaults[0]
    return None


def _exact_tool_choice(out: Lines, exact: _Exact, src: FormatIR, dst: FormatIR) -> None:
    """Lossless variant: the tool_choice value as the source's mode template says it, in a mode the
    target has (`tool_choice` is the canonical value, `src_body[field]` the wire one)."""
    raw = out.fresh("raw_choice")
    out.add(f"{raw} = src_body[{lit(src.tool_choice.field)}]")
    if dst.tool_choice.requires_tools:
        out.add("if tools is NOT_GIVEN:")
        out.add("    raise _Deopt")
    first = True
    for mode, node in src.tool_choice.modes.items():
        target = dst.tool_choice.modes.get(mode)
        if target is None or mode in dst.tool_choice.special or not isinstance(node, (Lit, Obj)):
            continue
        cond = "type(tool_choice) is ForcedTool" if mode == "tool" else f"tool_choice == {lit(mode)}"
        out.add(f"{'if' if first else 'elif'} {cond}:")
        first = False
        out.indent()
        if isinstance(node, Lit):
            out.add(f"if {raw} != {lit(node.value)} or type({raw}) is not {type(node.value).__name__}:")
            out.add("    raise _Deopt")
        else:
            out.add(f"if type({raw}) is not dict:")
            out.add("    raise _Deopt")
            _exact_shape(out, exact, node, raw, _slots_by_field(target))
        out.dedent()
    if first:
        out.add("raise _Deopt")
    else:
        out.add("else:")
        out.add("    raise _Deopt")


def _emit_request_body(s_em: "_Scoped", d_em: "_Scoped", exact: "_Exact") -> tuple[list[str], set[str], list[str] | None]:
    """The body of `request(src_body, _losses)`, the one pass both `request` and
    `request_with_losses` run (its shape: templates/functions/fused.jinja): with `exact` true
    (`_losses` given) it also checks that the target carries the body without a loss (the
    `_exact_*` fragments); the source body keys it reads; and the body of its `_user_parts`
    function (None: none)."""
    src, dst = s_em.ir, d_em.ir
    out = Lines()
    hoist = dst.system.strategy == "hoist"
    grouped = dst.tool_results.strategy == "group_into_user_message"
    from_call = dst.tool_results.name == "from_call"
    read_names = {opt.name for opt in src.options if opt.wire is not None}
    added = [  # the target adds them to every body: a loss the two-step way reports
        opt.name for opt in dst.options if opt.name not in read_names and (opt.has_default or opt.required) and opt is not _default_loss(dst)
    ]
    shape(
        out, "fused", "head",
        # keys no table names are carried data, never written to another provider's wire: left out
        carried=_carried_away(src, dst),
        model_field=src.model_field, messages_field=src.messages_field, hoist=hoist, grouped=grouped, from_call=from_call,
        added=", ".join(added), exact_ids=dst.tool_calls.unique_ids, sorted_json=dst.rules.json_keys == "sorted",
    )
    known = {src.model_field, src.messages_field, src.tools.field, src.tool_choice.field}

    def sink(o: Lines, role: str, env: dict[str, str]) -> None:
        checks = o.part()
        _exact_message(checks, exact, src, dst, role, env)
        if role == "system":
            shape(o, "fused", "sink_system", exact=checks, content=env["content"], hoist=hoist, grouped=grouped)
        elif role == "user":
            c = env["content"]
            inline = Lines()
            inline.level = 0
            inline.counter = o.counter + 700
            message = None
            if "list" not in env:  # the target's string case, inline
                text = text_content(d_em, inline, "user", c)
                if text is not None and not inline.lines:
                    message = _dst_names(build_message(d_em, inline, dst.user.template, {"content": text}, "message.user"))
            shape(
                o, "fused", "sink_user", exact=checks, content=c, blocks="list" in env,
                inline=[_dst_names(line) for line in inline.lines], message=message, grouped=grouped,
            )
        elif role == "assistant":
            # a target that says one text part as a string (`string_or_parts`) takes a lone plain
            # text block as that string, inline, as its content writer would
            single_text = dst.assistant.content == "string_or_parts" and isinstance(dst.parts.get("text"), Obj)
            shape(
                o, "fused", "sink_assistant", exact=checks, content=env["content"], calls=env["tool_calls"], grouped=grouped,
                from_call=from_call, single_text=single_text,
            )
        else:
            shape(o, "fused", "sink_tool", exact=checks, message=env["message"], grouped=grouped, from_call=from_call)

    if src.system.strategy == "hoist":
        f = src.system.field
        assert f is not None
        known.add(f)
        system_sink = out.part()
        sink(system_sink, "system", {"content": "system"})
        src_fields = block_fields(src) if src.system.blocks is not None else []
        shape(
            out, "fused", "source_system", field=f, sink=system_sink, blocks=src.system.blocks is not None,
            kept=" or ".join(f"m.{x} is not NOT_GIVEN" for x in src_fields) or "False",
            fields=bool(src_fields) and dst.system.blocks is not None,
        )
    out.add("for message in items:")
    out.indent()
    out.add("if type(message) is not dict:")
    out.add("    raise _Deopt")
    out.add("role = message.get('role')")
    parts_fn = _emit_user_parts(s_em, d_em, exact)

    def user_list(o: Lines, raw: str) -> None:
        checks = o.part()
        _exact_shape(checks, exact, src.user.template, "message", _slots_by_field(dst.user.template), frozenset({"content"}), _ROLE)
        if parts_fn is None:
            checks.add(f"if type({raw}) is list:")
            checks.add("    raise _Deopt")
        results, prelude = o.part(), o.part()
        message = None
        if parts_fn is not None:
            _exact_results(results, exact, src, dst, raw)
            message = _dst_names(build_message(d_em, prelude, dst.user.template, {"content": "wire_content"}, "message.user"))
        fast = _results_fast(src, dst) if parts_fn is not None else None
        shape(
            o, "fused", "user_list", exact=checks, raw=raw, has_parts=parts_fn is not None, results=results, prelude=prelude, message=message,
            grouped=grouped, fast=fast,
        )

    def on_name(o: Lines, key: str) -> None:  # a named message (OpenAI Chat `name`): the two-step way
        o.add(f"if {lit(key)} in message:")
        o.add("    raise _Deopt")

    emit_role_readers(
        s_em, out, sink, user_list, on_name, _assistant_first(d_em, src, dst, exact, grouped, from_call), _tool_first(src, dst, exact, grouped, from_call),
    )
    if _carried_away(src, dst):  # the reader carries it for its own wire, which this target is not
        out.add("if exact:  # an item or role no row reads: a loss")
        out.add("    raise _Deopt")
        out.add("continue  # an item or role no row reads: carried for the source's wire, left out here")
    else:
        out.add("raise _Deopt  # a role the source refuses")
    out.dedent()
    out.add("if last != 'user' and last != 'tool':  # §5: the last message is user or tool")
    out.add("    raise _Deopt")

    # options: read as the source reads them, checked as the canonical model checks them
    read = {opt.name for opt in src.options if opt.wire is not None}
    for opt in dst.options:  # the target's rows that act on an option the source never sets
        if opt.name not in read and (opt.has_default or opt.required):
            out.add(f"value_{opt.name}: Any = NOT_GIVEN")
    for opt in src.options:
        if opt.wire is None:
            continue
        row: dict[str, Any] = {"name": opt.name, "negate": opt.negate}
        if opt.requires == "response_schema":  # inside the structured-output object: a body with it goes the two-step way
            row["form"] = "schema"
        elif "." in opt.wire:  # one object deep (fused_blockers): read in place
            if opt.read_also:
                raise ValueError("a nested fused option reads one name")  # fused_blockers keeps this out
            root, leaf = opt.wire.split(".")
            choice = root == src.tool_choice.field  # the tool_choice reader reads that object itself
            if not choice:
                known.add(root)
            row.update(
                form="nested", root=root, leaf=leaf, allowed=None if choice else exact.plain_keys(sorted({leaf, *opt.with_keys})),
                with_literals=[] if choice else sorted(opt.with_keys.items()),  # read back as the row's only when they hold it
                optional=choice,  # the leaf beside the mode is optional; without its leaf, the rest of the object is the two-step path's
                values=s_em.table(dict(opt.values)) if opt.values else None,
                keep=opt.name in STRING_OPTIONS,  # as _w.spelled: an unlisted string is read as given
            )
        else:
            names = (opt.wire, *opt.read_also)
            known.update(names)
            row.update(form="top", names=names, coerce=opt.merge_coerce_string)
        row["check"] = _OPTION_CHECKS.get(opt.name)
        # a null option: the source's reader carries it for its own wire (unset here), or, a source
        # without `unknown: carry` (the openarmature.* dialects), takes it as an extra it forwards
        row["null_unset"] = _carried_away(src, dst)
        shape(out, "fused", "option", o=SimpleNamespace(**row))

    out.add("added: tuple[tuple[str, Any], ...] = ()  # the target's default for an absent option: an added loss")
    with _exact_only(out):
        _exact_options(out, src, dst, read)

    # tools and tool_choice: the source's readers, the canonical checks
    exact_tools, exact_choice = out.part(), out.part()
    if isinstance(src.tools.template, Obj):
        dst_slots = _slots_by_field(dst.tools.template)
        if "as_given" != src.tools.strict or dst.tools.strict != "as_given":
            # a side that closes strict schemas rewrites them: the target's write, or the source's own
            # re-write, whose difference from the body the two-step report names (finding 31)
            dst_slots.pop("strict", None)
        exact_tools.add("if not raw_tools:  # an empty list: the target leaves it out")
        exact_tools.add("    raise _Deopt")
        exact_tools.add("for tool in raw_tools:")
        exact_tools.indent()
        _exact_shape(exact_tools, exact, src.tools.template, "tool", dst_slots)
        exact_tools.dedent()
    else:
        exact_tools.add("raise _Deopt")
    _exact_tool_choice(exact_choice, exact, src, dst)
    fast_tools = _tools_fast(d_em, src, dst, exact)
    if fast_tools is not None:  # the lossless variant's check of each tool, in the fast loop too
        assert isinstance(src.tools.template, Obj)  # _tools_fast reads an object template only
        exact_tool, exact_plain = out.part(), out.part()
        _exact_shape(exact_tool, exact, src.tools.template, "tool", dst_slots)
        # a tool the loop read as plain: only what its reading left open
        _exact_shape(exact_plain, exact, src.tools.template, "tool", dst_slots, walked=fast_tools["walked"])
        fast_tools["exact"], fast_tools["exact_plain"] = exact_tool, exact_plain
    shape(
        out, "fused", "tools", tools_field=src.tools.field, choice_field=src.tool_choice.field, exact_tools=exact_tools, exact_choice=exact_choice,
        carry=_carried_away(src, dst), fast=fast_tools,
    )

    # the target body, in the order the target's request_to_wire builds it
    out.add("body: dict[str, Any] = {}")
    out.add(assign(dst, dst.model_field, "model"))
    if hoist:
        out.add("if system_texts:")
        out.indent()
        joined = lit(dst.system.join) + ".join(system_texts)"
        if dst.system.hoist_template is not None:  # through the `wire` template, as request_to_wire writes it
            out.add(f"system_text = {joined}")
            prelude = Lines()
            prelude.level = out.level
            prelude.counter = out.counter + 900
            joined = d_em.build_node(prelude, dst.system.hoist_template, {"content": "system_text"}, "message.system", "'messages'")
            out.lines.extend(_dst_names(line) for line in prelude.lines)
        out.add(assign(dst, dst.system.field or "system", _dst_names(joined)))
        out.dedent()
    out.add(assign(dst, dst.messages_field, "wire_messages"))
    out.add("dropped: list[str] = []  # options dropped with a warning, warned once the body is built")
    start = len(out.lines)
    emit_options_to_wire(d_em, out, bind=False, warn_into="dropped", only=read, extras=False, phase=0)
    emit_tools_to_wire(d_em, out, ref="_dst.", written="tools_written" if fast_tools is not None else None)
    emit_options_to_wire(d_em, out, bind=False, warn_into="dropped", only=read, extras=False, phase=1)
    emit_options_to_wire(d_em, out, bind=False, warn_into="dropped", only=read, extras=False, phase=2)
    # the target's option messages name the target (lines.keyed writes `KEY`, which here is the source's)
    out.lines[start:] = [_KEY_IN_MESSAGE.sub("_dst.KEY", line) for line in out.lines[start:]]
    shape(out, "fused", "tail")
    return out.lines, known, parts_fn


def _target_written(d_em: Any, node: Any, env: dict[str, str], context: str, counter: int, copy: str | None = None) -> tuple[list[str], str, bool] | None:
    """The target's template `node` written from `env` as its own writer (`_tool_call_to_wire`,
    `_tool_to_wire`) writes it, user JSON through validation's memo (`json_memo`), its module's
    names reached through `_dst`: (prelude lines, expression, whether it writes validation's
    copy of the local `copy`, which then holds that copy). None where the written code takes
    anything else from the memo: the canonical way."""
    written = Lines()
    written.level = 0
    written.counter = counter  # apart from the pass's own names
    d_em.json_memo = True
    try:
        expr = d_em.build_node(written, node, env, context, "path")
    finally:
        d_em.json_memo = False
    copies = False
    if copy is not None:
        sent = f"_w.memo_json({copy}, memo)"  # validation's copy, which the writer takes out of the memo
        copies = sent in expr or any(sent in line for line in written.lines)
        expr = expr.replace(sent, copy)
        written.lines = [line.replace(sent, copy) for line in written.lines]
    if "memo" in expr or any("memo" in line for line in written.lines):
        return None
    return [_dst_names(line) for line in written.lines], _dst_names(expr), copies


def _plain_slot(node: Obj, key: str) -> bool:
    """The value at `key` of `node` is a required slot read and written as it is (no codec, no
    default)."""
    child = dict(node.items).get(key)
    return isinstance(child, Slot) and not child.optional and child.codec is None and not child.has_default


def _assistant_first(d_em: Any, src: FormatIR, dst: FormatIR, exact: _Exact, grouped: bool, from_call: bool) -> Any:
    """The `assistant_first` hook of `emit_role_readers` (None: this pair has none): an assistant
    message written without the canonical read where it is plain (each object the source's
    template with its literals and its fields, nothing else):

    - one text block, for a target that says a lone text part as a string (`string_or_parts`):
      the string the sink makes of the TextBlock the reader would give (`lone_text`), written by
      the target's `_assistant_to_wire`; after plain signed thinking blocks too, where the
      target's content writer strips them (`_stripped_thinking`);
    - where the source's tool calls are content blocks and the target's a field of its own
      (`call_blocks`): at most one text block and tool-call blocks;
    - where the source's tool calls are a field of their own (`field_calls`): a text or no
      content, and tool calls.

    The calls are checked as `validate.check_assistant` checks them (ids and names non-empty
    strings, ids unique in the turn, arguments a JSON object, plain JSON), each written by the
    target's tool-call template and the message by its assistant template, as its
    `_assistant_to_wire` writes them. Anything else leaves the message to the reader, which names
    any error. The lossless variant takes the reader's way (its checks are there)."""
    lone = _lone_text(src, dst)
    blocks = _call_blocks(d_em, src, dst) if lone is not None else None
    field = _field_calls(d_em, src, dst, exact)
    if lone is None and field is None:
        return None

    def first(o: Lines) -> None:
        if lone is not None:
            shape(o, "fused", "lone_text", grouped=grouped, **lone)
        if blocks is not None:
            assert lone is not None
            shape(o, "fused", "call_blocks", kind=lone["kind"], text_key=lone["text_key"], grouped=grouped, from_call=from_call, **blocks)
        if field is not None:
            shape(o, "fused", "field_calls", grouped=grouped, from_call=from_call, **field)

    return first


def _tool_first(src: FormatIR, dst: FormatIR, exact: _Exact, grouped: bool, from_call: bool) -> Any:
    """The `tool_first` hook of `emit_role_readers` (None: this pair has none): a tool message of
    its own role (OpenAI Chat's) holding exactly its role, its call id and a string content,
    written by the target's `_tool_result_to_wire` without the canonical ToolMessage, checked as
    validate.check_tool_message checks it (it answers an earlier call). Anything else: the
    reader's way. The lossless variant checks it as `_exact_message` does for the reader's way."""
    node = src.tool_results.template
    if src.tool_results.strategy != "message" or not isinstance(node, Obj) or src.tool_results.content != "text":
        return None
    id_key, content_key = _slot_key(node, "tool_call_id"), _slot_key(node, "content")
    if id_key is None or content_key is None or not _plain_slot(node, id_key) or not _plain_slot(node, content_key):
        return None
    if any(k not in (id_key, content_key) and not (k == "role" and isinstance(c, Lit)) and not (isinstance(c, Slot) and c.optional) for k, c in node.items):
        return None

    checks = Lines()
    checks.level = 0
    checks.counter = 1200
    _exact_shape(checks, exact, node, "message", _slots_by_field(dst.tool_results.template), frozenset({"content"}), _ROLE)

    def first(o: Lines) -> None:
        shape(o, "fused", "tool_first", id_key=id_key, content_key=content_key, grouped=grouped, from_call=from_call, exact=checks)

    return first


def _lone_text(src: FormatIR, dst: FormatIR) -> dict[str, Any] | None:
    """For `_assistant_first`: the `lone_text` shape's arguments (the source's content key, its
    text part's `type` literal and text key), or None where this pair has no such path."""
    node, text_node = src.assistant.template, src.parts.get("text")
    content_key, kind = _slot_key(node, "content"), _type_literal(text_node)
    text_key = _slot_key(text_node, "text")
    if dst.assistant.content != "string_or_parts" or not isinstance(dst.parts.get("text"), Obj):
        return None
    if src.assistant.content not in ("always_parts", "string_or_parts") or content_key is None or kind is None or text_key is None:
        return None
    assert isinstance(node, Obj) and isinstance(text_node, Obj)
    # every other key of the message template is an optional slot (an absent one reads as unset)
    if any(k != content_key and not (k == "role" and isinstance(c, Lit)) and not (isinstance(c, Slot) and c.optional) for k, c in node.items):
        return None
    if not _plain_slot(node, content_key) or not _plain_slot(text_node, text_key):
        return None
    if any(k not in ("type", text_key) and not (isinstance(c, Slot) and c.optional) for k, c in text_node.items):
        return None
    return {"content_key": content_key, "kind": kind, "text_key": text_key, "thinking": _stripped_thinking(src, dst)}


def _stripped_thinking(src: FormatIR, dst: FormatIR) -> dict[str, str] | None:
    """For `lone_text`: thinking blocks before the text that the target's content writer strips
    (its `thinking` part is `strip`: OpenAI Chat's), each plain -- the source's template of
    exactly its `type` literal, its text and its signature, both strings -- so the reader's
    ThinkingBlock passes validate.check_assistant (`_thinking_block`: a string text, a signed
    block may have none; a string signature) and the target writes nothing of it; or None."""
    node, target = src.parts.get("thinking"), dst.parts.get("thinking")
    kind = _type_literal(node)
    if target != "strip" or not isinstance(node, Obj) or kind is None:
        return None
    text_key, signature_key = _slot_key(node, "text"), _slot_key(node, "signature")
    if text_key is None or signature_key is None or len(node.items) != 3:
        return None
    if not _plain_slot(node, text_key) or not _plain_slot(node, signature_key):
        return None
    return {"kind": kind, "text_key": text_key, "signature_key": signature_key}


def _walk_plain(
    read: Lines, exact: _Exact, node: Obj, var: str, fields: dict[str, list[str]], got: dict[str, str], prefix: str,
    walked: Walked, takes_null: frozenset[str] = frozenset(), carried: str | None = None,
) -> bool:
    """Reading code for a plain wire object `var` per its template `node`, for a fast path inside
    a loop (`break` leaves it): no key the template does not name, each literal as it says, each
    nested object an object, each slot's field read by its lines in `fields` (`{v}`: its value,
    bound to `<prefix><field>` and recorded in `got`; those in `takes_null` take a null for
    absent, the others refuse it). False where the template has something else (an array, a
    codec, a field `fields` does not name): no fast path. What it proves of each object is
    recorded in `walked` (for `_exact_shape`). `carried` (the name of a set of the keys the source's
    reader looks at in this object): other keys of `var` itself, with values `_w.carried_only`
    vouches for, are the source wire's carried data, which the two-step way drops into this
    target: left out here too (not on the lossless variant, where each is a loss)."""
    keys = [k for k, c in node.items if not (isinstance(c, Slot) and c.optional and c.field not in fields)]
    non_null: list[str] = []
    plain = exact.plain_keys(keys)
    read.add(f"if len({var}) > {len(keys)} or not {plain}.issuperset({var}):  # another key: the canonical way")
    if carried is None:
        read.add("    break")
    else:
        read.add(f"    if exact or not _w.carried_only({var}, {plain}, {carried}):  # unless no row reads it: carried, dropped here")
        read.add("        break")
    for key, child in node.items:
        if isinstance(child, Lit):
            read.add(f"if {var}.get({lit(key)}) != {lit(child.value)}:")
            read.add("    break")
            if child.value is not None:
                non_null.append(key)
        elif isinstance(child, Obj):
            sub = read.fresh("sub")
            read.add(f"{sub} = {var}.get({lit(key)})")
            read.add(f"if type({sub}) is not dict:")
            read.add("    break")
            non_null.append(key)
            if not _walk_plain(read, exact, child, sub, fields, got, prefix, walked, takes_null):
                return False
        elif isinstance(child, Slot) and child.field in fields and child.field not in got and not child.has_default and (
            child.codec is None or (child.codec == "json" and child.field == "arguments")
        ):
            value = prefix + child.field
            got[child.field] = value
            if child.field not in takes_null:
                non_null.append(key)
            lines = [f"{{v}} = {var}.get({lit(key)})", *fields[child.field]]
            if child.codec == "json":  # the reader's own call (`_read_tool_call`), then an object
                lines = [f"{{v}} = _w.member_json({var}, {lit(key)}, '', False)", *fields[child.field]]
            for line in lines:
                read.add(line.format(v=value))
        elif isinstance(child, Slot) and child.optional and child.field not in fields:
            continue  # left out by the key set above: an object that has it takes the canonical way
        else:
            return False
    walked[id(node)] = (frozenset(keys), frozenset(non_null))
    return True


#: how `_field_calls` reads each field of a tool call (`{v}`: its value)
_CALL_FIELDS: Final = {
    "id": ["if type({v}) is not str or not {v} or {v} in ids_c:  # validate.check_assistant: a unique, non-empty id", "    break"],
    "name": ["if type({v}) is not str or not {v}:", "    break"],
    "arguments": ["if type({v}) is not dict:  # validate.check_assistant: a JSON object", "    break"],
}


def _field_calls(d_em: Any, src: FormatIR, dst: FormatIR, exact: _Exact) -> dict[str, Any] | None:
    """For `_assistant_first`: a source whose tool calls are a field of the assistant message
    (OpenAI Chat's `tool_calls`), the `field_calls` shape's arguments, or None where this pair
    has no such path: the message holds its role, a text or no content, and a list of plain
    tool calls, written as the target's `_assistant_to_wire` writes them (its calls as content
    blocks after the text, or as a field of their own)."""
    node, call = src.assistant.template, src.tool_calls.template
    if src.tool_calls.placement != "field" or not isinstance(call, Obj) or src.tool_calls.missing_id == "synthesize":
        return None
    if src.tool_calls.missing_arguments != "reject":  # a call without arguments: the canonical way
        return None
    # (a target's unique_ids renames reused ids in a translation's loss report, not in its writer)
    if src.reasoning is not None or dst.reasoning is not None:
        return None
    content_key, calls_key = _slot_key(node, "content"), _slot_key(node, "tool_calls")
    if content_key is None or calls_key is None or src.assistant.content not in ("string_or_parts", "as_given"):
        return None
    target_call = dst.tool_calls.template
    if not isinstance(target_call, Obj) or dst.tool_calls.placement not in ("content_blocks", "field"):
        return None
    blocks = dst.tool_calls.placement == "content_blocks"
    if any(slot.field == "signature" and not slot.optional for slot in slots_of(target_call)):
        return None
    message_keys = [k for k, c in node.items if k in ("role", content_key, calls_key)]
    read = Lines()
    read.level = 0
    read.counter = 1000
    got: dict[str, str] = {}
    walked: Walked = {}
    if not _walk_plain(read, exact, call, "call", _CALL_FIELDS, got, "call_", walked) or set(got) != {"id", "name", "arguments"}:
        return None
    env = {"id": got["id"], "name": got["name"], "arguments": "call_arguments_w", "signature": "NOT_GIVEN"}
    target = _target_written(d_em, target_call, env, "tool_call", 1050, copy="call_arguments_w")
    if target is None:
        return None
    call_prelude, call_expr, copies = target
    if not copies:  # the target writes the arguments otherwise (as a JSON string): the value as read
        call_expr = call_expr.replace("call_arguments_w", got["arguments"])
        call_prelude = [line.replace("call_arguments_w", got["arguments"]) for line in call_prelude]
    message = Lines()
    message.level = 0
    message.counter = 1100
    text = text_content(d_em, message, "assistant", "content_c")
    if text is None or message.lines:
        return None
    if blocks:
        env_m = {"content": "wire_content_c", "tool_calls": "NOT_GIVEN", "name": "NOT_GIVEN"}
    else:
        env_m = {"content": "content_out_c", "tool_calls": "wire_calls_c", "name": "NOT_GIVEN"}
    message_expr = build_message(d_em, message, dst.assistant.template, env_m, "message.assistant")
    # the lossless variant's checks (as `_exact_message` makes them for the reader's way)
    exact_message = Lines()
    exact_message.level = 0
    exact_message.counter = 1150
    # (the message holds at most `message_keys`, its role matched and its calls a list: the shape's
    # own tests; its content may be the one null)
    _exact_shape(
        exact_message, exact, node, "message", _slots_by_field(dst.assistant.template), frozenset({"content", "tool_calls"}), _ROLE,
        nullable=content_key, walked={id(node): (frozenset(message_keys), frozenset({"role", calls_key}))},
    )
    exact_call = Lines()
    exact_call.level = 0
    exact_call.counter = 1180
    _exact_shape(exact_call, exact, call, "call", _slots_by_field(target_call), walked=walked)
    return {
        "exact_message": exact_message, "exact_call": exact_call, "unique_ids": dst.tool_calls.unique_ids,
        "content_key": content_key, "calls_key": calls_key, "message_keys": exact.plain_keys(message_keys), "size": len(message_keys),
        "read": read, "id": got["id"], "name": got["name"], "arguments": got["arguments"], "copies": copies,
        "call_prelude": call_prelude, "call_expr": call_expr,
        "blocks": blocks, "text": _dst_names(text),
        "message_prelude": [_dst_names(line) for line in message.lines], "message_expr": _dst_names(message_expr),
    }


#: how `_tools_fast` reads each field of a tool (`{v}`: its value), `break` leaving the fast path
_TOOL_FIELDS: Final = {
    "name": ["if type({v}) is not str or not {v} or {v} in names_f:  # validate.check_tools: a unique, non-empty name", "    break"],
    "description": ["if {v} is None:", "    {v} = NOT_GIVEN", "elif type({v}) is not str:", "    break"],
    "strict": ["if {v} is None:", "    {v} = NOT_GIVEN", "elif type({v}) is not bool:", "    break"],
    # given, an object schema (a tool without one: the target's default, the canonical way)
    "parameters": ["if type({v}) is not dict or {v}.get('type', 'object') != 'object':", "    break"],
}
#: the fields of `_TOOL_FIELDS` read with a null taken for absent
_TOOL_NULLS: Final = frozenset({"description", "strict"})


def _tools_fast(d_em: Any, src: FormatIR, dst: FormatIR, exact: _Exact) -> dict[str, Any] | None:
    """The tools list of a body read, checked and written in one loop (the `tools` shape's `fast`
    arguments), or None where this pair has no such path: each tool plain -- the source's
    template with its literals and nested objects, a name, a parameters object and at most a
    description and `strict`, no other key -- checked as validate.check_tools checks it (the
    schema's copy is the one validation makes, `validate.sorted_json_value`) and written by the
    target's tool template as its `_tool_to_wire` writes it. A tool that is not plain is read,
    checked and written as the canonical way takes it (a kind no row reads skipped)."""
    node = src.tools.template
    if not isinstance(node, Obj) or src.tools.group is not None or src.tools.strict_all is not None:
        return None
    if dst.cache_point is not None or dst.tools.strict_all is not None or not isinstance(dst.tools.template, Obj):
        return None
    read = Lines()
    read.level = 0
    read.counter = 950
    got: dict[str, str] = {}
    # a field the tool rules do not know (other than a cache breakpoint, which sends a tool that has
    # it the canonical way): no fast path
    if any(s.field not in _TOOL_FIELDS and s.field != "cache_control" for s in slots_of(node)):
        return None
    walked: Walked = {}
    # a key of the tool no row reads (Anthropic's `defer_loading`) is the source wire's carried data
    carried = None
    if _carried_away(src, dst):
        carried = exact.plain_keys([k for k, _ in node.items] + list(src.unmodeled.get("tool", {})), "_READ_")
    if not _walk_plain(read, exact, node, "tool", _TOOL_FIELDS, got, "tool_", walked, _TOOL_NULLS, carried) or "name" not in got or "parameters" not in got:
        return None
    checked = f"_v.sorted_json_value({got['parameters']}, '', _v.KEEP_ORDER not in memo)  # validate.check_tools: plain JSON"
    if dst.tools.strict != "as_given" and "strict" in got:
        # the target closes a strict tool's schemas, and copies the closed one (`_tool_to_wire`)
        # in the caller's key order, closing validation's copy writes the same JSON as copying the
        # closed schema (closing keeps key order), in one walk less; sorted, the copy is sorted last
        read.add(f"if {got['strict']} is True and _v.KEEP_ORDER in memo:")
        read.add(f"    tool_params = _w.{dst.tools.strict}(_v.sorted_json_value({got['parameters']}, '', False))  # validate.check_tools: plain JSON")
        read.add(f"elif {got['strict']} is True:")
        read.add(f"    _v.check_json_value({got['parameters']}, '')  # validate.check_tools: plain JSON")
        read.add(f"    tool_params = _w.memo_json(_w.{dst.tools.strict}({got['parameters']}), memo)")
        read.add("else:")
        read.add(f"    tool_params = {checked}")
    else:
        read.add(f"tool_params = {checked}")
    env = {"name": got["name"], "description": got.get("description", "NOT_GIVEN"), "parameters": "tool_params", "strict": got.get("strict", "NOT_GIVEN"), "cache_control": "NOT_GIVEN"}
    target = _target_written(d_em, dst.tools.template, env, "tool", 980, copy="tool_params")
    if target is None:
        return None
    return {"read": read, "name": got["name"], "written": target[0], "expr": target[1], "walked": walked}


def _results_fast(src: FormatIR, dst: FormatIR) -> dict[str, Any] | None:
    """A user content list made only of tool results (a source that groups them into the user
    turn, Anthropic's), each plain -- the source's template with its `type` literal, its call id
    and content, and at most its `is_error` -- written as the target's tool messages without the
    canonical read (the `user_list` shape's `fast` arguments); None where this pair has no such
    path. The content is read by the source's own reader (`wire.member_tool_parts`, for
    `content: parts`) and must come out a string (parts beside text: the canonical way); the
    checks are validate.check_tool_message's."""
    node = src.tool_results.template
    kind = _type_literal(node)
    if src.tool_results.strategy != "group_into_user_message" or not isinstance(node, Obj) or kind is None:
        return None
    if src.tool_results.content != "parts" or dst.tool_results.strategy != "message":
        return None
    id_key, content_key, error_key = _slot_key(node, "tool_call_id"), _slot_key(node, "content"), _slot_key(node, "is_error")
    if id_key is None or content_key is None or not _plain_slot(node, id_key) or not _plain_slot(node, content_key):
        return None
    if any(k not in ("type", id_key, content_key) and not (isinstance(c, Slot) and c.optional) for k, c in node.items):
        return None
    error = dict(node.items).get(error_key) if error_key is not None else None
    if error is not None and (not isinstance(error, Slot) or error.codec is not None or error.has_default):
        error_key = None  # read some other way: a result that has it takes the canonical path
    return {"kind": kind, "id_key": id_key, "content_key": content_key, "error_key": error_key, "from_call": dst.tool_results.name == "from_call"}


def _call_blocks(d_em: Any, src: FormatIR, dst: FormatIR) -> dict[str, Any] | None:
    """For `_assistant_first`: how a source whose tool calls are content blocks is read and the
    target writes them in a field of their own (the `call_blocks` shape's arguments), or None
    where this pair has no such path."""
    call = src.tool_calls.template
    call_kind = _type_literal(call)
    if src.tool_calls.placement != "content_blocks" or not isinstance(call, Obj) or call_kind is None:
        return None
    if src.tool_calls.missing_id == "synthesize" or src.tool_calls.missing_arguments != "reject" or src.cache_point is not None:
        return None
    keys = {field: _slot_key(call, field) for field in ("id", "name", "arguments")}
    if any(key is None or not _plain_slot(call, key) for key in keys.values()):
        return None
    if any(k != "type" and k not in keys.values() and not (isinstance(c, Slot) and c.optional) for k, c in call.items):
        return None
    if any(slot.field == "signature" for slot in slots_of(call)):  # provider-bound: the canonical path decides
        return None
    target_call = dst.tool_calls.template
    if dst.tool_calls.placement != "field" or not isinstance(target_call, Obj) or dst.reasoning is not None:
        return None
    text = text_content(d_em, Lines(), "assistant", "text_b")
    if text != "text_b":  # a string the target writes as it is (`string_or_parts`)
        return None
    env = {"id": "call_id", "name": "call_name", "arguments": "arguments", "signature": "NOT_GIVEN"}
    target = _target_written(d_em, target_call, env, "tool_call", 800)
    if target is None:  # arguments the target writes from validation's copy (sorted): the canonical path
        return None
    message = Lines()
    message.level = 0
    message.counter = 850
    message_expr = build_message(d_em, message, dst.assistant.template, {"content": "content_out", "tool_calls": "wire_calls", "name": "NOT_GIVEN"}, "message.assistant")
    return {
        "call_kind": call_kind, "id_key": keys["id"], "name_key": keys["name"], "arguments_key": keys["arguments"],
        "size": 1 + len(keys),
        "call_prelude": target[0], "call_expr": target[1],
        "message_prelude": [_dst_names(line) for line in message.lines], "message_expr": _dst_names(message_expr),
    }


def _carried_away(src: FormatIR, dst: FormatIR) -> bool:
    """Whether what `src`'s reader carries (request.unknown: carry) never reaches `dst`'s wire
    (another provider's): the fused path may then leave it out as the two-step way does."""
    return src.unknown == "carry" and (src.provider, src.wire) != (dst.provider, dst.wire)


def source_reads(ir: FormatIR) -> set[str]:
    """Every top-level key of a request body the reader of `ir` (a fused source: no strategy
    hooks) reads, or takes as its transport's: the model, messages, hoisted system, tools and
    tool_choice fields, each option's fields, the structured-output field. A key outside it is
    one the reader carries (`request.unknown: carry`), which a fused translator into another
    provider's wire may leave out (`_w.carried_only`); tests/test_fused.py checks the set
    against the keys the generated reader marks as read."""
    fields = [ir.model_field, ir.messages_field, ir.tools.field, ir.tool_choice.field]
    if ir.system.strategy == "hoist" and ir.system.field:
        fields.append(ir.system.field)
    if ir.tools.strict_all is not None:
        fields.append(ir.tools.strict_all)
    for opt in ir.options:
        fields.extend(w for w in (opt.wire, *opt.read_also) if w is not None)
    if ir.structured is not None:
        fields.append(ir.structured["field"])
    fields.extend((ir.transport or {}).get("body") or {})
    return {f.split(".")[0] for f in fields if f}


def emit_fused_module(src: FormatIR, dst: FormatIR, src_module: str, dst_module: str, header: str) -> str:
    """The text (before black) of the fused translator module `src` -> `dst`: the one pass,
    `request(src_body)` (with its `_user_parts(raw, exact)`), and `request_with_losses` over it,
    which runs the same pass with its lossless checks on (`_losses`)."""
    s_em = _Scoped(src, "S")
    d_em = _Scoped(dst, "T")
    exact = _Exact()
    body, known, parts_fn = _emit_request_body(s_em, d_em, exact)
    doc = (
        f'    """A {src.title} request body -> the {dst.title} request body: exactly '
        f"`{dst.key}.request_to_wire({src.key}.request_from_wire(body))` -- the same body, warnings "
        "and errors -- in one pass where the body allows it (`_Deopt`: the two-step way). `_losses` "
        "is `request_with_losses`'s: given a list, the pass also checks that the target carries the body "
        "without a loss, adds the target's defaults it wrote to the list, and raises where it would "
        'deopt."""'
    )
    exact_doc = (
        f'    """`(request(src_body), added)` when the translation loses nothing but the target\'s default for '
        f"an absent option: the {dst.title} body, and `added`, the (canonical path, value) of that default "
        f"(or none): `translate_request(body, {src.key!r}, {dst.key!r})` then reports exactly `added` "
        "(kind added) and no header. None when the body holds anything this path cannot prove the target "
        "carries as it is (a field or option the target has no place for, a value it maps, data the source "
        "carries for its own wire) or anything `request` would not take in one pass: the two-step way then "
        'says what is lost. It never warns or raises."""'
    )
    fn_text = (
        "def request(src_body: Mapping[str, Any], _losses: list[tuple[str, Any]] | None = None) -> dict[str, Any]:\n"
        + doc + "\n"
        "    exact = _losses is not None  # request_with_losses: the lossless checks too\n"
        "    try:\n" + "\n".join("    " + line for line in body) + "\n"
        # request_with_losses catches them itself: caught and raised again, they would cost it twice
        "    except _DEOPTS if not exact else ():\n"
        # the target's TypedDict (its signature), as the dict this function answers with
        "        return cast('dict[str, Any]', _dst.request_to_wire(_src.request_from_wire(src_body)))\n"
    )
    exact_text = (
        "def request_with_losses(src_body: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[tuple[str, Any], ...]] | None:\n"
        + exact_doc + "\n"
        "    added: list[tuple[str, Any]] = []\n"
        "    try:\n"
        "        return request(src_body, added), tuple(added)\n"
        "    except _DEOPTS:\n"
        "        return None\n"
    )
    parts_text = "def _user_parts(raw: Any, exact: bool) -> Any:\n" + "\n".join(parts_fn) + "\n" if parts_fn is not None else ""
    # the response half (codegen/emit/fused_response.py), from both response tables
    response_text = ""
    if not response_blockers(src, dst):  # else no `response`: Translator.response is the two-step way
        response_text = response_function(emit_fused_response(s_em, d_em, header_names(header)), src.key, dst.key, dst.title)
    imports = _source_imports(fn_text + parts_text + response_text, header, src_module)
    lines = [header.rstrip("\n"), ""]
    if imports:
        lines.append(f"from .{src_module} import {', '.join(imports)}")
        lines.append("")
    lines.append(f"SOURCE: Final = {lit(src.key)}")
    lines.append(f"TARGET: Final = {lit(dst.key)}")
    lines.append(f"_KNOWN: Final = frozenset({lit(sorted(known))})  # the source body keys this path reads")
    lines.append(
        f"_SOURCE_READS: Final = frozenset({lit(sorted(source_reads(src)))})  # every top-level key the source's reader reads (any other, it carries)"
    )
    lines.append("_NO_TOOLS: Final[frozenset[str]] = frozenset()")
    for keys, name in exact.sets.items():
        lines.append(f"{name}: Final[frozenset[str]] = frozenset({lit(list(keys))})  # request_with_losses: the keys a wire object may hold")
    for (stem, keys), name in exact.plain.items():
        what = "the keys the source's reader looks at in a wire object" if stem == "_READ_" else "the keys of a plain wire object (a fast path)"
        lines.append(f"{name}: Final[frozenset[str]] = frozenset({lit(list(keys))})  # request: {what}")
    # each side's names (one pattern may have a name on both sides)
    regexes = [(name, pattern) for em in (s_em, d_em) for pattern, name in em.regexes.items()]
    for name, pattern in sorted(regexes):
        lines.append(f"{name}: Final = _w.lazy_pattern(globals(), {lit(name)}, {lit(pattern)})")
    for name, table in sorted((name, table) for em in (s_em, d_em) for table, name in em.tables.items()):
        lines.append(f"{name}: Final[dict[Any, Any]] = {table}  # an option row's value table")
    lines.append("")
    lines.append("")
    if parts_fn is not None:
        lines.append("def _user_parts(raw: list[Any], exact: bool) -> Any:")
        lines.append(
            f'    """A user content list -> the {dst.title} content, part by part as the two tables say; None: a part '
            "outside this path (the canonical path takes the message and names any error), and with `exact` "
            '(request_with_losses) also a part the target does not carry as it is."""'
        )
        lines.extend(parts_fn)
        lines.append("")
        lines.append("")
    lines.append("class _Deopt(Exception):")
    lines.append('    """The body is outside the fused path: the two-step path takes it (and says why)."""')
    lines.append("")
    lines.append("")
    lines.append("#: what sends a body the two-step way (`request`), or answers None (`request_with_losses`)")
    lines.append("_DEOPTS: Final = (_Deopt, ProviderError, _w.WireShapeError, RecursionError)")
    lines.append("")
    lines.append("")
    lines.append(fn_text)
    lines.append("")
    lines.append(exact_text)
    lines.append("")
    if response_text:
        lines.append(response_text)
    return "\n".join(lines)


def _source_imports(fn_text: str, header: str, src_module: str) -> list[str]:
    """The names the source's reader code uses that the module header does not bind: the
    source module's own functions and constants, imported from it."""
    tree = ast.parse(fn_text)
    bound = set(dir(builtins))
    head = ast.parse(header)
    for stmt in head.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                bound.add((alias.asname or alias.name).split(".")[0])
    bound |= {"SOURCE", "TARGET", "_KNOWN", "_SOURCE_READS", "_NO_TOOLS", "_Deopt", "_DEOPTS", "request", "request_with_losses", "_user_parts", "response"}
    assigned: set[str] = set()
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (assigned if isinstance(node.ctx, ast.Store) else used).add(node.id)
        elif isinstance(node, ast.arg):
            assigned.add(node.arg)
        elif isinstance(node, ast.FunctionDef):
            assigned.add(node.name)
    return sorted(n for n in used - assigned - bound if not n.startswith(("_RE_", "_MAP_", "_EXACT_", "_PLAIN_", "_READ_")))


_CANONICAL = (
    "NOT_GIVEN, AssistantMessage, Block, Config, FileBlock, ForcedTool, ImageBlock, AudioBlock, "
    "InlineSource, Message, NotGiven, RedactedThinkingBlock, Request, SystemMessage, TextBlock, "
    "ThinkingBlock, Tool, ToolCall, ToolChoice, ToolMessage, UrlSource, Usage, UserMessage"
)


def fused_header(src: FormatIR, dst: FormatIR, src_module: str, dst_module: str, source_files: str) -> str:
    """The module head: what the source's reader code and the target's option rows refer to."""
    reasoning = "from wiremap.runtime import reasoning as _reasoning\n" if src.reasoning is not None else ""
    return (
        f"# Code generated by wiremap.codegen from {source_files}. DO NOT EDIT.\n"
        f'"""Fused translator: {src.title} requests -> {dst.title} requests (`{src.key}` -> `{dst.key}`).\n\n'
        f"Compiled from both mappings (the `fuse` row of the target's; codegen/emit/fused.py): the\n"
        f"source's reader code feeds the target's role writers and option rows directly, with the\n"
        f"OpenArmature rules checked as it goes; whatever falls outside that path goes through\n"
        f"`{src.key}.request_from_wire` and `{dst.key}.request_to_wire`, so both paths give the same answer.\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        "import warnings\n"
        "from collections.abc import Mapping\n"
        "from math import isfinite as _isfinite\n"
        "from typing import Any, Final, cast\n\n"
        "from wiremap.runtime import validate as _v\n"
        "from wiremap.runtime import wire as _w\n"
        f"{reasoning}"
        f"from wiremap.runtime.canonical import ({_CANONICAL})\n"
        "from wiremap.runtime.errors import InvalidRequestError, ProviderError, UnsupportedContentBlockError, UnsupportedOptionWarning\n\n"
        f"from . import {dst_module} as _dst\n"
        f"from . import {src_module} as _src\n"
    )

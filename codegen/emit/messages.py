"""Stage 3 (emit): the format-level functions (messages, options, tools, responses, errors).

Each named strategy of the mapping language is implemented here exactly once. A function's shape
is a macro of codegen/emit/templates/functions/*.jinja (codegen/emit/shapes.py); what is here
works out its hooks: the expressions, conditions, rows and fragments the macro places.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ..sections import items as emit_items
from ..ir.catalog import CONTEXTS
from ..sections import usage as emit_usage
from ..ir.chat import INTEGER_OPTIONS, OBJECT_OPTIONS, STRING_OPTIONS
from .lines import FORMAT_KEY, Lines, free_and_bound, keyed, rename, wire_type
from .shapes import shape, shaped
from ..sections.reasoning import hook_message_from_wire, hook_message_to_wire
from ..wiretemplate import Arr, Lit, Obj, Slot, slot_path, slots_of

if TYPE_CHECKING:
    from .emitter import Emitter

__all__ = [
    "assign", "build_message", "emit_error_from_wire", "emit_format", "emit_options_to_wire",
    "emit_role_readers", "emit_tools_to_wire", "emit_unsupported", "structured_modes", "text_content",
]


def lit(value: Any) -> str:
    return repr(value)


def _keys_get(var: str, keys: tuple[Any, ...]) -> str:
    if not keys:
        return var
    if len(keys) == 1 and isinstance(keys[0], str):
        return f"{var}.get({lit(keys[0])})"
    return f"_w.get_in({var}, {lit(keys)})"


def inline_get(var: str, keys: tuple[Any, ...], fresh: Any) -> str:
    """`_w.get_in(var, keys)` as one expression, without the call (a fused translator's reader,
    codegen/emit/fused_response.py): each step None when a key is missing or the value is of the
    wrong kind, as get_in answers. `var` is a dict; `fresh(stem)` names the walrus temporaries."""
    if len(keys) <= 1:
        return _keys_get(var, keys)
    expr = f"{var}.get({lit(keys[0])})" if isinstance(keys[0], str) else f"_w.get_in({var}, {lit(keys[:1])})"
    for key in keys[1:]:
        t = fresh("at")
        if isinstance(key, int):
            bound = f"len({t}) > {key}" if key >= 0 else f"len({t}) >= {-key}"
            expr = f"({t}[{key}] if type({t} := {expr}) is list and {bound} else None)"
        else:
            expr = f"({t}.get({lit(key)}) if type({t} := {expr}) is dict else None)"
    return expr


def _path_text(keys: tuple[Any, ...]) -> str:
    out = ""
    for k in keys:
        out += f"[{k}]" if isinstance(k, int) else (f".{k}" if out else k)
    return out


def _nested_roots(ir: Any) -> set[str]:
    """Top-level wire fields that dotted fields write into: every write there merges."""
    fields = [o.wire for o in ir.options if o.wire] + [ir.tool_choice.field, ir.system.field or "", ir.tools.field]
    if ir.structured is not None:
        fields.append(ir.structured["field"])
    roots = {f.split(".")[0] for f in fields if "." in f}
    if ir.extras.under:
        roots.add(ir.extras.under[0])
    return roots


def assign(ir: Any, field: str, expr: str) -> str:
    """The statement writing a wire field: dotted fields nest, and writes to an object that
    dotted fields share merge into it (`generationConfig`)."""
    if "." in field or field in _nested_roots(ir):
        keys = field.split(".")
        if 1 <= len(keys) <= 3:  # the common cases, without put_in's loop
            return f"_w.put_in{len(keys)}(body, {', '.join(lit(k) for k in keys)}, {expr})"
        return f"_w.put_in(body, {lit(tuple(keys))}, {expr})"
    return f"body[{lit(field)}] = {expr}"


def _get(ir: Any, field: str) -> str:
    """The expression reading a wire field of `body` (None when absent)."""
    if "." in field:
        return f"_w.get_in(body, {lit(tuple(field.split('.')))})"
    return f"body.get({lit(field)})"


def _consume(ir: Any, field: str) -> str:
    if "." in field:
        return f"nested_consumed.append({lit(tuple(field.split('.')))})"
    return f"consumed.add({lit(field)})"


_BLOCK_FIELD_TYPES = {"cache_control": "dict[str, Any] | NotGiven"}


def _names(node: Any) -> bool:
    """Does a message template place the participant's `{name?}` (OpenAI Chat `name`)?"""
    return isinstance(node, Obj) and any(isinstance(c, Slot) and c.field == "name" for _, c in node.items)


def block_fields(ir: Any) -> list[str]:
    """The optional fields of the `system.blocks` template: what only the block form carries."""
    node = ir.system.blocks
    return [c.field for _, c in node.items if isinstance(c, Slot) and c.optional] if node is not None else []


def _emit_system_blocks(em: "Emitter") -> None:
    """`system.blocks`: one system message as a wire text block, both ways."""
    ir = em.ir
    node = ir.system.blocks
    if node is None:
        return
    fields = block_fields(ir)
    out = Lines()
    prelude = out.part()
    env = {"content": "message.content", **{f: f"message.{f}" for f in fields}}
    expr = em.build_node(prelude, node, env, "message.system", "path")
    shape(out, "messages_to_wire", "returns", prelude=prelude, expr=expr)
    em.func("_system_block_to_wire", "(message: SystemMessage, path: str) -> dict[str, Any]", "A system message -> its wire text block (system.blocks).", out.lines)
    out = Lines()
    reader = out.part()
    got: dict[str, str] = {}
    em.read_node(reader, node, "block", "path", "message.system", got)
    shape(
        out, "content", "system_block_from_wire",
        literals=_literals(node), reader=reader, args=", ".join(f"{f}={got[f]}" for f in ["content", *fields]),
    )
    em.func("_system_block_from_wire", "(value: Any, path: str) -> SystemMessage", "A wire text block -> a system message (system.blocks).", out.lines)


def _literals(node: Any) -> list[tuple[str, Any]]:
    """The keys of an object template that hold a literal, with their values."""
    return [(key, child.value) for key, child in node.items if isinstance(child, Lit)]


def _emit_cache_point(em: "Emitter") -> None:
    """`request.cache_points`: a breakpoint as its own wire item, both ways."""
    node = em.ir.cache_point
    if node is None:
        return
    out = Lines()
    prelude = out.part()
    expr = em.build_node(prelude, node, {"type": "cache_control['type']", "ttl": "ttl"}, "cache_point", "path")
    shape(out, "content", "cache_point_to_wire", prelude=prelude, expr=expr)
    em.func("_cache_point_to_wire", "(cache_control: dict[str, Any], path: str) -> dict[str, Any]", "A prompt-cache breakpoint -> its own wire item, sent after the item it marks (request.cache_points).", out.lines)
    out = Lines()
    reader = out.part()
    got: dict[str, str] = {}
    em.read_node(reader, node, "part", "path", "cache_point", got)
    shape(out, "content", "read_cache_point", literals=_literals(node), reader=reader, type_expr=got["type"], ttl_expr=got.get("ttl"))
    em.func("_read_cache_point", "(part: dict[str, Any], path: str) -> dict[str, Any]", "A wire cache point item -> the canonical breakpoint of the item before it (request.cache_points).", out.lines)


def emit_format(em: "Emitter") -> None:
    emit_items.emit_reasoning_helpers(em)
    _emit_cache_point(em)
    _emit_system_blocks(em)
    _emit_content(em)
    if em.ir.tool_calls.placement == "content_blocks":
        _emit_as_blocks(em)
    _emit_tool_call_builder(em)
    _emit_messages_to_wire(em)
    _emit_tools(em)
    _emit_request_to_wire(em)
    _emit_messages_from_wire(em)
    _emit_request_from_wire(em)
    _emit_response_from_wire(em)
    _emit_response_to_wire(em)
    emit_error_from_wire(em)


# --------------------------------------------------------------------------- content
def _emit_content(em: "Emitter") -> None:
    ir = em.ir
    own_text = ir.assistant.text_part is not None and ir.assistant.content != "joined_text"
    if own_text:  # assistant.text_part: the assistant role's own text part
        out = Lines()
        em.emit_one_part(out, "text", "block", ir.assistant.text_part)
        em.func(
            "_assistant_text_to_wire",
            "(block: TextBlock, path: str) -> dict[str, Any] | None",
            "A canonical text block of an assistant turn -> its wire part (assistant.text_part).",
            out.lines,
        )
    for role, strategy in (("user", ir.user.content), ("assistant", ir.assistant.content)):
        if strategy == "joined_text":
            emit_items.emit_joined_text_content(em)
            continue
        text_node = ir.assistant.text_part if role == "assistant" and own_text else ir.parts["text"]
        assert text_node is not None and not isinstance(text_node, str)
        out = Lines()
        text_prelude = out.part()
        text_expr = None
        if strategy == "always_parts":
            text_expr = em.build_node(text_prelude, text_node, {"text": "content", "signature": "NOT_GIVEN"}, "part.text", "path")
        guards = "".join(f" and kept[0].{CONTEXTS['part.text'][c.field].attr} is NOT_GIVEN" for c in slots_of(text_node) if c.optional)
        if ir.cache_point is not None:
            guards += " and kept[0].cache_control is NOT_GIVEN"
        shape(
            out, "content", "content_to_wire",
            role=role, strategy=strategy, text_prelude=text_prelude, text_expr=text_expr,
            thinking_first=role == "assistant" and ir.assistant.order == "thinking_first",
            own_text=role == "assistant" and own_text, cache_point=ir.cache_point is not None, guards=guards,
        )
        ret = "str | list[dict[str, Any]]" if strategy != "always_parts" else "list[dict[str, Any]]"
        if role == "assistant" and strategy == "string_or_parts":
            ret = "str | list[dict[str, Any]] | None"
        arg = "str | list[Block]"
        em.func(f"_{role}_content_to_wire", f"(content: {arg}, path: str) -> {ret}", f"Canonical {role} content -> wire (`{strategy}`).", out.lines)


def _emit_derived_defaults(ir: Any, out: Any, field: str) -> None:
    """An option row inside the structured-output object whose wire value is what that row
    derives itself (the schema's hashed name, strict from the schema) is the row's default, not
    the caller's choice: it is not read as the option, so canonical -> wire -> canonical is the
    identity (and a caller's own name still reads as schema_name)."""
    st = ir.structured
    derived: dict[str, str] = {}
    if st.get("name", "derived") == "derived":
        derived["name"] = "_w.schema_name"
    else:
        derived["name"] = f"(lambda _: {lit(st['name']['fixed'])})"
    strict = st.get("strict", "when_schema_qualifies")
    if strict != "when_schema_qualifies":
        derived["strict"] = "(lambda _: " + {"always": "True", "never": "False"}[strict] + ")"
    elif st.get("schema", "verbatim") == "verbatim":
        derived["strict"] = "_w.schema_qualifies_for_strict"
    for slot, expr in derived.items():
        where = slot_path(ir.structured_template, slot)
        if where is None:
            continue
        for opt in ir.options:
            if opt.requires == "response_schema" and opt.wire == f"{field}.{where}":
                out.add(f"if {lit(opt.name)} in config and _w.derived_equal(config[{lit(opt.name)}], {expr}, kwargs['response_schema']):  # the row's own derived {slot}")
                out.add(f"    del config[{lit(opt.name)}]")


def text_content(em: "Emitter", out: Any, role: str, var: str) -> str | None:
    """The wire form of a string content `var` under the role's content strategy, as an
    expression (what `_<role>_content_to_wire` returns for a string); None for `joined_text`."""
    ir = em.ir
    strategy = ir.user.content if role == "user" else ir.assistant.content
    if strategy == "joined_text":
        return None
    if strategy != "always_parts":
        return var
    own_text = role == "assistant" and ir.assistant.text_part is not None
    text_node = ir.assistant.text_part if own_text else ir.parts["text"]
    assert text_node is not None and not isinstance(text_node, str)
    expr = em.build_node(out, text_node, {"text": var, "signature": "NOT_GIVEN"}, "part.text", "''")
    return f"([{expr}] if {var} else [])"


def _emit_as_blocks(em: "Emitter") -> None:
    """Tool calls placed as content blocks need the turn's content as a list of blocks."""
    out = Lines()
    prelude = out.part()
    text_node = em.ir.parts["text"]
    assert not isinstance(text_node, str)  # the IR refuses a stripped or rejected text part
    expr = em.build_node(prelude, text_node, {"text": "content", "signature": "NOT_GIVEN"}, "part.text", "path")
    shape(out, "content", "as_blocks", prelude=prelude, expr=expr)
    em.func("_as_blocks", "(content: str | list[dict[str, Any]] | None) -> list[dict[str, Any]]", "Assistant content as wire blocks, for turns whose tool calls are blocks too.", out.lines)


def _emit_tool_call_builder(em: "Emitter") -> None:
    out = Lines()
    prelude = out.part()
    env = {"id": "call.id", "name": "call.name", "arguments": "call.arguments", "signature": "signature"}
    em.json_memo = True
    expr = em.build_node(prelude, em.ir.tool_calls.template, env, "tool_call", "path")
    em.json_memo = False
    # the response writers pass a memo where this writes JSON through it (Emitter.call_memo)
    signed = any(s.field == "signature" for s in slots_of(em.ir.tool_calls.template))
    shape(out, "content", "tool_call_to_wire", signed=signed, prelude=prelude, expr=expr)
    em.func(
        "_tool_call_to_wire",
        "(call: ToolCall, path: str, memo: dict[int, Any] | None = None) -> dict[str, Any]",
        "Canonical tool call -> wire. `memo`: validation's sorted copies (wire.memo_json).",
        out.lines,
    )


def _emit_role_writers(em: "Emitter") -> dict[str, Any]:
    """One function per canonical role: a message's fields -> its wire record. `_messages_to_wire`
    calls them in its loop, and so do the fused translators (codegen/emit/fused.py), so each
    role is written by one piece of generated code. (Placement `items` writes assistant turns in
    the loop itself: one turn becomes several items.)

    Returns the writers' string-content case where it is one expression of the writer's own
    parameters (no prelude, no participant name, no reasoning hook): `_messages_to_wire` writes
    that case inline, the same code, for the most common messages (`user`, `assistant`)."""
    ir = em.ir
    inline: dict[str, Any] = {}
    if ir.system.strategy != "hoist":
        assert ir.system.template is not None
        out = Lines()
        fields = block_fields(ir)
        blocks_prelude, prelude = out.part(), out.part()
        blocks_expr = None
        if fields:  # system.blocks: what the plain form cannot carry goes in a one-block content
            blocks_expr = build_message(em, blocks_prelude, ir.system.template, {"content": "[block]", "name": "name"}, "message.system")
        expr = build_message(em, prelude, ir.system.template, {"content": "content", "name": "name"}, "message.system")
        params = "".join(f", {f}: {_BLOCK_FIELD_TYPES[f]} = NOT_GIVEN" for f in fields)
        if _names(ir.system.template):
            params += ", name: str | NotGiven = NOT_GIVEN"
        shape(
            out, "messages_to_wire", "system_to_wire",
            block_cond=" or ".join(f"{f} is not NOT_GIVEN" for f in fields), block_args=", ".join(f"{f}={f}" for f in fields),
            blocks_prelude=blocks_prelude, blocks_expr=blocks_expr, prelude=prelude, expr=expr,
        )
        em.func("_system_to_wire", f"(content: str, path: str = ''{params}) -> dict[str, Any]", "A system message -> its wire message (system `inline`).", out.lines)
    out = Lines()
    text_prelude, prelude = out.part(), out.part()
    text = text_content(em, text_prelude, "user", "content")
    expr = build_message(em, prelude, ir.user.template, {"content": "wire_content", "name": "name"}, "message.user")
    shape(out, "messages_to_wire", "user_to_wire", text_prelude=text_prelude, text=text, prelude=prelude, expr=expr)
    named = ", name: str | NotGiven = NOT_GIVEN" if _names(ir.user.template) else ""
    if text is not None:
        inline["user"] = _inline_case(
            [*text_prelude.lines, f"wire_content = {text}", *prelude.lines, f"wire_messages.append({expr})"],
            "u_", {"content", "i", "name"}, {"wire_content"}, named=bool(named),
        )
    em.func("_user_to_wire", f"(content: str | list[Block], i: int{named}) -> dict[str, Any]", "A user message (`messages[i]`) -> its wire message.", out.lines)
    if ir.tool_results.strategy == "group_into_user_message":
        out = Lines()
        prelude = out.part()
        expr = build_message(em, prelude, ir.user.template, {"content": "results"}, "message.user")
        shape(out, "messages_to_wire", "returns", prelude=prelude, expr=expr)
        em.func("_results_to_wire", "(results: list[dict[str, Any]]) -> dict[str, Any]", "The user message that carries a run of tool results (`group_into_user_message`).", out.lines)
    _emit_tool_result_writer(em)
    if ir.tool_calls.placement == "items":
        return inline
    out = Lines()
    text_prelude, prelude = out.part(), out.part()
    text = text_content(em, text_prelude, "assistant", "body_content")
    if ir.tool_calls.placement == "content_blocks":
        expr = build_message(em, prelude, ir.assistant.template, {"content": "wire_content", "tool_calls": "NOT_GIVEN", "name": "name"}, "message.assistant")
    else:
        expr = build_message(em, prelude, ir.assistant.template, {"content": "content_out", "tool_calls": "wire_calls", "name": "name"}, "message.assistant")
        expr = hook_message_to_wire(em, prelude, expr, "body_content", "calls", for_request=True)
    shape(
        out, "messages_to_wire", "assistant_to_wire",
        blocks=ir.tool_calls.placement == "content_blocks", text_prelude=text_prelude, text=text, prelude=prelude, expr=expr,
    )
    em.func(
        "_assistant_to_wire",
        "(body_content: Any, calls: Any, i: int, memo: dict[int, Any] | None = None" + (", name: str | NotGiven = NOT_GIVEN" if _names(ir.assistant.template) else "") + ") -> dict[str, Any]",
        f"An assistant message (`messages[i]`: content, tool_calls) -> its wire message (tool calls `{ir.tool_calls.placement}`).",
        out.lines,
    )
    if text is not None:
        if ir.tool_calls.placement == "content_blocks":
            written = [f"wire_content = {text}  # not empty: the text is not"]
            declared = {"wire_content"}
        else:
            written = [f"content_out = {text}", "wire_calls = NOT_GIVEN"]
            declared = {"content_out", "wire_calls"}
        inline["assistant"] = _inline_case(
            [*text_prelude.lines, *written, *prelude.lines, f"wire_messages.append({expr})"],
            "a_", {"body_content", "calls", "i", "memo", "name"}, declared, named=_names(ir.assistant.template),
        )
    return inline


#: the names `_messages_to_wire` binds itself (its parameters and loop), which an inlined writer's
#: own locals are renamed away from
_LOOP_NAMES: frozenset[str] = frozenset(
    {"messages", "memo", "wire_messages", "call_names", "results", "result", "result_name", "i", "message", "calls", "call", "k"}
)


def _inline_case(lines: list[str], prefix: str, params: set[str], declared: set[str], named: bool) -> Any:
    """A role writer's string-content case as statements for `_messages_to_wire`'s loop, or None.
    `lines`: the writer's code for that case, reading its parameters `params` (the loop binds each:
    the content by the branch's test, `name` and `calls` from the message); `declared`: the names
    `_messages_to_wire` declares for it. The writer's other locals are renamed with `prefix`, so
    the two roles' fragments and the loop's own names stay apart."""
    free, bound = free_and_bound("\n".join("    " + line for line in lines))
    own = bound - declared
    if bound & params:  # the fragment rebinds a parameter: not a case to inline
        return None
    renames = {n: prefix + n for n in own}
    if any(prefix + n in _LOOP_NAMES | free for n in own) or (free - params - declared - {"wire_messages"}) & _LOOP_NAMES:
        return None
    code = rename(lines, renames)
    # `calls` is bound from the message (typed as the loop's other branch binds it)
    return SimpleNamespace(lines=code, name=named and "name" in free, calls="calls" in free, declared=sorted(declared | ({"calls"} & free)))


def _emit_tool_result_writer(em: "Emitter") -> None:
    ir = em.ir
    out = Lines()
    env = {"tool_call_id": "tool_call_id", "content": "wire_content", "name": "name", "is_error": "is_error", "cache_control": "cache_control"}
    media = ir.tool_results.media
    always_prelude = out.part()
    always_expr = None
    if ir.tool_results.content == "always_parts":
        # a string is one text part (an empty one too: a result always has content)
        text_node = ir.parts["text"]
        assert not isinstance(text_node, str)
        always_expr = em.build_node(always_prelude, text_node, {"text": "content", "signature": "NOT_GIVEN"}, "part.text", "''")
    error_prelude, else_prelude, prelude = out.part(), out.part(), out.part()
    error_expr = else_expr = expr = None
    if ir.tool_results.error_template is not None:
        error_expr = em.build_node(error_prelude, ir.tool_results.error_template, env, "tool_result", "f'messages[{i}]'")
        if media:
            else_expr = em.build_node(else_prelude, ir.tool_results.template, env, "tool_result", "f'messages[{i}]'")
    if not media or ir.tool_results.error_template is None:
        expr = em.build_node(prelude, ir.tool_results.template, env, "tool_result", "f'messages[{i}]'")
    shape(
        out, "messages_to_wire", "tool_result_to_wire",
        content=ir.tool_results.content, always_prelude=always_prelude, always_expr=always_expr,
        kinds=ir.tool_results.media_parts, media=tuple(media) if media else (),
        error_prelude=error_prelude, error_expr=error_expr, else_prelude=else_prelude, else_expr=else_expr, prelude=prelude, expr=expr,
    )
    em.func(
        "_tool_result_to_wire",
        "(tool_call_id: str, content: str | list[Block], name: str | NotGiven, i: int, is_error: bool | NotGiven = NOT_GIVEN, cache_control: dict[str, Any] | NotGiven = NOT_GIVEN) -> dict[str, Any]",
        f"A tool result (`messages[i]`) -> its wire {'block' if ir.tool_results.strategy == 'group_into_user_message' else 'message'}.",
        out.lines,
    )


def _emit_messages_to_wire(em: "Emitter") -> None:
    ir = em.ir
    inline = _emit_role_writers(em)
    out = Lines()
    items_writer = None
    if ir.tool_calls.placement == "items":
        items_writer = out.part()
        emit_items.emit_assistant_items_to_wire(em, items_writer, build_message)
    fields = [] if ir.system.strategy == "hoist" else block_fields(ir) + (["name"] if _names(ir.system.template) else [])
    # isinstance, as validation tells the roles apart (a subclass is its role, never dropped)
    shape(
        out, "messages_to_wire", "messages_to_wire",
        from_call=ir.tool_results.name == "from_call", grouped=ir.tool_results.strategy == "group_into_user_message",
        cache_point=ir.cache_point is not None, user_args=", message.name" if _names(ir.user.template) else "",
        system_hoist=ir.system.strategy == "hoist",
        system_args=", f'messages[{i}]'" + "".join(f", {f}=message.{f}" for f in fields) if fields else "",
        items_writer=items_writer, assistant_args=", message.name" if _names(ir.assistant.template) else "",
        inline_user=inline.get("user"), inline_assistant=inline.get("assistant"),
    )
    strategy = f"system `{ir.system.strategy}`, tool results `{ir.tool_results.strategy}`, tool calls `{ir.tool_calls.placement}`"
    em.func(
        "_messages_to_wire",
        "(messages: list[Message], memo: dict[int, Any] | None = None) -> list[dict[str, Any]]",
        f"Canonical messages -> wire ({strategy}). `memo`: validation's sorted copies (wire.memo_json).",
        out.lines,
    )


def build_message(
    em: "Emitter", out: Lines, node: Any, env: dict[str, str], context: str, present: frozenset[str] = frozenset()
) -> str:
    """Message templates: `{content}` / `{tool_calls}` are bound to already-converted values.
    `present`: fields bound to values that always exist (an optional slot then needs no check)."""
    if not isinstance(node, Obj):
        raise AssertionError("message templates are objects")
    required: list[tuple[str, str]] = []
    optional: list[tuple[str, str]] = []
    for key, child in node.items:
        if isinstance(child, Slot):
            expr = env.get(child.field, "NOT_GIVEN")
            if child.optional and child.field not in present:
                optional.append((key, expr))
            else:
                required.append((key, expr))
        elif isinstance(child, Lit):
            required.append((key, lit(child.value)))
        else:
            required.append((key, em.build_node(out, child, env, context, "path")))
    literal = "{" + ", ".join(f"{lit(k)}: {v}" for k, v in required) + "}"
    if not optional:
        return literal
    var = out.fresh("wire_message")
    out.add(f"{var}: dict[str, Any] = {literal}")
    for key, expr in optional:
        if expr == "NOT_GIVEN":
            continue
        out.add(f"if {expr} is not NOT_GIVEN:")
        out.add(f"    {var}[{lit(key)}] = {expr}")
    return var


# --------------------------------------------------------------------------- tools
def _emit_tools(em: "Emitter") -> None:
    ir = em.ir
    out = Lines()
    prelude = out.part()
    env = {"name": "tool.name", "description": "tool.description", "parameters": "params", "strict": "tool.strict", "cache_control": "tool.cache_control"}
    em.json_memo = True
    expr = em.build_node(prelude, ir.tools.template, env, "tool", "path")
    em.json_memo = False
    shape(
        out, "content", "tool_to_wire",
        strict=ir.tools.strict, uses_params=any(s.field == "parameters" and not s.optional for s in slots_of(ir.tools.template)),
        prelude=prelude, expr=expr,
    )
    em.func(
        "_tool_to_wire",
        "(tool: Tool, path: str, memo: dict[int, Any] | None = None) -> dict[str, Any]",
        "Canonical tool -> wire tool definition. `memo`: validation's sorted copies (wire.memo_json).",
        out.lines,
    )

    out = Lines()
    modes = []
    for mode in ("auto", "required", "none"):
        how = ir.tool_choice.special.get(mode)
        prelude = out.part()
        mode_expr = em.build_node(prelude, ir.tool_choice.modes[mode], {}, "tool_choice.tool", "path") if how is None else None
        modes.append((mode, how if how in (None, "omit", "omit_tools") else "reject", prelude, mode_expr))
    forced_prelude = out.part()
    forced = None
    if "tool" in ir.tool_choice.modes:
        forced = em.build_node(forced_prelude, ir.tool_choice.modes["tool"], {"name": "choice.name"}, "tool_choice.tool", "path")
    shape(out, "content", "tool_choice_to_wire", modes=modes, forced_prelude=forced_prelude, forced=forced)
    em.func("_tool_choice_to_wire", "(choice: ToolChoice) -> Any", "Canonical tool_choice -> wire.", out.lines)


# --------------------------------------------------------------------------- request
def _emit_request_to_wire(em: "Emitter") -> None:
    ir = em.ir
    out = Lines()
    st = ir.structured
    hoist = ir.system.strategy == "hoist"
    system_field = ir.system.field if hoist else None  # hoist: the IR requires `field`
    system_form = None
    if system_field is not None and ir.system.blocks is not None and ir.cache_point is not None:
        # request.cache_points: the field is the list of blocks, one per system message, each
        # breakpoint an item after its block
        system_form = "cache_blocks"
    elif system_field is not None and block_fields(ir):
        system_form = "blocks"
    hoist_prelude = out.part()
    hoist_expr = None
    if system_field is not None and ir.system.hoist_template is not None:
        hoist_expr = em.build_node(hoist_prelude, ir.system.hoist_template, {"content": "system_text"}, "message.system", "'messages'")
    phase0 = out.part()
    additive = emit_options_to_wire(em, phase0, bind=True, phase=0)
    tools = out.part()
    emit_tools_to_wire(em, tools)
    phase1 = out.part()
    additive += emit_options_to_wire(em, phase1, bind=True, phase=1)
    copy_fn = "_w.canonical_json" if ir.rules.json_keys == "sorted" else "_w.json_copy"
    native_prelude = out.part()
    native_expr = schema_name = schema_strict = None
    if st is not None:
        name = st.get("name", "derived")
        schema_name = "_w.schema_name(schema)" if name == "derived" else lit(name["fixed"])
        strict = st.get("strict", "when_schema_qualifies")
        schema_strict = {"always": "True", "never": "False", "when_schema_qualifies": "_w.schema_qualifies_for_strict(wire_schema)"}[strict]
        env = {"name": "schema_name", "schema": "wire_schema", "strict": "schema_strict"}
        node = ir.structured_template
        assert node is not None  # a structured_output section always has its `wire` template (ir.py)
        native_expr = em.build_node(native_prelude, node, env, "structured_output", "'response_schema'")
        # the schema is already canonical: bound as a plain value
        native_expr = native_expr.replace("_w.canonical_json(wire_schema)", "wire_schema")
    phase2 = out.part()
    additive += emit_options_to_wire(em, phase2, bind=True, phase=2)  # rows inside the structured-output object
    extras = out.part()
    if ir.extras.root:  # a module constant, so that a dialect adding root keys shares the code
        em.parts.constants.append(f"_EXTRAS_ROOT: Final = {lit(tuple(sorted(ir.extras.root)))}  # extras keys placed at the root (placement.root)")
    shape(
        extras, "request_to_wire", "extras",
        under=ir.extras.under, root=tuple(sorted(ir.extras.root)), reserved=list(ir.extras.reserved.items()),
        mapped_wins=ir.extras.collision == "mapped_wins", copy_fn=copy_fn, additive=additive,
    )
    shape(
        out, "request_to_wire", "request_to_wire",
        assign=lambda field, expr: assign(ir, field, expr),
        structured=st, modes=structured_modes(ir), coerce_tool=st.get("tool") if st is not None else None,
        model_field=ir.model_field,
        system=("first" if ir.rules.ordering == "openarmature" else "all") if hoist else None,
        system_field=system_field, system_form=system_form,
        block_cond=" or ".join(f"m.{f} is not NOT_GIVEN" for f in block_fields(ir)), join=ir.system.join,
        hoist_prelude=hoist_prelude, hoist_expr=hoist_expr, messages_field=ir.messages_field,
        phase0=phase0, tools=tools, phase1=phase1,
        close_nullable=st is not None and st.get("schema", "verbatim") == "close_and_nullable_optional", copy_fn=copy_fn,
        schema_name=schema_name, schema_strict=schema_strict, native_prelude=native_prelude, native_expr=native_expr,
        phase2=phase2, extras=extras,
    )
    em.func(
        "_request_to_wire",
        "(request: Request | Mapping[str, Any], structured_output: str | None) -> dict[str, Any]",
        "The body of request_to_wire.",
        out.lines,
    )
    wire_req = wire_type(ir.key, "Request")  # generated/<module>_types.py, imported for type checkers only
    em.func(
        "request_to_wire",
        f"(request: Request | Mapping[str, Any], *, structured_output: str | None = None) -> {wire_req}",
        f"Canonical request -> {ir.title} request body. Validates first; never mutates its input. `structured_output` picks the mode for a response_schema (default STRUCTURED_OUTPUT_MODE).",
        shaped("request_to_wire", "request_to_wire_public", wire_request=wire_req, request_out="request_out" in ir.strategy_hooks),
    )
    em.parts.public.append("request_to_wire")


def emit_options_to_wire(
    em: "Emitter",
    out: Any,
    bind: bool,
    warn_into: str | None = None,
    only: set[str] | None = None,
    extras: bool = True,
    phase: int | None = None,
) -> list[tuple[str | None, bool]]:
    """The options rows, writing into `body`: each option's value is the local `value_<name>`
    (`bind`: read from `config` first), beside `extras` and `model`. `warn_into`: the name of a
    list that collects the texts of dropped-with-a-warning options instead of warning at once
    (the fused translators warn once the whole body is built). `only`: the options that can be
    set at all (a fused translator's source reads no others); a row for another option is left
    out unless it acts on an unset value (a default, a required option). `extras`: False when
    no extras can ride along (a fused translator), so a default needs no look at them.
    `phase`: only the rows written before the tools rows (0), after them (1: inside the
    tool_choice object) or after the structured output (2: inside its object); None: every row.
    Returns the additive fields."""
    ir = em.ir
    additive: list[tuple[str | None, bool]] = []
    bound: set[str] = set()  # the options whose `value_<name>` local holds the value to send
    table: list[str] = []  # a run of rows a table says (_plain_row), as `_w.options_to_wire` reads them
    for opt in [*ir.options, None]:
        if opt is not None and phase is not None and phase != _phase(ir, opt):
            if opt.wire is not None and opt.unsupported is None and not opt.model_rules and not (bind and _plain_row(ir, opt) is not None):
                bound.add(opt.name)  # bound by the other phase
            continue
        plain = _plain_row(ir, opt) if bind and opt is not None else None
        if plain is None and table:  # the run ends: its table, read in order (one of comments only too: the code stays the same)
            em.option_tables["TO"] += 1
            name = f"_OPTIONS_TO_{em.option_tables['TO']}"
            em.parts.constants.append(f"# option rows sent as they are, in order (runtime wire.options_to_wire): (option, wire field, how)\n{name}: Final[tuple[tuple[str, str, str], ...]] = (\n" + "".join(f"    {line}\n" for line in table) + ")")
            out.add(f"_w.options_to_wire(config, body, {name}, tools, KEY)")
            table = []
        if opt is None:
            break
        if plain is not None:
            table.append(plain)
            if opt.merge and opt.wire is not None and opt.unsupported is None and opt.header is None:
                additive.append((_extras_key(ir, opt.wire), opt.merge_coerce_string))
            continue
        derive = _derivation(ir, opt)
        if only is not None and opt.name not in only and not (
            opt.has_default or opt.required or (derive is not None and derive.source in only)
        ):
            continue
        row = SimpleNamespace(name=opt.name, header=opt.header, header_deopt=only is not None and opt.name in only)
        if opt.header is not None:  # a request header (HEADER_OPTIONS), never a body field
            shape(out, "options", "option_row", o=row)  # a fused translator writes a body only
            continue
        action = opt.unsupported or ("drop" if opt.wire is None else None)  # None: the option is sent
        row.action = action
        if action == "drop":
            shape(out, "options", "option_row", o=row)
            continue
        row.bind = None
        if bind:  # re-spelled or copied below: any wire type
            row.bind = "any" if opt.values or opt.name in OBJECT_OPTIONS else "plain"
        elif only is not None and opt.name not in only and not (opt.has_default or opt.required):
            row.bind = "unset"
        path = f"config.{opt.name}"
        row.path = path
        row.derive = out.part()
        if derive is not None and action is None:
            _emit_derive(em, row.derive, opt, derive, bind, only, bound)
        row.spelled = None
        if opt.values and action is None:
            spelled: dict[Any, str] = {}
            for wire_value, canonical in opt.values:
                spelled.setdefault(canonical, wire_value)
            row.spelled = em.table(spelled)
        bound.add(opt.name)
        if action is not None:
            row.unsupported = out.part()
            emit_unsupported(row.unsupported, action, opt.name, path, FORMAT_KEY, warn_into=warn_into)
            shape(out, "options", "option_row", o=row)
            continue
        wire = opt.wire
        assert wire is not None  # action None: the option is sent, so it has a wire field
        row.required = opt.required
        row.default = None if not opt.has_default else "fixed" if not extras else "unless_extras"
        row.default_value = opt.default
        row.extras_key = _extras_key(ir, wire)
        row.schema_only = opt.requires == "response_schema" and not bind
        if row.schema_only:
            shape(out, "options", "option_row", o=row)
            continue
        row.requires = {
            None: ":",
            "tools": " and isinstance(tools, list) and tools:  # requires tools: the API refuses it without them",
            "response_schema": " and isinstance(schema, dict) and mode == 'native':  # requires the response schema's object",
            "no_response_schema": " and not (isinstance(schema, dict) and mode == 'native'):  # a native schema says it already",
        }[opt.requires if bind or opt.requires != "no_response_schema" else None]  # fused: never a schema
        row.maximum = opt.maximum
        row.range = None
        if opt.range is not None:  # the provider's values; a translation clamps first (fit_ranges)
            lo, hi = opt.range
            row.range = (
                " and ".join(t for t in (lo is not None and f"value_{opt.name} >= {lo!r}", hi is not None and f"value_{opt.name} <= {hi!r}") if t),
                f" is outside the range {FORMAT_KEY}'s {opt.wire} takes ({'-inf' if lo is None else lo} to {'inf' if hi is None else hi})",
            )
        row.wire = opt.wire
        row.write = out.part()
        _emit_option_write(em, row.write, opt, path, warn_into)
        shape(out, "options", "option_row", o=row)
        if opt.merge:
            additive.append((_extras_key(ir, wire), opt.merge_coerce_string))
    return additive


def _plain_row(ir: Any, opt: Any) -> str | None:
    """The table entry of an option row that needs no code of its own (`_w.options_to_wire`):
    sent as it is to a top-level field ("", "dict": a copy of an object option; "tools": only
    beside tools), dropped with a warning ("warn") or silently (a comment); None otherwise.
    What differs between a dialect and its base is then mostly a table, not the code."""
    if opt.header is not None:  # a request header (HEADER_OPTIONS), never a body field
        return f"# {opt.name}: sent as the request header {opt.header} (HEADER_OPTIONS), not in the body"
    if _derivation(ir, opt) is not None:
        return None
    action = opt.unsupported or ("drop" if opt.wire is None else None)
    if action == "drop":
        return f"# {opt.name}: silently dropped, as the mapping declares"
    if action == "warn":
        return f"({lit(opt.name)}, '', 'warn'),"
    if action is not None or opt.values or opt.required or opt.has_default or opt.maximum is not None or opt.range is not None:
        return None
    if opt.model_rules or opt.with_keys or opt.negate or opt.requires not in (None, "tools"):
        return None
    if "." in opt.wire or opt.wire in _nested_roots(ir):
        return None
    if opt.name in OBJECT_OPTIONS and opt.requires is not None:
        return None
    how = "dict" if opt.name in OBJECT_OPTIONS else "tools" if opt.requires == "tools" else ""
    return f"({lit(opt.name)}, {lit(opt.wire)}, {lit(how)}),"


def _emit_option_write(em: "Emitter", out: Lines, opt: Any, path: str, warn_into: str | None) -> None:
    """The statements writing an option's value: in each `models` scope another wire name (or
    the scope's action), else the row's field (`with`: beside constant keys)."""
    ir = em.ir
    wire = opt.wire
    value = f"value_{opt.name}"
    wire_value = f"not {value}" if opt.negate else f"dict({value})" if opt.name in OBJECT_OPTIONS else value
    for rule in opt.model_rules:
        var = em.regex(rule.regex)
        out.add(f"if {var}.match(model) is not None:  # models{'_except' if rule.excepted else ''}: {lit(rule.patterns)}")
        out.indent()
        if rule.wire is not None:
            out.add(assign(ir, rule.wire, wire_value) + "  # scoped: another wire name for these models")
        else:
            emit_unsupported(out, rule.action, opt.name, path, FORMAT_KEY, scoped=True, warn_into=warn_into)
        out.dedent()
        out.add("else:")
        out.indent()
    negated = "  # negate: the wire says it the other way round" if opt.negate else ""
    if opt.with_keys:
        parent, leaf = wire.rsplit(".", 1)
        out.add(f"container = _w.container_in(body, {lit(tuple(parent.split('.')))})")
        for key, const in opt.with_keys.items():
            out.add(f"container.setdefault({lit(key)}, {lit(const)})  # `with`: written beside it")
        out.add(f"container[{lit(leaf)}] = {wire_value}" + negated)
    else:
        out.add(assign(ir, wire, wire_value) + negated)


def _phase(ir: Any, opt: Any) -> int:
    """Where an option row is written: inside the tool_choice object (Anthropic
    disable_parallel_tool_use) after the tools rows, which create that object (1); inside the
    structured-output object (a caller's schema name) after that row (2); else first (0)."""
    root = opt.wire.split(".")[0] if opt.wire is not None else None
    if root is not None and root == ir.tool_choice.field:
        return 1
    if root is not None and ir.structured is not None and root == ir.structured["field"].split(".")[0]:
        return 2
    return 0


def _derivation(ir: Any, opt: Any) -> Any:
    """The option's `derive` row when it can apply: its source is an option this mapping does
    not send always (statically, or for some models); None otherwise."""
    derive = opt.derive
    if derive is None:
        return None
    source = next(o for o in ir.options if o.name == derive.source)
    if source.wire is not None and source.unsupported is None and not [r for r in source.model_rules if r.wire is None]:
        return None  # the source is always sent (as itself, or renamed for some models): nothing to derive
    return derive


def _emit_derive(em: "Emitter", out: Any, opt: Any, derive: Any, bind: bool, only: set[str] | None, bound: set[str]) -> None:
    """`derive`: the option's value, when the caller gave none, from an option this mapping
    cannot send (for this model), through the row's table."""
    ir = em.ir
    value = f"value_{opt.name}"
    source = next(o for o in ir.options if o.name == derive.source)
    if bind:
        src_expr = f"config.{derive.source}"
    elif only is not None and derive.source in only:
        src_expr = f"value_{derive.source}"
    else:
        return
    sent_for = None
    if source.wire is not None and source.unsupported is None:  # sent, except for some models
        sent_for = em.regex("|".join(f"(?:{rule.regex})" for rule in source.model_rules if rule.wire is None))
    limit = None
    if derive.below is not None:
        below = next(o for o in ir.options if o.name == derive.below)
        if bind and derive.below not in bound:
            limit = f"config.{derive.below}"
        elif derive.below in bound or below.has_default or (only is not None and derive.below in only):
            limit = f"value_{derive.below}"
    shape(
        out, "options", "derive",
        name=opt.name, source=derive.source, source_expr=src_expr, sent_for=sent_for,
        table=em.table(dict(derive.table)) if derive.table else None, steps=derive.steps,
        below=derive.below, limit=limit, minimum=derive.minimum, unless_forced=derive.unless_forced,
    )


def emit_tools_to_wire(em: "Emitter", out: Any, ref: str = "", written: str | None = None) -> None:
    """The tools and tool_choice rows, from the locals `tools` and `tool_choice` into `body`;
    `ref` prefixes the module's own builders (`_dst.` in a fused translator); `written`, a local
    holding the tools already written (a fused translator's fast path), or None when not."""
    ir = em.ir
    tools_expr = f"[{ref}_tool_to_wire(tool, f'tools[{{j}}]', memo) for j, tool in enumerate(tools)]"
    if written is not None:
        tools_expr = f"({written} if {written} is not None else {tools_expr})"
    if ir.cache_point is not None:  # request.cache_points: a breakpoint item after its tool
        tools_expr = f"[w for j, tool in enumerate(tools) for w in ({ref}_tool_to_wire(tool, f'tools[{{j}}]', memo), *(() if not isinstance(tool.cache_control, dict) else ({ref}_cache_point_to_wire(tool.cache_control, f'tools[{{j}}].cache_control'),)))]"
    if ir.tools.group is not None:
        tools_expr = f"[{{{lit(ir.tools.group)}: {tools_expr}}}]  # tools group: one wrapper object"
    # `requires: tools`: the field is left out when no tool is sent
    given = "not isinstance(tool_choice, NotGiven)" + (" and tools is not NOT_GIVEN and bool(tools)" if ir.tool_choice.requires_tools else "")
    shape(
        out, "options", "tools_rows",
        assign=lambda field, expr: assign(ir, field, expr), ref=ref,
        omit_tools=ir.tool_choice.special.get("none") == "omit_tools",
        tools_field=ir.tools.field, tools_expr=tools_expr, strict_all=ir.tools.strict_all, choice_field=ir.tool_choice.field,
        given=given, omit=any(how in ("omit", "omit_tools") for how in ir.tool_choice.special.values()),
        note="  # tool_choice requires: tools" if ir.tool_choice.requires_tools else "",
    )


def _extras_key(ir: Any, wire: str) -> str | None:
    """The key a wire field has in the extras container (None when it lies outside it)."""
    keys = tuple(wire.split("."))
    if keys[: len(ir.extras.under)] != ir.extras.under or len(keys) != len(ir.extras.under) + 1:
        return None
    return keys[-1]


def structured_modes(ir: Any) -> tuple[str, ...]:
    """The structured-output modes a mapping can serve: native and prompt augmentation always,
    tool coercion when it declares the synthetic tool."""
    st = ir.structured
    if st is None:
        return ()
    return ("native", "prompt_fallback", "tool_coercion") if "tool" in st else ("native", "prompt_fallback")


def emit_unsupported(out: Any, action: str, name: str, path: str, key: str, scoped: bool = False, warn_into: str | None = None) -> None:
    why = f"{name} is not supported by {key}" + (" for this model" if scoped else "")  # key: FORMAT_KEY reads KEY
    if action == "reject":
        out.add(f"raise InvalidRequestError({keyed(why)}, path={lit(path)})")
    elif action == "warn" and warn_into is not None:
        out.add(f"{warn_into}.append({keyed(why + '; dropped')})")
    elif action == "warn":
        out.add(f"_w.warn_dropped({keyed(why + '; dropped')})")
    else:
        out.add("pass  # silently dropped, as the mapping declares")


# --------------------------------------------------------------------------- reading requests
def _emit_messages_from_wire(em: "Emitter") -> None:
    ir = em.ir
    out = Lines()
    head, hoisted, roles_part = out.part(), out.part(), out.part()
    item_labels = emit_items.emit_item_dispatch_head(em, head)
    item_labels += emit_items.emit_hoisted_system_roles(em, hoisted)
    reasoning = ir.items.reasoning_match is not None
    placed = ir.tool_calls.placement == "items"

    def sink(out: Any, role: str, env: dict[str, str]) -> None:
        shape(out, "messages_from_wire", "build", role=role, env=env, reasoning=reasoning, items=placed)

    roles = emit_role_readers(em, roles_part, sink)
    shape(
        out, "messages_from_wire", "messages_from_wire",
        items=placed, reasoning=reasoning, head=head, hoisted=hoisted, roles=roles_part, carry=ir.unknown == "carry",
        expected="; expected one of: " + ", ".join([*(str(r) for r in roles), *item_labels]),
        synthesize=ir.tool_calls.missing_id == "synthesize",
    )
    em.func("_messages_from_wire", "(items: list[Any], field: str) -> list[Message]", "Wire messages -> canonical messages.", out.lines)


def emit_role_readers(
    em: "Emitter", out: Any, sink: Any, user_list: Any = None, on_name: Any = None, assistant_first: Any = None,
    tool_first: Any = None,
) -> list[Any]:
    """The `if role == ...:` chain of a messages reader: reads one wire message (`message`, at
    `path`) per role and hands its canonical fields to `sink(out, role, env)` -- role `system`
    and `user` with env `content`, `assistant` with `content` and `tool_calls`, `tool` with
    `message` (a ToolMessage) -- which emits what to do with them. `_messages_from_wire` builds
    canonical messages; the fused translators (codegen/emit/fused.py) write the target's wire
    messages. `user_list(out, raw)`, when given, emits first what to do with a user content that
    is a wire list (`raw`): the fused translators translate its parts in one pass. Returns the
    wire roles read. A role template that places `{name?}` reads it first (`name_`, handed to
    `sink` as env `name`); `on_name(out, key)`, when given, emits instead what to do with a
    message that has that key (the fused translators leave a named message to the two-step path).
    `assistant_first(out)`, when given, emits what to do with a wire assistant message before the
    reader takes it (a fused translator writes a plain one straight to the target);
    `tool_first(out)` likewise for a tool message of its own role.
    Each branch is laid out by templates/functions/messages_from_wire.jinja `role_reader`; the
    callbacks write fragments it places."""
    ir = em.ir
    carry = ir.unknown == "carry"
    templates: list[tuple[str, Obj]] = []
    if ir.system.strategy == "inline" and ir.system.template is not None:  # inline always has one
        templates.append(("system", ir.system.template))
    templates.append(("user", ir.user.template))
    templates.append(("assistant", ir.assistant.template))
    tool_result = ir.tool_results.template
    if ir.tool_results.strategy == "message" and isinstance(tool_result, Obj) and emit_items.role_literal(tool_result) is not None:
        templates.append(("tool", tool_result))
    roles = []
    for role, node in templates:
        wire_role = next((c.value for k, c in node.items if k == "role" and isinstance(c, Lit)), None)
        roles.append(wire_role)
        read_also: tuple[str, ...] = ()
        if role == "system" and ir.system.read_also:
            roles.extend(ir.system.read_also)
            read_also = tuple(ir.system.read_also)
        content_key = next((k for k, c in node.items if isinstance(c, Slot) and c.field == "content"), None)
        named: dict[str, str] = {}
        name_key = next((k for k, c in node.items if isinstance(c, Slot) and c.field == "name"), None) if role != "tool" else None
        name = None
        if name_key is not None and on_name is not None:  # the participant's name (OpenAI Chat `name`)
            name = out.part()
            on_name(name, name_key)
        elif name_key is not None:
            named = {"name": "name_"}
        fields = block_fields(ir) if role == "system" else []
        user_part, assistant, first = out.part(), out.part(), out.part()
        sinks: list[Any] = []
        user_read = ""

        def to(role: str, env: dict[str, str]) -> None:
            part = out.part()
            sink(part, role, env)
            sinks.append(part)

        if role == "system":
            env = {f: f"(system_block.{f} if system_block is not None else NOT_GIVEN)" for f in fields}
            to("system", {"content": f"text if type(text) is str else _w.expect_str(text, path + {lit('.' + str(content_key))})", **env, **named})
        elif role == "user":
            if user_list is not None:
                user_list(user_part, "raw")
            points = ", points=True" if ir.cache_point is not None else ""  # request.cache_points
            user_read = f"_w.user_content(_w.member(message, {lit(content_key)}, path), path + {lit('.' + str(content_key))}, _read_user_part, {carry}{points})"
            if ir.tool_results.strategy == "group_into_user_message":
                to("user", {"content": "run", "list": "yes"})
                to("tool", {"message": "p"})
                to("user", {"content": "run", "list": "yes"})
            to("user", {"content": "content", **named})
        elif role == "assistant":
            if assistant_first is not None:
                assistant_first(first)
            _emit_assistant_reader(em, assistant, node, content_key, "message", "path", "False")
            to("assistant", {"content": "a_content", "tool_calls": "a_calls", **named})
        else:
            if tool_first is not None:
                tool_first(first)
            to("tool", {"message": "tool_message"})
        shape(
            out, "messages_from_wire", "role_reader",
            role=role, wire_role=wire_role, read_also=read_also, name=name, name_key=name_key, content_key=content_key,
            block_fields=fields, user_list=user_part, user_read=user_read,
            grouped=ir.tool_results.strategy == "group_into_user_message", assistant=assistant, sinks=sinks,
            first=first,
        )
    return roles


def _child(path: str, key: Any) -> str:
    """The expression of a child path; the root path is '' and has no leading dot."""
    return lit(str(key)) if path == "''" else f"{path} + {lit('.' + str(key))}"


def _emit_assistant_reader(
    em: "Emitter", out: Any, node: Any, content_key: Any, src: str, path: str, lenient: str, fused_calls: Any = None, fused: bool = False
) -> None:
    """Binds `a_content` and `a_calls` from a wire assistant message (where tool calls have a field
    of their own, `fused_calls` may read and write each, in place of `_read_tool_call`)."""
    ir = em.ir
    calls_key = next((k for k, c in node.items if isinstance(c, Slot) and c.field == "tool_calls"), None)
    content_slot = next((c for k, c in node.items if isinstance(c, Slot) and c.field == "content"), None)
    reasoning = out.part()
    if ir.tool_calls.placement != "content_blocks":
        hook_message_from_wire(em, reasoning, src, path)
    shape(
        out, "messages_from_wire", "assistant_reader",
        required=content_slot is not None and not content_slot.optional, src=src, content_key=content_key, path=path,
        blocks=ir.tool_calls.placement == "content_blocks", content_path=_child(path, content_key),
        cache_point=ir.cache_point is not None, carry=ir.unknown == "carry", lenient=lenient,
        synthesize=ir.tool_calls.missing_id == "synthesize",
        points=", points=True" if ir.cache_point is not None else "",  # request.cache_points
        calls_key=calls_key,  # placement `items`: tool calls are items of their own
        calls_path=_child(path, calls_key if calls_key is not None else "tool_calls"), reasoning=reasoning, fused_calls=fused_calls,
        fused=fused,
    )


def _emit_request_from_wire(em: "Emitter") -> None:
    ir = em.ir
    out = Lines()
    carry = ir.unknown == "carry"
    hoist = None
    if ir.system.strategy == "hoist":
        f = ir.system.field
        hoist = SimpleNamespace(field=f, join=ir.system.join, content_steps=ir.system.content_steps, carry=carry)
        hoist.kept = " or ".join(f"m.{x} is not NOT_GIVEN" for x in block_fields(ir))
        if ir.system.hoist_template is not None:
            hoist.form = "template"
        elif ir.system.blocks is not None and ir.cache_point is not None:
            hoist.form = "cache_blocks"
            hoist.kept = " or ".join(f"m.{x} is not NOT_GIVEN" for x in ["cache_control", *block_fields(ir)])
            hoist.read = f"_w.read_or_skip(_system_block_from_wire, b, {lit(f)} + f'[{{j}}]')" if carry else f"_system_block_from_wire(b, {lit(f)} + f'[{{j}}]')"
            hoist.point = em.cache_point_condition("b")
        elif ir.system.blocks is not None:
            hoist.form = "blocks"
        else:
            hoist.form = "joined"
    # An option this mapping cannot send is still read as that option, so request_to_wire
    # applies the mapping's rule to it (drop, warn or reject) instead of forwarding an extra.
    # An integer option sent as an integer-valued float (Gemini `topK: 40.0`) reads as the
    # integer; the same wire gets its own form back as carried data (runtime/carry.py).
    # Runs of rows a table says (no spellings, one way of reading) are module tables read by
    # `_w.options_from_wire`, so that a dialect differing from its base only there shares the code.
    options: list[SimpleNamespace] = []
    table: list[str] = []
    for opt in [*ir.options, None]:
        if opt is not None and opt.wire is None:
            continue
        how = None if opt is None or opt.values else "whole" if opt.name in INTEGER_OPTIONS else "negate" if opt.negate else ""
        if how == "" and opt is not None and opt.merge_coerce_string:
            how = "list"
        elif how and opt is not None and opt.merge_coerce_string:
            how = None  # both: the row's own code says it
        if how is None and table:  # the run ends: its table, read in order
            em.option_tables["FROM"] += 1
            name = f"_OPTIONS_FROM_{em.option_tables['FROM']}"
            em.parts.constants.append(f"# option rows read as they are, in order (runtime wire.options_from_wire): (option, wire fields, how)\n{name}: Final[tuple[tuple[str, tuple[str, ...], str], ...]] = (\n" + "".join(f"    {line}\n" for line in table) + ")")
            options.append(SimpleNamespace(table=name))
            table = []
        if opt is None:
            break
        assert opt.wire is not None
        if how is not None:
            table.append(f"({lit(opt.name)}, {lit((opt.wire, *opt.read_also))}, {lit(how)}),")
            continue
        options.append(SimpleNamespace(
            table=None,
            name=opt.name,
            reads=(opt.wire, *opt.read_also),
            # the wire's spellings; an unlisted one is read as given (a string) or not at all
            spellings=dict(opt.values) if opt.values else None,
            keep=opt.name in STRING_OPTIONS,
            whole="_w.whole_number" if opt.name in INTEGER_OPTIONS else "_w.negated" if opt.negate else "",
            negate=opt.negate,
            scalar_list=opt.merge_coerce_string,
        ))
    tools = SimpleNamespace(field=ir.tools.field, group=ir.tools.group, carry=carry, strict_all=ir.tools.strict_all, point=None,
                            # tools.lone_object: the API takes one tool object for the array too
                            list_fn="_w.lone_as_list" if ir.tools.lone_object else "_w.expect_list")
    if carry:
        em.parts.constants.append(
            f"_TOOL_NEEDS: Final = frozenset({sorted(tool_needs(ir.tools.template))!r})"
            "  # keys _read_tool requires: a tool without one (a server tool) is skipped unread (wire.read_or_skip)")
    if ir.tools.group is None and ir.cache_point is not None:
        # request.cache_points: a breakpoint item marks the tool before it
        tf = lit(ir.tools.field)
        tools.point = em.cache_point_condition("t")
        tools.read = f"_w.read_or_skip(_read_tool, t, {tf} + f'[{{j}}]', _TOOL_NEEDS)" if carry else f"_read_tool(_w.expect_dict(t, {tf} + f'[{{j}}]'), {tf} + f'[{{j}}]')"
    st = ir.structured
    structured = None
    tail = out.part()
    if st is not None and st["mode"] == "native":
        sf = st["field"]
        node = ir.structured_template
        assert isinstance(node, Obj)
        shared = "." in sf or sf in _nested_roots(ir)
        conds = em.dispatch_conditions(node, "raw_structured")
        if shared:
            conds = " and ".join([conds, *em.presence_conditions(node, "raw_structured")])
        # the template's keys, and those the unmodeled table judges (a `reject` row still refuses)
        judged = tuple(k for k, action in ir.unmodeled.get("structured_output", {}).items() if action == "reject" or not carry)
        also = None
        if st.get("schema_also") is not None:  # structured_output.schema_also: the schema under another key, in another form
            schema_key = slot_path(node, "schema")
            literal_keys = [key for key, child in node.items if key != schema_key]
            also = SimpleNamespace(
                field=st["schema_also"]["field"], form=st["schema_also"]["form"],
                conds=" and ".join([em.dispatch_conditions(node, "raw_structured"), f"raw_structured.get({lit(st['schema_also']['field'])}) is not None", f"raw_structured.get({lit(schema_key)}) is None"]),
                nested=[(*sf.split("."), key) for key in (*literal_keys, st["schema_also"]["field"])],
                alias=(tuple(sf.split(".")), st["schema_also"]["field"], schema_key, tuple((key, child.value) for key, child in node.items if isinstance(child, Lit))),
            )
        structured = SimpleNamespace(
            field=sf, conds=conds, shared=shared,
            nested=[(*sf.split("."), key) for key, _ in node.items], kept=tuple(k for k, _ in node.items) + judged,
            popped=[opt.name for opt in ir.options if opt.requires == "no_response_schema" and opt.wire is not None],
            also=also,
        )
        _emit_derived_defaults(ir, tail, sf)
    # `with`: the keys a row writes beside its value (thinking.type: enabled) are the row's own
    # where it read the value and they hold the literal, not extras the writer would clash with
    literals = [
        SimpleNamespace(keys=tuple(opt.wire.split(".")), parent=tuple(opt.wire.split(".")[:-1]), literals=tuple(opt.with_keys.items()))
        for opt in ir.options
        if opt.with_keys and opt.wire is not None and not carry
    ]
    # A reader that keeps unread fields as extras reads an option inside an object of its own
    # (`thinking`, `generationConfig.thinkingConfig`) only when the rows read all of that object:
    # else the whole object is the extra, which its writer sends untouched (it writes there only
    # for an option that is set). Split in two, the writer would refuse the rest as clashing with
    # the object it writes. (Not the extras' own container, nor tool_choice or structured output,
    # which their readers read whole.)
    own: dict[tuple[str, ...], list[tuple[str, tuple[str, ...]]]] = {}
    if not carry:
        whole = [tuple(ir.tool_choice.field.split("."))]
        if ir.structured is not None and not ("." in ir.structured["field"] or ir.structured["field"] in _nested_roots(ir)):
            whole.append(tuple(ir.structured["field"].split(".")))  # read whole (else only its template's keys)
        for opt in ir.options:
            for wire in (opt.wire, *opt.read_also):
                if wire is None or "." not in wire:
                    continue
                steps = tuple(wire.split("."))
                if steps[:-1] != tuple(ir.extras.under or ()) and not any(steps[: len(w)] == w for w in whole):
                    own.setdefault(steps[:-1], []).append((opt.name, steps))
    partial = [SimpleNamespace(parent=parent, rows=tuple(rows)) for parent, rows in sorted(own.items())]
    shape(
        out, "request_from_wire", "request_from_wire",
        get=lambda field: _get(ir, field), consume=lambda field: _consume(ir, field), literals=literals, partial=partial,
        model_field=ir.model_field, hoist=hoist, messages_field=ir.messages_field, bare_string=ir.user.bare_string == "read",
        options=options, tools=tools, choice=SimpleNamespace(field=ir.tool_choice.field, carry=carry),
        structured=structured, structured_tail=tail,
        rest="carry" if carry else "under" if ir.extras.under else "extras",
        under=ir.extras.under, root=ir.extras.root, root_sorted=tuple(sorted(ir.extras.root)),
    )
    em.func("_request_from_wire", "(body: Any) -> Request", "Wire request body -> canonical request.", out.lines)

    em.func(
        "request_from_wire",
        f"(body: {wire_type(ir.key, 'Request')} | Mapping[str, Any]) -> Request",
        f"{ir.title} request body -> canonical request (for gateways). Raises InvalidRequestError naming the path.",
        # transport.body: protocol the transport writes on every request (like a header), not request data
        shaped("request_from_wire", "request_from_wire_public", request_in="request_in" in ir.strategy_hooks, fixed=frozenset(sorted((ir.transport or {}).get("body") or {})), proto=ir.proto_names is not None,
               schema_also=None if ir.tools.schema_also is None else (ir.tools.field, ir.tools.group, ir.tools.schema_also[0], ir.tools.schema_also[2]),
               structured_also=None if structured is None or structured.also is None else structured.also.alias),
    )
    em.parts.public.append("request_from_wire")
    em.func(
        "_rewrite_request",
        "(req: Request) -> dict[str, Any]",
        "The body this format writes for a request it read (the residual's baseline, runtime/carry.py).",
        ["    return _request_to_wire(req, None)"],
    )

    # tool reader
    out = Lines()
    reader = out.part()
    got: dict[str, str] = {}
    em.unmodeled(reader, "tool", "tool", "path")
    em.read_node(reader, ir.tools.template, "tool", "path", "tool", got)
    if ir.tools.schema_also is not None:  # tools.schema_also: the parameters under another field, in another form
        field_, form, _own = ir.tools.schema_also
        var = got["parameters"]
        reader.add(f"if {var} is NOT_GIVEN and tool.get({lit(field_)}) is not None:  # tools.schema_also ({form})")
        reader.add(f"    {var} = _w.{form}_schema(tool[{lit(field_)}], path + {lit('.' + field_)})")
    args = [f"{name}={got[name]}" for name in ("name", "description", "parameters", "strict", "cache_control") if name == "name" or name in got]
    shape(out, "messages_to_wire", "returns", prelude=reader, expr=f"Tool({', '.join(args)})")
    em.func("_read_tool", "(tool: dict[str, Any], path: str) -> Tool", "Wire tool definition -> canonical tool.", out.lines)

    # tool choice reader
    out = Lines()
    path = lit(ir.tool_choice.field)
    checks = out.part()
    if ir.unmodeled.get("tool_choice"):
        em.unmodeled(checks, "tool_choice", "value", path)  # `drop`/`carry` rows generate no check
    forced_conds = forced_name = None
    forced_reader = out.part()
    if "tool" in ir.tool_choice.modes:
        node = ir.tool_choice.modes["tool"]
        forced_conds = " and ".join([em.dispatch_conditions(node, "value"), *em.presence_conditions(node, "value")])
        got = {}
        em.read_node(forced_reader, node, "value", path, "tool_choice.tool", got)
        forced_name = got["name"]
    modes = []
    for mode in ("auto", "required", "none"):
        if mode not in ir.tool_choice.modes:
            continue  # omit (read as absent) or reject (never written)
        node = ir.tool_choice.modes[mode]
        if isinstance(node, Lit):
            modes.append((mode, f"value == {lit(node.value)}"))
        else:
            # its literals and every top-level key it writes: `{auto: {}}` and `{any: {}}`
            # (Bedrock) differ only by their keys
            keys = [f"{lit(k)} in value" for k, c in node.items if not isinstance(c, Lit)] if isinstance(node, Obj) else []
            modes.append((mode, f"type(value) is dict and {' and '.join([*keys, em.dispatch_conditions(node, 'value')])}"))
    shape(
        out, "request_from_wire", "read_tool_choice",
        path=path, checks=checks.lines, forced_conds=forced_conds, forced_reader=forced_reader, forced_name=forced_name, modes=modes,
    )
    em.func("_read_tool_choice", "(value: Any) -> ToolChoice", "Wire tool_choice -> canonical.", out.lines)

    if st is not None and st["mode"] == "native":
        out = Lines()
        reader = out.part()
        got = {}
        assert ir.structured_template is not None
        em.unmodeled(reader, "structured_output", "value", "path")
        em.read_node(reader, ir.structured_template, "value", "path", "structured_output", got)
        shape(out, "messages_to_wire", "returns", prelude=reader, expr=got["schema"])
        em.func("_read_structured_output", "(value: dict[str, Any], path: str) -> dict[str, Any]", "Wire structured-output field -> the JSON Schema it carries.", out.lines)


# --------------------------------------------------------------------------- responses
def response_reader(em: "Emitter", out: Lines, fused: bool = False, fused_calls: Any = None) -> None:
    """The body of `_response_from_wire` into `out`: the wire body `body` read into `finish_reason`,
    `a_content`, `a_calls` and `usage`; with `fused` (codegen/emit/fused_response.py) it stops
    there, before the canonical Response is built, and `fused_calls` (a fragment) may read each
    tool call of a message's own field into the wire form its target writes."""
    ir = em.ir
    detail = out.part()
    emit_items.emit_finish_detail(em, detail)
    items_reader = out.part()
    if ir.items.response_items is not None:
        message = "items"
        emit_items.emit_items_message_reader(em, items_reader)
    elif ir.response.message:
        message = "empty" if ir.response.message_missing == "empty" else "at"
    else:
        message = "root"
    msg_path = _path_text(ir.response.message)
    reader = out.part()
    if ir.items.response_items is None:
        content_key = next((k for k, c in ir.assistant.template.items if isinstance(c, Slot) and c.field == "content"), None)
        _emit_assistant_reader(em, reader, ir.assistant.template, content_key, "message", lit(msg_path), "lenient", fused_calls, fused)
    fallback, usage = out.part(), out.part()
    get = (lambda var, keys: inline_get(var, keys, out.fresh)) if fused else _keys_get  # noqa: E731
    emit_usage.emit_fallback(fallback, ir.usage.fallback)
    emit_usage.emit_reader(usage, ir.usage.counters, get, fused)
    shape(
        out, "responses", "response_from_wire",
        finish=get("body", ir.finish.path), detail=detail, message=message,
        message_at=get("body", ir.response.message), message_path=msg_path, items_reader=items_reader, reader=reader,
        # a wire whose assistant content is always parts (content blocks, or `always_parts`:
        # Cohere's AssistantMessageResponse.content) says nothing more with a one-text list than
        # with a string
        one_text=ir.tool_calls.placement == "content_blocks" or ir.assistant.content == "always_parts",
        missing_empty=ir.response.message_missing == "empty", with_tool_calls=ir.finish.with_tool_calls,
        refusal_field=ir.response.refusal_field if ir.items.response_items is None else None,
        usage_at=get("body", ir.usage.path), fallback=fallback, usage=usage, fused=fused,
    )


def _emit_response_from_wire(em: "Emitter") -> None:
    ir = em.ir
    em.func(
        "_finish_reason",
        "(value: Any) -> FinishReason",
        "Wire finish reason -> canonical (the table's `*` row for anything unlisted).",
        shaped("responses", "finish_reason", map=ir.finish.map, default=ir.finish.default),
    )

    out = Lines()
    response_reader(em, out)
    em.func("_response_from_wire", "(body: Any) -> Response", "Wire response body -> canonical response.", out.lines)

    st = ir.structured
    coerced_tool = st["tool"]["name"] if st is not None and "tool_coercion" in structured_modes(ir) else None
    em.func(
        "response_from_wire",
        f"(body: {wire_type(ir.key, 'Response')} | Mapping[str, Any], *, response_schema: dict[str, Any] | None = None, structured_output: str | None = None) -> Response",
        f"{ir.title} response body -> canonical Response (`raw` is the body). With a `response_schema`, `parsed` is set or StructuredOutputInvalidError raised.",
        shaped(
            "responses", "response_from_wire_public",
            response_in="response_in" in ir.strategy_hooks, coerced_tool=coerced_tool,
        ),
    )
    em.parts.public.append("response_from_wire")


_ENVELOPE_SLOTS = {"message": "wire_message", "finish_reason": "wire_reason", "usage": "usage_wire"}


def _envelope_rows(ir: Any) -> list[tuple[str, str, bool]]:
    """The response envelope's rows as (key, value expression, written only when truthy)."""
    rows: list[tuple[str, str, bool]] = []
    for item in ir.response.envelope:
        if item.kind == "literal":
            rows.append((item.key, lit(item.value), False))
        elif item.kind == "from_raw":
            expr = lit(item.default)
            for raw_key in reversed([item.value] if isinstance(item.value, str) else item.value):
                expr = f"raw.get({lit(raw_key)}, {expr})"  # several keys: the first one present
            rows.append((item.key, expr, False))
        elif item.kind == "slot":
            rows.append((item.key, _ENVELOPE_SLOTS[item.slot or ""], bool(item.optional)))
        elif item.kind == "tree":
            rows.append((item.key, _envelope_expr(item.value), False))
        else:  # choice
            parts = [
                f"{lit(k)}: " + (_ENVELOPE_SLOTS[child.field] if isinstance(child, Slot) else lit(child.value))
                for k, child in item.value.items
            ]
            rows.append((item.key, f"[{{{', '.join(parts)}}}]", False))
    return rows


def _inline_text(em: "Emitter", var: str) -> str | None:
    """The assistant content a response writer makes of a string `var`, as one expression (what
    `_assistant_content_to_wire`, then `_as_blocks` where tool calls are blocks, return for it),
    for a fused translator's writer; None where it takes statements (or joins text)."""
    ir = em.ir
    scratch = Lines()
    scratch.level = 0
    scratch.counter = 900
    expr = text_content(em, scratch, "assistant", var)
    if expr is not None and ir.tool_calls.placement == "content_blocks" and ir.assistant.content != "always_parts":
        text_node = ir.parts["text"]  # _as_blocks: the string as one text part, none when empty
        assert not isinstance(text_node, str)
        expr = f"([{em.build_node(scratch, text_node, {'text': var, 'signature': 'NOT_GIVEN'}, 'part.text', 'path')}] if {var} else [])"
    return None if scratch.lines else expr


def response_writer(em: "Emitter", out: Lines, fused: bool = False, written_calls: bool = False) -> None:
    """The body of `_response_to_wire` into `out`. With `fused` (codegen/emit/fused.py) it writes
    from the names a response reader binds (`response_reader`: `finish_reason`, `a_content`,
    `a_calls`, `usage`; `raw`, the wire body read) instead of a canonical Response, and nothing
    carried (another provider's wire: the two-step way drops it too); with `written_calls`, the
    tool calls `a_calls` holds are this format's wire tool calls already (read and written in one)."""
    ir = em.ir
    content, calls = ("a_content", "a_calls") if fused else ("msg.content", "msg.tool_calls")
    inverse: dict[str, str] = {}
    for wire, canonical in ir.finish.map:
        inverse.setdefault(canonical, wire)
    inverse.update(ir.finish.emit)
    message = out.part()
    expr: str | None = None
    inline = _inline_text(em, content) if fused else None
    if ir.items.response_items is not None:
        emit_items.emit_items_message_writer(em, message)
    elif ir.tool_calls.placement == "content_blocks":
        prelude = out.part()
        expr = build_message(
            em, prelude, ir.assistant.template, {"content": "blocks", "tool_calls": "NOT_GIVEN"}, "message.assistant", frozenset({"content"})
        )
        shape(message, "responses", "response_message_blocks", prelude=prelude, content=content, calls=calls, written=written_calls, inline=inline, fused=fused, memo=em.call_memo)
    else:
        prelude = out.part()
        expr = build_message(em, prelude, ir.assistant.template, {"content": "content_out", "tool_calls": "wire_calls"}, "message.assistant")
        shape(message, "responses", "response_message", joined=ir.response.content == "joined_text", prelude=prelude, content=content, calls=calls, written=written_calls, inline=inline, fused=fused, memo=em.call_memo)
    usage = out.part()
    emit_usage.emit_writer(usage, ir.usage.counters, ir.usage.unreported, lambda: emit_items.emit_usage_zero_fill(em, usage), fused)
    body = out.part()
    shape(body, "responses", "envelope", rows=_envelope_rows(ir))
    detail = out.part()
    emit_items.emit_finish_detail_writer(em, detail)
    shape(
        out, "responses", "response_to_wire",
        reasons=list(inverse.items()), listed=tuple(w for w, _ in ir.finish.map),
        finish_at=inline_get("raw", ir.finish.path, out.fresh) if fused else _keys_get("raw", ir.finish.path),
        message=message, message_expr=expr, reasoning=ir.reasoning is not None, usage=usage, body=body,
        at_root=not ir.response.message, detail=detail, response_out="response_out" in ir.strategy_hooks, fused=fused, content=content,
    )


def _emit_response_to_wire(em: "Emitter") -> None:
    ir = em.ir
    out = Lines()
    inverse: dict[str, str] = {}
    for wire, canonical in ir.finish.map:
        inverse.setdefault(canonical, wire)
    inverse.update(ir.finish.emit)
    # module tables, so that a dialect with other finish reasons differs in them, not in code
    em.parts.constants.append(f"_FINISH_TO_WIRE: Final[dict[str, str]] = {lit(inverse)}  # canonical finish reason -> the wire's")
    em.parts.constants.append(f"_FINISH_LISTED: Final = {lit(tuple(w for w, _ in ir.finish.map))}  # the wire's finish reasons")
    response_writer(em, out)
    # the body apart from the typed wrapper: a dialect shares it (codegen/emit/share.py) where only
    # the wire type's name differs
    em.func("_response_to_wire", "(response: Response | Mapping[str, Any]) -> dict[str, Any]", "The body of response_to_wire.", out.lines)
    wire_resp = wire_type(ir.key, "Response")  # generated/<module>_types.py, imported for type checkers only
    em.func(
        "response_to_wire",
        f"(response: Response | Mapping[str, Any]) -> {wire_resp}",
        f"Canonical response -> {ir.title} response body (for gateways); id/model come from `raw` when present.",
        [f"    return cast({lit(wire_resp)}, _response_to_wire(response))"],
    )
    em.parts.public.append("response_to_wire")


def _envelope_expr(node: Any) -> str:
    """An envelope object or array as one expression, its placeholders the written values."""
    if isinstance(node, Obj):
        return "{" + ", ".join(f"{lit(k)}: {_envelope_expr(c)}" for k, c in node.items) + "}"
    if isinstance(node, Arr):
        return "[" + ", ".join(_envelope_expr(c) for c in node.items) + "]"
    if isinstance(node, Slot):
        return {"message": "wire_message", "finish_reason": "wire_reason", "usage": "usage_wire"}[node.field]
    return lit(node.value)


def emit_error_from_wire(em: "Emitter") -> None:
    ir = em.ir
    em.func(
        "error_from_wire",
        "(status: int, body: Mapping[str, Any] | str | bytes | None = None, headers: Mapping[str, Any] | None = None) -> ProviderError",
        f"An HTTP error from {ir.title} -> the ProviderError of its category (returned, never raised).",
        shaped("responses", "error_from_wire"),
    )
    em.parts.public.append("error_from_wire")
    rules = tuple(
        (
            tuple(rule.statuses) if rule.statuses is not None else None,
            rule.status_class,
            tuple(rule.types) if rule.types else None,
            tuple(rule.codes) if rule.codes else None,
            "(?i)" + rule.body_pattern if rule.body_pattern is not None else None,
            rule.category,
        )
        for rule in ir.errors.rules
    )
    em.parts.constants.append("# errors.rules, first match wins: (statuses, status class, types, codes, pattern, category)")
    em.parts.constants.append(f"ERROR_RULES: Final[tuple[_w.ErrorRule, ...]] = {rules!r}")
    delay = ir.errors.retry_delay  # task IRs (embeddings, images): None
    read = (
        tuple(ir.errors.message),
        tuple(ir.errors.type) if ir.errors.type is not None else None,
        ir.errors.type_header,
        tuple(ir.errors.code) if ir.errors.code is not None else None,
        tuple(ir.errors.retry_after_headers),
        (tuple(delay["list"]), dict(delay["match"]), delay["field"]) if delay is not None else None,
    )
    em.parts.constants.append("# errors: the message, type and code paths, the type header, the retry headers, the body's retry hint (runtime wire.read_error)")
    em.parts.constants.append(f"ERROR_READ: Final[_w.ErrorRead] = {read!r}")
    em.func(
        "_error_from_wire",
        "(status: int, body: Any, headers: Mapping[str, Any] | None) -> ProviderError",
        "The body of error_from_wire: the format's ERROR_READ and ERROR_RULES, read by the runtime.",
        ["    return _w.read_error(ERROR_READ, ERROR_RULES, status, body, headers)"],
    )


def tool_needs(template: Any) -> list[str]:
    """The top-level keys of a tool template whose absence makes `_read_tool` raise a
    WireShapeError (a required string or schema placeholder, read with `member_str` or
    `member_dict`: Emitter.read_slot; an object holding a required placeholder or a literal,
    read with `member_dict`: Emitter.read_node), so that `read_or_skip` answers SKIP for such a tool
    without calling the reader. Only keys that certainly raise are named: a shorter list only
    means the reader runs."""
    needs = []
    for key, child in template.items:
        if isinstance(child, Slot) and not child.optional and not child.has_default and child.codec is None:
            if CONTEXTS["tool"][child.field].kind in ("str", "schema", "object"):
                needs.append(key)
        elif isinstance(child, Obj) and (
            any(not s.optional for s in slots_of(child)) or any(isinstance(n, Lit) for _, n in child.items)
        ):  # read with member_dict (Emitter.read_node): OpenAI's `function`
            needs.append(key)
    return needs

"""Stage 3 (emit): the format-level functions (messages, options, tools, responses, errors).

Each named strategy of the mapping language is implemented here exactly once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..sections import items as emit_items
from ..ir.catalog import CONTEXTS
from ..sections import usage as emit_usage
from ..ir.chat import INTEGER_OPTIONS, OBJECT_OPTIONS, STRING_OPTIONS
from .lines import FORMAT_KEY, Lines, keyed, wire_type
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
        return f"_w.put_in(body, {lit(tuple(field.split('.')))}, {expr})"
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


def _block_fields(ir: Any) -> list[str]:
    """The optional fields of the `system.blocks` template: what only the block form carries."""
    node = ir.system.blocks
    return [c.field for _, c in node.items if isinstance(c, Slot) and c.optional] if node is not None else []


def _emit_system_blocks(em: "Emitter") -> None:
    """`system.blocks`: one system message as a wire text block, both ways."""
    ir = em.ir
    node = ir.system.blocks
    if node is None:
        return
    fields = _block_fields(ir)
    out = Lines()
    env = {"content": "message.content", **{f: f"message.{f}" for f in fields}}
    expr = em.build_node(out, node, env, "message.system", "path")
    out.add(f"return {expr}")
    em.func("_system_block_to_wire", "(message: SystemMessage, path: str) -> dict[str, Any]", "A system message -> its wire text block (system.blocks).", out.lines)
    out = Lines()
    out.add("block = _w.expect_dict(value, path)")
    for key, child in node.items:
        if isinstance(child, Lit):
            out.add(f"if block.get({lit(key)}) != {lit(child.value)}:")
            out.add(f"    raise _w.WireShapeError(path + {lit('.' + key)}, 'expected ' + {lit(repr(child.value))} + ' (a system block is text)')")
    got: dict[str, str] = {}
    em.read_node(out, node, "block", "path", "message.system", got)
    args = ", ".join(f"{f}={got[f]}" for f in ["content", *fields])
    out.add(f"return SystemMessage({args})")
    em.func("_system_block_from_wire", "(value: Any, path: str) -> SystemMessage", "A wire text block -> a system message (system.blocks).", out.lines)


def _emit_cache_point(em: "Emitter") -> None:
    """`request.cache_points`: a breakpoint as its own wire item, both ways."""
    node = em.ir.cache_point
    if node is None:
        return
    out = Lines()
    out.add("ttl: Any = cache_control.get('ttl', NOT_GIVEN)")
    expr = em.build_node(out, node, {"type": "cache_control['type']", "ttl": "ttl"}, "cache_point", "path")
    out.add(f"return {expr}")
    em.func("_cache_point_to_wire", "(cache_control: dict[str, Any], path: str) -> dict[str, Any]", "A prompt-cache breakpoint -> its own wire item, sent after the item it marks (request.cache_points).", out.lines)
    out = Lines()
    for key, child in node.items:
        if isinstance(child, Lit):
            out.add(f"if part.get({lit(key)}) != {lit(child.value)}:")
            out.add(f"    raise _w.WireShapeError(path + {lit('.' + key)}, {lit('expected ' + repr(child.value))})")
    got: dict[str, str] = {}
    em.read_node(out, node, "part", "path", "cache_point", got)
    out.add(f"cache_control: dict[str, Any] = {{'type': {got['type']}}}")
    if "ttl" in got:
        out.add(f"ttl_ = {got['ttl']}")
        out.add("if ttl_ is not NOT_GIVEN:")
        out.add("    cache_control['ttl'] = ttl_")
    out.add("return cache_control")
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
        out.add("if isinstance(content, str):")
        out.indent()
        if strategy == "always_parts":
            out.add("if not content:")
            out.add("    return []")
            env = {"text": "content", "signature": "NOT_GIVEN"}
            expr = em.build_node(out, text_node, env, "part.text", "path")
            out.add(f"return [{expr}]")
        else:
            out.add("return content")
        out.dedent()
        out.add("blocks = content")
        if role == "assistant" and ir.assistant.order == "thinking_first":
            out.add("# OpenArmature §3.1.6: thinking precedes text in its turn.")
            out.add("blocks = [b for b in content if type(b) is ThinkingBlock or type(b) is RedactedThinkingBlock] + [")
            out.add("    b for b in content if type(b) is not ThinkingBlock and type(b) is not RedactedThinkingBlock")
            out.add("]")
        out.add("parts: list[dict[str, Any]] = []")
        out.add("kept: list[Block] = []")
        out.add("for j, block in enumerate(blocks):")
        out.indent()
        if role == "assistant" and own_text:
            out.add("if type(block) is TextBlock:")
            out.add("    wire = _assistant_text_to_wire(block, f'{path}[{j}]')")
            out.add("else:")
            out.add("    wire = _part_to_wire(block, f'{path}[{j}]')")
        else:
            out.add("wire = _part_to_wire(block, f'{path}[{j}]')")
        out.add("if wire is not None:")
        out.add("    parts.append(wire)")
        out.add("    kept.append(block)")
        if ir.cache_point is not None:
            out.add("    if isinstance(block, (TextBlock, ImageBlock, FileBlock)) and isinstance(block.cache_control, dict):")
            out.add("        parts.append(_cache_point_to_wire(block.cache_control, f'{path}[{j}].cache_control'))  # request.cache_points")
        out.dedent()
        if strategy == "string_or_parts":
            out.add("# A single text part is sent as a plain string (Prompty §7.1.1), unless the part")
            out.add("# carries a field the string cannot (one its template writes: a cache breakpoint).")
            guards = "".join(f" and kept[0].{CONTEXTS['part.text'][c.field].attr} is NOT_GIVEN" for c in slots_of(text_node) if c.optional)
            if ir.cache_point is not None:
                guards += " and kept[0].cache_control is NOT_GIVEN"
            out.add(f"if len(kept) == 1 and type(kept[0]) is TextBlock{guards}:")
            out.add("    return kept[0].text")
            if role == "assistant":
                out.add("if not parts:")
                out.add("    return None")
        out.add("return parts")
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
    out.add("if isinstance(content, list):")
    out.add("    return content")
    out.add("if not content:")
    out.add("    return []  # never an empty text block")
    text_node = em.ir.parts["text"]
    assert not isinstance(text_node, str)  # the IR refuses a stripped or rejected text part
    expr = em.build_node(out, text_node, {"text": "content", "signature": "NOT_GIVEN"}, "part.text", "path")
    out.add(f"return [{expr}]")
    em.func("_as_blocks", "(content: str | list[dict[str, Any]] | None) -> list[dict[str, Any]]", "Assistant content as wire blocks, for turns whose tool calls are blocks too.", out.lines)


def _emit_tool_call_builder(em: "Emitter") -> None:
    out = Lines()
    env = {"id": "call.id", "name": "call.name", "arguments": "call.arguments", "signature": "signature"}
    if any(s.field == "signature" for s in slots_of(em.ir.tool_calls.template)):
        out.add("# Signatures are provider-bound: only our own (or unstamped) ones are resent.")
        out.add("signature = call.signature if call.origin is NOT_GIVEN or call.origin == PROVIDER else NOT_GIVEN")
    em.json_memo = True
    expr = em.build_node(out, em.ir.tool_calls.template, env, "tool_call", "path")
    em.json_memo = False
    out.add(f"return {expr}")
    em.func(
        "_tool_call_to_wire",
        "(call: ToolCall, path: str, memo: dict[int, Any] | None = None) -> dict[str, Any]",
        "Canonical tool call -> wire. `memo`: validation's sorted copies (wire.memo_json).",
        out.lines,
    )


def _emit_role_writers(em: "Emitter") -> None:
    """One function per canonical role: a message's fields -> its wire record. `_messages_to_wire`
    calls them in its loop, and so do the fused translators (codegen/emit/fused.py), so each
    role is written by one piece of generated code. (Placement `items` writes assistant turns in
    the loop itself: one turn becomes several items.)"""
    ir = em.ir
    if ir.system.strategy != "hoist":
        assert ir.system.template is not None
        out = Lines()
        fields = _block_fields(ir)
        if fields:  # system.blocks: what the plain form cannot carry goes in a one-block content
            out.add("if " + " or ".join(f"{f} is not NOT_GIVEN" for f in fields) + ":")
            out.indent()
            out.add("block = _system_block_to_wire(SystemMessage(content, " + ", ".join(f"{f}={f}" for f in fields) + "), path)")
            expr = build_message(em, out, ir.system.template, {"content": "[block]", "name": "name"}, "message.system")
            out.add(f"return {expr}")
            out.dedent()
        expr = build_message(em, out, ir.system.template, {"content": "content", "name": "name"}, "message.system")
        out.add(f"return {expr}")
        params = "".join(f", {f}: {_BLOCK_FIELD_TYPES[f]} = NOT_GIVEN" for f in fields)
        if _names(ir.system.template):
            params += ", name: str | NotGiven = NOT_GIVEN"
        em.func("_system_to_wire", f"(content: str, path: str = ''{params}) -> dict[str, Any]", "A system message -> its wire message (system `inline`).", out.lines)
    out = Lines()
    text = text_content(em, out, "user", "content")
    if text is not None:
        out.add("wire_content: Any")
        out.add("if type(content) is str:  # the common case, inline")
        out.add(f"    wire_content = {text}")
        out.add("else:")
        out.add("    wire_content = _user_content_to_wire(content, f'messages[{i}].content')")
    else:
        out.add("wire_content = _user_content_to_wire(content, f'messages[{i}].content')")
    expr = build_message(em, out, ir.user.template, {"content": "wire_content", "name": "name"}, "message.user")
    out.add(f"return {expr}")
    named = ", name: str | NotGiven = NOT_GIVEN" if _names(ir.user.template) else ""
    em.func("_user_to_wire", f"(content: str | list[Block], i: int{named}) -> dict[str, Any]", "A user message (`messages[i]`) -> its wire message.", out.lines)
    if ir.tool_results.strategy == "group_into_user_message":
        out = Lines()
        expr = build_message(em, out, ir.user.template, {"content": "results"}, "message.user")
        out.add(f"return {expr}")
        em.func("_results_to_wire", "(results: list[dict[str, Any]]) -> dict[str, Any]", "The user message that carries a run of tool results (`group_into_user_message`).", out.lines)
    out = Lines()
    env = {"tool_call_id": "tool_call_id", "content": "wire_content", "name": "name", "is_error": "is_error", "cache_control": "cache_control"}
    media = ir.tool_results.media
    if ir.tool_results.content in ("parts", "always_parts"):
        out.add("wire_content: Any = content")
        if ir.tool_results.content == "always_parts":
            # a string is one text part (an empty one too: a result always has content)
            text_node = ir.parts["text"]
            assert not isinstance(text_node, str)
            out.add("if type(content) is str:  # tool_results.content: always_parts, a string as one text part")
            out.indent()
            text_expr = em.build_node(out, text_node, {"text": "content", "signature": "NOT_GIVEN"}, "part.text", "''")
            out.add(f"wire_content = [{text_expr}]")
            out.dedent()
        out.add(f"if type(content) is list:  # tool_results.content: {ir.tool_results.content}, written as a user turn's parts")
        kinds = ir.tool_results.media_parts
        if kinds:
            out.add("    taken: list[Block] = []")
            out.add("    for k, block in enumerate(content):")
            out.add(f"        if type(block) is not TextBlock and _w.block_kind(block) not in {kinds!r}:  # tool_results.media_parts")
            out.add("            _w.dropped_part(block, f'messages[{i}].content[{k}]')")
            out.add("            continue")
            out.add("        taken.append(block)")
            out.add("    wire_content = _user_content_to_wire(taken, f'messages[{i}].content')")
        else:
            out.add("    wire_content = _user_content_to_wire(content, f'messages[{i}].content')")
    elif media:
        out.add("wire_content: Any = content")
        out.add("media: list[dict[str, Any]] = []")
        out.add(f"if type(content) is list:  # tool_results.media: the text in {{content}}, the other parts at {'.'.join(media)}")
        out.add("    wire_content = ''.join(b.text for b in content if type(b) is TextBlock)")
        out.add("    for k, block in enumerate(content):")
        out.add("        if type(block) is TextBlock:")
        out.add("            continue")
        kinds = ir.tool_results.media_parts
        if kinds:
            out.add(f"        if _w.block_kind(block) not in {kinds!r}:  # tool_results.media_parts")
            out.add("            _w.dropped_part(block, f'messages[{i}].content[{k}]')")
            out.add("            continue")
        out.add("        written = _part_to_wire(block, f'messages[{i}].content[{k}]')")
        out.add("        if written is not None:")
        out.add("            media.append(written)")
    else:
        out.add("wire_content: Any = _w.tool_text(content, f'messages[{i}].content')  # a text-only wire: the text parts, joined")
    ret = "result_ = {expr}" if media else "return {expr}"
    if ir.tool_results.error_template is not None:
        out.add("if is_error is True:  # tool_results.error_wire: a failed result in its own form")
        out.indent()
        expr = em.build_node(out, ir.tool_results.error_template, env, "tool_result", "f'messages[{i}]'")
        out.add(ret.format(expr=expr))
        if media:
            out.dedent()
            out.add("else:")
            out.indent()
            expr = em.build_node(out, ir.tool_results.template, env, "tool_result", "f'messages[{i}]'")
            out.add(ret.format(expr=expr))
        out.dedent()
    if not media or ir.tool_results.error_template is None:
        expr = em.build_node(out, ir.tool_results.template, env, "tool_result", "f'messages[{i}]'")
        out.add(ret.format(expr=expr))
    if media:
        out.add("if media:")
        out.add(f"    _w.set_in(result_, {tuple(media)!r}, media)")
        out.add("return result_")
    em.func(
        "_tool_result_to_wire",
        "(tool_call_id: str, content: str | list[Block], name: str | NotGiven, i: int, is_error: bool | NotGiven = NOT_GIVEN, cache_control: dict[str, Any] | NotGiven = NOT_GIVEN) -> dict[str, Any]",
        f"A tool result (`messages[i]`) -> its wire {'block' if ir.tool_results.strategy == 'group_into_user_message' else 'message'}.",
        out.lines,
    )
    if ir.tool_calls.placement == "items":
        return
    out = Lines()
    text = text_content(em, out, "assistant", "body_content")
    if ir.tool_calls.placement == "content_blocks":
        out.add("converted: Any = None")
        if text is not None:
            out.add("if type(body_content) is str:  # the common case, inline")
            out.add(f"    converted = {text}")
            out.add("elif isinstance(body_content, (str, list)):")
        else:
            out.add("if isinstance(body_content, (str, list)):")
        out.add("    converted = _assistant_content_to_wire(body_content, f'messages[{i}].content')")
        out.add("wire_content: Any")
        out.add("if calls is not NOT_GIVEN and calls:  # tool calls are content blocks, after the turn's own blocks")
        out.indent()
        out.add("wire_content = _as_blocks(converted)")
        out.add("for k, call in enumerate(calls):")
        out.add("    wire_content.append(_tool_call_to_wire(call, f'messages[{i}].tool_calls[{k}]', memo))")
        out.dedent()
        out.add("else:")
        out.add("    wire_content = converted if converted is not None else []")
        out.add("    if not wire_content:")
        out.add("        raise InvalidRequestError(_EMPTY_TURN, path=f'messages[{i}].content')")
        expr = build_message(em, out, ir.assistant.template, {"content": "wire_content", "tool_calls": "NOT_GIVEN", "name": "name"}, "message.assistant")
    else:
        out.add("content_out: Any = body_content")
        if text is not None:
            out.add("if type(body_content) is str:  # the common case, inline")
            out.add(f"    content_out = {text}")
            out.add("elif isinstance(body_content, (str, list)):")
        else:
            out.add("if isinstance(body_content, (str, list)):")
        out.indent()
        out.add("content_out = _assistant_content_to_wire(body_content, f'messages[{i}].content')")
        out.dedent()
        out.add("wire_calls: Any = NOT_GIVEN")
        out.add("if calls is not NOT_GIVEN and calls:")
        out.add("    wire_calls = [_tool_call_to_wire(call, f'messages[{i}].tool_calls[{k}]', memo) for k, call in enumerate(calls)]")
        out.add("elif not content_out:")
        out.add("    raise InvalidRequestError(_EMPTY_TURN, path=f'messages[{i}].content')")
        expr = build_message(em, out, ir.assistant.template, {"content": "content_out", "tool_calls": "wire_calls", "name": "name"}, "message.assistant")
        expr = hook_message_to_wire(em, out, expr, "body_content", "calls", for_request=True)
    out.add(f"return {expr}")
    em.func(
        "_assistant_to_wire",
        "(body_content: Any, calls: Any, i: int, memo: dict[int, Any] | None = None" + (", name: str | NotGiven = NOT_GIVEN" if _names(ir.assistant.template) else "") + ") -> dict[str, Any]",
        f"An assistant message (`messages[i]`: content, tool_calls) -> its wire message (tool calls `{ir.tool_calls.placement}`).",
        out.lines,
    )


def _emit_messages_to_wire(em: "Emitter") -> None:
    ir = em.ir
    _emit_role_writers(em)
    out = Lines()
    out.add("wire_messages: list[dict[str, Any]] = []")
    from_call = ir.tool_results.name == "from_call"
    if from_call:
        out.add("call_names: dict[str, str] = {}  # tool_results name: from_call")
    grouped = ir.tool_results.strategy == "group_into_user_message"
    if grouped:
        out.add("results: list[dict[str, Any]] | None = None  # the open run of grouped tool results")
    out.add("for i, message in enumerate(messages):")
    out.indent()
    # isinstance, as validation tells the roles apart (a subclass is its role, never dropped)
    if grouped:
        out.add("if isinstance(message, ToolMessage):")
        out.indent()
        name = _result_name(out, from_call)
        out.add(f"result = _tool_result_to_wire(message.tool_call_id, message.content, {name}, i, message.is_error, message.cache_control)")
        out.add("if results is None:")
        out.add("    results = []")
        out.add("    wire_messages.append(_results_to_wire(results))")
        out.add("results.append(result)")
        if ir.cache_point is not None:
            out.add("if isinstance(message.cache_control, dict):  # request.cache_points")
            out.add("    results.append(_cache_point_to_wire(message.cache_control, f'messages[{i}].cache_control'))")
        out.add("continue")
        out.dedent()
        out.add("results = None")
    # user
    out.add("if isinstance(message, UserMessage):")
    out.indent()
    out.add("wire_messages.append(_user_to_wire(message.content, i" + (", message.name" if _names(ir.user.template) else "") + "))")
    out.add("continue")
    out.dedent()
    # system
    out.add("if isinstance(message, SystemMessage):")
    out.indent()
    if ir.system.strategy == "hoist":
        out.add("continue  # hoisted to the top-level field by request_to_wire")
    else:
        fields = _block_fields(ir) + (["name"] if _names(ir.system.template) else [])
        extra = "".join(f", {f}=message.{f}" for f in fields)
        out.add("wire_messages.append(_system_to_wire(message.content" + (", f'messages[{i}]'" + extra if fields else "") + "))")
        out.add("continue")
    out.dedent()
    # assistant
    out.add("if isinstance(message, AssistantMessage):")
    out.indent()
    out.add("calls = message.tool_calls")
    if from_call:
        out.add("for call in calls or ():")
        out.add("    call_names[call.id] = call.name")
    if ir.tool_calls.placement == "items":
        emit_items.emit_assistant_items_to_wire(em, out, build_message)
    else:
        out.add("wire_messages.append(_assistant_to_wire(message.content, calls, i, memo" + (", message.name" if _names(ir.assistant.template) else "") + "))")
        out.add("continue")
    out.dedent()
    if not grouped:
        out.add("assert isinstance(message, ToolMessage)")
        name = _result_name(out, from_call)
        out.add(f"wire_messages.append(_tool_result_to_wire(message.tool_call_id, message.content, {name}, i, message.is_error, message.cache_control))")
    out.dedent()
    out.add("return wire_messages")
    strategy = f"system `{ir.system.strategy}`, tool results `{ir.tool_results.strategy}`, tool calls `{ir.tool_calls.placement}`"
    em.func(
        "_messages_to_wire",
        "(messages: list[Message], memo: dict[int, Any] | None = None) -> list[dict[str, Any]]",
        f"Canonical messages -> wire ({strategy}). `memo`: validation's sorted copies (wire.memo_json).",
        out.lines,
    )


def _result_name(out: Any, from_call: bool) -> str:
    """tool_results `name: from_call`: the function name of the earlier call the result answers."""
    if not from_call:
        return "message.name"
    out.add("result_name = call_names.get(message.tool_call_id, message.name)")
    out.add("if result_name is NOT_GIVEN:")
    out.add("    raise InvalidRequestError(")
    out.add("        'no earlier tool call has id ' + repr(message.tool_call_id) + ' and the message names no function; the wire needs its name',")
    out.add("        path=f'messages[{i}].tool_call_id',")
    out.add("    )")
    return "result_name"


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
    out.add("params: Any = tool.parameters")
    if ir.tools.strict == "close_object_schema":
        out.add("# Strict tools close their object schema (Prompty §7.1.3).")
        out.add("if tool.strict is True and params is not NOT_GIVEN:")
        out.add("    params = _w.close_object_schema(params)")
    elif ir.tools.strict == "close_all_object_schemas":
        out.add("# Strict tools close every object schema, nested ones too (strict mode).")
        out.add("if tool.strict is True and params is not NOT_GIVEN:")
        out.add("    params = _w.close_all_object_schemas(params)")
    uses_params = any(s.field == "parameters" and not s.optional for s in slots_of(ir.tools.template))
    if uses_params:
        out.add("if params is NOT_GIVEN:")
        if ir.tools.strict in ("close_object_schema", "close_all_object_schemas"):
            out.add("    # the empty parameter schema of a strict tool is closed too")
            out.add("    params = _w.close_object_schema({'type': 'object', 'properties': {}}) if tool.strict is True else {'type': 'object', 'properties': {}}")
        else:
            out.add("    params = {'type': 'object', 'properties': {}}")
    env = {"name": "tool.name", "description": "tool.description", "parameters": "params", "strict": "tool.strict", "cache_control": "tool.cache_control"}
    em.json_memo = True
    expr = em.build_node(out, ir.tools.template, env, "tool", "path")
    em.json_memo = False
    out.add(f"return {expr}")
    em.func(
        "_tool_to_wire",
        "(tool: Tool, path: str, memo: dict[int, Any] | None = None) -> dict[str, Any]",
        "Canonical tool -> wire tool definition. `memo`: validation's sorted copies (wire.memo_json).",
        out.lines,
    )

    out = Lines()
    for mode in ("auto", "required", "none"):
        out.add(f"if choice == {lit(mode)}:")
        how = ir.tool_choice.special.get(mode)
        if how is None:
            out.add(f"    return {em.build_node(out, ir.tool_choice.modes[mode], {}, 'tool_choice.tool', 'path')}")
        elif how == "omit":
            out.add("    return None  # tool_choice auto: omit (the caller leaves the field out)")
        elif how == "omit_tools":
            out.add("    return None  # tool_choice none: omit_tools (request_to_wire leaves the tools and the field out)")
        else:
            out.add(f"    raise InvalidRequestError({keyed(f'tool_choice {mode!r} is not supported by {FORMAT_KEY}')}, path='tool_choice')")
    out.add("assert isinstance(choice, ForcedTool)")
    if "tool" in ir.tool_choice.modes:
        expr = em.build_node(out, ir.tool_choice.modes["tool"], {"name": "choice.name"}, "tool_choice.tool", "path")
        out.add(f"return {expr}")
    else:
        out.add(f"raise InvalidRequestError({keyed(f'a forced tool (tool_choice tool) is not supported by {FORMAT_KEY}')}, path='tool_choice')")
    em.func("_tool_choice_to_wire", "(choice: ToolChoice) -> Any", "Canonical tool_choice -> wire.", out.lines)


# --------------------------------------------------------------------------- request
def _emit_request_to_wire(em: "Emitter") -> None:
    ir = em.ir
    out = Lines()
    out.add("memo = _w.new_memo(RULES)  # validation's copies of user JSON, for the writers")
    out.add("req = _w.as_request(request, memo, RULES)")
    out.add("if isinstance(config := req.config, Config) and (config.input_type is not NOT_GIVEN or config.dimensions is not NOT_GIVEN or config.encoding_format is not NOT_GIVEN):")
    out.add("    _w.refuse_embedding_options(config, KEY, 'chat')  # embeddings options: no chat row sends them")
    out.add("messages = req.messages")
    out.add("tools = req.tools")
    out.add("tool_choice = req.tool_choice")
    st = ir.structured
    out.add("schema = req.response_schema")
    if st is not None:
        modes = structured_modes(ir)
        out.add("mode = STRUCTURED_OUTPUT_MODE if structured_output is None else structured_output")
        out.add(f"if mode not in {lit(modes)}:")
        out.add(f"    raise InvalidRequestError('structured_output ' + repr(mode) + {keyed(' is not available in ' + FORMAT_KEY + '; expected one of: ' + ', '.join(modes))})")
        out.add("if isinstance(schema, dict) and mode != 'native':")
        out.indent()
        if "tool_coercion" in modes:
            tool = st["tool"]
            out.add("if mode == 'tool_coercion' and not tools:  # OpenArmature §8.2.5.1 tool-call coercion")
            out.add(f"    tools = [Tool(name={lit(tool['name'])}, description={lit(tool['description'])}, parameters=schema)]")
            out.add(f"    tool_choice = ForcedTool(name={lit(tool['name'])})")
            out.add("else:  # prompt augmentation (also when coercion is unavailable beside the caller's tools)")
            out.add(f"    messages = _w.with_schema_directive(messages, {lit(st['directive'])}, schema)")
        else:
            out.add("# OpenArmature §8.1.5.1 prompt augmentation, on a copy of the messages")
            out.add(f"messages = _w.with_schema_directive(messages, {lit(st['directive'])}, schema)")
        out.dedent()
    else:
        out.add("if structured_output is not None or isinstance(schema, dict):")
        out.add(f"    raise InvalidRequestError({keyed(FORMAT_KEY + ' declares no structured output (no structured_output section)')}, path='response_schema')")
    out.add("body: dict[str, Any] = {}")
    out.add(f"body[{lit(ir.model_field)}] = req.model")
    if ir.system.strategy == "hoist" and ir.rules.ordering == "openarmature":
        out.add("# validation allows a system message only first (OpenArmature §5)")
        out.add("system_messages = [first] if isinstance(first := messages[0], SystemMessage) else []")
    elif ir.system.strategy == "hoist":
        out.add("# the API takes one system field: every system message is hoisted into it, joined")
        out.add("system_messages = [m for m in messages if isinstance(m, SystemMessage)]")
    system_field = ir.system.field if ir.system.strategy == "hoist" else None  # hoist: the IR requires `field`
    if system_field is not None and ir.system.blocks is not None and ir.cache_point is not None:
        # request.cache_points: the field is the list of blocks, one per system message, each
        # breakpoint an item after its block
        out.add("if system_messages:  # system.blocks with request.cache_points")
        out.indent()
        out.add("system_blocks: list[dict[str, Any]] = []")
        out.add("for i, m in enumerate(messages):")
        out.add("    if isinstance(m, SystemMessage):")
        out.add(f"        system_blocks.append(_system_block_to_wire(m, {lit(system_field)} + f'[{{len(system_blocks)}}]'))")
        out.add("        if isinstance(m.cache_control, dict):")
        out.add("            system_blocks.append(_cache_point_to_wire(m.cache_control, f'messages[{i}].cache_control'))")
        out.add(f"{assign(ir, system_field, 'system_blocks')}")
        out.dedent()
        out.add("system_messages = []")
    elif system_field is not None and _block_fields(ir):
        fields = _block_fields(ir)
        cond = " or ".join(f"m.{f} is not NOT_GIVEN" for f in fields)
        out.add(f"if any({cond} for m in system_messages):  # system.blocks: one text block per system message")
        out.add(f"    {assign(ir, system_field, '[_system_block_to_wire(m, f' + lit(system_field + '[{j}]') + ') for j, m in enumerate(system_messages)]')}")
        out.add("    system_messages = []")
    if system_field is not None:
        out.add("system_texts = [m.content for m in system_messages]")
        out.add("if system_texts:")
        if ir.system.hoist_template is not None:
            out.indent()
            out.add(f"system_text = {lit(ir.system.join)}.join(system_texts)")
            expr = em.build_node(out, ir.system.hoist_template, {"content": "system_text"}, "message.system", "'messages'")
            out.add(assign(ir, system_field, expr) + "  # system hoist through the `wire` template")
            out.dedent()
        else:
            out.add(f"    {assign(ir, system_field, lit(ir.system.join) + '.join(system_texts)')}")
    out.add(f"body[{lit(ir.messages_field)}] = _messages_to_wire(messages, memo)")
    out.add("config = req.config if isinstance(req.config, Config) else _NO_CONFIG")
    out.add("extras = config.extras")
    out.add("model = req.model")
    additive = emit_options_to_wire(em, out, bind=True, phase=0)
    emit_tools_to_wire(em, out)
    additive += emit_options_to_wire(em, out, bind=True, phase=1)
    if st is not None:
        out.add("if isinstance(schema, dict) and mode == 'native':")
        out.indent()
        if st.get("schema", "verbatim") == "close_and_nullable_optional":
            out.add("wire_schema = " + ("_w.canonical_json" if ir.rules.json_keys == "sorted" else "_w.json_copy") + "(_w.close_and_nullable_optional(schema))")
        else:
            out.add("wire_schema = _w.memo_json(schema, memo)  # validation's sorted copy")
        name = st.get("name", "derived")
        out.add("schema_name = " + ("_w.schema_name(schema)" if name == "derived" else lit(name["fixed"])))
        strict = st.get("strict", "when_schema_qualifies")
        out.add(
            "schema_strict = "
            + {"always": "True", "never": "False", "when_schema_qualifies": "_w.schema_qualifies_for_strict(wire_schema)"}[strict]
        )
        env = {"name": "schema_name", "schema": "wire_schema", "strict": "schema_strict"}
        # The schema is already canonical; bind it as a plain value.
        node = ir.structured_template
        assert node is not None  # a structured_output section always has its `wire` template (ir.py)
        expr = em.build_node(out, node, {**env, "schema": "wire_schema"}, "structured_output", "'response_schema'")
        expr = expr.replace("_w.canonical_json(wire_schema)", "wire_schema")
        out.add(assign(ir, st["field"], expr))
        out.dedent()
    additive += emit_options_to_wire(em, out, bind=True, phase=2)  # rows inside the structured-output object
    # extras
    copy_fn = "_w.canonical_json" if ir.rules.json_keys == "sorted" else "_w.json_copy"
    out.add("if extras:")
    out.indent()
    out.add("assert isinstance(extras, dict)")
    if ir.extras.under and not ir.extras.root:
        out.add(f"target = _w.container_in(body, {lit(ir.extras.under)})  # extras placement under {'.'.join(ir.extras.under)}")
    elif not ir.extras.under:
        out.add("target = body")
    out.add("for key in sorted(extras):")
    out.indent()
    out.add("value = extras[key]")
    if ir.extras.root:
        out.add(f"# extras placement under {'.'.join(ir.extras.under)}; these keys belong at the root (placement.root)")
        em.parts.constants.append(f"_EXTRAS_ROOT: Final = {lit(tuple(sorted(ir.extras.root)))}  # extras keys placed at the root (placement.root)")
        out.add(f"target = body if key in _EXTRAS_ROOT else _w.container_in(body, {lit(ir.extras.under)})")
    for wire, value in ir.extras.reserved.items():
        out.add(f"if key == {lit(wire)}:  # managed on every call, never sent by this mapping")
        out.add(f"    if not _w.deep_equal(value, {lit(value)}):")
        out.add("        raise InvalidRequestError(")
        why = f" conflicts with {FORMAT_KEY}, which sets {wire}={value!r} on every call itself; leave it out of config.extras"
        out.add(f"            'extras key ' + repr(key) + {keyed(why)},")
        out.add("            path='config.extras.' + key,")
        out.add("        )")
        out.add("    continue")
    if ir.extras.collision == "mapped_wins":
        out.add("if key not in target:  # Prompty §7.1.5: a mapped key wins over additional properties")
        out.add(f"    target[key] = {copy_fn}(value)")
    else:
        out.add("if key not in target:")
        out.add(f"    target[key] = {copy_fn}(value)")
        out.add("    continue")
        for extras_key, coerce in additive:
            if extras_key is None:
                continue
            out.add(f"if key == {lit(extras_key)}:  # additive managed field (OpenArmature §6)")
            out.add(f"    target[key] = _w.merge_list(target[key], value, {coerce})")
            out.add("    continue")
        out.add("if not _w.deep_equal(target[key], value):")
        out.add("    raise InvalidRequestError(")
        why = f" conflicts with the value {FORMAT_KEY} writes there from the request itself; set it through the request, or give the same value"
        out.add(f"        'extras key ' + repr(key) + {keyed(why)},")
        out.add("        path='config.extras.' + key,")
        out.add("    )")
    out.dedent()
    out.dedent()
    out.add("if req.carried is not None:  # wire data read from this provider's wire (runtime/carry.py)")
    out.add("    _w.apply_carried(body, req.carried, ORIGIN)")
    out.add("return body")
    em.func(
        "_request_to_wire",
        "(request: Request | Mapping[str, Any], structured_output: str | None) -> dict[str, Any]",
        "The body of request_to_wire.",
        out.lines,
    )
    out = Lines()
    wire_req = wire_type(ir.key, "Request")  # generated/<module>_types.py, imported for type checkers only
    out.add("try:")
    if "request_out" in ir.strategy_hooks:
        out.add(f"    return cast({lit(wire_req)}, _strategy_request_out(_request_to_wire(request, structured_output)))  # strategies.request_out")
    else:
        out.add(f"    return cast({lit(wire_req)}, _request_to_wire(request, structured_output))")
    out.add("except RecursionError:  # a schema, extras value or argument nested past Python's limit")
    out.add("    raise InvalidRequestError('request nested too deeply') from None")
    em.func(
        "request_to_wire",
        f"(request: Request | Mapping[str, Any], *, structured_output: str | None = None) -> {wire_req}",
        f"Canonical request -> {ir.title} request body. Validates first; never mutates its input. `structured_output` picks the mode for a response_schema (default STRUCTURED_OUTPUT_MODE).",
        out.lines,
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
        row = _plain_row(ir, opt) if bind and opt is not None else None
        if row is None and table:  # the run ends: its table, read in order (one of comments only too: the code stays the same)
            em.option_tables += 1
            name = f"_OPTIONS_{em.option_tables}"
            em.parts.constants.append(f"# option rows sent as they are, in order (runtime wire.options_to_wire): (option, wire field, how)\n{name}: Final[tuple[tuple[str, str, str], ...]] = (\n" + "".join(f"    {line}\n" for line in table) + ")")
            out.add(f"_w.options_to_wire(config, body, {name}, tools, KEY)")
            table = []
        if opt is None:
            break
        if row is not None:
            table.append(row)
            if opt.merge and opt.wire is not None and opt.unsupported is None and opt.header is None:
                additive.append((_extras_key(ir, opt.wire), opt.merge_coerce_string))
            continue
        derive = _derivation(ir, opt)
        if only is not None and opt.name not in only and not (
            opt.has_default or opt.required or (derive is not None and derive.source in only)
        ):
            continue
        value = f"value_{opt.name}"
        if opt.header is not None:  # a request header (HEADER_OPTIONS), never a body field
            out.add(f"# {opt.name}: sent as the request header {opt.header} (HEADER_OPTIONS), not in the body")
            if only is not None and opt.name in only:  # a fused translator writes a body only
                out.add(f"if value_{opt.name} is not NOT_GIVEN:")
                out.add("    raise _Deopt  # the header travels beside the body: the two-step way")
            continue
        action = opt.unsupported or ("drop" if opt.wire is None else None)  # None: the option is sent
        if action == "drop":
            out.add(f"# {opt.name}: silently dropped, as the mapping declares")
            continue
        if bind and (opt.values or opt.name in OBJECT_OPTIONS):  # re-spelled or copied below: any wire type
            out.add(f"{value}: Any = config.{opt.name}")
        elif bind:
            out.add(f"{value} = config.{opt.name}")
        elif only is not None and opt.name not in only and not (opt.has_default or opt.required):
            out.add(f"{value}: Any = NOT_GIVEN")
        path = f"config.{opt.name}"
        if derive is not None and action is None:
            _emit_derive(em, out, opt, derive, bind, only, bound)
        if opt.values and action is None:
            spelled: dict[Any, str] = {}
            for wire_value, canonical in opt.values:
                spelled.setdefault(canonical, wire_value)
            out.add(f"if {value} is not NOT_GIVEN:  # values: the wire's spelling; a value it does not list is not sent")
            out.add(f"    {value} = {lit(spelled)}.get({value}, NOT_GIVEN)")
        bound.add(opt.name)
        if action is not None:
            out.add(f"if {value} is not NOT_GIVEN:")
            out.indent()
            emit_unsupported(out, action, opt.name, path, FORMAT_KEY, warn_into=warn_into)
            out.dedent()
            continue
        wire = opt.wire
        assert wire is not None  # action None: the option is sent, so it has a wire field
        if opt.required:
            out.add(f"if {value} is NOT_GIVEN:")
            out.add(f"    raise InvalidRequestError({keyed(opt.name + ' is required by ' + FORMAT_KEY)}, path={lit(path)})")
        if opt.has_default and not extras:
            out.add(f"if {value} is NOT_GIVEN:")
            out.add(f"    {value} = {lit(opt.default)}  # the mapping's default")
        elif opt.has_default:
            out.add(f"if {value} is NOT_GIVEN and not (extras and {lit(_extras_key(ir, wire))} in extras):")
            out.add(f"    {value} = {lit(opt.default)}  # the mapping's default; an extras value rides instead")
        if opt.requires == "response_schema" and not bind:
            out.add(f"# {opt.name}: only with a response schema, which a fused translator never writes")
            continue
        requires = {
            None: ":",
            "tools": " and isinstance(tools, list) and tools:  # requires tools: the API refuses it without them",
            "response_schema": " and isinstance(schema, dict) and mode == 'native':  # requires the response schema's object",
            "no_response_schema": " and not (isinstance(schema, dict) and mode == 'native'):  # a native schema says it already",
        }[opt.requires if bind or opt.requires != "no_response_schema" else None]  # fused: never a schema
        out.add(f"if {value} is not NOT_GIVEN{requires}")
        out.indent()
        if opt.maximum is not None:
            why = f" is more than {FORMAT_KEY}'s {opt.wire} takes (at most {opt.maximum})"
            out.add(f"if type({value}) is int and {value} > {opt.maximum}:  # option maximum")
            out.add(f"    raise InvalidRequestError(repr({value}) + {keyed(why)}, path={lit(path)})")
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
        if opt.with_keys:
            parent, leaf = wire.rsplit(".", 1)
            out.add(f"container = _w.container_in(body, {lit(tuple(parent.split('.')))})")
            for key, const in opt.with_keys.items():
                out.add(f"container.setdefault({lit(key)}, {lit(const)})  # `with`: written beside it")
            out.add(f"container[{lit(leaf)}] = {wire_value}" + ("  # negate: the wire says it the other way round" if opt.negate else ""))
        else:
            out.add(assign(ir, wire, wire_value) + ("  # negate: the wire says it the other way round" if opt.negate else ""))
        for _ in opt.model_rules:
            out.dedent()
        out.dedent()
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
    if action is not None or opt.values or opt.required or opt.has_default or opt.maximum is not None:
        return None
    if opt.model_rules or opt.with_keys or opt.negate or opt.requires not in (None, "tools"):
        return None
    if "." in opt.wire or opt.wire in _nested_roots(ir):
        return None
    if opt.name in OBJECT_OPTIONS and opt.requires is not None:
        return None
    how = "dict" if opt.name in OBJECT_OPTIONS else "tools" if opt.requires == "tools" else ""
    return f"({lit(opt.name)}, {lit(opt.wire)}, {lit(how)}),"


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
    out.add(f"if {value} is NOT_GIVEN:  # derive: from {derive.source} (mapping row {opt.name}.derive)")
    out.indent()
    out.add(f"source_value: Any = {src_expr}")
    if source.wire is not None and source.unsupported is None:  # sent, except for some models
        var = em.regex("|".join(f"(?:{rule.regex})" for rule in source.model_rules if rule.wire is None))
        out.add(f"if source_value is not NOT_GIVEN and {var}.match(model) is None:  # sent as itself for this model")
        out.add("    source_value = NOT_GIVEN")
    if derive.table:
        out.add(f"{value} = {{{', '.join(f'{lit(k)}: {lit(v)}' for k, v in derive.table)}}}.get(source_value, NOT_GIVEN) if type(source_value) is str else NOT_GIVEN")
    else:
        keyword = "if"
        out.add("if type(source_value) is int:")
        out.indent()
        for upto, result in derive.steps:
            out.add(f"{keyword} source_value <= {upto}:")
            out.add(f"    {value} = {lit(result)}")
            keyword = "elif"
        out.dedent()
    if derive.below is not None:
        below = next(o for o in ir.options if o.name == derive.below)
        if bind and derive.below not in bound:
            limit = f"config.{derive.below}"
        elif derive.below in bound or below.has_default or (only is not None and derive.below in only):
            limit = f"value_{derive.below}"
        else:
            limit = "NOT_GIVEN"
        if limit != "NOT_GIVEN":
            out.add(f"limit: Any = {limit}")
            out.add(f"if type({value}) is int and type(limit) is int and {value} >= limit:  # derive.below: {derive.below}")
            out.add(f"    {value} = limit - 1")
    if derive.minimum is not None:
        out.add(f"if type({value}) is int and {value} < {derive.minimum}:  # derive.minimum: not sent")
        out.add(f"    {value} = NOT_GIVEN")
    if derive.unless_forced:
        out.add("if tool_choice == 'required' or (tool_choice is not NOT_GIVEN and type(tool_choice) is not str):  # derive.unless_forced")
        out.add(f"    {value} = NOT_GIVEN")
    out.dedent()


def emit_tools_to_wire(em: "Emitter", out: Any, ref: str = "") -> None:
    """The tools and tool_choice rows, from the locals `tools` and `tool_choice` into `body`;
    `ref` prefixes the module's own builders (`_dst.` in a fused translator)."""
    ir = em.ir
    if ir.tool_choice.special.get("none") == "omit_tools":
        # no none mode on this wire: a model shown no tools calls none. A turn that already
        # holds tool calls or results needs the tools declared to be read (Bedrock refuses it
        # without them), so such a request is refused here, as `reject` would
        out.add("if tool_choice == 'none':  # tool_choice none: omit_tools")
        out.add("    if any(isinstance(m, ToolMessage) or (isinstance(m, AssistantMessage) and m.tool_calls is not NOT_GIVEN and m.tool_calls) for m in req.messages):")
        message = f"tool_choice 'none' is sent by leaving the tools out, which {FORMAT_KEY} does not take beside earlier tool calls or results"
        out.add(f"        raise InvalidRequestError({keyed(message)}, path='tool_choice')")
        out.add("    tools = NOT_GIVEN  # the tools and the tool_choice field are left out")
    out.add("if tools is not NOT_GIVEN and tools:")
    tools_expr = f"[{ref}_tool_to_wire(tool, f'tools[{{j}}]', memo) for j, tool in enumerate(tools)]"
    if ir.cache_point is not None:  # request.cache_points: a breakpoint item after its tool
        tools_expr = f"[w for j, tool in enumerate(tools) for w in ({ref}_tool_to_wire(tool, f'tools[{{j}}]', memo), *(() if not isinstance(tool.cache_control, dict) else ({ref}_cache_point_to_wire(tool.cache_control, f'tools[{{j}}].cache_control'),)))]"
    if ir.tools.group is not None:
        tools_expr = f"[{{{lit(ir.tools.group)}: {tools_expr}}}]  # tools group: one wrapper object"
    out.add(f"    {assign(ir, ir.tools.field, tools_expr)}")
    if ir.tools.strict_all is not None:
        out.add(f"    if (strict_all := _w.strict_of_all(tools)) is not None:  # tools.strict_all: every tool says the same")
        out.add(f"        {assign(ir, ir.tools.strict_all, 'strict_all')}")
    # `requires: tools`: the field is left out when no tool is sent
    given = "not isinstance(tool_choice, NotGiven)" + (" and tools is not NOT_GIVEN and bool(tools)" if ir.tool_choice.requires_tools else "")
    note = "  # tool_choice requires: tools" if ir.tool_choice.requires_tools else ""
    if any(how in ("omit", "omit_tools") for how in ir.tool_choice.special.values()):
        out.add(f"if {given} and (wire_choice := " + ref + "_tool_choice_to_wire(tool_choice)) is not None:  # omit: the field is left out" + note)
        out.add(f"    {assign(ir, ir.tool_choice.field, 'wire_choice')}")
    else:
        out.add(f"if {given}:{note}")
        out.add(f"    {assign(ir, ir.tool_choice.field, ref + '_tool_choice_to_wire(tool_choice)')}")


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
    out.add("out: list[Message] = []")
    if ir.tool_calls.placement == "items":
        out.add("open_turn: Any = None  # the assistant turn the next tool-call item joins")
        if ir.items.reasoning_match is not None:
            out.add("pending_reasoning: list[Any] = []  # reasoning items waiting for their turn")
    out.add("for i, item in enumerate(items):")
    out.indent()
    out.add("path = f'{field}[{i}]'")
    out.add("message = _w.expect_dict(item, path)")
    item_labels = emit_items.emit_item_dispatch_head(em, out)
    out.add("role = message.get('role')")
    item_labels += emit_items.emit_hoisted_system_roles(em, out)
    def sink(out: Any, role: str, env: dict[str, str]) -> None:
        if role == "system":
            extra = "".join(f", {f}={v}" for f, v in env.items() if f != "content")
            out.add(f"out.append(SystemMessage(content={env['content']}{extra}))")
        elif role == "user":
            named = f", name={env['name']}" if "name" in env else ""
            out.add(f"out.append(UserMessage(content={env['content']}{named}))")
        elif role == "assistant":
            if ir.items.reasoning_match is not None:
                out.add("if pending_reasoning:  # reasoning_items: the turn's reasoning comes first")
                out.add("    a_content = _with_reasoning(pending_reasoning, a_content)")
                out.add("    pending_reasoning = []")
            named = f", name={env['name']}" if "name" in env else ""
            out.add(f"out.append(AssistantMessage(content={env['content']}, tool_calls={env['tool_calls']}{named}))")
            if ir.tool_calls.placement == "items":
                out.add("open_turn = out[-1]")
        else:
            out.add(f"out.append({env['message']})")

    roles = emit_role_readers(em, out, sink)
    expected = "; expected one of: " + ", ".join([*(str(r) for r in roles), *item_labels])
    if ir.unknown == "carry":
        out.add("continue  # an item or role no row reads: carried for this wire (request.unknown: carry)")
    else:
        out.add(f"raise _w.WireShapeError(path + '.role', 'unsupported role ' + repr(role) + {lit(expected)})")
    out.dedent()
    if ir.tool_calls.missing_id == "synthesize":
        out.add("# tool_calls missing_id: synthesize -- results without an id answer the earliest open call of their name.")
        out.add("_w.pair_tool_results(out, field)")
    if ir.items.reasoning_match is not None:
        out.add("if pending_reasoning:")
        out.add("    raise _w.WireShapeError(field, 'a reasoning item must be followed by the assistant turn it belongs to')")
    out.add("return out")
    em.func("_messages_from_wire", "(items: list[Any], field: str) -> list[Message]", "Wire messages -> canonical messages.", out.lines)


def emit_role_readers(em: "Emitter", out: Any, sink: Any, user_list: Any = None, on_name: Any = None) -> list[Any]:
    """The `if role == ...:` chain of a messages reader: reads one wire message (`message`, at
    `path`) per role and hands its canonical fields to `sink(out, role, env)` -- role `system`
    and `user` with env `content`, `assistant` with `content` and `tool_calls`, `tool` with
    `message` (a ToolMessage) -- which emits what to do with them. `_messages_from_wire` builds
    canonical messages; the fused translators (codegen/emit/fused.py) write the target's wire
    messages. `user_list(out, raw)`, when given, emits first what to do with a user content that
    is a wire list (`raw`): the fused translators translate its parts in one pass. Returns the
    wire roles read. A role template that places `{name?}` reads it first (`name_`, handed to
    `sink` as env `name`); `on_name(out, key)`, when given, emits instead what to do with a
    message that has that key (the fused translators leave a named message to the two-step path)."""
    ir = em.ir
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
        if role == "system" and ir.system.read_also:
            roles.extend(ir.system.read_also)
            out.add(f"if role == {lit(wire_role)} or role in {lit(tuple(ir.system.read_also))}:")
        else:
            out.add(f"if role == {lit(wire_role)}:")
        out.indent()
        content_key = next((k for k, c in node.items if isinstance(c, Slot) and c.field == "content"), None)
        named: dict[str, str] = {}
        name_key = next((k for k, c in node.items if isinstance(c, Slot) and c.field == "name"), None) if role != "tool" else None
        if name_key is not None and on_name is not None:  # the participant's name (OpenAI Chat `name`)
            on_name(out, name_key)
        elif name_key is not None:
            out.add(f"name_ = message.get({lit(name_key)})")
            out.add(f"name_ = NOT_GIVEN if name_ is None else name_ if type(name_) is str else _w.optional_str(message, {lit(name_key)}, path)")
            named = {"name": "name_"}
        if role == "system":
            out.add(f"text = message.get({lit(content_key)})")
            fields = _block_fields(ir)
            env = {}
            if fields:
                out.add("system_block: Any = None")
                out.add("if type(text) is list and len(text) == 1:  # system.blocks: one block, read whole")
                out.add(f"    system_block = _system_block_from_wire(text[0], path + {lit('.' + str(content_key) + '[0]')})")
                out.add("    text = system_block.content")
                env = {f: f"(system_block.{f} if system_block is not None else NOT_GIVEN)" for f in fields}
            out.add("if type(text) is list:  # an array of text parts: joined")
            out.add("    text = ''.join(_w.member_str(_w.expect_dict(p, f'{path}.content[{j}]'), 'text', f'{path}.content[{j}]') for j, p in enumerate(text))")
            sink(out, "system", {"content": f"text if type(text) is str else _w.expect_str(text, path + {lit('.' + str(content_key))})", **env, **named})
        elif role == "user":
            out.add(f"raw = message.get({lit(content_key)})  # a string is the content as it is")
            if user_list is not None:
                user_list(out, "raw")
            points = ", points=True" if ir.cache_point is not None else ""  # request.cache_points
            out.add(f"content = raw if type(raw) is str else _w.user_content(_w.member(message, {lit(content_key)}, path), path + {lit('.' + str(content_key))}, _read_user_part, {ir.unknown == 'carry'}{points})")
            if ir.tool_results.strategy == "group_into_user_message":
                out.add("if type(content) is list and any(type(p) is ToolMessage for p in content):")
                out.indent()
                out.add("# OpenArmature §8.2.1.2: tool results split into tool messages, other runs stay user turns.")
                out.add("run: list[Any] = []")
                out.add("for p in content:")
                out.indent()
                out.add("if type(p) is ToolMessage:")
                out.indent()
                out.add("if run:")
                out.indent()
                sink(out, "user", {"content": "run", "list": "yes"})
                out.add("run = []")
                out.dedent()
                sink(out, "tool", {"message": "p"})
                out.dedent()
                out.add("else:")
                out.add("    run.append(p)")
                out.dedent()
                out.add("if run:")
                out.indent()
                sink(out, "user", {"content": "run", "list": "yes"})
                out.dedent()
                out.add("continue")
                out.dedent()
            sink(out, "user", {"content": "content", **named})
        elif role == "assistant":
            _emit_assistant_reader(em, out, node, content_key, "message", "path", "False")
            sink(out, "assistant", {"content": "a_content", "tool_calls": "a_calls", **named})
        else:
            out.add("tool_message = _read_tool_result(message, path)")
            sink(out, "tool", {"message": "tool_message"})
        out.add("continue")
        out.dedent()
    return roles


def _child(path: str, key: Any) -> str:
    """The expression of a child path; the root path is '' and has no leading dot."""
    return lit(str(key)) if path == "''" else f"{path} + {lit('.' + str(key))}"


def _emit_assistant_reader(em: "Emitter", out: Any, node: Any, content_key: Any, src: str, path: str, lenient: str) -> None:
    """Binds `a_content` and `a_calls` from a wire assistant message."""
    ir = em.ir
    content_path = _child(path, content_key)
    calls_path_expr = _child(path, next((k for k, c in node.items if isinstance(c, Slot) and c.field == "tool_calls"), "tool_calls"))
    calls_key = next((k for k, c in node.items if isinstance(c, Slot) and c.field == "tool_calls"), None)
    content_slot = next((c for k, c in node.items if isinstance(c, Slot) and c.field == "content"), None)
    if content_slot is not None and not content_slot.optional:
        out.add(f"raw_content = _w.member({src}, {lit(content_key)}, {path})  # required by the template")
    else:
        out.add(f"raw_content = {src}.get({lit(content_key)}, NOT_GIVEN)")
    out.add("a_calls: Any = NOT_GIVEN")
    out.add("a_content: Any = NOT_GIVEN")
    if ir.tool_calls.placement == "content_blocks":
        out.add("if raw_content is not NOT_GIVEN:")
        out.indent()
        out.add(f"content_path = {content_path}")
        out.add("items_ = _w.expect_list(raw_content, content_path) if type(raw_content) is not str else raw_content")
        out.add("if type(items_) is str:")
        out.add("    a_content = items_")
        out.add("else:")
        out.indent()
        out.add("blocks_: list[Any] = []")
        out.add("calls_: list[ToolCall] = []")
        if ir.cache_point is not None:
            out.add("last_: Any = None  # the part a cache point marks")
        out.add("for j, item in enumerate(items_):")
        out.indent()
        out.add(f"p = _read_assistant_part(item, f'{{content_path}}[{{j}}]', {lenient})")
        if ir.cache_point is not None:
            out.add("if isinstance(p, _w.CachePoint):  # request.cache_points: for the part before it")
            out.add(f"    _w.attach_cache_point(last_, p, {ir.unknown == 'carry'})")
            out.add("    last_ = None")
            out.add("    continue")
            out.add("last_ = p")
        # request.unknown: carry reads a part no row reads as SKIP; written whatever the mapping
        # says (never true otherwise), so that the text is the same in a dialect that does not carry
        out.add("if isinstance(p, _w.Skipped):  # request.unknown: carry")
        out.add("    continue")
        out.add("if type(p) is ToolCall:")
        out.add("    calls_.append(p)")
        out.add("else:")
        out.add("    blocks_.append(p)")
        out.dedent()
        out.add("a_content = blocks_")
        if ir.tool_calls.missing_id == "synthesize":
            out.add("for k, call_ in enumerate(calls_):  # tool_calls missing_id: synthesize (deterministic)")
            out.add("    if not call_.id:")
            out.add("        call_.id = _w.synthesized_call_id(call_.name, call_.arguments, k)")
        out.add("if calls_:")
        out.add("    a_calls = calls_")
        out.dedent()
        out.dedent()
    else:
        out.add("if type(raw_content) is str:  # a string is the content as it is")
        out.add("    a_content = raw_content")
        out.add("elif raw_content is not NOT_GIVEN:")
        points = ", points=True" if ir.cache_point is not None else ""  # request.cache_points
        out.add(f"    a_content = _w.assistant_content(raw_content, {content_path}, _read_assistant_part, {ir.unknown == 'carry'}{points})")
        if calls_key is not None:  # placement `items`: tool calls are items of their own
            out.add(f"raw_calls = {src}.get({lit(calls_key)})")
            out.add("if raw_calls is not None:")
            out.indent()
            out.add(f"calls_path = {calls_path_expr}")
            out.add(f"a_calls = [_read_tool_call(_w.expect_dict(c, f'{{calls_path}}[{{k}}]'), f'{{calls_path}}[{{k}}]', {lenient}) for k, c in enumerate(_w.expect_list(raw_calls, calls_path))]")
            out.dedent()
        hook_message_from_wire(em, out, src, path)


def _emit_request_from_wire(em: "Emitter") -> None:
    ir = em.ir
    out = Lines()
    out.add("body = _w.expect_dict(body, '')")
    out.add("consumed = set()")
    out.add("nested_consumed: list[tuple[str, ...]] = []  # dotted wire fields read")
    out.add(f"model = _w.member_str(body, {lit(ir.model_field)}, '')")
    out.add(f"consumed.add({lit(ir.model_field)})")
    out.add("messages: list[Message] = []")
    if ir.system.strategy == "hoist":
        f = ir.system.field
        out.add(f"system = body.get({lit(f)})")
        out.add("if system is not None:")
        out.indent()
        out.add(f"consumed.add({lit(f)})")
        if ir.system.hoist_template is not None:
            out.add(f"system = _w.read_hoisted(system, {lit(ir.system.content_steps)}, {lit(f)}, {lit(ir.system.join)})")
        elif ir.system.blocks is not None and ir.cache_point is not None:
            out.add("if type(system) is list:  # system.blocks: one system message per text block, its cache point after it (request.cache_points)")
            out.indent()
            read = f"_w.read_or_skip(_system_block_from_wire, b, {lit(f)} + f'[{{j}}]')" if ir.unknown == "carry" else f"_system_block_from_wire(b, {lit(f)} + f'[{{j}}]')"
            out.add(f"read_system: list[Any] = [_w.CachePoint(_read_cache_point(b, {lit(f)} + f'[{{j}}]'), {lit(f)} + f'[{{j}}]') if type(b) is dict and {em.cache_point_condition('b')} else {read} for j, b in enumerate(system)]")
            out.add(f"messages.extend(m for m in _w.attach_cache_points(read_system, {ir.unknown == 'carry'}) if m.content or " + " or ".join(f"m.{x} is not NOT_GIVEN" for x in ["cache_control", *_block_fields(ir)]) + ")")
            out.add("system = ''")
            out.dedent()
        elif ir.system.blocks is not None:
            out.add("if type(system) is list:  # system.blocks: one system message per text block (an empty one says nothing)")
            out.add(f"    messages.extend(m for j, b in enumerate(system) if (m := _system_block_from_wire(b, {lit(f)} + f'[{{j}}]')).content or " + " or ".join(f"m.{x} is not NOT_GIVEN" for x in _block_fields(ir)) + ")")
            out.add("    system = ''")
        else:
            out.add("if type(system) is list:  # an array of text blocks: joined")
            out.add(f"    system = {lit(ir.system.join)}.join(_w.member_str(_w.expect_dict(b, {lit(f)} + f'[{{j}}]'), 'text', {lit(f)} + f'[{{j}}]') for j, b in enumerate(system))")
        out.add(f"system = _w.expect_str(system, {lit(f)})")
        out.add("if system:  # an empty hoisted field says no instruction: no system message (carried for this wire)")
        out.add("    messages.append(SystemMessage(content=system))")
        out.dedent()
    field = lit(ir.messages_field)
    if ir.user.bare_string == "read":
        # user.bare_string read: the messages field may be a bare string, one user turn.
        out.add(f"raw_messages = _w.list_or_string(_w.member(body, {field}, ''), {field})")
        out.add("if isinstance(raw_messages, str):  # user.bare_string read: one user turn with that text")
        out.add(f"    messages.append(_w.bare_user_turn(raw_messages, {field}))")
        out.add("else:")
        out.add(f"    messages.extend(_messages_from_wire(raw_messages, {field}))")
    else:
        out.add(f"messages.extend(_messages_from_wire(_w.member_list(body, {field}, ''), {field}))")
    out.add(f"consumed.add({field})")
    out.add("config: dict[str, Any] = {}")
    table: list[str] = []  # a run of rows a table says, as `_w.options_from_wire` reads them
    for opt in [*ir.options, None]:
        if opt is not None and opt.wire is None:
            continue
        how = None if opt is None or opt.values else "whole" if opt.name in INTEGER_OPTIONS else "negate" if opt.negate else ""
        if how == "" and opt is not None and opt.merge_coerce_string:
            how = "list"
        elif how and opt is not None and opt.merge_coerce_string:
            how = None  # both: the code below says it
        if how is None and table:  # the run ends: its table, read in order
            em.option_tables += 1
            name = f"_OPTIONS_{em.option_tables}"
            em.parts.constants.append(f"# option rows read as they are, in order (runtime wire.options_from_wire): (option, wire fields, how)\n{name}: Final[tuple[tuple[str, tuple[str, ...], str], ...]] = (\n" + "".join(f"    {line}\n" for line in table) + ")")
            out.add(f"_w.options_from_wire(body, config, consumed, nested_consumed, {name})")
            table = []
        if opt is None:
            break
        assert opt.wire is not None
        if how is not None:
            table.append(f"({lit(opt.name)}, {lit((opt.wire, *opt.read_also))}, {lit(how)}),")
            continue
        # An option this mapping cannot send is still read as that option, so request_to_wire
        # applies the mapping's rule to it (drop, warn or reject) instead of forwarding an extra.
        # an integer option sent as an integer-valued float (Gemini `topK: 40.0`) reads as the
        # integer; the same wire gets its own form back as carried data (runtime/carry.py)
        whole = "_w.whole_number" if opt.name in INTEGER_OPTIONS else "_w.negated" if opt.negate else ""
        if opt.values:  # the wire's spellings; an unlisted one is read as given (a string) or not at all
            keep = opt.name in STRING_OPTIONS
            for wire_name in (opt.wire, *opt.read_also):
                keyword = "if" if wire_name == opt.wire else "elif"
                raw = _get(ir, wire_name)
                out.add(f"{keyword} (spelled := _w.spelled({raw}, {lit(dict(opt.values))}, {keep})) is not None:  # values")
                out.indent()
                out.add(f"config[{lit(opt.name)}] = spelled")
                out.add(_consume(ir, wire_name))
                out.dedent()
            continue
        for wire_name in (opt.wire, *opt.read_also):
            keyword = "if" if wire_name == opt.wire else "elif"
            if "." in wire_name:
                out.add(f"{keyword} {_get(ir, wire_name)} is not None:")
                out.indent()
                out.add(f"config[{lit(opt.name)}] = {whole}({_get(ir, wire_name)})" + ("  # negate: the wire says it the other way round" if opt.negate else ""))
                out.add(_consume(ir, wire_name))
                out.dedent()
                continue
            out.add(f"{keyword} {lit(wire_name)} in body:")
            out.indent()
            out.add(f"config[{lit(opt.name)}] = {whole}(body[{lit(wire_name)}])" + ("  # negate: the wire says it the other way round" if opt.negate else ""))
            if opt.merge_coerce_string:
                out.add(f"if type(config[{lit(opt.name)}]) is str:  # the wire's scalar form")
                out.add(f"    config[{lit(opt.name)}] = [config[{lit(opt.name)}]]")
            out.add(f"consumed.add({lit(wire_name)})")
            out.dedent()
    out.add("kwargs: dict[str, Any] = {}")
    # tools
    tf = ir.tools.field
    out.add(f"raw_tools = {_get(ir, tf)}")  # a dotted field (Bedrock toolConfig.tools) is read where it is written
    out.add("if raw_tools is not None:")
    out.indent()
    out.add(_consume(ir, tf))
    if ir.tools.group is not None:
        g = ir.tools.group
        out.add("read_tools: list[Tool] = []")
        out.add(f"for j, entry in enumerate(_w.expect_list(raw_tools, {lit(tf)})):  # tools group {g}")
        out.indent()
        out.add(f"where = {lit(tf)} + f'[{{j}}]'")
        out.add("entry = _w.expect_dict(entry, where)")
        if ir.unknown == "carry":
            out.add(f"if {lit(g)} not in entry:  # another tool kind: carried for this wire (request.unknown: carry)")
            out.add("    continue")
        else:
            out.add("for other in entry:")
            out.add(f"    if other != {lit(g)}:")
            out.add(f"        raise _w.WireShapeError(where + '.' + other, {lit('this tool kind has no canonical form; expected ' + g)})")
        out.add(f"decls = _w.member_list(entry, {lit(g)}, where)")
        out.add(f"read_tools.extend(_read_tool(_w.expect_dict(t, where + f'.{g}[{{k}}]'), where + f'.{g}[{{k}}]') for k, t in enumerate(decls))")
        out.dedent()
        out.add("kwargs['tools'] = read_tools")
    elif ir.cache_point is not None:
        # request.cache_points: a breakpoint item marks the tool before it
        cond = em.cache_point_condition("t")
        read = f"_w.read_or_skip(_read_tool, t, {lit(tf)} + f'[{{j}}]')" if ir.unknown == "carry" else f"_read_tool(_w.expect_dict(t, {lit(tf)} + f'[{{j}}]'), {lit(tf)} + f'[{{j}}]')"
        out.add(f"read_tools_: list[Any] = [_w.CachePoint(_read_cache_point(t, {lit(tf)} + f'[{{j}}]'), {lit(tf)} + f'[{{j}}]') if type(t) is dict and {cond} else {read} for j, t in enumerate(_w.expect_list(raw_tools, {lit(tf)}))]")
        out.add(f"kwargs['tools'] = _w.attach_cache_points(read_tools_, {ir.unknown == 'carry'})")
    elif ir.unknown == "carry":
        out.add("# a tool no row reads (a server tool): carried for this wire (request.unknown: carry)")
        out.add(f"read_tools_ = [_w.read_or_skip(_read_tool, t, {lit(tf)} + f'[{{j}}]') for j, t in enumerate(_w.expect_list(raw_tools, {lit(tf)}))]")
        out.add("kwargs['tools'] = [t for t in read_tools_ if not isinstance(t, _w.Skipped)]")
    else:
        out.add(f"kwargs['tools'] = [_read_tool(_w.expect_dict(t, {lit(tf)} + f'[{{j}}]'), {lit(tf)} + f'[{{j}}]') for j, t in enumerate(_w.expect_list(raw_tools, {lit(tf)}))]")
    if ir.tools.strict_all is not None:
        sa = ir.tools.strict_all
        out.add(f"if body.get({lit(sa)}) is not None and kwargs['tools']:  # tools.strict_all: every tool's strict")
        out.add(f"    kwargs['tools'] = _w.with_strict(kwargs['tools'], body[{lit(sa)}], {lit(sa)})")
        out.add(f"    {_consume(ir, sa)}")
    out.dedent()
    cf = ir.tool_choice.field
    if "." in cf:
        out.add(f"raw_choice = {_get(ir, cf)}")
        out.add("if raw_choice is not None:")
        out.indent()
        out.add(_consume(ir, cf))
        if ir.unknown == "carry":  # a mode no row reads (Gemini VALIDATED): carried for this wire
            out.add("choice_ = _w.read_value_or_skip(_read_tool_choice, raw_choice)")
            out.add("if not isinstance(choice_, _w.Skipped):")
            out.add("    kwargs['tool_choice'] = choice_")
        else:
            out.add("kwargs['tool_choice'] = _read_tool_choice(raw_choice)")
        out.dedent()
    else:
        out.add(f"if {lit(cf)} in body:")
        out.indent()
        out.add(f"consumed.add({lit(cf)})")
        if ir.unknown == "carry":
            out.add(f"choice_ = _w.read_value_or_skip(_read_tool_choice, body[{lit(cf)}])")
            out.add("if not isinstance(choice_, _w.Skipped):  # a mode no row reads: carried for this wire")
            out.add("    kwargs['tool_choice'] = choice_")
        else:
            out.add(f"kwargs['tool_choice'] = _read_tool_choice(body[{lit(cf)}])")
        out.dedent()
    st = ir.structured
    if st is not None and st["mode"] == "native":
        sf = st["field"]
        assert ir.structured_template is not None
        shared = "." in sf or sf in _nested_roots(ir)
        out.add(f"raw_structured = {_get(ir, sf)}")
        conds = em.dispatch_conditions(ir.structured_template, 'raw_structured')
        if shared:
            conds = " and ".join([conds, *em.presence_conditions(ir.structured_template, "raw_structured")])
        out.add(f"if type(raw_structured) is dict and {conds}:")
        out.indent()
        if shared:
            assert isinstance(ir.structured_template, Obj)
            for key, _ in ir.structured_template.items:
                out.add(f"nested_consumed.append({lit((*sf.split('.'), key))})  # the template's keys; the rest of {sf} is not ours")
            # the template's keys, and those the unmodeled table judges (a `reject` row still refuses)
            judged = tuple(k for k, action in ir.unmodeled.get("structured_output", {}).items() if action == "reject" or ir.unknown != "carry")
            out.add(f"raw_structured = {{k: v for k, v in raw_structured.items() if k in {lit(tuple(k for k, _ in ir.structured_template.items) + judged)}}}")
        else:
            out.add(f"consumed.add({lit(sf)})  # anything else under this key (another mode) stays an extra")
        out.add(f"kwargs['response_schema'] = _read_structured_output(raw_structured, {lit(sf)})")
        for opt in ir.options:
            if opt.requires == "no_response_schema" and opt.wire is not None:
                out.add(f"config.pop({lit(opt.name)}, None)  # requires no_response_schema: the schema says it already")
        _emit_derived_defaults(ir, out, sf)
        out.dedent()
    if ir.unknown == "carry":
        out.add("# request.unknown: carry. Fields no row reads are this wire's own: the residual carries them")
        out.add("# back to it (runtime/carry.py); config.extras is the caller's passthrough, never a reader's")
    elif ir.extras.under:
        under = ".".join(ir.extras.under)
        out.add("rest = _w.leftover(body, consumed, nested_consumed)")
        out.add(f"extras = _w.get_in(rest, {lit(ir.extras.under)})")
        out.add("if extras is not None and type(extras) is not dict:")
        out.add(f"    raise _w.WireShapeError({lit(under)}, 'expected an object')")
        out.add(f"_w.consume_in(rest, {lit(ir.extras.under)})")
        if ir.extras.root:
            out.add("for key in rest:  # placement.root: these keys are extras sent at the root")
            out.add(f"    if key not in {lit(tuple(sorted(ir.extras.root)))}:")
            out.add(f"        raise _w.WireShapeError(key, {lit('the canonical model cannot carry this field (extras are placed under ' + under + ' or are one of: ' + ', '.join(ir.extras.root) + ')')})")
            out.add("    extras = dict(extras) if extras else {}")
            out.add("    if key in extras:")
            out.add(f"        raise _w.WireShapeError({lit(under + '.')} + key, 'also given at the root; one extras key cannot be sent twice')")
            out.add("    extras[key] = rest[key]")
        else:
            out.add("for key in rest:  # extras travel under " + under + "; nothing else can be carried")
            out.add(f"    raise _w.WireShapeError(key, {lit('the canonical model cannot carry this field (extras are placed under ' + under + ')')})")
    else:
        out.add("extras = _w.leftover(body, consumed, nested_consumed) if nested_consumed else {k: v for k, v in body.items() if k not in consumed}")
    if ir.unknown != "carry":
        out.add("if extras:")
        out.add("    config['extras'] = extras")
    out.add("if config:")
    out.add("    kwargs['config'] = Config.from_dict(config, 'config')  # typed: the wire values are checked here")
    out.add("return Request(model=model, messages=messages, **kwargs)")
    em.func("_request_from_wire", "(body: Any) -> Request", "Wire request body -> canonical request.", out.lines)

    out = Lines()
    if "request_in" in ir.strategy_hooks:
        out.add("if type(body) is dict:  # strategies.request_in (anything else: the reader names it)")
        out.add("    body = _strategy_request_in(body)")
    fixed = sorted(((ir.transport or {}).get("body") or {}))
    if fixed:  # transport.body: protocol the transport writes on every request (like a header), not request data
        out.add(f"if type(body) is dict and not {lit(frozenset(fixed))}.isdisjoint(body):  # transport.body fields: the transport's, never carried")
        out.add(f"    body = {{k: v for k, v in body.items() if k not in {lit(frozenset(fixed))}}}")
    out.add("# the reader, the depth limit, and what the tables do not model carried (runtime/carry.py)")
    out.add("return _w.read_request(body, _request_from_wire, ORIGIN, _rewrite_request, WIRE_KEYS, OPTION_PATHS, ALIAS_PATHS)")
    em.func(
        "request_from_wire",
        f"(body: {wire_type(ir.key, 'Request')} | Mapping[str, Any]) -> Request",
        f"{ir.title} request body -> canonical request (for gateways). Raises InvalidRequestError naming the path.",
        out.lines,
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
    got: dict[str, str] = {}
    em.unmodeled(out, "tool", "tool", "path")
    em.read_node(out, ir.tools.template, "tool", "path", "tool", got)
    args = [f"name={got['name']}"]
    for name in ("description", "parameters", "strict", "cache_control"):
        if name in got:
            args.append(f"{name}={got[name]}")
    out.add(f"return Tool({', '.join(args)})")
    em.func("_read_tool", "(tool: dict[str, Any], path: str) -> Tool", "Wire tool definition -> canonical tool.", out.lines)

    # tool choice reader
    out = Lines()
    path = lit(cf)
    if ir.unmodeled.get("tool_choice"):
        checks = Lines()
        checks.level = out.level + 1
        em.unmodeled(checks, "tool_choice", "value", path)
        if checks.lines:  # `drop`/`carry` rows generate no check
            out.add("if type(value) is dict:")
            out.lines.extend(checks.lines)
    # The forced-tool form first, told apart by the keys that hold {name} as well as its literals
    # (Gemini's {mode: ANY, allowedFunctionNames: [..]} beside required's {mode: ANY}).
    if "tool" in ir.tool_choice.modes:
        node = ir.tool_choice.modes["tool"]
        conds = " and ".join([em.dispatch_conditions(node, "value"), *em.presence_conditions(node, "value")])
        out.add(f"if type(value) is dict and {conds}:")
        out.indent()
        got = {}
        em.read_node(out, node, "value", path, "tool_choice.tool", got)
        out.add(f"return ForcedTool(name={got['name']})")
        out.dedent()
    for mode in ("auto", "required", "none"):
        if mode not in ir.tool_choice.modes:
            continue  # omit (read as absent) or reject (never written)
        node = ir.tool_choice.modes[mode]
        if isinstance(node, Lit):
            out.add(f"if value == {lit(node.value)}:")
        else:
            # its literals and every top-level key it writes: `{auto: {}}` and `{any: {}}`
            # (Bedrock) differ only by their keys
            keys = [f"{lit(k)} in value" for k, c in node.items if not isinstance(c, Lit)] if isinstance(node, Obj) else []
            out.add(f"if type(value) is dict and {' and '.join([*keys, em.dispatch_conditions(node, 'value')])}:")
        out.add(f"    return {lit(mode)}")
    out.add(f"raise _w.WireShapeError({path}, 'unsupported tool_choice ' + repr(value))")
    em.func("_read_tool_choice", "(value: Any) -> ToolChoice", "Wire tool_choice -> canonical.", out.lines)

    if st is not None and st["mode"] == "native":
        out = Lines()
        got = {}
        assert ir.structured_template is not None
        em.unmodeled(out, "structured_output", "value", "path")
        em.read_node(out, ir.structured_template, "value", "path", "structured_output", got)
        out.add(f"return {got['schema']}")
        em.func("_read_structured_output", "(value: dict[str, Any], path: str) -> dict[str, Any]", "Wire structured-output field -> the JSON Schema it carries.", out.lines)


# --------------------------------------------------------------------------- responses
def _emit_response_from_wire(em: "Emitter") -> None:
    ir = em.ir
    out = Lines()
    for wire, canonical in ir.finish.map:
        out.add(f"if value == {lit(wire)}:")
        out.add(f"    return {lit(canonical)}")
    out.add(f"return {lit(ir.finish.default)}  # a value the table does not list")
    em.func("_finish_reason", "(value: Any) -> FinishReason", "Wire finish reason -> canonical (the table's `*` row for anything unlisted).", out.lines)

    out = Lines()
    out.add("body = _w.expect_dict(body, '')")
    out.add(f"finish_reason = _finish_reason({_keys_get('body', ir.finish.path)})")
    emit_items.emit_finish_detail(em, out)
    out.add("# OpenArmature §3: degraded responses surface what parses; otherwise (None) only JSON-null arguments read as null")
    out.add("lenient: bool | None = True if finish_reason == 'error' else None")
    msg_path = _path_text(ir.response.message)
    if ir.items.response_items is not None:
        emit_items.emit_items_message_reader(em, out)
    elif ir.response.message and ir.response.message_missing == "empty":
        out.add(f"raw_message = {_keys_get('body', ir.response.message)}")
        out.add("# message_missing: empty -- a candidate without content (blocked, or cut short) reads as an empty message")
        out.add(f"message = {{}} if raw_message is None else _w.expect_dict(raw_message, {lit(msg_path)})")
    elif ir.response.message:
        out.add(f"message = _w.expect_dict({_keys_get('body', ir.response.message)}, {lit(msg_path)})")
    else:
        out.add("message = body")
    content_key = next((k for k, c in ir.assistant.template.items if isinstance(c, Slot) and c.field == "content"), None)
    if ir.items.response_items is None:
        _emit_assistant_reader(em, out, ir.assistant.template, content_key, "message", lit(msg_path), "lenient")
    # a wire whose assistant content is always parts (content blocks, or `always_parts`: Cohere's
    # AssistantMessageResponse.content) says nothing more with a one-text list than with a string
    if ir.tool_calls.placement == "content_blocks" or ir.assistant.content == "always_parts":
        out.add("# One unsigned text block reads as a plain string (OpenArmature §3.1.1); none as null.")
        out.add("if type(a_content) is list:")
        out.indent()
        out.add("if not a_content:")
        out.add("    a_content = None")
        out.add("elif len(a_content) == 1 and type(a_content[0]) is TextBlock and a_content[0].signature is NOT_GIVEN:")
        out.add("    a_content = a_content[0].text")
        out.dedent()
    if ir.response.message_missing == "empty":
        out.add("if a_content is NOT_GIVEN:")
        out.add("    a_content = None")
    if ir.finish.with_tool_calls is not None:
        out.add("if finish_reason == 'stop' and a_calls:  # finish_reason with_tool_calls")
        out.add(f"    finish_reason = {lit(ir.finish.with_tool_calls)}")
    if ir.response.refusal_field is not None and ir.items.response_items is None:
        out.add("if not a_content:  # refusal strategy `as_content`: the refusal text stands in for empty content")
        out.add(f"    refusal = message.get({lit(ir.response.refusal_field)})")
        out.add("    if type(refusal) is str and refusal:")
        out.add("        a_content = refusal")
    # usage
    out.add(f"usage_obj = {_keys_get('body', ir.usage.path)}")
    out.add("if type(usage_obj) is dict:")
    out.indent()
    emit_usage.emit_fallback(out, ir.usage.fallback)
    emit_usage.emit_reader(out, ir.usage.counters)
    out.dedent()
    out.add("else:")
    out.add("    usage = Usage()  # not reported: the three counters are null together (§6)")
    out.add("response = Response(message=AssistantMessage(content=a_content, tool_calls=a_calls), finish_reason=finish_reason, usage=usage, raw=body)")
    out.add("return response")
    em.func("_response_from_wire", "(body: Any) -> Response", "Wire response body -> canonical response.", out.lines)

    out = Lines()
    if "response_in" in ir.strategy_hooks:
        out.add("if type(body) is dict:  # strategies.response_in (anything else: the reader names it)")
        out.add("    body = _strategy_response_in(body)")
    coerced = ""
    if ir.structured is not None and "tool_coercion" in structured_modes(ir):
        out.add("mode = STRUCTURED_OUTPUT_MODE if structured_output is None else structured_output")
        out.add(f"coerced = {lit(ir.structured['tool']['name'])} if mode == 'tool_coercion' else None  # OpenArmature §8.2.5.1")
        coerced = ", coerced"
    out.add("# the reader, the depth limit, what the tables do not model carried, and `parsed`")
    out.add(f"return _w.read_response(body, _response_from_wire, ORIGIN, _response_to_wire, WIRE_KEYS, response_schema{coerced})")
    em.func(
        "response_from_wire",
        f"(body: {wire_type(ir.key, 'Response')} | Mapping[str, Any], *, response_schema: dict[str, Any] | None = None, structured_output: str | None = None) -> Response",
        f"{ir.title} response body -> canonical Response (`raw` is the body). With a `response_schema`, `parsed` is set or StructuredOutputInvalidError raised.",
        out.lines,
    )
    em.parts.public.append("response_from_wire")


def _emit_response_to_wire(em: "Emitter") -> None:
    ir = em.ir
    out = Lines()
    out.add("resp = _w.as_response(response)")
    out.add("raw = resp.raw if type(resp.raw) is dict else {}")
    out.add("msg = resp.message")
    out.add("reason = resp.finish_reason")
    out.add("wire_reason: Any")
    inverse: dict[str, str] = {}
    for wire, canonical in ir.finish.map:
        inverse.setdefault(canonical, wire)
    inverse.update(ir.finish.emit)
    # module tables, so that a dialect with other finish reasons differs in them, not in code
    em.parts.constants.append(f"_FINISH_TO_WIRE: Final[dict[str, str]] = {lit(inverse)}  # canonical finish reason -> the wire's")
    em.parts.constants.append(f"_FINISH_LISTED: Final = {lit(tuple(w for w, _ in ir.finish.map))}  # the wire's finish reasons")
    out.add("wire_reason = _FINISH_TO_WIRE.get(reason, reason) if type(reason) is str else reason")
    out.add(f"raw_reason = {_keys_get('raw', ir.finish.path)}")
    out.add("if raw_reason in _FINISH_LISTED and _finish_reason(raw_reason) == reason:")
    out.add("    wire_reason = raw_reason  # the provider's own listed value, when it means the same")
    # message
    if ir.items.response_items is not None:
        emit_items.emit_items_message_writer(em, out)
    elif ir.tool_calls.placement == "content_blocks":
        out.add("calls = msg.tool_calls")
        out.add("blocks: list[dict[str, Any]] = []")
        out.add("if isinstance(msg.content, (str, list)):")
        out.add("    blocks = _as_blocks(_assistant_content_to_wire(msg.content, 'message.content'))")
        out.add("if calls:")
        out.add("    blocks.extend(_tool_call_to_wire(call, f'message.tool_calls[{k}]') for k, call in enumerate(calls))")
        expr = build_message(
            em, out, ir.assistant.template, {"content": "blocks", "tool_calls": "NOT_GIVEN"}, "message.assistant", frozenset({"content"})
        )
    else:
        out.add("calls = msg.tool_calls")
        out.add("content_out: Any = msg.content")
        out.add("if isinstance(msg.content, (str, list)):")
        out.add("    content_out = _assistant_content_to_wire(msg.content, 'message.content')")
        if ir.response.content == "joined_text":
            out.add("if type(content_out) is list:  # response content: joined_text (a response message carries one string)")
            out.add("    content_out = ''.join(p.get('text', '') for p in content_out)")
        out.add("wire_calls: Any = NOT_GIVEN")
        out.add("if calls:")
        out.add("    wire_calls = [_tool_call_to_wire(call, f'message.tool_calls[{k}]') for k, call in enumerate(calls)]")
        expr = build_message(em, out, ir.assistant.template, {"content": "content_out", "tool_calls": "wire_calls"}, "message.assistant")
    if ir.items.response_items is None:
        out.add(f"wire_message = {expr}")
    if ir.reasoning is not None:
        out.add("wire_message = dict(wire_message)")
        out.add("wire_message.update(_reasoning.write(msg.content, bool(calls), REASONING, PROVIDER, False))")
    # usage
    out.add("u = resp.usage")
    out.add("usage_wire: dict[str, Any] = {}")
    emit_usage.emit_writer(out, ir.usage.counters, ir.usage.unreported, lambda: emit_items.emit_usage_zero_fill(em, out))
    out.add("body: dict[str, Any] = {}")
    for item in ir.response.envelope:
        if item.kind == "literal":
            out.add(f"body[{lit(item.key)}] = {lit(item.value)}")
        elif item.kind == "from_raw":
            expr = lit(item.default)
            for raw_key in reversed([item.value] if isinstance(item.value, str) else item.value):
                expr = f"raw.get({lit(raw_key)}, {expr})"  # several keys: the first one present
            out.add(f"body[{lit(item.key)}] = {expr}")
        elif item.kind == "slot":
            value = {"message": "wire_message", "finish_reason": "wire_reason", "usage": "usage_wire"}[item.slot or ""]
            if item.optional:
                out.add(f"if {value}:")
                out.add(f"    body[{lit(item.key)}] = {value}")
            else:
                out.add(f"body[{lit(item.key)}] = {value}")
        elif item.kind == "tree":
            out.add(f"body[{lit(item.key)}] = {_envelope_expr(item.value)}")
        else:  # choice
            node = item.value
            parts = []
            for k, child in node.items:
                if isinstance(child, Slot):
                    parts.append(f"{lit(k)}: " + {"message": "wire_message", "finish_reason": "wire_reason", "usage": "usage_wire"}[child.field])
                else:
                    parts.append(f"{lit(k)}: {lit(child.value)}")
            out.add(f"body[{lit(item.key)}] = [{{{', '.join(parts)}}}]")
    if not ir.response.message:
        out.add("body.update(wire_message)  # the message's own keys sit at the root")
    emit_items.emit_finish_detail_writer(em, out)
    out.add("if resp.carried is not None:  # wire data read from this provider's wire (runtime/carry.py)")
    out.add("    _w.apply_carried(body, resp.carried, ORIGIN)")
    out.add("return _strategy_response_out(body)  # strategies.response_out" if "response_out" in ir.strategy_hooks else "return body")
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
    out = Lines()
    out.add("try:")
    out.add("    return _error_from_wire(_w.status_code(status), body, headers)")
    out.add("except RecursionError:  # a body nested past Python's limit: classify by status alone")
    out.add("    return _error_from_wire(_w.status_code(status), None, headers)")
    em.func(
        "error_from_wire",
        "(status: int, body: Mapping[str, Any] | str | bytes | None = None, headers: Mapping[str, Any] | None = None) -> ProviderError",
        f"An HTTP error from {ir.title} -> the ProviderError of its category (returned, never raised).",
        out.lines,
    )
    em.parts.public.append("error_from_wire")
    out = Lines()
    out.add("decoded = _w.decode_error_body(body)")
    out.add(f"message = {_keys_get('decoded', ir.errors.message)} if type(decoded) is dict else None")
    out.add("if type(message) is not str or not message:")
    out.add("    message = _w.error_text(decoded)[:500] or f'HTTP {status}'")
    if ir.errors.type is not None:
        out.add(f"error_type = {_keys_get('decoded', ir.errors.type)} if type(decoded) is dict else None")
    else:
        out.add("error_type: Any = None  # no `errors.type` row")
    if ir.errors.type_header is not None:
        out.add("if error_type is None:  # errors.type_header")
        out.add(f"    error_type = _w.header_error_type(headers, {lit(ir.errors.type_header)})")
    if ir.errors.code is not None:
        out.add(f"error_code = {_keys_get('decoded', ir.errors.code)} if type(decoded) is dict else None")
    else:
        out.add("error_code = None")
    out.add("# Rules match the error's own words (message, type, code), not the whole body.")
    out.add("text = _w.error_words(message, error_type, error_code)")
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
    out.add("category = _w.classify_error(ERROR_RULES, status, error_type, error_code, text)")
    out.add(f"retry_after = _w.retry_after(headers, {lit(tuple(ir.errors.retry_after_headers))})")
    rd = ir.errors.retry_delay  # task IRs (embeddings, images): None
    if rd is not None:
        out.add("if retry_after is None and type(decoded) is dict:  # errors retry_delay: a retry hint in the body")
        out.add(f"    retry_after = _w.retry_delay(decoded, {lit(rd['list'])}, {lit(rd['match'])}, {lit(rd['field'])})")
    out.add("return error_class(category)(str(message), status=status, retry_after=retry_after, body=decoded, provider_type=error_type if type(error_type) is str else None)")
    em.func(
        "_error_from_wire",
        "(status: int, body: Any, headers: Mapping[str, Any] | None) -> ProviderError",
        "The body of error_from_wire.",
        out.lines,
    )

"""Item lists: formats whose conversation is a flat list of typed items (OpenAI Responses).

Four generic strategies live here, each hooked into emit_messages.py by one small call:

- `tool_calls.placement: items`: tool calls are sibling items of the message list, placed after
  the assistant turn's own message item (which is left out when the turn has no text). When
  reading, a run of tool-call items joins the assistant turn right before it, or opens one.
- tool results (and tool calls) whose template has no literal `role` are told apart by their
  other literals (`type: function_call_output`).
- `assistant.content: joined_text`: an assistant turn's text blocks are sent as one string.
- `response.items`: the response message is assembled from a list of output items (message
  items with text / refusal parts, tool-call items); `finish_reason.detail_path/detail_map`
  and `finish_reason.with_tool_calls` refine the finish reason; `usage.zero_fill` writes
  counters the wire requires and the canonical model does not carry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..emit.lines import Lines
from ..ir.wire_path import parse_path
from ..wiretemplate import Lit, Node, Obj, Slot, conditions_of, parse_template, slots_of

if TYPE_CHECKING:
    from ..emit.emitter import Emitter
    from ..ir.chat import Builder

__all__ = ["ItemsIR", "build_items_ir"]


def lit(value: Any) -> str:
    return repr(value)


@dataclass
class ItemsIR:
    """The item-list parts of a format (None / empty when the mapping does not use them)."""

    response_items: dict[str, Node] | None = None  # message, text, refusal? templates
    write_also: dict[str, dict[str, Any]] = field(default_factory=dict)  # message/text: literal keys written only
    finish_detail_path: tuple[str | int, ...] | None = None
    finish_detail_map: list[tuple[str, str]] = field(default_factory=list)
    finish_detail_write: str = "always"  # always | raw: written back only from the same provider's raw
    usage_zero_fill: list[tuple[str | int, ...]] = field(default_factory=list)
    reasoning_match: Node | None = None  # request.reasoning_items.match (literals only)
    reasoning_text: str = ""
    reasoning_join: str = "\n\n"


def role_literal(node: Node) -> Any:
    if not isinstance(node, Obj):
        return None
    return next((c.value for k, c in node.items if k == "role" and isinstance(c, Lit)), None)


def build_items_ir(b: "Builder") -> ItemsIR:
    """Checks and IR of the item-list rows (called from ir.Builder.build)."""
    d = b.data
    req = d["request"]
    resp = d["response"]
    out = ItemsIR()
    placement = req["tool_calls"]["placement"]
    if placement == "items":
        asst = parse_template(req["assistant"]["wire"])
        if any(s.field == "tool_calls" for s in slots_of(asst)):
            raise b.err("/request/assistant/wire", "tool_calls placement `items` puts tool calls beside the message; remove {tool_calls}")
        if not conditions_of(parse_template(req["tool_calls"]["wire"])):
            raise b.err("/request/tool_calls/wire", "tool_calls placement `items` needs a literal (e.g. `type: function_call`) that tells tool-call items apart")
    tr = parse_template(req["tool_results"]["wire"])
    if req["tool_results"]["strategy"] == "message" and role_literal(tr) is None and not conditions_of(tr):
        raise b.err("/request/tool_results/wire", "a tool-result item needs a literal `role` or another literal (e.g. `type: function_call_output`) to tell it apart")
    if req["assistant"].get("content") == "joined_text":
        for kind in ("thinking", "redacted_thinking"):
            if req["content_parts"][kind] not in ("strip", "reject"):
                raise b.err(f"/request/content_parts/{kind}", "assistant content `joined_text` sends one string: thinking parts must be strip or reject")

    ri = req.get("reasoning_items")
    if ri is not None:
        if placement != "items":
            raise b.err("/request/reasoning_items", "reasoning items stand beside the messages: set request.tool_calls.placement to `items`")
        match = parse_template(ri["match"], "/request/reasoning_items/match")
        if not isinstance(match, Obj) or slots_of(match) or not conditions_of(match):
            raise b.err("/request/reasoning_items/match", "`match` is an object of literals that tells reasoning items apart (e.g. {type: reasoning})")
        if req["content_parts"]["thinking"] != "strip":
            raise b.err("/request/content_parts/thinking", "with reasoning_items, thinking blocks are sent as items: the thinking row must be `strip`")
        out.reasoning_match = match
        out.reasoning_text = ri["text"]
        out.reasoning_join = ri.get("join", "\n\n")
    items = resp.get("items")
    if items is not None:
        if placement != "items":
            raise b.err("/response/items", "response items are read with the tool-call items row: set request.tool_calls.placement to `items`")
        templates: dict[str, Node] = {}
        message = b.template("/response/items/message", items["message"], "item.message")
        b.require_slot(message, "/response/items/message", "content", "item message")
        if not conditions_of(message):
            raise b.err("/response/items/message", "the message item template needs a literal (e.g. `type: message`)")
        templates["message"] = message
        text = b.template("/response/items/text", items["text"], "part.text")
        b.require_slot(text, "/response/items/text", "text", "item text")
        templates["text"] = text
        if "refusal" in items:
            refusal = b.template("/response/items/refusal", items["refusal"], "item.refusal")
            b.require_slot(refusal, "/response/items/refusal", "refusal", "item refusal")
            templates["refusal"] = refusal
        for name, node in templates.items():
            if not isinstance(node, Obj) or not conditions_of(node):
                raise b.err(f"/response/items/{name}", f"the {name} item template must be an object with a literal `type`")
        out.response_items = templates
        for name, extra in items.get("write_also", {}).items():
            out.write_also[name] = dict(extra)
    fr = resp["finish_reason"]
    if ("detail_path" in fr) != ("detail_map" in fr):
        raise b.err("/response/finish_reason", "`detail_path` and `detail_map` go together")
    if "detail_path" in fr:
        out.finish_detail_path = parse_path(fr["detail_path"])
        out.finish_detail_map = [(k, v) for k, v in fr["detail_map"].items() if not k.startswith("x-")]
        out.finish_detail_write = fr.get("detail_write", "always")
    elif "detail_write" in fr:
        raise b.err("/response/finish_reason/detail_write", "`detail_write` needs `detail_path` and `detail_map`")
    out.usage_zero_fill = [parse_path(p) for p in resp["usage"].get("zero_fill", [])]
    return out


# --------------------------------------------------------------------------- content
def emit_joined_text_content(em: "Emitter") -> None:
    """`assistant.content: joined_text`: the turn's text blocks as one string."""
    out = Lines()
    out.add("if isinstance(content, str):")
    out.add("    return content")
    out.add("texts: list[str] = []")
    out.add("for j, block in enumerate(content):")
    out.indent()
    out.add("if type(block) is TextBlock:")
    out.add("    assert isinstance(block, TextBlock)")
    out.add("    texts.append(block.text)")
    out.add("    continue")
    out.add("_part_to_wire(block, f'{path}[{j}]')  # thinking: the row strips or rejects it")
    out.dedent()
    out.add("return ''.join(texts)")
    em.func("_assistant_content_to_wire", "(content: str | list[Block], path: str) -> str", "Canonical assistant content -> one string (`joined_text`).", out.lines)


# --------------------------------------------------------------------------- reasoning items
def emit_reasoning_helpers(em: "Emitter") -> None:
    """`request.reasoning_items`: a reasoning item is one thinking block whose text is the item's
    summary texts joined and whose signature is the whole item (compact JSON, keys sorted),
    stamped with this provider's origin; it is sent back verbatim, and only to this provider."""
    it = em.ir.items
    if it.reasoning_match is None:
        return
    out = Lines()
    out.add(f"parts = item.get({lit(it.reasoning_text)})")
    out.add("texts = [p['text'] for p in parts if type(p) is dict and type(p.get('text')) is str] if type(parts) is list else []")
    out.add(f"return ThinkingBlock(text={lit(it.reasoning_join)}.join(texts), signature=_w.wire_json(item, path), origin=PROVIDER)")
    em.func("_read_reasoning_item", "(item: dict[str, Any], path: str) -> ThinkingBlock", "A wire reasoning item -> one signed thinking block (reasoning_items).", out.lines)

    out = Lines()
    out.add("items: list[dict[str, Any]] = []")
    out.add("if not isinstance(content, list):")
    out.add("    return items")
    out.add("for block in content:")
    out.indent()
    out.add("if type(block) is not ThinkingBlock or not isinstance(block, ThinkingBlock):")
    out.add("    continue")
    out.add("if block.origin is not NOT_GIVEN and block.origin != PROVIDER:")
    out.add("    continue  # provider-bound: another provider's reasoning is stripped")
    out.add("item = _w.loads_object(block.signature, path, True)")
    out.add(f"if item is not None and {em.dispatch_conditions(it.reasoning_match, 'item')}:")
    out.add("    items.append(item)  # resent verbatim")
    out.dedent()
    out.add("return items")
    em.func("_reasoning_to_items", "(content: Any, path: str) -> list[dict[str, Any]]", "The turn's own reasoning items (thinking blocks whose signature is one), in order.", out.lines)

    out = Lines()
    out.add("if content is None or content is NOT_GIVEN or content == '':")
    out.add("    return list(blocks)")
    out.add("if isinstance(content, str):")
    out.add("    return [*blocks, TextBlock(text=content)]")
    out.add("return [*blocks, *content]")
    em.func("_with_reasoning", "(blocks: list[Any], content: Any) -> list[Any]", "Thinking blocks ahead of a turn's content.", out.lines)


# --------------------------------------------------------------------------- requests
def emit_assistant_items_to_wire(em: "Emitter", out: "Lines", build_message: Any) -> None:
    """Body of the assistant branch of _messages_to_wire under placement `items`."""
    ir = em.ir
    out.add("body_content = message.content")
    if ir.items.reasoning_match is not None:
        out.add("wire_messages.extend(_reasoning_to_items(body_content, f'messages[{i}].content'))")
    out.add("content_out: Any = None")
    out.add("if isinstance(body_content, (str, list)):")
    out.add("    content_out = _assistant_content_to_wire(body_content, f'messages[{i}].content')")
    out.add("if content_out:  # the message item, unless the turn has no text")
    out.indent()
    expr = build_message(em, out, ir.assistant.template, {"content": "content_out", "tool_calls": "NOT_GIVEN"}, "message.assistant")
    out.add(f"wire_messages.append({expr})")
    out.dedent()
    out.add("elif not calls:")
    out.add("    raise InvalidRequestError(_EMPTY_TURN, path=f'messages[{i}].content')")
    out.add("if calls:  # tool calls are sibling items, after the turn's message")
    out.add("    for k, call in enumerate(calls):")
    out.add("        wire_messages.append(_tool_call_to_wire(call, f'messages[{i}].tool_calls[{k}]', memo))")
    out.add("continue")


def emit_item_dispatch_head(em: "Emitter", out: "Lines") -> list[str]:
    """Start of the loop body of _messages_from_wire: items told apart by literals other than
    `role` (tool-call items, type-discriminated tool results). Returns the labels it reads."""
    ir = em.ir
    labels: list[str] = []
    if ir.tool_calls.placement == "items":
        if ir.unknown == "carry":
            known = sorted(_type_literals(ir))
            if known:
                # an item of a type no row reads (web_search_call, mcp_call, additional_tools...)
                # is carried for this wire; reasoning before it waits for the turn after it
                out.add(f"if message.get('type') not in (None, {', '.join(lit(k) for k in known)}):  # request.unknown: carry")
                out.add("    continue")
        out.add("prev_turn = open_turn")
        out.add("open_turn = None")
        reasoning = ir.items.reasoning_match
        if reasoning is not None:
            out.add(f"if {em.dispatch_conditions(reasoning, 'message')}:  # reasoning_items: held for the turn that follows")
            out.add("    pending_reasoning.append(_read_reasoning_item(message, path))")
            out.add("    continue")
        out.add(f"if {em.dispatch_conditions(ir.tool_calls.template, 'message')}:")
        out.indent()
        out.add("call = _read_tool_call(message, path, False)")
        out.add("if prev_turn is not None and not " + ("pending_reasoning" if reasoning is not None else "False") + ":  # joins the assistant turn right before it")
        out.add("    prev_turn.tool_calls = [*(prev_turn.tool_calls or []), call]")
        out.add("    open_turn = prev_turn")
        out.add("else:")
        if reasoning is not None:
            out.add("    open_turn = AssistantMessage(content=_with_reasoning(pending_reasoning, None) if pending_reasoning else None, tool_calls=[call])")
            out.add("    pending_reasoning = []")
        else:
            out.add("    open_turn = AssistantMessage(content=None, tool_calls=[call])")
        out.add("    out.append(open_turn)")
        out.add("continue")
        out.dedent()
        if reasoning is not None:
            role = role_literal(ir.assistant.template)
            out.add(f"if pending_reasoning and message.get('role') != {lit(role)}:")
            out.add("    raise _w.WireShapeError(path, 'a reasoning item must be followed by the assistant turn it belongs to')")
            labels.append(_type_label(reasoning))
        labels.append(_type_label(ir.tool_calls.template))
    if ir.tool_results.strategy == "message" and role_literal(ir.tool_results.template) is None:
        out.add(f"if {em.dispatch_conditions(ir.tool_results.template, 'message')}:")
        out.add("    out.append(_read_tool_result(message, path))")
        out.add("    continue")
        labels.append(_type_label(ir.tool_results.template))
    return labels


def emit_hoisted_system_roles(em: "Emitter", out: "Lines") -> list[str]:
    """`system: {strategy: hoist, read_also: [...]}`: wire messages with those roles inside the
    list (the API also accepts them there) are read as system messages."""
    ir = em.ir
    if ir.system.strategy != "hoist" or not ir.system.read_also:
        return []
    out.add(f"if role in {lit(tuple(ir.system.read_also))}:  # system.read_also (hoisted system)")
    out.indent()
    out.add("text = message.get('content')")
    if ir.system.blocks is not None:  # system.blocks: a one-block content is read whole
        out.add("if type(text) is list and len(text) == 1:")
        out.add("    out.append(_system_block_from_wire(text[0], path + '.content[0]'))")
        out.add("    continue")
    out.add("if type(text) is list:  # an array of text parts: joined")
    out.add("    text = ''.join(_w.member_str(_w.expect_dict(p, f'{path}.content[{j}]'), 'text', f'{path}.content[{j}]') for j, p in enumerate(text))")
    out.add("out.append(SystemMessage(content=_w.expect_str(text, path + '.content')))")
    out.add("continue")
    out.dedent()
    return [f"role {r}" for r in ir.system.read_also]


def _type_literals(ir: Any) -> set[str]:
    """The `type` literals of the request's item and message templates and of the response's
    message item (the item kinds a row reads)."""
    nodes = [ir.items.reasoning_match, ir.tool_calls.template, ir.tool_results.template, ir.user.template, ir.assistant.template, ir.system.template]
    if ir.items.response_items is not None:  # the output message item's type (history sent back as given)
        nodes.append(ir.items.response_items.get("message"))
    return {str(c.literal) for n in nodes if n is not None for c in conditions_of(n) if c.keys == ("type",) and c.literal is not None}


def _type_label(node: Node) -> str:
    """How an item template is told apart, for error messages: `type function_call`."""
    return ", ".join(f"{'.'.join(c.keys)} {c.literal}" for c in conditions_of(node) if c.literal is not None)


# --------------------------------------------------------------------------- responses
def emit_items_message_reader(em: "Emitter", out: "Lines") -> None:
    """Binds `a_content`, `a_calls` (and `a_refusal`) from the output item list `items_`."""
    ir = em.ir
    assert ir.items.response_items is not None
    t = ir.items.response_items
    message = t["message"]
    assert isinstance(message, Obj)
    content_key = next(k for k, c in message.items if isinstance(c, Slot) and c.field == "content")
    msg_path = ".".join(str(k) for k in ir.response.message)
    out.add(f"items_ = _w.expect_list({'body.get(' + lit(ir.response.message[0]) + ')' if len(ir.response.message) == 1 else '_w.get_in(body, ' + lit(ir.response.message) + ')'}, {lit(msg_path)})")
    out.add("texts_: list[Any] = []")
    out.add("calls_: list[ToolCall] = []")
    out.add("refusals_: list[str] = []")
    out.add("thinking_: list[Any] = []")
    out.add("for j, item in enumerate(items_):")
    out.indent()
    out.add(f"item_path = f'{msg_path}[{{j}}]'")
    out.add("item = _w.expect_dict(item, item_path)")
    if ir.items.reasoning_match is not None:
        out.add(f"if {em.dispatch_conditions(ir.items.reasoning_match, 'item')}:  # reasoning_items")
        out.add("    thinking_.append(_read_reasoning_item(item, item_path))")
        out.add("    continue")
    out.add(f"if {em.dispatch_conditions(message, 'item')}:")
    out.indent()
    out.add(f"parts_path = item_path + {lit('.' + content_key)}")
    out.add(f"for k, part in enumerate(_w.member_list(item, {lit(content_key)}, item_path)):")
    out.indent()
    out.add("part_path = f'{parts_path}[{k}]'")
    out.add("part = _w.expect_dict(part, part_path)")
    out.add(f"if {em.dispatch_conditions(t['text'], 'part')}:")
    out.indent()
    got: dict[str, str] = {}
    em.read_node(out, t["text"], "part", "part_path", "part.text", got)
    out.add(f"texts_.append(TextBlock(text={got['text']}))")
    out.add("continue")
    out.dedent()
    known = [str(c.literal) for c in conditions_of(t["text"]) if c.keys == ("type",)]
    if "refusal" in t:
        out.add(f"if {em.dispatch_conditions(t['refusal'], 'part')}:")
        out.indent()
        got = {}
        em.read_node(out, t["refusal"], "part", "part_path", "item.refusal", got)
        out.add(f"refusals_.append({got['refusal']})")
        out.add("continue")
        out.dedent()
        known += [str(c.literal) for c in conditions_of(t["refusal"]) if c.keys == ("type",)]
    out.add(f"raise _w.WireShapeError(part_path + '.type', 'unsupported part ' + repr(part.get('type')) + {lit('; expected one of: ' + ', '.join(known))})")
    out.dedent()
    out.add("continue")
    out.dedent()
    out.add(f"if {em.dispatch_conditions(ir.tool_calls.template, 'item')}:")
    out.add("    calls_.append(_read_tool_call(item, item_path, lenient))")
    out.add("    continue")
    out.add("# Any other item (reasoning, built-in tool calls) has no canonical place: it stays in raw.")
    out.dedent()
    out.add("a_calls: Any = calls_ if calls_ else NOT_GIVEN")
    out.add("a_content: Any = None")
    out.add("if len(texts_) == 1:")
    out.add("    a_content = texts_[0].text  # one text part reads as a plain string")
    out.add("elif texts_:")
    out.add("    a_content = texts_")
    out.add("if thinking_:  # reasoning first, then the text")
    out.add("    a_content = _with_reasoning(thinking_, a_content)")
    if ir.response.refusal_field is not None:
        out.add("if not a_content and refusals_:  # refusal strategy `as_content`")
        out.add("    a_content = ''.join(refusals_)")


def emit_finish_detail(em: "Emitter", out: "Lines") -> None:
    """After `finish_reason` is read: the more specific wire reason, looked up first."""
    it = em.ir.items
    if it.finish_detail_path is None:
        return
    keys = it.finish_detail_path
    access = f"body.get({lit(keys[0])})" if len(keys) == 1 else f"_w.get_in(body, {lit(keys)})"
    out.add(f"detail_ = {access}")
    for wire, canonical in it.finish_detail_map:
        out.add(f"if detail_ == {lit(wire)}:")
        out.add(f"    finish_reason = {lit(canonical)}")


def emit_items_message_writer(em: "Emitter", out: "Lines") -> None:
    """response_to_wire under `response.items`: binds `wire_message` to the output item list."""
    ir = em.ir
    assert ir.items.response_items is not None
    t = ir.items.response_items
    out.add("calls = msg.tool_calls")
    out.add("texts: list[str] = []")
    out.add("if isinstance(msg.content, str):")
    out.add("    texts = [msg.content] if msg.content else []")
    out.add("elif isinstance(msg.content, list):")
    out.add("    texts = [b.text for b in msg.content if type(b) is TextBlock and isinstance(b, TextBlock)]")
    out.add("wire_message: list[dict[str, Any]] = []")
    if ir.items.reasoning_match is not None:
        out.add("wire_message.extend(_reasoning_to_items(msg.content, 'message.content'))")
    out.add("if texts:")
    out.indent()
    text_extra = ir.items.write_also.get("text", {})
    out.add("wire_parts: list[dict[str, Any]] = []")
    out.add("for text in texts:")
    out.indent()
    expr = em.build_node(out, t["text"], {"text": "text", "signature": "NOT_GIVEN"}, "part.text", "'message.content'")
    out.add(f"wire_part: dict[str, Any] = {expr}")
    for k, v in text_extra.items():
        out.add(f"wire_part[{lit(k)}] = {lit(v)}")
    out.add("wire_parts.append(wire_part)")
    out.dedent()
    expr = em.build_node(out, t["message"], {"content": "wire_parts"}, "item.message", "'message'")
    out.add(f"wire_item: dict[str, Any] = {expr}")
    msg_extra = ir.items.write_also.get("message", {})
    if msg_extra:
        keys = ir.response.message
        access = f"raw.get({lit(keys[0])})" if len(keys) == 1 else f"_w.get_in(raw, {lit(keys)})"
        out.add(f"raw_items = {access}")
        out.add("raw_item: Any = {}")
        out.add("if type(raw_items) is list:  # write_also keys of the raw message item, when there is one")
        out.add(f"    raw_item = next((x for x in raw_items if type(x) is dict and {em.dispatch_conditions(t['message'], 'x')}), {{}})")
        for k, v in msg_extra.items():
            out.add(f"wire_item[{lit(k)}] = raw_item.get({lit(k)}, {lit(v)})")
    out.add("wire_message.append(wire_item)")
    out.dedent()
    out.add("if calls:")
    out.add("    wire_message.extend(_tool_call_to_wire(call, f'message.tool_calls[{k}]') for k, call in enumerate(calls))")


def emit_finish_detail_writer(em: "Emitter", out: "Lines") -> None:
    """response_to_wire: the more specific wire reason, written at `detail_path`."""
    it = em.ir.items
    if it.finish_detail_path is None:
        return
    keys = it.finish_detail_path
    if it.finish_detail_write == "raw":  # the same provider's own detail, copied from raw when it means the same
        access = f"raw.get({lit(keys[0])})" if len(keys) == 1 else f"_w.get_in(raw, {lit(keys)})"
        out.add(f"raw_detail = {access}")
        # raw is the provider's own body, any JSON: only a string is a detail (a list is unhashable)
        out.add(f"if type(raw_detail) is str and {lit(dict(it.finish_detail_map))}.get(raw_detail) == reason:")
        out.add(f"    body[{lit(keys[0])}] = raw[{lit(keys[0])}]  # finish_reason detail_write: raw")
        return
    inverse: dict[str, str] = {}
    for wire, canonical in it.finish_detail_map:
        inverse.setdefault(canonical, wire)
    first = True
    for canonical, wire in inverse.items():
        nested: str = lit(wire)
        for k in reversed(keys[1:]):
            nested = "{" + lit(k) + ": " + nested + "}"
        out.add(f"{'if' if first else 'elif'} reason == {lit(canonical)}:")
        out.add(f"    body[{lit(keys[0])}] = {nested}")
        first = False


def emit_usage_zero_fill(em: "Emitter", out: "Lines") -> None:
    for keys in em.ir.items.usage_zero_fill:
        out.add("if baseline:  # usage.zero_fill: a counter the wire requires (overwritten when reported)")
        out.indent()
        target = "usage_wire"
        for k in keys[:-1]:
            out.add(f"{target}.setdefault({lit(k)}, {{}})")
            target = f"{target}[{lit(k)}]"
        out.add(f"{target}.setdefault({lit(keys[-1])}, 0)")
        out.dedent()

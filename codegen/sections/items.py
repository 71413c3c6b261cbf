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
from ..emit.shapes import shape, shaped
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
    em.func(
        "_assistant_content_to_wire",
        "(content: str | list[Block], path: str) -> str",
        "Canonical assistant content -> one string (`joined_text`).",
        shaped("items", "joined_text_content"),
    )


# --------------------------------------------------------------------------- reasoning items
def emit_reasoning_helpers(em: "Emitter") -> None:
    """`request.reasoning_items`: a reasoning item is one thinking block whose text is the item's
    summary texts joined and whose signature is the whole item (compact JSON, keys sorted),
    stamped with this provider's origin; it is sent back verbatim, and only to this provider."""
    it = em.ir.items
    if it.reasoning_match is None:
        return
    em.func(
        "_read_reasoning_item",
        "(item: dict[str, Any], path: str) -> ThinkingBlock",
        "A wire reasoning item -> one signed thinking block (reasoning_items).",
        shaped("items", "read_reasoning_item", text_key=it.reasoning_text, join=it.reasoning_join),
    )
    em.func(
        "_reasoning_to_items",
        "(content: Any, path: str) -> list[dict[str, Any]]",
        "The turn's own reasoning items (thinking blocks whose signature is one), in order.",
        shaped("items", "reasoning_to_items", match_cond=em.dispatch_conditions(it.reasoning_match, "item")),
    )
    em.func("_with_reasoning", "(blocks: list[Any], content: Any) -> list[Any]", "Thinking blocks ahead of a turn's content.", shaped("items", "with_reasoning"))


# --------------------------------------------------------------------------- requests
def emit_assistant_items_to_wire(em: "Emitter", out: "Lines", build_message: Any) -> None:
    """Body of the assistant branch of _messages_to_wire under placement `items`."""
    ir = em.ir
    prelude = out.part()
    expr = build_message(em, prelude, ir.assistant.template, {"content": "content_out", "tool_calls": "NOT_GIVEN"}, "message.assistant")
    shape(out, "items", "assistant_items_to_wire", reasoning=ir.items.reasoning_match is not None, prelude=prelude, expr=expr)


def emit_item_dispatch_head(em: "Emitter", out: "Lines") -> list[str]:
    """Start of the loop body of _messages_from_wire: items told apart by literals other than
    `role` (tool-call items, type-discriminated tool results). Returns the labels it reads."""
    ir = em.ir
    labels: list[str] = []
    items = ir.tool_calls.placement == "items"
    reasoning = ir.items.reasoning_match
    known = sorted(_type_literals(ir)) if items and ir.unknown == "carry" else []
    reasoning_cond = em.dispatch_conditions(reasoning, "message") if items and reasoning is not None else None
    call_cond = em.dispatch_conditions(ir.tool_calls.template, "message") if items else None
    if items:
        if reasoning is not None:
            labels.append(_type_label(reasoning))
        labels.append(_type_label(ir.tool_calls.template))
    result_cond = None
    if ir.tool_results.strategy == "message" and role_literal(ir.tool_results.template) is None:
        result_cond = em.dispatch_conditions(ir.tool_results.template, "message")
        labels.append(_type_label(ir.tool_results.template))
    shape(
        out, "items", "item_dispatch_head",
        items=items, known=known, reasoning_cond=reasoning_cond, call_cond=call_cond,
        assistant_role=role_literal(ir.assistant.template), result_cond=result_cond,
    )
    return labels


def emit_hoisted_system_roles(em: "Emitter", out: "Lines") -> list[str]:
    """`system: {strategy: hoist, read_also: [...]}`: wire messages with those roles inside the
    list (the API also accepts them there) are read as system messages."""
    ir = em.ir
    if ir.system.strategy != "hoist" or not ir.system.read_also:
        return []
    shape(out, "items", "hoisted_system_roles", read_also=tuple(ir.system.read_also), blocks=ir.system.blocks is not None)
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
def _at(var: str, keys: tuple[Any, ...]) -> str:
    """The expression reading `keys` under `var` (None when absent)."""
    return f"{var}.get({lit(keys[0])})" if len(keys) == 1 else f"_w.get_in({var}, {lit(keys)})"


def emit_items_message_reader(em: "Emitter", out: "Lines") -> None:
    """Binds `a_content`, `a_calls` (and `a_refusal`) from the output item list `items_`."""
    ir = em.ir
    assert ir.items.response_items is not None
    t = ir.items.response_items
    message = t["message"]
    assert isinstance(message, Obj)
    content_key = next(k for k, c in message.items if isinstance(c, Slot) and c.field == "content")
    reasoning_cond = em.dispatch_conditions(ir.items.reasoning_match, "item") if ir.items.reasoning_match is not None else None
    message_cond = em.dispatch_conditions(message, "item")
    text_cond = em.dispatch_conditions(t["text"], "part")
    text_reader = out.part()
    got: dict[str, str] = {}
    em.read_node(text_reader, t["text"], "part", "part_path", "part.text", got)
    text = got["text"]
    known = [str(c.literal) for c in conditions_of(t["text"]) if c.keys == ("type",)]
    refusal_cond = refusal = None
    refusal_reader = out.part()
    if "refusal" in t:
        refusal_cond = em.dispatch_conditions(t["refusal"], "part")
        got = {}
        em.read_node(refusal_reader, t["refusal"], "part", "part_path", "item.refusal", got)
        refusal = got["refusal"]
        known += [str(c.literal) for c in conditions_of(t["refusal"]) if c.keys == ("type",)]
    shape(
        out, "items", "items_message_reader",
        items_at=_at("body", ir.response.message), msg_path=".".join(str(k) for k in ir.response.message),
        reasoning_cond=reasoning_cond, message_cond=message_cond, content_key=content_key,
        text_cond=text_cond, text_reader=text_reader, text=text,
        refusal_cond=refusal_cond, refusal_reader=refusal_reader, refusal=refusal, known=known,
        call_cond=em.dispatch_conditions(ir.tool_calls.template, "item"), refusal_field=ir.response.refusal_field is not None,
    )


def emit_finish_detail(em: "Emitter", out: "Lines") -> None:
    """After `finish_reason` is read: the more specific wire reason, looked up first."""
    it = em.ir.items
    if it.finish_detail_path is None:
        return
    shape(out, "items", "finish_detail", detail_at=_at("body", it.finish_detail_path), map=it.finish_detail_map)


def emit_items_message_writer(em: "Emitter", out: "Lines") -> None:
    """response_to_wire under `response.items`: binds `wire_message` to the output item list."""
    ir = em.ir
    assert ir.items.response_items is not None
    t = ir.items.response_items
    part_prelude = out.part()
    part = em.build_node(part_prelude, t["text"], {"text": "text", "signature": "NOT_GIVEN"}, "part.text", "'message.content'")
    item_prelude = out.part()
    item = em.build_node(item_prelude, t["message"], {"content": "wire_parts"}, "item.message", "'message'")
    msg_extra = ir.items.write_also.get("message", {})
    raw_items = message_cond = None
    if msg_extra:
        raw_items = _at("raw", ir.response.message)
        message_cond = em.dispatch_conditions(t["message"], "x")
    shape(
        out, "items", "items_message_writer",
        reasoning=ir.items.reasoning_match is not None, part_prelude=part_prelude, part=part,
        text_extra=list(ir.items.write_also.get("text", {}).items()), item_prelude=item_prelude, item=item,
        raw_items=raw_items, message_cond=message_cond, msg_extra=list(msg_extra.items()), memo=em.call_memo,
    )


def emit_finish_detail_writer(em: "Emitter", out: "Lines") -> None:
    """response_to_wire: the more specific wire reason, written at `detail_path`."""
    it = em.ir.items
    if it.finish_detail_path is None:
        return
    keys = it.finish_detail_path
    inverse: dict[str, str] = {}
    for wire, canonical in it.finish_detail_map:
        inverse.setdefault(canonical, wire)
    reasons = []
    for canonical, wire in inverse.items():
        nested: str = lit(wire)
        for k in reversed(keys[1:]):
            nested = "{" + lit(k) + ": " + nested + "}"
        reasons.append((canonical, nested))
    shape(
        out, "items", "finish_detail_writer",
        key=keys[0], raw_at=_at("raw", keys) if it.finish_detail_write == "raw" else None,  # the same provider's own detail
        map=dict(it.finish_detail_map), reasons=reasons,
    )


def emit_usage_zero_fill(em: "Emitter", out: "Lines") -> None:
    shape(out, "items", "usage_zero_fill", paths=em.ir.items.usage_zero_fill)

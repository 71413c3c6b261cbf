"""The `request.reasoning` row: reasoning carried in a message field beside `content`.

OpenAI-compatible servers return the model's reasoning as `reasoning_content` / `reasoning`
(a string) or OpenRouter's `reasoning_details` (typed entries). This row names the fields and
when a request sends reasoning back (`send`). The generated converter calls
`wiremap.runtime.reasoning.read` on every assistant message it reads and `.write` on every one
it builds; the canonical form is documented there and in mappings/README.md.

Schema, IR check and the three emission hooks live here, so that emit_messages.py needs one
line per hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..emit.emitter import Emitter
    from ..emit.lines import Lines
    from ..ir.chat import Builder

__all__ = ["REASONING_SCHEMA", "build_reasoning", "hook_message_to_wire", "hook_message_from_wire"]

_FIELD = {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$"}

REASONING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "field": _FIELD,
        "read_also": {"type": "array", "items": _FIELD},
        "details": _FIELD,
        "send": {"enum": ["never", "tool_call_turns", "always"]},
        "doc": {"type": "string"},
    },
    "patternProperties": {"^x-": {}},
    "additionalProperties": False,
    "required": ["field", "send"],
}


def build_reasoning(b: "Builder") -> dict[str, Any] | None:
    req = b.data["request"]
    row = req.get("reasoning")
    if row is None:
        return None
    if req["tool_calls"]["placement"] != "field":
        raise b.err("/request/reasoning", "a reasoning field sits beside `content` and `tool_calls`; it needs tool_calls placement `field`")
    for kind in ("thinking", "redacted_thinking"):
        if req["content_parts"][kind] != "strip":
            raise b.err(f"/request/content_parts/{kind}", f"with a `reasoning:` row, thinking travels in {row['field']!r}; {kind} must be `strip` here")
    names = [row["field"], *row.get("read_also", []), *([row["details"]] if "details" in row else [])]
    if len(set(names)) != len(names):
        raise b.err("/request/reasoning", f"field, read_also and details must name different wire keys; got {', '.join(names)}")
    reserved = {"role", "content", "tool_calls", "name", "tool_call_id", "refusal"}
    clash = sorted(set(names) & reserved)
    if clash:
        raise b.err("/request/reasoning", f"{clash[0]!r} is a message key the other rows use; name the reasoning field")
    return {k: (list(v) if isinstance(v, list) else v) for k, v in row.items() if k != "doc" and not k.startswith("x-")}


def hook_message_to_wire(em: Emitter, out: Lines, expr: str, content: str, calls: str, for_request: bool) -> str:
    """After an assistant wire message is built: add its reasoning keys. Returns the message expr."""
    if em.ir.reasoning is None:
        return expr
    var = out.fresh("wire_message")
    out.add(f"{var}: dict[str, Any] = {expr}")
    out.add(f"{var}.update(_reasoning.write({content}, bool({calls}), REASONING, PROVIDER, {for_request}))")
    return var


def hook_message_from_wire(em: Emitter, out: Lines, src: str, path: str) -> None:
    """After an assistant wire message is read into `a_content`: prepend its reasoning."""
    if em.ir.reasoning is None:
        return
    out.add(f"a_content = _reasoning.read({src}, a_content, REASONING, PROVIDER, {path})")


def emit_reasoning_constant(em: Any) -> None:
    if em.ir.reasoning is not None:
        em.parts.constants.append(f"REASONING: Final = {em.ir.reasoning!r}  # the mapping's request.reasoning row")

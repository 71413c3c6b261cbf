"""The response half of a fused translator: `response(src_body)`, one format's wire response ->
another's in one pass, compiled from both tables (codegen/emit/fused.py has the request half).

It returns exactly what `target.response_to_wire(read_without_carry(source.response_from_wire,
body))` returns (the two-step way between two providers' wires: the carried residual is dropped
there too), without the canonical `Response` in between:

- the source's response reader (`messages.response_reader(fused=True)`: the very code its
  `_response_from_wire` runs, from the response table's finish, message, content, tool call and
  usage rows) binds `finish_reason`, `a_content`, `a_calls` and `usage`;
- the checks both steps make on what was read (`read_response`'s depth limit of tool-call
  arguments, `as_response`'s plain-JSON check of them) run on those names;
- the target's response writer (`messages.response_writer(fused=True)`: its `_response_to_wire`
  code, from its response table) writes from them, its module's names reached through `_dst`.

Anything outside that path -- a shape the reader refuses, arguments past the depth limit or not
plain JSON, content other than text (several blocks, thinking, media: the writers may warn about
those), an error of the target's writer -- raises (`_Deopt`, or the error itself) before anything
is returned, and the body goes the two-step way, which gives the canonical answer or error.

`response_blockers` says why a pair cannot have one; the module then has no `response`, and
`Translator.response` is the two-step way.
"""

from __future__ import annotations

import ast
import builtins
import re
from typing import Any

from .lines import Lines, free_and_bound, rename
from .messages import response_reader, response_writer
from .shapes import shape
from ..ir.chat import FormatIR
from ..sections.usage import COUNTERS
from ..wiretemplate import Slot, slots_of

__all__ = ["response_blockers", "emit_fused_response"]

_DST_NAME = re.compile(r"(?<![\w.])(_vm_\w+)\(")

#: the names the reader binds and the writer reads (`response_writer(fused=True)`)
_HANDED: frozenset[str] = frozenset({"finish_reason", "a_content", "a_calls", "raw", *(f"u_{c}" for c in COUNTERS)})


def response_blockers(src: FormatIR, dst: FormatIR) -> list[str]:
    """Why the pair `src` -> `dst` gets no fused `response`, as phrases; [] = it does. (The
    request half's `fused_blockers` already holds both sides to chat formats without strategy
    hooks or `wire_rules`.)"""
    why: list[str] = []
    if not isinstance(src, FormatIR) or not isinstance(dst, FormatIR):
        return why  # fused_blockers names it (fused translators are for chat)
    if src.items.response_items is not None:
        why.append(f"{src.key} (source) has response `items` (its message is read from an item list)")
    if dst.items.response_items is not None:
        why.append(f"{dst.key} (target) has response `items` (its message is written as an item list)")
    if (src.provider, src.wire) == (dst.provider, dst.wire):
        why.append("both speak one wire (the two-step way carries what the tables do not model back to it)")
    return why


def _fused_calls(s_em: Any, d_em: Any) -> Lines | None:
    """The loop body that reads one wire tool call `call` of the source into `a_calls`: read
    by the source's tool-call template (the code of its `_read_tool_call`), its arguments checked
    as both steps check them (`as_response`: plain JSON within the depth limit), and written by
    the target's template (the code of its `_tool_call_to_wire`), without the canonical ToolCall.
    None when the source reads its calls otherwise (content blocks: its part dispatcher), gives
    a signature (provider-bound: the canonical path decides) or synthesizes ids."""
    src, dst = s_em.ir, d_em.ir
    calls_in_field = any(isinstance(c, Slot) and c.field == "tool_calls" for _, c in src.assistant.template.items)
    if src.tool_calls.placement == "content_blocks" or not calls_in_field or src.tool_calls.missing_id == "synthesize":
        return None
    if src.tool_calls.missing_arguments != "reject":  # a call without arguments: the canonical way
        return None
    if any(slot.field == "signature" for slot in slots_of(src.tool_calls.template)):
        return None
    out = Lines()
    out.level = 0
    out.counter = 600  # its names apart from the reader's around it
    read = out.part()
    got: dict[str, str] = {}
    s_em.unmodeled(read, "tool_call", "call", "path")
    s_em.read_node(read, src.tool_calls.template, "call", "path", "tool_call", got, lenient="lenient")
    written = out.part()
    written.level = 0
    written.counter = out.counter + 500  # the target's fresh names after the source's
    env = {"id": got["id"], "name": got["name"], "arguments": got["arguments"], "signature": "NOT_GIVEN"}
    d_em.json_memo = True  # as `_tool_call_to_wire` is built
    try:
        expr = d_em.build_node(written, dst.tool_calls.template, env, "tool_call", "path")
    finally:
        d_em.json_memo = False
    # `_tool_call_to_wire` of a response writes `_w.memo_json(arguments, memo)` with no copy in the
    # memo: the sorted copy (`canonical_json`), or under the caller's key order (`call_memo`) a
    # copy in that order (`json_copy`), which `validate.sorted_json_value` makes as it checks
    sent = f"_w.memo_json({got['arguments']}, memo)"
    memo = sent in expr or any(sent in line for line in written.lines)
    expr = expr.replace(sent, "sorted_arguments")
    written.lines = [line.replace(sent, "sorted_arguments") for line in written.lines]
    if "memo" in expr or any("memo" in line for line in written.lines):
        return None  # the arguments written some other way through a memo: the canonical path
    # the target's value maps are the target module's (the source's half imports the source's)
    written.lines = [_DST_NAME.sub(r"_dst.\1(", line) for line in written.lines]
    expr = _DST_NAME.sub(r"_dst.\1(", expr)
    shape(out, "fused", "call_to_wire", reader=read, arguments=got["arguments"], memo=memo, sort=d_em.ir.rules.json_keys == "sorted", written=written, expr=expr)
    return out


def emit_fused_response(s_em: Any, d_em: Any, header_bound: set[str]) -> list[str]:
    """The body of `response(src_body)` (inside its `try:`, at indent level 1): the source's
    reader (its tool calls read and written in one where `_fused_calls` can), the checks, the
    target's writer (its globals through `_dst`, its locals renamed where the reader's have the
    name), which returns `out`, the body written."""
    calls = _fused_calls(s_em, d_em)
    reader = Lines()
    response_reader(s_em, reader, fused=True, fused_calls=calls)
    writer = Lines()
    response_writer(d_em, writer, fused=True, written_calls=calls is not None)
    _, r_bound = free_and_bound("\n".join(reader.lines))
    w_free, w_bound = free_and_bound("\n".join(writer.lines))
    renames = {name: "w_" + name for name in w_bound & (r_bound | {"body", "src_body", "read_call"}) if name not in _HANDED}
    renames["body"] = "out"  # the body written (the reader's `body` is the one read)
    local = {"_Deopt", "_DEOPTS"}
    globals_ = {
        name: "_dst." + name
        for name in w_free - _HANDED - set(dir(builtins)) - header_bound - local
        if not name.startswith("_RE_")
    }
    written = rename(writer.lines, {**renames, **globals_})
    body = ["    body: Any = src_body"]
    body += reader.lines
    body += [
        "    if type(a_content) is list:  # content beyond one text (several blocks, thinking, media): the two-step way",
        "        raise _Deopt",
    ]
    if calls is None:
        body += [
            "    if a_calls is not NOT_GIVEN:",
            "        for read_call in a_calls:  # read_response's depth limit, as_response's plain-JSON check",
            "            _v.check_json_value(read_call.arguments, '')",
        ]
    body += ["    raw = body"]
    body += written
    return body


def response_function(body: list[str], src_key: str, dst_key: str, dst_title: str) -> str:
    """The text of `response(src_body)` around its body (`emit_fused_response`)."""
    doc = (
        f'    """A {src_key} response body -> the {dst_title} response body: exactly '
        f"`{dst_key}.response_to_wire({src_key}.response_from_wire(body))` between these two wires (what "
        "the source's reader carries is the source wire's, dropped either way) -- the same body, warnings "
        'and errors -- in one pass where the body allows it (`_Deopt`: the two-step way)."""'
    )
    return (
        "def response(src_body: Mapping[str, Any]) -> dict[str, Any]:\n"
        + doc + "\n"
        "    try:\n" + "\n".join("    " + line for line in body) + "\n"
        "    except _DEOPTS:\n"
        "        return cast('dict[str, Any]', _dst.response_to_wire(_w.read_without_carry(_src.response_from_wire, src_body)))\n"
    )


def header_names(header: str) -> set[str]:
    """The names the fused module's header binds (its imports)."""
    bound: set[str] = set()
    for stmt in ast.parse(header).body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for alias in stmt.names:
                bound.add((alias.asname or alias.name).split(".")[0])
    return bound

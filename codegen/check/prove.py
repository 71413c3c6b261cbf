"""Stage 4 (check): prove a rendered converter before it is written (issue 16).

`generate` renders a converter, then runs it here, in memory, on one canonical probe per row:
every part kind a template writes, the tools row, every tool_choice mode, a tool call with its
result, and a response for every canonical finish reason. Whatever a row writes must read back
as itself through the same module. A row that does not is a `MappingError` at the row's
file:line, naming what would have gone wrong; no module is written.

A probe the converter refuses to write (a typed `ProviderError`: the format does not take that
block there, or takes it only beside something else) proves nothing and is skipped: the proof is
about what the table sends, never about what it declines.

The probes are canonical dicts (`Request.from_dict` / `Response.from_dict` shapes), so this
module needs no import of the runtime: only the converter under proof does.
"""

from __future__ import annotations

import json
import sys
import types
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

from ..ir.catalog import FINISH_REASONS
from ..ir.chat import INTEGER_OPTIONS as _INTEGER_OPTIONS
from ..load.schema import ERROR_CATEGORIES
from ..wiretemplate import Node, Obj, slots_of

__all__ = ["load_module", "prove"]

_MEDIA_DEFAULTS = {"image": "image/png", "audio": "audio/wav", "file": "application/pdf"}
_DATA = "cHJvYmU="  # base64 of "probe"
_URLS = {"image": "https://example.com/probe.png", "audio": "https://example.com/probe.wav", "file": "https://example.com/probe.pdf"}


def _result_parts_pointer(ir: Any, resolved: Any) -> list[str]:
    """The row a tool result's parts go by (`content: parts` or `media`), where the format writes
    inline images at all; [] otherwise."""
    if not isinstance(ir.parts.get("image.inline"), Obj):
        return []
    if ir.tool_results.content in ("parts", "always_parts"):
        return ["/request/tool_results/content"]
    if ir.tool_results.media:
        return ["/request/tool_results/media"]
    return []


def prove(ir: Any, resolved: Any, source: str, strategies: list[Any] | None = None, deps: dict[str, types.ModuleType] | None = None) -> types.ModuleType:
    """Run the converter `source` (the rendered module of `ir`) on the probes; a row whose
    probe does not read back as itself raises `resolved.error(...)` at that row. `strategies`:
    its named strategies (codegen/sections/strategies.py), a copied module loaded beside it; `deps`: the
    just-compiled modules it imports from (a dialect's base, codegen/emit/share.py), by module name.
    Returns the module as it ran."""
    module = load_module(ir.key, source, strategies, deps)
    error_type = getattr(module, "ProviderError", None)
    refused: tuple[type[BaseException], ...] = (error_type,) if isinstance(error_type, type) else ()
    origin = getattr(module, "PROVIDER", None)  # a signature goes back to its own provider
    prover = _Prover(module, resolved, refused, origin)
    declared = {k: v for k, v in (resolved.data.get("lossy_rows") or {}).items() if v is not None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dropped options and the like: the probes assert shapes
        probes: list[tuple[str, Callable[[], None]]] = [
            *((f"/request/content_parts/{kind}", partial(prover.part, kind, node, ir.value_maps, frozenset(ir.parts))) for kind, node in ir.parts.items() if isinstance(node, Obj)),
            ("/request/tools", prover.tools),
            *((f"/request/tool_choice/{mode}", partial(prover.tool_choice, mode)) for mode in ("auto", "required", "none", "tool") if mode in ir.tool_choice.modes),
            # `none: omit_tools` and `requires: tools`: what each leaves out stays out
            *((("/request/tool_choice/none", partial(prover.none_omits_tools, ir.tools.field, ir.tool_choice.field)),) if ir.tool_choice.special.get("none") == "omit_tools" else ()),
            *((("/request/tool_choice/requires", partial(prover.choice_requires_tools, ir.tool_choice.field)),) if ir.tool_choice.requires_tools else ()),
            ("/request/tool_calls", prover.tool_call),
            # request.cache_points: each record's breakpoint reads back on it
            *((("/request/cache_points/wire", partial(prover.cache_points, ir)),) if ir.cache_point is not None else ()),
            # `{is_error?}` (through a boolean value map or as given): both values read back
            *((("/request/tool_results/wire", prover.failed_result),) if any(s.field == "is_error" for s in slots_of(ir.tool_results.template)) else ()),
            # tool_results.content: parts / media: a result's image part reads back where it went
            *((pointer, partial(prover.tool_result_parts, pointer)) for pointer in _result_parts_pointer(ir, resolved)),
            # a list option's row (betas): a body field reads back as the same list; a header row
            # writes nothing into the body and the module's HEADER_OPTIONS join it comma-separated
            *((f"/request/options/{opt.name}", partial(prover.list_option, opt.name, opt.header)) for opt in ir.options if opt.name == "betas" and (opt.header is not None or (opt.wire is not None and opt.unsupported is None and not opt.model_rules))),
            # a `range` row: each end reads back as itself (and as no other option), a value past
            # an end is refused at config.<name>, and OPTION_RANGES names the range
            *((f"/request/options/{opt.name}/range", partial(prover.option_range, opt)) for opt in ir.options if opt.range is not None and opt.unsupported is None),
            *(("/response/finish_reason/map", partial(prover.finish, reason, reason in ir.finish.emit)) for reason in FINISH_REASONS),
            # an `errors.emit` table answers each category on purpose: it must read back (a
            # mapping without one writes the generic envelope, documented as no inverse)
            *((f"/errors/emit/categories/{category}", partial(prover.error, category)) for category in ERROR_CATEGORIES if ir.errors.emit),
        ]
        for pointer, probe in probes:
            try:
                probe()
            except _Found:
                pass
            except RecursionError:  # noqa: PERF203 -- a probe is tiny: the converter loops on itself
                prover.found.setdefault(pointer, "the converter recurses without end on this row's probe")
            except Exception as exc:  # noqa: BLE001 -- generated code that crashes is the finding
                prover.found.setdefault(pointer, f"the converter crashes on this row's probe: {type(exc).__name__}: {exc}")
    for pointer in declared:
        if pointer not in prover.found:
            raise resolved.error(
                f"/lossy_rows/{pointer.replace('~', '~0').replace('/', '~1')}",
                f"{pointer} is declared lossy, but what it writes reads back as itself; remove the entry",
            )
    undeclared = [(pointer, message) for pointer, message in prover.found.items() if pointer not in declared]
    if undeclared:
        pointer, message = undeclared[0]
        more = f" (and {len(undeclared) - 1} more: {', '.join(p for p, _ in undeclared[1:])})" if len(undeclared) > 1 else ""
        raise resolved.error(pointer, f"the generator's proof: {message}; no module is written (a row lossy on purpose is declared in `lossy_rows`){more}")
    return module


def load_module(key: str, source: str, strategies: list[Any] | None = None, deps: dict[str, types.ModuleType] | None = None) -> types.ModuleType:
    """The converter `source` of format `key`, run in memory as `prove` runs it (its strategy
    copies and `deps` in place of the generated modules of those names), without the probes:
    `generate` uses it for a base taken from the cache when a dialect of it is proven."""
    copies = [s.copy for s in strategies or [] if s.copy is not None]
    loaded = [(f"wiremap.generated.{name[:-3]}", _load_text(f"wiremap.generated.{name[:-3]}", text)) for name, text in copies]
    loaded += [(f"wiremap.generated.{name}", mod) for name, mod in (deps or {}).items()]
    saved = {name: sys.modules.get(name) for name, _ in loaded}  # a real module of that name comes back after
    for name, mod in loaded:
        sys.modules[name] = mod
    try:
        return _load(key, source)
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old


def _load_text(name: str, text: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(text, f"<{name}>", "exec"), module.__dict__)
    return module


def _load(key: str, source: str) -> types.ModuleType:
    name = f"wiremap.generated._proof_{key.replace('.', '__')}"
    module = types.ModuleType(name)
    module.__package__ = "wiremap.generated"
    sys.modules[name] = module  # while it runs: some runtime helpers look their caller up
    try:
        exec(compile(source, f"<generated {key}>", "exec"), module.__dict__)
    finally:
        sys.modules.pop(name, None)
    return module


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 300 else text[:297] + "..."


class _Found(Exception):
    """A probe's finding, recorded in `_Prover.found`: that row's probing stops."""


class _Prover:
    def __init__(self, module: types.ModuleType, resolved: Any, refused: tuple[type[BaseException], ...], origin: Any) -> None:
        self.m = module
        self.r = resolved
        self.refused = refused
        self.origin = origin
        self.found: dict[str, str] = {}  # row pointer -> what would have gone wrong

    def fail(self, pointer: str, message: str) -> "_Found":
        """Record a finding (the first per row); the caller stops probing that row."""
        self.found.setdefault(pointer, message)
        return _Found()

    def round_trip(self, pointer: str, what: str, request: dict[str, Any]) -> tuple[Any, dict[str, Any]] | None:
        """(wire body, canonical dict read back), or None when the converter refuses to write it."""
        try:
            wire = self.m.request_to_wire(request)
        except self.refused:
            return None
        try:
            back = self.m.request_from_wire(wire).to_dict()
        except Exception as exc:  # noqa: BLE001 -- any failure to read our own body is the finding
            raise self.fail(pointer, f"{what} is written as {_shown(wire)}, which request_from_wire refuses: {exc}") from None
        return wire, back

    # ---------------------------------------------------------------- parts
    def part(self, kind: str, node: Node, value_maps: dict[str, Any], kinds: frozenset[str] = frozenset()) -> None:
        family, _, form = kind.partition(".")
        form, _, scheme = form.partition("@")  # a scheme variant (`image.url@s3`) is probed with its scheme
        block: dict[str, Any]
        if family == "text":
            block = {"type": "text", "text": "probe"}
        elif family in ("thinking", "redacted_thinking"):
            block = {"type": "thinking", "text": "probe", "signature": "c2ln"} if family == "thinking" else {"type": "redacted_thinking", "data": _DATA}
            if isinstance(self.origin, str):
                block["origin"] = self.origin  # its own: another provider's signature is stripped
        elif family in ("image", "audio", "file") and form in ("url", "inline"):
            url = _URLS[family]
            if scheme:
                url = scheme + url[len("https"):]
            elif f"{family}.url@https" in kinds:  # the plain row takes the other schemes
                url = "ftp" + url[len("https"):]
            block = {"type": family, "source": {"type": "url", "url": url} if form == "url" else {"type": "inline", "base64_data": _DATA}}
            places_media = any(s.field == "media_type" for s in slots_of(node))
            if form == "inline" or places_media:
                block["media_type"] = _media_type(node, family, value_maps)
            if family == "file" and any(s.field == "filename" for s in slots_of(node)):
                block["filename"] = "probe.pdf"
        else:
            return
        pointer = f"/request/content_parts/{kind}"
        assistant = family in ("thinking", "redacted_thinking")
        if assistant:
            messages = [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [block, {"type": "text", "text": "ok"}]},
                {"role": "user", "content": [{"type": "text", "text": "go on"}]},
            ]
            at = 1
        else:
            messages = [{"role": "user", "content": [{"type": "text", "text": "hi"}, block] if family != "text" else [block]}]
            at = 0
        result = self.round_trip(pointer, f"a part `{kind}`", {"model": "probe", "messages": messages})
        if result is None:
            return
        wire, back = result
        got = _blocks(back["messages"][at]["content"]) if len(back.get("messages", [])) > at else []
        same = [b for b in got if b.get("type") == block["type"]]
        if not same:
            raise self.fail(pointer, f"a part `{kind}` is written as {_shown(wire)}, which reads back without it: {_shown(got)}")
        for field in ("text", "data", "media_type", "filename", "source"):
            if field in block and not any(b.get(field) == block[field] for b in same):
                raise self.fail(pointer, f"a part `{kind}`'s {field} {block[field]!r} is written as {_shown(wire)}, which reads back as {_shown(same)}")
        if "source" in block and not any(_same_source(b.get("source"), block["source"]) for b in same):
            raise self.fail(pointer, f"a part `{kind}` is written as {_shown(wire)}, which reads back as {_shown(same)}")

    # ---------------------------------------------------------------- options
    def list_option(self, name: str, header: str | None) -> None:
        """A list option (config.betas) sent by its row: through a body field it reads back as
        the same list and as nothing else; through a header (`header:`) the body holds none of
        it and HEADER_OPTIONS names the header the items go in."""
        pointer = f"/request/options/{name}"
        value = ["probe-one", "probe-two"]
        result = self.round_trip(pointer, f"config.{name} {_shown(value)}", {"model": "probe", "messages": _USER, "config": {name: value}})
        if result is None:
            return
        wire, back = result
        config = back.get("config") or {}
        if header is not None:
            if "probe-one" in json.dumps(wire):
                raise self.fail(pointer, f"config.{name} goes in the header {header}, but the body holds it too: {_shown(wire)}")
            if (getattr(self.m, "HEADER_OPTIONS", None) or {}).get(name) != header:
                raise self.fail(pointer, f"config.{name} goes in the header {header}, which the module's HEADER_OPTIONS do not name")
            return
        if config.get(name) != value:
            raise self.fail(pointer, f"config.{name} {_shown(value)} is written as {_shown(wire)}, which reads back as {_shown(config.get(name))}")
        others = [k for k, v in config.items() if k != name and v == value]
        if others:
            raise self.fail(pointer, f"config.{name} {_shown(value)} is written as {_shown(wire)}, which reads back as config.{others[0]} too")

    def option_range(self, opt: Any) -> None:
        """A `range: [lowest, highest]` row: a value at each closed end is written and reads back
        as itself and as no other option; one past it is an InvalidRequestError at config.<name>
        (never sent); the module's OPTION_RANGES hold the range a translation clamps into."""
        name = opt.name
        pointer = f"/request/options/{name}/range"
        lo, hi = opt.range
        if (getattr(self.m, "OPTION_RANGES", None) or {}).get(name) != (lo, hi):
            raise self.fail(pointer, f"config.{name} is bounded by {[lo, hi]}, which the module's OPTION_RANGES do not hold")
        step = 1 if name in _INTEGER_OPTIONS else 0.5
        for end, past in ((lo, None if lo is None else lo - step), (hi, None if hi is None else hi + step)):
            if end is None:
                continue
            request = {"model": "probe", "messages": _USER, "config": {name: past}}
            try:
                wire = self.m.request_to_wire(request)
            except self.refused as exc:
                if getattr(exc, "path", None) != f"config.{name}":
                    raise self.fail(pointer, f"config.{name} {_shown(past)} is past the range {[lo, hi]}, but the refusal names {getattr(exc, 'path', None)!r}: {exc}") from None
            else:
                raise self.fail(pointer, f"config.{name} {_shown(past)} is past the range {[lo, hi]}, but it is written as {_shown(wire)}")
            if opt.model_rules or opt.requires is not None:
                continue  # not written for every request: the range check above is what holds
            result = self.round_trip(pointer, f"config.{name} {_shown(end)}", {"model": "probe", "messages": _USER, "config": {name: end}})
            if result is None:
                raise self.fail(pointer, f"config.{name} {_shown(end)} is inside the range {[lo, hi]}, but request_to_wire refuses it")
            wire, back = result
            config = back.get("config") or {}
            if config.get(name) != end:
                raise self.fail(pointer, f"config.{name} {_shown(end)} is written as {_shown(wire)}, which reads back as {_shown(config.get(name))}")
            plain = self.round_trip(pointer, "a request without options", {"model": "probe", "messages": _USER})
            before = (plain[1].get("config") or {}) if plain is not None else {}
            others = [k for k, v in config.items() if k != name and v == end and before.get(k) != v]
            if others:
                raise self.fail(pointer, f"config.{name} {_shown(end)} is written as {_shown(wire)}, which reads back as config.{others[0]} too")

    # ---------------------------------------------------------------- tools
    def tools(self) -> None:
        tool = {"name": "probe_tool", "description": "a probe", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}
        result = self.round_trip("/request/tools", "a tool", {"model": "probe", "messages": _USER, "tools": [tool]})
        if result is None:
            return
        wire, back = result
        names = [t.get("name") for t in back.get("tools") or []]
        if names != ["probe_tool"]:
            raise self.fail("/request/tools", f"a tool is written as {_shown(wire)}, which reads back as tools {_shown(back.get('tools'))}")

    def tool_choice(self, mode: str) -> None:
        choice: Any = {"type": "tool", "name": "probe_tool"} if mode == "tool" else mode
        tool = {"name": "probe_tool", "parameters": {"type": "object"}}
        pointer = f"/request/tool_choice/{mode}"
        result = self.round_trip(pointer, f"tool_choice {mode}", {"model": "probe", "messages": _USER, "tools": [tool], "tool_choice": choice})
        if result is None:
            return
        wire, back = result
        if back.get("tool_choice") != choice:
            raise self.fail(pointer, f"tool_choice {_shown(choice)} is written as {_shown(wire)}, which reads back as {_shown(back.get('tool_choice'))}")

    def none_omits_tools(self, tools_field: str, choice_field: str) -> None:
        """`none: omit_tools`: tools and tool_choice are left out of the wire (reading back as
        neither), and a request with earlier tool calls is refused rather than sent."""
        pointer = "/request/tool_choice/none"
        tool = {"name": "probe_tool", "parameters": {"type": "object"}}
        result = self.round_trip(pointer, "tool_choice none", {"model": "probe", "messages": _USER, "tools": [tool], "tool_choice": "none"})
        if result is None:
            raise self.fail(pointer, "tool_choice none (omit_tools) is refused even without earlier tool calls")
        wire, back = result
        if _has_path(wire, tools_field) or _has_path(wire, choice_field) or back.get("tools") or "tool_choice" in back:
            raise self.fail(pointer, f"tool_choice none (omit_tools) is written as {_shown(wire)}, which still holds tools or a tool_choice")
        messages = [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [], "tool_calls": [{"id": "call_probe", "name": "probe_tool", "arguments": {}}]},
            {"role": "tool", "tool_call_id": "call_probe", "name": "probe_tool", "content": "done"},
        ]
        try:
            wire = self.m.request_to_wire({"model": "probe", "messages": messages, "tools": [tool], "tool_choice": "none"})
        except self.refused:
            return
        raise self.fail(pointer, f"tool_choice none (omit_tools) after a tool call is written as {_shown(wire)} instead of being refused")

    def choice_requires_tools(self, choice_field: str) -> None:
        """`requires: tools`: a tool_choice without tools leaves the field out."""
        pointer = "/request/tool_choice/requires"
        result = self.round_trip(pointer, "tool_choice auto without tools", {"model": "probe", "messages": _USER, "tool_choice": "auto"})
        if result is None:
            return
        wire, _back = result
        if _has_path(wire, choice_field):
            raise self.fail(pointer, f"tool_choice auto without tools is written as {_shown(wire)}, which holds {choice_field}")

    def tool_call(self) -> None:
        call = {"id": "call_probe", "name": "probe_tool", "arguments": {"q": "x"}}
        messages = [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [], "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_probe", "name": "probe_tool", "content": "done"},
        ]
        tool = {"name": "probe_tool", "parameters": {"type": "object"}}
        result = self.round_trip("/request/tool_calls", "a tool call and its result", {"model": "probe", "messages": messages, "tools": [tool]})
        if result is None:
            return
        wire, back = result
        calls = [c for m in back.get("messages", []) for c in m.get("tool_calls") or []]
        if not any(c.get("name") == "probe_tool" and c.get("arguments") == {"q": "x"} for c in calls):
            raise self.fail("/request/tool_calls", f"a tool call is written as {_shown(wire)}, which reads back as {_shown(calls)}")
        results = [m for m in back.get("messages", []) if m.get("role") == "tool"]
        if not any(_text(r.get("content")) == "done" for r in results):
            raise self.fail("/request/tool_results", f"a tool result is written as {_shown(wire)}, which reads back as {_shown(results)}")

    def cache_points(self, ir: Any) -> None:
        """A breakpoint on a text part, an image part, a tool result and a tool reads back on the
        same record (a `ttl` too, where the template places one)."""
        pointer = "/request/cache_points/wire"
        cc: dict[str, Any] = {"type": "ephemeral"}
        if any(s.field == "ttl" for s in slots_of(ir.cache_point)):
            cc["ttl"] = "5m"
        content: list[dict[str, Any]] = [{"type": "text", "text": "hi", "cache_control": cc}]
        if isinstance(ir.parts.get("image.inline"), Obj):
            content.append({"type": "image", "source": {"type": "inline", "base64_data": _DATA}, "media_type": _media_type(ir.parts["image.inline"], "image", ir.value_maps), "cache_control": cc})
        content.append({"type": "text", "text": "after"})
        system = ir.system.strategy == "hoist" and ir.system.blocks is not None
        messages: list[dict[str, Any]] = [{"role": "system", "content": "be brief", "cache_control": cc}, {"role": "system", "content": "no cache"}] if system else []
        messages.append({"role": "user", "content": content})
        grouped = ir.tool_results.strategy == "group_into_user_message"
        if grouped:
            messages += [
                {"role": "assistant", "content": [], "tool_calls": [{"id": "call_probe", "name": "probe_tool", "arguments": {}}]},
                {"role": "tool", "tool_call_id": "call_probe", "name": "probe_tool", "content": "done", "cache_control": cc},
                {"role": "user", "content": [{"type": "text", "text": "go on"}]},
            ]
        tools = [{"name": "probe_tool", "parameters": {"type": "object"}, "cache_control": cc}, {"name": "other_tool", "parameters": {"type": "object"}}]
        result = self.round_trip(pointer, "prompt-cache breakpoints", {"model": "probe", "messages": messages, "tools": tools})
        if result is None:
            raise self.fail(pointer, "a request with prompt-cache breakpoints is refused")
        wire, back = result
        got_system = [m.get("cache_control") for m in back.get("messages", []) if m.get("role") == "system"]
        users = [m for m in back.get("messages", []) if m.get("role") == "user"]
        got_parts = [b.get("cache_control") for b in _blocks(users[0]["content"])] if users else []
        want_parts = [b.get("cache_control") for b in content]
        got_tools = [t.get("cache_control") for t in back.get("tools") or []]
        got_results = [m.get("cache_control") for m in back.get("messages", []) if m.get("role") == "tool"]
        if got_parts != want_parts or got_tools != [cc, None] or (grouped and got_results != [cc]) or (system and got_system != [cc, None]):
            raise self.fail(pointer, f"prompt-cache breakpoints are written as {_shown(wire)}, which reads back as parts {_shown(got_parts)}, tools {_shown(got_tools)}, tool results {_shown(got_results)}, system messages {_shown(got_system)}")

    def failed_result(self) -> None:
        pointer = "/request/tool_results/wire"
        for flag in (True, False):
            messages = [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [], "tool_calls": [{"id": "call_probe", "name": "probe_tool", "arguments": {}}]},
                {"role": "tool", "tool_call_id": "call_probe", "name": "probe_tool", "content": "done", "is_error": flag},
            ]
            tool = {"name": "probe_tool", "parameters": {"type": "object"}}
            result = self.round_trip(pointer, f"a tool result with is_error {flag}", {"model": "probe", "messages": messages, "tools": [tool]})
            if result is None:
                continue
            wire, back = result
            got = [m.get("is_error") for m in back.get("messages", []) if m.get("role") == "tool"]
            if got != [flag]:
                raise self.fail(pointer, f"a tool result with is_error {flag} is written as {_shown(wire)}, which reads back with is_error {_shown(got[0] if got else None)}")

    def tool_result_parts(self, pointer: str) -> None:
        image = {"type": "image", "source": {"type": "inline", "base64_data": _DATA}, "media_type": "image/png"}
        content = [{"type": "text", "text": "done"}, image]
        messages = [
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [], "tool_calls": [{"id": "call_probe", "name": "probe_tool", "arguments": {}}]},
            {"role": "tool", "tool_call_id": "call_probe", "name": "probe_tool", "content": content},
        ]
        tool = {"name": "probe_tool", "parameters": {"type": "object"}}
        result = self.round_trip(pointer, "a tool result with an image part", {"model": "probe", "messages": messages, "tools": [tool]})
        if result is None:
            return
        wire, back = result
        results = [m.get("content") for m in back.get("messages", []) if m.get("role") == "tool"]
        if not any(isinstance(c, list) and [b.get("type") for b in c] == ["text", "image"] for c in results):
            raise self.fail(pointer, f"a tool result with an image part is written as {_shown(wire)}, which reads back as {_shown(results)}")

    # ---------------------------------------------------------------- responses
    def finish(self, reason: str, emitted: bool) -> None:
        response = {
            "message": {"role": "assistant", "content": [{"type": "text", "text": "probe"}]},
            "finish_reason": reason,
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
        }
        try:
            wire = self.m.response_to_wire(response)
        except self.refused:
            return
        try:
            back = self.m.response_from_wire(wire).to_dict()
        except Exception as exc:  # noqa: BLE001
            raise self.fail("/response", f"a response is written as {_shown(wire)}, which response_from_wire refuses: {exc}") from None
        if _text(back.get("message", {}).get("content")) != "probe":
            raise self.fail("/response/envelope", f"a response's text is written as {_shown(wire)}, which reads back as {_shown(back.get('message'))}")
        if back.get("finish_reason") != reason and not emitted:
            raise self.fail(
                "/response/finish_reason/map",
                f"finish reason {reason!r} is written as {_shown(wire)}, which reads back as {back.get('finish_reason')!r}; "
                f"add an `emit` row when that is meant",
            )


    def error(self, category: str) -> None:
        if not hasattr(self.m, "error_to_wire"):
            return
        from wiremap.runtime.errors import error_class  # the generated modules' ProviderError classes

        sent = error_class(category)("probe failure", status=None)
        status, body, headers = self.m.error_to_wire(sent)
        try:
            got = self.m.error_from_wire(status, body, headers)
        except Exception as exc:  # noqa: BLE001 -- error_from_wire answers, never raises
            raise self.fail("/errors", f"error {category!r} is written as HTTP {status} {_shown(body)}, which error_from_wire fails on: {exc}") from None
        if getattr(got, "category", None) != category:
            raise self.fail(f"/errors/emit/categories/{category}", f"error {category!r} is written as HTTP {status} {_shown(body)}, which error_from_wire reads as {getattr(got, 'category', None)!r}")


_USER = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def _media_type(node: Node, family: str, value_maps: dict[str, Any]) -> str:
    """A media type the part's value map (if any) writes and reads back as itself."""
    for slot in slots_of(node):
        if slot.field == "media_type" and slot.codec and slot.codec in value_maps:
            seen: set[str] = set()
            usable = []
            for canonical, wire in value_maps[slot.codec].pairs:
                if wire not in seen:  # the reverse map answers the first canonical value per wire value
                    usable.append(str(canonical))
                seen.add(wire)
            for canonical in usable:
                if canonical.startswith(family + "/") or (family == "file" and canonical == "application/pdf"):
                    return canonical
            if usable and family == "file":
                return usable[0]
    return _MEDIA_DEFAULTS[family]


def _has_path(wire: Any, dotted: str) -> bool:
    """Whether the wire body holds the dotted field (`toolConfig.toolChoice`)."""
    current = wire
    for key in dotted.split("."):
        if not isinstance(current, dict) or key not in current:
            return False
        current = current[key]
    return True


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return None


def _same_source(got: Any, want: dict[str, Any]) -> bool:
    return isinstance(got, dict) and all(got.get(k) == v for k, v in want.items())


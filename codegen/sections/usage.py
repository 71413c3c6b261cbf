"""The `response.usage` rows: counters read from wire paths or derived as sums, and their inverse.

A counter is a wire path (`prompt_tokens`) or a sum row:

    prompt_tokens: {sum: [input_tokens, cache_read_input_tokens?, cache_creation_input_tokens?]}
    prompt_tokens: {path: prompt_tokens, sum: [prompt_cache_hit_tokens?, prompt_cache_miss_tokens?]}

An addend ending in `?` is optional: absent (or null) on the wire it counts as 0; any other
addend that is absent or malformed makes the sum unreported (null). With `path`, the counter is
read from that path and the sum is only the identity used when writing.

The generator inverts every sum for `response_to_wire` (and the stream emitter): an addend that
another counter writes is *bound*; the one addend no other counter writes is *free* and is
written as the counter minus the bound addends' written values (never below 0). A sum with no
free addend is derived and not written (`total_tokens: {sum: [input_tokens, output_tokens]}`); a
sum with two or more is refused with a MappingError at its place, since nothing says how to split
the counter between them. Sums are resolved in canonical order (prompt, completion, total,
cached, cache creation), so an addend one sum writes is bound in the later ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any



def lit(value: Any) -> str:
    return repr(value)

COUNTERS = ("prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens", "cache_creation_tokens", "reasoning_tokens")
MAIN = COUNTERS[:3]
CACHE = COUNTERS[3:]

WirePath = tuple[str | int, ...]


@dataclass(frozen=True)
class UsageSum:
    addends: tuple[tuple[WirePath, bool], ...]  # (wire path, optional)
    path: WirePath | None = None  # read from (and written at) this path; the sum is the write identity
    free: int | None = None  # index of the addend this row writes (counter - the others), None: derived

    def reads_path(self) -> bool:
        return self.path is not None


def is_sum(src: Any) -> bool:
    return isinstance(src, UsageSum)


def written_path(src: Any) -> WirePath | None:
    """The wire path a counter writes its own value at (None for a derived sum)."""
    if isinstance(src, UsageSum):
        return src.path
    return tuple(src)


def build_usage(spec: dict[str, Any], parse_path: Callable[[str, str], WirePath], err: Callable[[str, str], Exception]) -> dict[str, Any]:
    """canonical counter -> wire path tuple | UsageSum (with its inverse worked out)."""
    usage: dict[str, Any] = {}
    for counter in COUNTERS:
        if counter not in spec or spec[counter] is None:
            continue
        src = spec[counter]
        pointer = f"/response/usage/{counter}"
        if isinstance(src, dict):
            addends = []
            for k, text in enumerate(src["sum"]):
                optional = text.endswith("?")
                addends.append((parse_path(f"{pointer}/sum/{k}", text[:-1] if optional else text), optional))
            path = parse_path(f"{pointer}/path", src["path"]) if "path" in src else None
            usage[counter] = UsageSum(tuple(addends), path)
        else:
            usage[counter] = parse_path(pointer, src)
    # the inverse: which addend each sum writes
    written: set[WirePath] = {tuple(p) for p in (written_path(s) for s in usage.values()) if p is not None}
    for counter in COUNTERS:
        src = usage.get(counter)
        if not isinstance(src, UsageSum):
            continue
        free = [k for k, (p, _) in enumerate(src.addends) if p not in written]
        if len(free) > 1:
            names = ", ".join(".".join(str(x) for x in src.addends[k][0]) for k in free)
            raise err(
                f"/response/usage/{counter}/sum",
                f"cannot be inverted for response_to_wire: {names} are written by no other counter "
                "(at most one addend may be; declare the others as counters, e.g. `cached_tokens`)",
            )
        if free:
            usage[counter] = UsageSum(src.addends, src.path, free[0])
            written.add(src.addends[free[0]][0])
    return usage


def check_usage_fallback(spec: dict[str, Any], usage: dict[str, Any], err: Callable[[str, str], Exception]) -> dict[str, str]:
    """`response.usage.fallback: {key: other}`: a key of the usage object that, when it holds no
    object (absent, null, a scalar), is read from `other` instead (Cohere: `tokens`, else
    `billed_units`). Every counter path under `key` then reads under `other`; written back, the
    counters go under `key` only. A key no counter path starts with, or one that names itself,
    would do nothing, and is refused."""
    fallback = {k: v for k, v in (spec.get("fallback") or {}).items()}
    firsts: set[Any] = set()
    for src in usage.values():
        if isinstance(src, UsageSum):
            firsts.update(p[0] for p, _ in src.addends)
            if src.path is not None:
                firsts.add(src.path[0])
        else:
            firsts.add(src[0])
    for key, other in fallback.items():
        if key not in firsts:
            raise err(f"/response/usage/fallback/{key}", f"no counter is read under {key!r}, so a fallback for it would do nothing; counters are read under: {', '.join(sorted(str(f) for f in firsts))}")
        if other == key or other in fallback:
            raise err(f"/response/usage/fallback/{key}", f"{other!r} cannot stand in for {key!r}: it is the key itself or has a fallback of its own")
    return fallback


def emit_fallback(out: Any, fallback: dict[str, str]) -> None:
    """Inside `if type(usage_obj) is dict:` -- the `fallback` keys read from their stand-ins."""
    for key, other in fallback.items():
        out.add(f"if type(usage_obj.get({lit(key)})) is not dict and type(usage_obj.get({lit(other)})) is dict:  # response.usage.fallback")
        out.add(f"    usage_obj = {{**usage_obj, {lit(key)}: usage_obj[{lit(other)}]}}")


def _get_in(var: str, keys: WirePath) -> str:
    if len(keys) == 1 and isinstance(keys[0], str):
        return f"{var}.get({lit(keys[0])})"
    return f"_w.get_in({var}, {lit(keys)})"


def emit_reader(out: Any, usage: dict[str, Any], get: Callable[[str, WirePath], str] | None = None, fused: bool = False) -> None:
    """Inside `if type(usage_obj) is dict:` -- sets the three main counters, `usage`, and the cache counters.
    `get(var, keys)`: the expression reading a path (a fused translator's has no call); `fused`:
    each counter into a local `u_<counter>` (responses.jinja binds them first) instead of
    a canonical Usage, for `emit_writer(fused=True)`."""
    read_at = _get_in if get is None else get
    read: dict[WirePath, str] = {}  # wire path -> the counter already read from it (required reads)
    for counter in MAIN:
        src = usage[counter]
        p = written_path(src)
        if p is None:
            continue
        out.add(f"{counter} = _w.usage_counter({read_at('usage_obj', p)})")
        read.setdefault(p, counter)
    for counter in MAIN:
        src = usage[counter]
        if not isinstance(src, UsageSum) or src.path is not None:
            continue
        addends = []
        for p, optional in src.addends:
            if optional:
                addends.append(f"_w.usage_addend({read_at('usage_obj', p)})")
            else:
                addends.append(read.get(p) or f"_w.usage_counter({read_at('usage_obj', p)})")
        note = "a derived total (OpenArmature §7)" if counter == "total_tokens" else "a derived counter (response.usage sum)"
        out.add(f"{counter} = _w.usage_sum({', '.join(addends)})  # {note}")
    if fused:
        out.add("u_prompt_tokens, u_completion_tokens, u_total_tokens = prompt_tokens, completion_tokens, total_tokens")
    else:
        out.add("usage = Usage(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, total_tokens=total_tokens)")
    into = "u_" if fused else "usage."
    for counter in CACHE:
        src = usage.get(counter)
        if src is None:
            continue
        p = written_path(src)
        if p is None:  # a cache counter derived as a sum: set when every required addend is present
            assert isinstance(src, UsageSum)
            addends = [f"_w.usage_addend({read_at('usage_obj', q)})" if o else f"_w.usage_counter({read_at('usage_obj', q)})" for q, o in src.addends]
            out.add(f"sum_{counter} = _w.usage_sum({', '.join(addends)})")
            out.add(f"if sum_{counter} is not None:")
            out.add(f"    {into}{counter} = sum_{counter}")
            continue
        out.add(f"raw_{counter} = {read_at('usage_obj', p)}")
        out.add(f"if raw_{counter} is not None:")
        out.add(f"    {into}{counter} = _w.usage_counter(raw_{counter})")


def _set(out: Any, keys: WirePath, value: str) -> None:
    target = "usage_wire"
    for k in keys[:-1]:
        out.add(f"{target}.setdefault({lit(k)}, {{}})")
        target = f"{target}[{lit(k)}]"
    out.add(f"{target}[{lit(keys[-1])}] = {value}")


def emit_writer(out: Any, usage: dict[str, Any], unreported: str, zero_fill: Callable[[], None], fused: bool = False) -> None:
    """Sets `usage_wire` from `u` (the canonical usage; `fused`: from the locals `u_<counter>` a
    fused reader binds, `emit_reader(fused=True)`). Each sum's free addend is worked out first
    (the counter minus what the other counters write at the bound addends), then every counter is
    written in canonical order, a sum's free addend in its counter's place."""
    start = len(out.lines)
    _emit_writer(out, usage, unreported, zero_fill)
    if fused:
        out.lines[start:] = [re.sub(r"(?<![\w.])u\.(?=\w)", "u_", line) for line in out.lines[start:]]


def _emit_writer(out: Any, usage: dict[str, Any], unreported: str, zero_fill: Callable[[], None]) -> None:
    baseline = [c for c in MAIN if written_path(usage[c]) is not None]
    reported = " and ".join(f"u.{c} is not None" for c in MAIN)
    if unreported == "zero":
        out.add("# usage unreported: zero. The wire requires the counters; an unreported one is written as 0.")
        out.add(f"baseline = {{{', '.join(f'{lit(c)}: u.{c} or 0' for c in baseline)}}}")
    else:
        out.add("# usage unreported: omit. The counters go out together or not at all (never a partial object).")
        out.add(f"baseline = {{{', '.join(f'{lit(c)}: u.{c}' for c in baseline)}}} if {reported} else {{}}")
    zero_fill()
    # the value each written wire path gets, as an expression (None: not written)
    value_of: dict[WirePath, str] = {}
    for counter in COUNTERS:
        src = usage.get(counter)
        p = written_path(src) if src is not None else None
        if p is None:
            continue
        if counter in baseline:
            value_of[p] = f"baseline.get({lit(counter)})"
        else:
            value_of[p] = f"(u.{counter} if baseline and u.{counter} is not NOT_GIVEN else None)"
    for counter in COUNTERS:
        src = usage.get(counter)
        if not isinstance(src, UsageSum) or src.free is None:
            continue
        free_path, free_optional = src.addends[src.free]
        bound = [value_of[p] for k, (p, _) in enumerate(src.addends) if k != src.free]
        var = f"rest_{counter}"
        if counter in MAIN:
            value = f"u.{counter} or 0" if unreported == "zero" else f"u.{counter}"
        else:
            value = f"u.{counter} if u.{counter} is not NOT_GIVEN else None"
        out.add(f"# response.usage.{counter} sum: {'.'.join(str(k) for k in free_path)} is the counter minus the other addends")
        cond = "baseline"
        if free_optional:  # written only beside every other addend
            cond += "".join(f" and {b} is not None" for b in bound)
        parts = "".join(f", _w.usage_addend({b})" for b in bound)
        out.add(f"{var} = _w.usage_rest({value}{parts}) if {cond} else None")
        value_of[free_path] = var
    for counter in COUNTERS:
        src = usage.get(counter)
        if src is None:
            continue
        p = written_path(src)
        if p is not None:
            if counter in baseline:
                out.add(f"if {lit(counter)} in baseline:")
                out.indent()
                if isinstance(src, UsageSum) and src.free is not None:
                    _set_free(out, src, counter)
                _set(out, p, f"baseline[{lit(counter)}]")
            else:
                out.add(f"if u.{counter} is not None and u.{counter} is not NOT_GIVEN and baseline:")
                out.indent()
                _set(out, p, f"u.{counter}")
            out.dedent()
            if isinstance(src, UsageSum) and src.free is not None and counter not in baseline:
                _set_free(out, src, counter)
        elif isinstance(src, UsageSum) and src.free is not None:
            _set_free(out, src, counter)


def _set_free(out: Any, src: UsageSum, counter: str) -> None:
    free_path = src.addends[src.free][0] if src.free is not None else ()
    out.add(f"if rest_{counter} is not None:")
    out.indent()
    _set(out, free_path, f"rest_{counter}")
    out.dedent()


def stream_counters(usage: dict[str, Any]) -> dict[str, Any]:
    """The compiled stream table's counters (plain data, read by runtime/stream.py)."""
    counters: dict[str, Any] = {}
    for name, src in usage.items():
        if isinstance(src, UsageSum):
            entry: dict[str, Any] = {"sum": [list(p) for p, _ in src.addends]}
            if any(o for _, o in src.addends):
                entry["optional"] = [o for _, o in src.addends]
            if src.path is not None:
                entry["path"] = list(src.path)
            if src.free is not None:
                entry["free"] = src.free
            counters[name] = entry
        else:
            counters[name] = list(src)
    return counters

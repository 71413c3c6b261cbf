"""Carried wire data: what a format's tables do not model, kept for the same provider's wire.

A converter reads a wire body into the canonical model and writes it back with the same tables.
Whatever the second body does not say as the first did (a field no table row names, a value the
tables normalise, a key the writer adds by default) is the body's *residual*. `residual()`
computes it once, when the body is read, as a list of `Op`s against the re-written body, and
the canonical `Request` / `Response` carries it (`carried`), stamped with its `origin`: the
provider and the wire family of the format that read it (`PROVIDER/wire`, e.g.
`anthropic/anthropic_messages`).

A writer whose own origin is the same applies the ops (`apply()`): the same-format round trip is
then the identity. Each op is *anchored*: it applies only where the writer rendered exactly what
the original re-write rendered at the op's anchor (the innermost array element that holds it, or
the top-level field), so an op never lands on a message, block or field the caller has changed
since. Any other target drops the ops and the translation's loss report names each one at its
wire path (`losses()`), apart from differences of form only (JSON text that parses to the same
value, `40.0` for `40`), which change no meaning.

This module is stdlib-only and small: the generated converters call `carry` and `apply`.
"""

from __future__ import annotations

import json
from operator import is_ as _is
from typing import Any, Final

__all__ = ["Carried", "residual", "apply", "losses", "ABSENT", "placed", "copy_value", "value_at"]


class _Absent:
    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()  # no value at a path


class Carried:
    """The residual of one wire body: its origin and the ops that restore it.

    Each op is `(path, value)`: `value` is the original wire value at `path` (a tuple of object
    keys and array indexes), or ABSENT where the original had no key the re-write added. `anchors`
    are the re-write's values at each op's anchor path (see the module docstring)."""

    __slots__ = ("origin", "ops", "anchors", "rewritten", "known", "too_deep", "aliases", "reader", "spelled", "opaque", "held")

    def __init__(
        self,
        origin: str,
        ops: list[tuple[tuple[Any, ...], Any]],
        anchors: list[Any],
        rewritten: list[Any],
        known: frozenset[str] = frozenset(),
        aliases: frozenset[tuple[Any, ...]] = frozenset(),
        spelled: frozenset[tuple[Any, ...]] = frozenset(),
        opaque: frozenset[str] = frozenset(),
        held: frozenset[int] = frozenset(),
    ) -> None:
        self.origin = origin
        # the canonical indexes of the assistant turns that read as empty because the reader
        # left their parts out (Anthropic's server-tool blocks): the same-origin writer lets
        # them through empty (validate.HELD) and the ops fill them; every other writer refuses
        self.held = held
        self.opaque = opaque  # the keys whose values are the caller's JSON (request.field_names): never walked
        self.aliases = aliases  # wire paths read as an option under another name (read_also)
        # of those, the keys read by their proto field names whose values are the message's
        # structure (request.field_names): a key inside that no table names is still a loss
        self.spelled = spelled
        self.ops = ops
        self.anchors = anchors
        self.rewritten = rewritten  # the re-write's value at each op's path (ABSENT: none)
        self.known = known  # the wire keys the reading format's tables name (WIRE_KEYS)
        self.too_deep: list[str] = []  # paths of values past validate.MAX_JSON_DEPTH: not carried
        # the key of the format that read it: the dict form names it (and the aliases), so that a
        # Carried read back from a canonical dict finds the same `known` keys (runtime/translate.py)
        self.reader: str | None = None

    def __eq__(self, other: Any) -> bool:
        if other.__class__ is not Carried:
            return NotImplemented
        return (
            self.origin == other.origin and self.ops == other.ops and self.anchors == other.anchors
            and self.too_deep == other.too_deep and self.held == other.held
        )

    def __repr__(self) -> str:
        return f"Carried(origin={self.origin!r}, ops={len(self.ops)})"

    def to_dict(self) -> dict[str, Any]:
        paths = {path for path, _ in self.ops}
        aliases = sorted(list(p) for p in self.aliases if p in paths)  # the ones an op is at: all `losses` asks
        spelled = sorted(list(p) for p in self.spelled if p in paths)
        return {
            "origin": self.origin,
            **({"reader": self.reader} if self.reader is not None else {}),
            **({"aliases": aliases} if aliases else {}),
            **({"spelled": spelled} if spelled else {}),
            # the caller's JSON keys the loss report never walks into (request.field_names)
            **({"opaque": sorted(self.opaque)} if self.opaque else {}),
            **({"too_deep": list(self.too_deep)} if self.too_deep else {}),
            **({"held": sorted(self.held)} if self.held else {}),
            "ops": [
                {
                    "path": list(path),
                    **({} if value is ABSENT else {"value": value}),
                    **({} if anchor is ABSENT else {"anchor": anchor}),
                    **({} if was is ABSENT else {"rewritten": was}),
                }
                for (path, value), anchor, was in zip(self.ops, self.anchors, self.rewritten)
            ],
        }

    @classmethod
    def from_dict(cls, d: Any, path: str) -> "Carried":
        from .errors import InvalidRequestError

        if type(d) is not dict or type(d.get("origin")) is not str or type(d.get("ops")) is not list:
            raise InvalidRequestError("expected {origin: string, ops: [...]}", path=path)
        ops: list[tuple[tuple[Any, ...], Any]] = []
        anchors: list[Any] = []
        rewritten: list[Any] = []
        for i, op in enumerate(d["ops"]):
            p = op.get("path") if type(op) is dict else None
            if type(p) is not list or not p or not all(type(k) is str or type(k) is int for k in p):
                raise InvalidRequestError("expected {path: [key or index, ...], value?, anchor?}", path=f"{path}.ops[{i}]")
            ops.append((tuple(p), op.get("value", ABSENT)))
            anchors.append(op.get("anchor", ABSENT))
            rewritten.append(op.get("rewritten", ABSENT))
        aliases = d.get("aliases")
        spelled = d.get("spelled")
        opaque = d.get("opaque")
        out = cls(
            d["origin"], ops, anchors, rewritten, aliases=_paths(aliases), spelled=_paths(spelled),
            opaque=frozenset(opaque) if type(opaque) is list and all(type(k) is str for k in opaque) else frozenset(),
        )
        if type(d.get("reader")) is str:
            out.reader = d["reader"]
        held = d.get("held")
        if held is not None:
            if type(held) is not list or not all(type(i) is int and i >= 0 for i in held):
                raise InvalidRequestError("expected a list of message indexes", path=f"{path}.held")
            out.held = frozenset(held)
        deep = d.get("too_deep")
        if type(deep) is list and all(type(p) is str for p in deep):
            out.too_deep = list(deep)
        return out


def _same(a: Any, b: Any) -> bool:
    """JSON equality with JSON's types: `1` is not `True`, and `1.0` is not `1`."""
    ta = type(a)
    if ta is not type(b):
        return False
    if ta is dict:
        if len(a) != len(b):
            return False
        for k, v in a.items():
            if k not in b or not _same(v, b[k]):
                return False
        return True
    if ta is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _diff(o: Any, r: Any, path: tuple[Any, ...], out: list[tuple[tuple[Any, ...], Any, Any]]) -> None:
    """Append `(path, original, rewritten)` for each difference between `o` and `r`, in document
    order: a key on one side only, a value of another JSON type, arrays of other lengths, or
    leaves that are not `_same`. Runs on every body a reader reads (the residual), so a leaf of
    one type is compared here, without a call or a path of its own: most of a body is leaves
    the re-write says as the body did. The keys only `r` has are looked for only when some key
    of `o` is missing from `r` or the two sizes differ (else the key sets are equal)."""
    to = type(o)
    if to is dict and type(r) is dict:
        lacking = False
        get = r.get
        for k, v in o.items():
            w = get(k, ABSENT)
            tv = type(v)
            if tv is type(w):  # (a JSON value is never ABSENT)
                if tv is dict or tv is list:
                    _diff(v, w, path + (k,), out)
                elif not v == w:  # _same of two leaves of one type
                    out.append((path + (k,), v, w))
            elif w is ABSENT and k not in r:
                out.append((path + (k,), v, ABSENT))
                lacking = True
            else:
                _diff(v, w, path + (k,), out)
        if lacking or len(r) != len(o):
            for k, v in r.items():
                if k not in o:
                    out.append((path + (k,), ABSENT, v))
        return
    if to is list and type(r) is list and len(o) == len(r):
        if len(o) > 16 and all(map(_is, o, r)):  # a long array the re-write holds item by item (an embedding vector)
            return  # the same objects: nothing in them differs (one C-level pass)
        i = 0
        for x, y in zip(o, r):
            tx = type(x)
            if tx is type(y) and tx is not dict and tx is not list:
                if not x == y:
                    out.append((path + (i,), x, y))
            else:
                _diff(x, y, path + (i,), out)
            i += 1
        return
    if not _same(o, r):
        out.append((path, o, r))


def _anchor_path(path: tuple[Any, ...]) -> tuple[Any, ...]:
    for i in range(len(path) - 1, -1, -1):
        if type(path[i]) is int:
            return path[: i + 1]
    return path[:1]


def value_at(value: Any, path: tuple[Any, ...]) -> Any:
    """The JSON value at `path` (object keys and array indexes), or ABSENT."""
    for k in path:
        if type(k) is int:
            if type(value) is not list or not 0 <= k < len(value):
                return ABSENT
        elif type(value) is not dict or k not in value:
            return ABSENT
        value = value[k]
    return value


def residual(
    origin: str,
    original: Any,
    rewritten: Any,
    known: frozenset[str] = frozenset(),
    options: frozenset[tuple[str, ...]] = frozenset(),
    aliases: frozenset[tuple[Any, ...]] = frozenset(),
    spelled: frozenset[tuple[Any, ...]] = frozenset(),
    opaque: frozenset[str] = frozenset(),
) -> Carried | None:
    """What `rewritten` (the same format's re-write of `original`) does not say as `original`
    does, as anchored ops; None when nothing differs. An option the writer left out (`options`:
    the wire paths of the table's option rows) is the table's decision, never carried back: a
    sampling option this API version or model refuses stays dropped (with its warning)."""
    found: list[tuple[tuple[Any, ...], Any, Any]] = []
    _diff(original, rewritten, (), found)
    if options:
        found = [op for op in found if not (op[2] is ABSENT and op[1] is not ABSENT and op[1] is not None and op[0] in options)]
    if not found:
        return None
    return Carried(
        origin,
        [(path, value) for path, value, _ in found],
        [value_at(rewritten, _anchor_path(path)) for path, _, _ in found],
        [was for _, _, was in found],
        known,
        aliases,
        spelled,
        opaque,
    )


def placed(origin: str, values: list[tuple[tuple[Any, ...], Any]], rewritten: Any, known: frozenset[str] = frozenset()) -> Carried:
    """Wire values kept apart from a body (a stream's carried data, runtime/stream.py) as the
    `Carried` that `residual` gives for a body holding them beside `rewritten`: each value at its
    path, anchored on what `rewritten` has at the op's anchor."""
    return Carried(
        origin,
        [(path, _copy(value)) for path, value in values],
        [_copy(value_at(rewritten, _anchor_path(path))) for path, _ in values],
        [_copy(value_at(rewritten, path)) for path, _ in values],
        known,
    )


def copy_value(value: Any) -> Any:
    """A deep copy of a JSON value."""
    return _copy(value)


def apply(body: dict[str, Any], carried: Any, origin: str) -> dict[str, Any]:
    """`body` with the ops of `carried` applied, when it was read from the same wire (`origin`);
    every op whose anchor the writer rendered differently is left out. Returns `body`."""
    if carried is None or carried.__class__ is not Carried or carried.origin != origin:
        return body
    approved = []
    checked: dict[tuple[Any, ...], bool] = {}
    for (path, value), anchor in zip(carried.ops, carried.anchors):
        at = _anchor_path(path)
        ok = checked.get(at)
        if ok is None:
            current = value_at(body, at)
            ok = checked[at] = (current is ABSENT and anchor is ABSENT) or (
                current is not ABSENT and anchor is not ABSENT and _same(current, anchor)
            )
        if ok:
            approved.append((path, value))
    if carried.held and len(approved) != len(carried.ops) and _fills_dropped(carried, checked):
        # a held turn is empty without its ops: one that may fill it did not apply (the request
        # changed around it), so it is not sent empty
        from .errors import InvalidRequestError

        raise InvalidRequestError(
            "this assistant turn is only wire content the canonical model does not model (carried "
            f"from {carried.origin}), and it cannot be put back since the request changed around "
            "it: drop the turn or give it text",
            path=f"messages[{min(carried.held)}].content",
        )
    for path, value in approved:
        parent = value_at(body, path[:-1]) if len(path) > 1 else body
        key = path[-1]
        if value is ABSENT:
            if type(parent) is dict:
                parent.pop(key, None)
        elif type(parent) is dict and type(key) is str:
            parent[key] = _copy(value)
        elif type(parent) is list and type(key) is int and 0 <= key < len(parent):
            parent[key] = _copy(value)
    return body


def _fills_dropped(carried: Carried, checked: dict[tuple[Any, ...], bool]) -> bool:
    """Whether an op `apply` left out may be one that fills a held turn: one that puts content
    where the re-write had none (an empty array or object, or no key), or that puts back a whole
    top-level array (the re-write left the turn out). An op that changes what the re-write did
    write (a user turn's text, in the caller's form) is not one."""
    for (path, value), was in zip(carried.ops, carried.rewritten):
        if checked.get(_anchor_path(path)):
            continue
        if was is ABSENT or (type(was) in _CONTAINERS and not was) or (len(path) == 1 and type(value) is list):
            return True
    return False


def _copy(value: Any) -> Any:
    t = type(value)
    if t is dict:
        return {k: _copy(v) for k, v in value.items()}
    if t is list:
        return [_copy(v) for v in value]
    return value


def _form_only(original: Any, rewritten: Any) -> bool:
    """The same value in another form: JSON text parsing to the same value, or a number equal to
    another (`40.0` and `40`)."""
    if type(original) is str and type(rewritten) is str:
        try:
            return bool(json.loads(original) == json.loads(rewritten))
        except ValueError:
            return False
    numbers = (int, float)
    if type(original) in numbers and type(rewritten) in numbers and type(original) is not bool and type(rewritten) is not bool:
        return bool(original == rewritten)
    return False


_CONTAINERS: Final = (dict, list)
_TEXT_TYPES: Final = frozenset(("text", "input_text", "output_text"))


def path_text(path: tuple[Any, ...]) -> str:
    out = ""
    for k in path:
        out += f"[{k}]" if type(k) is int else (f".{k}" if out else str(k))
    return out


def _unknown_keys(
    value: Any, path: tuple[Any, ...], known: frozenset[str], out: list[tuple[tuple[Any, ...], Any]], opaque: frozenset[str] = frozenset()
) -> None:
    """Each key inside `value` no table names (`known`), into `out`; the values of `opaque` keys
    (the caller's JSON) are not walked."""
    t = type(value)
    if t is dict:
        for k, v in value.items():
            if k in opaque:
                continue
            if k in known:
                _unknown_keys(v, path + (k,), known, out, opaque)
            else:
                out.append((path + (k,), v))
    elif t is list:
        for i, v in enumerate(value):
            _unknown_keys(v, path + (i,), known, out, opaque)


def _held_as_text(path: tuple[Any, ...], value: Any, carried: Carried) -> bool:
    """Whether the re-write holds `value` at its key inside JSON text it wrote at a sibling key
    (a key it added, which the carried data removes): an object the table reads whole as its
    JSON text (Gemini's `functionResponse.response` without a `result` is the tool result's text,
    `tool_results.other_content: json`) and writes back under its own key. The value is then in
    the canonical model, as that text."""
    parent, key = path[:-1], path[-1]
    for (other, gone), text in zip(carried.ops, carried.rewritten):
        if gone is ABSENT and type(text) is str and other[:-1] == parent and other != path:
            try:
                held = json.loads(text)
            except ValueError:
                continue
            if type(held) is dict and key in held and _same(held[key], value):
                return True
    return False


def _paths(value: Any) -> frozenset[tuple[Any, ...]]:
    """A dict form's list of wire paths (`aliases`, `spelled`), or none when it is not one."""
    if type(value) is list and all(type(p) is list and all(type(k) is str or type(k) is int for k in p) for p in value):
        return frozenset(tuple(p) for p in value)
    return frozenset()


def _text_block_rest(item: dict[str, Any], path: tuple[Any, ...], known: frozenset[str], out: list[tuple[tuple[Any, ...], Any]]) -> None:
    """What of a text block written as part of a string is not in that string: each key no table
    names, and each key a table names for a block of its own (a cache breakpoint, citations) that
    holds something, since a string holds the text alone. An empty value (`annotations: []`) says
    nothing the string lacks."""
    for k, v in item.items():
        if k == "type" or k == "text":
            continue
        if k not in known:
            out.append((path + (k,), v))
        elif v is not None and v != [] and v != {} and v != "":
            out.append((path + (k,), v))


_KIND_KEYS: Final = ("role", "type")


def _same_kind(a: Any, b: Any) -> bool:
    """Two items of one kind: dicts whose `role` and `type`, where both have one, are equal, and
    that share at least one of them."""
    if type(a) is not dict or type(b) is not dict:
        return False
    shared = [k for k in _KIND_KEYS if k in a and k in b]
    return bool(shared) and all(_same(a[k], b[k]) for k in shared)


def _missing_items(value: list[Any], was: list[Any], path: tuple[Any, ...], known: frozenset[str], out: list[tuple[tuple[Any, ...], Any]]) -> None:
    """A list the re-write shortened (a message of a role no table reads): each item with no equal
    in the re-write is found whole. When more items are unmatched than are missing (the re-write
    also changed the form of some), each is found at the keys no table names; and if that names
    fewer items than are missing, the unmatched items with nothing named are found whole: an
    item may be over-reported, never dropped unnamed."""
    free = list(range(len(was)))
    unmatched: list[int] = []
    for i, item in enumerate(value):
        j = next((j for j in free if _same(item, was[j]) or _form_only(item, was[j])), None)
        if j is None:
            unmatched.append(i)
        else:
            free.remove(j)
    if len(unmatched) > len(value) - len(was):  # then by kind: the same role or type, in order
        rest: list[int] = []
        for i in unmatched:
            j = next((j for j in free if _same_kind(value[i], was[j])), None)
            if j is None:
                rest.append(i)
            else:
                free = [k for k in free if k > j]
        unmatched = rest
    missing = len(value) - len(was)
    if len(unmatched) == missing:
        out.extend((path + (i,), value[i]) for i in unmatched)
        return
    named: list[tuple[tuple[Any, ...], Any]] = []
    quiet: list[int] = []
    for i in unmatched:
        before = len(named)
        _unknown_keys(value[i], path + (i,), known, named)
        if len(named) == before:
            quiet.append(i)
    out.extend(named)
    if len(unmatched) - len(quiet) < missing:  # some item went with nothing named in it
        out.extend((path + (i,), value[i]) for i in quiet)


def losses(carried: Any, origin: str, wire: Any, known: frozenset[str] | None = None) -> list[tuple[str, str]]:
    """(wire path, detail) for what of the carried data did not reach `wire`, the body a target
    of `origin` wrote: on another wire, every original value the re-write lacked, and inside a
    value the re-write gave another form (a string for a list of text blocks), each key the
    reading format's tables never name (its meaning is in the canonical model otherwise); on the
    same wire, the ops whose anchor the target rendered differently. Keys the reading format's
    own writer adds by default, and differences of form only, are no loss."""
    if carried is None or carried.__class__ is not Carried:
        return []
    same = carried.origin == origin
    provider = carried.origin.split("/")[0]
    known = carried.known if known is None else known  # (the reader's, when the record came from a dict)
    found: list[tuple[tuple[Any, ...], Any]] = []
    for (path, value), was in zip(carried.ops, carried.rewritten):
        if value is ABSENT or _form_only(value, was):
            continue
        if same:
            if not _same(value_at(wire, path), value):
                found.append((path, value))
        elif was is ABSENT and path in carried.aliases:
            # an option under another name (read_also), or a key by its proto field name
            # (request.field_names): its value is in the canonical model, but for any key inside
            # the message's structure (not the caller's JSON) that no table names
            if path in carried.spelled and known:
                _unknown_keys(value, path, known, found, carried.opaque)
            continue
        elif was is ABSENT and _held_as_text(path, value, carried):
            continue  # the re-write holds its whole object as JSON text beside it: in the canonical model
        elif was is ABSENT or not known or (type(value) is type(was) and type(value) not in _CONTAINERS):
            found.append((path, value))  # a value the tables left out, or normalised (a name)
        elif type(value) is list and type(was) is not list:
            # blocks written in another form (a string): text blocks are that string, any other
            # block (an image in a tool result) is not in it
            for i, item in enumerate(value):
                if type(item) is dict and type(item.get("type")) is str and item["type"] in _TEXT_TYPES:
                    _text_block_rest(item, path + (i,), known, found)
                else:
                    found.append((path + (i,), item))
        elif type(value) is list and type(was) is list and len(value) > len(was):
            _missing_items(value, was, path, known, found)
        else:  # another form of a value the canonical model read: only what no table names,
            # never inside the caller's JSON (a schema in a lone `tools` object: tools.lone_object)
            _unknown_keys(value, path, known, found, carried.opaque)
    out = [(deep, f"nested deeper than the depth limit: {provider} wire data not carried") for deep in carried.too_deep]
    for path, value in found:
        out.append((path_text(path), not_carried(value, provider)))
    return out


def not_carried(value: Any, provider: str) -> str:
    """The loss detail of a carried value that does not reach another provider's wire."""
    shown = json.dumps(value, ensure_ascii=False, default=str)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{shown} is {provider} wire data the target cannot carry"

"""What the generated stream functions share with the stream engine.

The generator compiles every row of a mapping's `stream.emit` table into a small function of the
converter module (codegen/emit/stream.py), `(values) -> (event, data)`; `StreamEmitter`
(runtime/stream.py) calls it with the values of the event being written. Its `stream.parse`
rules become one function too, `_stream_parse(obj, name, out, apply)`, that `StreamParser` calls
for each decoded event with its `RuleApply`. Both sides agree on the sentinels here, and the two
slot forms that are more than a lookup live here once rather than in every generated module.
Stdlib only, and cheap to import: every converter with a `stream:` table imports it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

__all__ = ["MISSING", "RuleApply", "Unreported", "Unwritable", "Lazy", "json_slot", "slot_text"]

MISSING: Final[Any] = object()  # a slot with no value: left out of its object or list; a wire path with none

#: what a generated parse function calls for a rule that matched: `(rule index, values, event,
#: out) -> stopped`, applying the rule (its values `{field: (value, (path, base))}`) and saying
#: whether the parser has stopped (an error, the end), after which no later rule is tried
RuleApply = Callable[[int, dict[str, Any], dict[str, Any], list[dict[str, Any]]], bool]


class Unreported(dict[str, Any]):
    """A usage object zero-filled because nothing was reported: an optional `{usage?}` omits it."""


class Unwritable(Exception):
    """A row cannot be written (a `|json` slot without a JSON object, no `{response}`)."""


class Lazy:
    """A slot value computed only when a row names it (`{response}`): the row calls `fn`."""

    __slots__ = ("fn",)

    def __init__(self, fn: Any) -> None:
        self.fn = fn


def json_slot(value: Any, name: str, rest: tuple[str, ...], optional: bool) -> Any:
    """`{name|json}`: `value`, JSON text, written decoded (a kept wire object); `{name.a.b|json}`
    writes the path `rest` into it. MISSING when an optional slot has nothing to write; a
    required one without an object there makes the row unwritable."""
    if value is MISSING or value is None:
        if optional:
            return MISSING
        raise Unwritable(f"there is no {name} to write")
    try:
        decoded = json.loads(value) if isinstance(value, str) else MISSING
    except ValueError:
        decoded = MISSING
    if not isinstance(decoded, dict):
        raise Unwritable(f"its {name} is not the JSON text of an object")
    for key in rest:
        decoded = decoded.get(key, MISSING) if isinstance(decoded, dict) else MISSING
    if decoded is MISSING:
        if optional:
            return MISSING
        raise Unwritable(f"its {name} has no {'.'.join(rest)}")
    return decoded


def slot_text(value: Any) -> str:
    """A slot inside other text (`"msg_{block}"`): a string as it is, anything else as its JSON
    text, nothing when missing."""
    if isinstance(value, str):
        return value
    return "" if value is MISSING else json.dumps(value, ensure_ascii=False)

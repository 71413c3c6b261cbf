"""Copies of user JSON (schemas, extras, tool arguments) as the wire takes them.

A leaf module: `validate` (which makes these copies while it checks a value) and `wire` (which
the generated converters call, as `_w.canonical_json` / `_w.json_copy`) both import from here.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["canonical_json", "json_copy"]

_CONTAINERS: Final = frozenset((dict, list))


def json_copy(value: Any) -> Any:
    """A copy of user JSON with its keys in the caller's order (what the provider APIs take:
    key order in a JSON Schema is the order models generate structured output in)."""
    t = type(value)
    if t is dict:
        return {k: json_copy(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if t is list:
        return [json_copy(v) if type(v) in _CONTAINERS else v for v in value]
    return value


def canonical_json(value: Any) -> Any:
    """A copy with object keys sorted recursively (user JSON Schemas, extras, arguments)."""
    t = type(value)
    if t is dict:
        out = {}
        for k in sorted(value):
            v = value[k]
            tv = type(v)
            out[k] = canonical_json(v) if tv is dict or tv is list else v  # scalars as they are
        return out
    if t is list:
        return [canonical_json(v) if type(v) in _CONTAINERS else v for v in value]
    return value

"""The generated writers set a dotted wire field with `wire.put_in1` / `put_in2` / `put_in3`
(codegen/emit/messages.py `assign`) instead of `wire.put_in` and its loop over a tuple of keys.
Each must leave a body exactly as `put_in` does: objects on the way created (or replaced when
something else is there), an object value merged into an object already at the field, key by key.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from wiremap.runtime import wire

_KEYS = st.sampled_from(["a", "b", "c"])
_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=3))
_VALUES = st.recursive(_LEAVES, lambda inner: st.dictionaries(_KEYS, inner, max_size=3) | st.lists(inner, max_size=2), max_leaves=6)
_BODIES = st.dictionaries(_KEYS, _VALUES, max_size=3)


@settings(max_examples=600, deadline=None, database=None)
@given(
    body=_BODIES, keys=st.lists(_KEYS, min_size=1, max_size=3), value=_VALUES,
    there=st.one_of(st.none(), _VALUES, st.dictionaries(_KEYS, _VALUES, max_size=3)), depth=st.integers(0, 3),
)
def test_the_fixed_depth_writers_set_a_field_as_put_in_does(body: dict[str, Any], keys: list[str], value: Any, there: Any, depth: int) -> None:
    if there is not None and depth:  # something already on the way to the field, `depth` keys in
        at = min(depth, len(keys))
        node = body
        for key in keys[: at - 1]:
            child = node.get(key)
            if type(child) is not dict:
                child = node[key] = {}
            node = child
        node[keys[at - 1]] = there
    expected = copy.deepcopy(body)
    wire.put_in(expected, tuple(keys), copy.deepcopy(value))
    got = copy.deepcopy(body)
    writer = {1: wire.put_in1, 2: wire.put_in2, 3: wire.put_in3}[len(keys)]
    writer(got, *keys, copy.deepcopy(value))
    assert got == expected
    assert list(got) == list(expected)  # the same key order too: the body's bytes


def test_an_object_value_merges_into_the_object_already_there() -> None:
    body: dict[str, Any] = {"tool_choice": {"type": "auto"}, "generationConfig": {"thinkingConfig": {"thinkingBudget": 8}}}
    wire.put_in1(body, "tool_choice", {"disable_parallel_tool_use": True})
    wire.put_in3(body, "generationConfig", "thinkingConfig", "thinkingLevel", "low")
    wire.put_in3(body, "generationConfig", "thinkingConfig", "extra", {"a": 1})
    wire.put_in3(body, "generationConfig", "thinkingConfig", "extra", {"b": 2})
    assert body == {
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
        "generationConfig": {"thinkingConfig": {"thinkingBudget": 8, "thinkingLevel": "low", "extra": {"a": 1, "b": 2}}},
    }

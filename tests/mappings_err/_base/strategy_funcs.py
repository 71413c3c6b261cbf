"""Strategy functions for the must-fail mappings that name them (`# with: _base/strategy_funcs.py`)."""

from typing import Any


def two_arguments(body: dict[str, Any], model: str) -> dict[str, Any]:
    return body


def returns_text(body: dict[str, Any]) -> str:
    return "not a body"


not_a_function = 42

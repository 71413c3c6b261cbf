"""The gateway rows of `transport` (`models`, `count_tokens`): their small templates checked.

These templates are written by `wiremap.gateway_endpoints` and read back by it, so they use a
narrower syntax than wire templates: a string is a literal, a whole placeholder `"{name}"`, or
one placeholder between a literal prefix and suffix (`"models/{id}"`). A placeholder appears at
most once, never in an object key or inside an array (it could not be read back).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["TransportRowError", "check_template", "MODELS_PAGE", "MODELS_MODEL", "COUNT_REQUEST", "COUNT_ANSWER"]

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")

# name -> may it sit inside a longer string (interpolation)? Whole-only names hold non-strings.
MODELS_PAGE = {"models": False, "first_id": True, "last_id": True}
MODELS_MODEL = {"id": True, "created": False, "created_at": True, "owned_by": True, "display_name": True}
COUNT_REQUEST = {"request": False}
COUNT_ANSWER = {"count": False}


class TransportRowError(ValueError):
    def __init__(self, pointer: str, message: str) -> None:
        self.pointer = pointer
        super().__init__(message)


def check_template(value: Any, pointer: str, allowed: dict[str, bool], required: tuple[str, ...]) -> None:
    """Raise TransportRowError at the offending place unless `value` is a valid template."""
    seen: set[str] = set()
    _walk(value, pointer, allowed, seen, in_array=False)
    for name in required:
        if name not in seen:
            raise TransportRowError(pointer, f"the template must place {{{name}}}")


def _walk(value: Any, pointer: str, allowed: dict[str, bool], seen: set[str], in_array: bool) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if _PLACEHOLDER.search(str(key)):
                raise TransportRowError(f"{pointer}/{key}", f"{key!r}: a placeholder cannot be an object key")
            _walk(item, f"{pointer}/{key}", allowed, seen, in_array)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _walk(item, f"{pointer}/{i}", allowed, seen, in_array=True)
    elif isinstance(value, str):
        names = _PLACEHOLDER.findall(value)
        if not names:
            if "{" in value or "}" in value:
                raise TransportRowError(pointer, f"{value!r}: an unmatched brace")
            return
        expected = ", ".join("{" + n + "}" for n in sorted(allowed))
        for name in names:
            if name not in allowed:
                raise TransportRowError(pointer, f"{{{name}}}: unknown placeholder; expected one of: {expected}")
        if in_array:
            raise TransportRowError(pointer, f"{value!r}: a placeholder inside an array cannot be read back")
        if len(names) > 1:
            raise TransportRowError(pointer, f"{value!r}: one placeholder per string")
        name = names[0]
        if value != "{" + name + "}" and not allowed[name]:
            raise TransportRowError(pointer, f"{{{name}}} is not a string: it must be the whole value (\"{{{name}}}\")")
        if name in seen:
            raise TransportRowError(pointer, f"{{{name}}} is placed twice")
        seen.add(name)

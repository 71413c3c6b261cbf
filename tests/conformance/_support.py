"""Shared helpers for the external conformance runners (OpenArmature, Prompty).

The suites are read as data from ``../shared/conformance`` (relative to the repository root);
nothing here imports ``openarmature`` or ``prompty``. ``wiremap`` itself is imported lazily by the
test functions, so collection works before the converters exist.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

REPO_ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE_DIR = REPO_ROOT.parent / "shared" / "conformance"
OPENARMATURE_DIR = CONFORMANCE_DIR / "openarmature"
OPENARMATURE_FIXTURES = OPENARMATURE_DIR / "conformance"
PROMPTY_DIR = CONFORMANCE_DIR / "prompty"

WILDCARD = "*"

# CANONICAL.md "Errors": the transient categories.
TRANSIENT_CATEGORIES = frozenset(
    {"provider_unavailable", "provider_rate_limit", "provider_model_not_loaded"}
)

LATER_ISSUE = "lands with issue #4"


def missing(path: Path) -> str:
    return (
        f"external conformance data not found at {path} "
        f"(expected ../shared/conformance beside the repository root {REPO_ROOT}); "
        "the conformance runners never skip on missing data"
    )


def unsupported(reason: str) -> NoReturn:
    """Stand-in for what wiremap does not do (yet); the xfail cases call it so they really fail."""
    raise NotImplementedError(reason)


def load_wiremap() -> Any:
    import wiremap  # lazy: the converters may not exist at collection time

    return wiremap


def wire_bytes(wire: Any) -> str:
    """The bytes a JSON client sends for `wire`: insertion order kept (no sort_keys), compact."""
    return json.dumps(wire, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _decode_json(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (TypeError, ValueError):
        return False, None


def deep_match(
    expected: Any,
    actual: Any,
    path: str = "$",
    *,
    wildcard: bool = True,
    decode_arguments: bool = True,
    collapse_single_text: bool = False,
) -> list[str]:
    """Differences between `expected` and `actual`; empty when they match.

    - deep equality: extra or missing object keys fail, lists compare element-wise in order,
      booleans never equal numbers, numbers compare numerically (1 == 1.0);
    - with `wildcard`, the expected string "*" matches any non-empty string;
    - with `decode_arguments`, a tool call's `function.arguments` JSON string is compared
      decoded (the fixtures differ in JSON spacing);
    - with `collapse_single_text`, an expected `[{"type": "text", "text": T}]` also accepts the
      string T (OpenArmature §3.1.1 equivalence, allowed by fixture 009 only).
    """
    kw = dict(
        wildcard=wildcard,
        decode_arguments=decode_arguments,
        collapse_single_text=collapse_single_text,
    )
    if wildcard and isinstance(expected, str) and expected == WILDCARD:
        if isinstance(actual, str) and actual:
            return []
        return [f"{path}: expected a non-empty string (wildcard), got {actual!r}"]
    if (
        decode_arguments
        and path.endswith(".function.arguments")
        and isinstance(expected, str)
        and isinstance(actual, str)
    ):
        ok_e, dec_e = _decode_json(expected)
        ok_a, dec_a = _decode_json(actual)
        if ok_e and ok_a:
            return deep_match(dec_e, dec_a, path + "<decoded>", wildcard=False)
        if ok_e != ok_a:
            return [f"{path}: arguments JSON {expected!r} vs {actual!r} (one does not decode)"]
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {type(actual).__name__} {actual!r}"]
        problems: list[str] = []
        for key in expected:
            if key not in actual:
                problems.append(f"{path}.{key}: missing (expected {expected[key]!r})")
            else:
                problems += deep_match(expected[key], actual[key], f"{path}.{key}", **kw)
        for key in actual:
            if key not in expected:
                problems.append(f"{path}.{key}: unexpected key (value {actual[key]!r})")
        return problems
    if isinstance(expected, list):
        if (
            collapse_single_text
            and isinstance(actual, str)
            and len(expected) == 1
            and isinstance(expected[0], dict)
            and set(expected[0]) == {"type", "text"}
            and expected[0]["type"] == "text"
            and expected[0]["text"] == actual
        ):
            return []
        if not isinstance(actual, list):
            return [f"{path}: expected a list, got {type(actual).__name__} {actual!r}"]
        if len(expected) != len(actual):
            return [f"{path}: expected {len(expected)} items, got {len(actual)}: {actual!r}"]
        problems = []
        for i, (e, a) in enumerate(zip(expected, actual)):
            problems += deep_match(e, a, f"{path}[{i}]", **kw)
        return problems
    if isinstance(expected, bool):
        if isinstance(actual, bool) and actual is expected:
            return []
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    if _is_number(expected):
        if _is_number(actual) and expected == actual:
            return []
        return [f"{path}: expected {expected!r}, got {actual!r}"]
    if expected is None:
        return [] if actual is None else [f"{path}: expected null, got {actual!r}"]
    if expected == actual and type(expected) is type(actual):
        return []
    return [f"{path}: expected {expected!r}, got {actual!r}"]


def report(title: str, problems: list[str], *context: Any) -> str:
    lines = [title, *("  - " + p for p in problems[:40])]
    if len(problems) > 40:
        lines.append(f"  ... and {len(problems) - 40} more")
    for item in context:
        lines.append("  " + (item if isinstance(item, str) else json.dumps(item, default=repr)))
    return "\n".join(lines)


def strip_key(value: Any, key: str) -> Any:
    """A copy of `value` with `key` removed from every object (e.g. the parser's `origin`)."""
    if isinstance(value, dict):
        return {k: strip_key(v, key) for k, v in value.items() if k != key}
    if isinstance(value, list):
        return [strip_key(v, key) for v in value]
    return value


class _Absent:
    """Marks a key missing from an actual value (distinct from an explicit null)."""

    def __repr__(self) -> str:
        return "<absent>"


ABSENT = _Absent()


def plain(value: Any) -> Any:
    """Canonical records and dataclasses as plain data; `NOT_GIVEN` fields are dropped."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if hasattr(value, "__dataclass_fields__"):
        out = {}
        for name in value.__dataclass_fields__:
            item = getattr(value, name)
            if type(item).__name__ == "NotGiven":
                continue
            out[name] = plain(item)
        return out
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value

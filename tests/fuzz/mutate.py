"""Mutation fuzzing over every registered format (issue #6), shared by two drivers.

- tests/fuzz/test_fuzz.py: the CI-sized run, hypothesis drawing the `random.Random` that drives
  these operators (so a failure is shrunk and replayed by hypothesis);
- bench/fuzz.py (`make fuzz`): the long run, the same operators from a fast seeded
  `random.Random` loop, at least a million cases per format.

Seeds are valid documents, found dynamically for each key of `wiremap.formats()`:
- the format's own fixtures (its mapping file, from `wiremap.generated._index`);
- every format's canonical fixtures (requests and responses) sent through this format's
  `request_to_wire` / `response_to_wire`, and the wire bodies read back with its readers.
Operators: remove a field, null, wrong type, huge and empty values, unknown enum values, deep
nesting, bad strings (lone surrogates, surrogate-escaped invalid UTF-8, NUL), unknown keys,
duplicated list items, a node swapped for another node of the same document, bytes where text
is expected. A case is 1..3 operators applied to copies along the path (the seed is shared).

The oracle (`check`): an entry point returns, or raises a `wiremap.ProviderError` subclass
whose category is known and whose `path` (when given) is a well-formed path; `error_from_wire`
never raises and always returns a ProviderError. Anything else is a finding.
"""

from __future__ import annotations

import functools
import json
import random
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import wiremap
from wiremap import ProviderError

ROOT = Path(__file__).resolve().parents[2]

#: entry point -> the kind of seed document it reads
ENTRIES: dict[str, str] = {
    "request_from_wire": "requests",
    "response_from_wire": "responses",
    "error_from_wire": "errors",
    "request_to_wire": "canonical_requests",
}

# ------------------------------------------------------------------------------------ seeds


def _mapping_file(key: str) -> Path | None:
    try:
        from wiremap.generated._index import FORMATS
    except ImportError:  # pragma: no cover
        return None
    entry = FORMATS.get(key)
    if entry is None:
        return None
    path = ROOT / entry[2]
    return path if path.is_file() else None


@functools.cache
def _fixtures(key: str) -> tuple[dict[str, Any], ...]:
    path = _mapping_file(key)
    if path is None:
        return ()
    import yaml

    own = ROOT / "mappings" / "fixtures" / f"{key}.yaml"  # mappings/README.md "fixtures": their own file, or inline
    data = yaml.safe_load((own if own.is_file() else path).read_text(encoding="utf-8")) or {}
    cases = data.get("fixtures") or []
    return tuple(c for c in cases if isinstance(c, dict))


def _quiet(fn: Callable[..., Any], *args: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args)


def _json_copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


@functools.cache
def seeds(key: str) -> dict[str, list[Any]]:
    """Valid documents of each kind for format `key` (JSON values; error seeds are
    `[status, body, headers]`)."""
    fmt = wiremap.get_format(key)
    out: dict[str, list[Any]] = {k: [] for k in ("requests", "responses", "errors", "canonical_requests")}
    canonical_requests: list[Any] = []
    canonical_responses: list[Any] = []
    for other in wiremap.formats():
        for case in _fixtures(other):
            if "expect_error" in case:
                continue
            if "to_wire" in case:
                canonical_requests.append(case["to_wire"])
            if "response_to_wire" in case:
                canonical_responses.append(case["response_to_wire"])
            if "expect_canonical" in case and "request_from_wire" in case:
                canonical_requests.append(case["expect_canonical"])
    for case in _fixtures(key):
        if "error_from_wire" in case:
            spec = case["error_from_wire"]
            out["errors"].append([spec.get("status"), spec.get("body"), spec.get("headers")])
        if "expect_error" in case:
            continue
        if "expect_wire" in case and "to_wire" in case:
            out["requests"].append(case["expect_wire"])
        if "request_from_wire" in case:
            out["requests"].append(case["request_from_wire"])
        if "from_wire" in case and "response_schema" not in case:
            out["responses"].append(case["from_wire"])
    for req in canonical_requests:
        try:
            wire = _quiet(fmt.request_to_wire, req)
        except ProviderError:
            continue
        out["canonical_requests"].append(req)
        out["requests"].append(wire)
    for resp in canonical_responses:
        try:
            out["responses"].append(_quiet(fmt.response_to_wire, resp))
        except ProviderError:
            continue
    # error bodies in this format's own envelope, from its error_to_wire when it has one
    if fmt.error_to_wire is not None:
        for category in wiremap.ERROR_CATEGORIES:
            try:
                status, body, headers = fmt.error_to_wire(wiremap.error_class(category)("boom", retry_after=2.0))
            except Exception:  # noqa: BLE001 - error_to_wire of a typed error is not fuzzed here
                continue
            out["errors"].append([status, body, headers])
    if not out["errors"]:
        out["errors"].append([400, {"error": {"message": "bad", "type": "invalid_request_error"}}, {}])
    # Only documents the format accepts (a fixture's expect_wire may be one a lossy row cannot
    # read back); JSON-only, and no aliasing between seeds and the fixtures they came from.
    out["requests"] = [b for b in out["requests"] if _accepted(fmt.request_from_wire, b)]
    out["responses"] = [b for b in out["responses"] if _accepted(fmt.response_from_wire, b)]
    return {k: [_json_copy(v) for v in vs] for k, vs in out.items()}


def _accepted(fn: Callable[..., Any], body: Any) -> bool:
    try:
        _quiet(fn, body)
    except ProviderError:
        return False
    return True


# ------------------------------------------------------------------------------- operators

_WRONG = (0, -1, 1.5, True, False, "x", "", [], {}, [1, "a"], {"x": 1}, None, 2**70, -(2**63))
_BAD_STRINGS = (
    "\ud800",  # lone high surrogate
    "a\udc80b",  # lone low surrogate: invalid UTF-8 decoded with surrogateescape
    "\udcff\udcfe",
    "\x00",
    "\ufeff",
    "\U0010ffff",
    "é" * 3,
)
_ENUMISH = ("zz_unknown", "", "NULL", "Text", "text ", "tool_use\x00", "function", "image", "assistant", "tool")


def _huge(rng: random.Random, value: Any) -> Any:
    """A much bigger value of the same type, capped (~1 MB, 20 000 items) so that stacked
    operators stay bounded: the fuzzer's own memory must not be the finding."""
    t = type(value)
    if t is str:
        unit = value[:1000] or "x"
        return unit * (rng.choice((100_000, 1_000_000)) // len(unit))
    if t is list:
        return (value[:20] or [None]) * rng.choice((50, 1000))
    if t is int:
        return rng.choice((10**30, -(10**30), 2**63, 10**4000))
    if t is float:
        return rng.choice((float("inf"), float("-inf"), float("nan"), 1e308, -0.0))
    if t is dict:
        bigger = dict(value)
        for i in range(rng.choice((100, 2000))):
            bigger[f"k{i}"] = i
        return bigger
    return "y" * 100_000


def _empty(value: Any) -> Any:
    t = type(value)
    if t is str:
        return ""
    if t is list:
        return []
    if t is dict:
        return {}
    if t is bool:
        return False
    if t in (int, float):
        return 0
    return ""


def _deep(rng: random.Random, value: Any) -> Any:
    depth = rng.choice((50, 900, 1100, 3000))
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"a": value}
    return value


def _mutate_value(rng: random.Random, value: Any, doc: Any, paths: list[tuple[Any, ...]]) -> tuple[str, Any]:
    op = rng.randrange(12)
    if op == 0:
        return "null", None
    if op == 1:
        return "wrong_type", rng.choice([w for w in _WRONG if type(w) is not type(value)])
    if op == 2:
        return "huge", _huge(rng, value)
    if op == 3:
        return "empty", _empty(value)
    if op == 4:
        if type(value) is str:
            return "unknown_enum", rng.choice(_ENUMISH) if rng.random() < 0.5 else value + "_zz"
        return "unknown_enum", rng.choice(_ENUMISH)
    if op == 5:
        return "deep", _deep(rng, value)
    if op == 6:
        s = rng.choice(_BAD_STRINGS)
        if type(value) is str and rng.random() < 0.5:
            cut = rng.randrange(len(value) + 1)
            return "bad_string", value[:cut] + s + value[cut:]
        return "bad_string", s
    if op == 7:
        if type(value) is dict:
            extra = dict(value)
            extra[rng.choice(("zz_unknown", "type", "role", "", "\ud800"))] = rng.choice(_WRONG)
            return "unknown_key", extra
        return "wrong_type", {"zz": value}
    if op == 8:
        if type(value) is list and value:
            items = list(value)
            i = rng.randrange(len(items))
            items.insert(i, items[i])
            return "duplicate", items
        return "wrap_list", [value]
    if op == 9:
        try:
            return "swap", _get(doc, rng.choice(paths))
        except (KeyError, IndexError, TypeError):
            return "null", None
    if op == 10:
        if type(value) is str:
            return "bytes", value.encode("utf-8", "surrogatepass") + b"\xff\xfe"
        return "float_int", rng.choice((1.0, 0.5, float("nan"), float("inf"), -1))
    # numbers and booleans confused
    if type(value) is bool:
        return "bool_int", int(value)
    if type(value) is int:
        return "int_bool", bool(value) if rng.random() < 0.5 or abs(value) > 2**53 else float(value)
    return "negative", -1


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _paths(doc: Any) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    stack: list[tuple[Any, tuple[Any, ...]]] = [(doc, ())]
    while stack:
        node, path = stack.pop()
        out.append(path)
        if type(node) is dict:
            for k, v in node.items():
                stack.append((v, (*path, k)))
        elif type(node) is list:
            for i, v in enumerate(node):
                stack.append((v, (*path, i)))
    return out


def _set(doc: Any, path: tuple[Any, ...], value: Any, remove: bool) -> Any:
    """A copy of `doc` with the node at `path` replaced (or removed); only the spine is copied."""
    if not path:
        return value
    head = path[0]
    if type(doc) is dict:
        if head not in doc:
            return doc
        new: Any = dict(doc)
    elif type(doc) is list:
        if type(head) is not int or head >= len(doc):
            return doc
        new = list(doc)
    else:
        return doc
    if len(path) == 1 and remove:
        del new[head]
    else:
        new[head] = _set(doc[head], path[1:], value, remove)
    return new


@functools.cache
def _seed_paths(key: str, kind: str) -> list[tuple[Any, list[tuple[Any, ...]]]]:
    return [(doc, _paths(doc)) for doc in seeds(key)[kind]]


def mutate(rng: random.Random, doc: Any, paths: list[tuple[Any, ...]]) -> tuple[Any, list[str]]:
    """1..3 operators applied to `doc` (never modified); returns the new document and what was done."""
    done: list[str] = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        path = rng.choice(paths)
        if path and rng.random() < 0.2:
            doc = _set(doc, path, None, remove=True)
            done.append(f"remove@{_fmt_path(path)}")
            continue
        try:
            value = _get(doc, path)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier operator removed this node
        name, new = _mutate_value(rng, value, doc, paths)
        doc = _set(doc, path, new, remove=False)
        done.append(f"{name}@{_fmt_path(path)}")
    return doc, done


def _fmt_path(path: tuple[Any, ...]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if type(step) is int else (f".{step}" if out else str(step))
    return out or "<root>"


def case(rng: random.Random, key: str, entry: str) -> tuple[Any, list[str]] | None:
    """One mutated input for `entry` of format `key` (None when the format has no seed of that kind)."""
    kind = ENTRIES[entry]
    pool = _seed_paths(key, kind)
    if not pool:
        return None
    doc, paths = rng.choice(pool)
    if entry == "error_from_wire":
        status, body, headers = doc
        roll = rng.random()
        if roll < 0.15:
            status = rng.choice((None, "500", "abc", 99, 1000, -1, True, 2**70, 429.0, [], 503))
        if roll > 0.85:
            headers = rng.choice((None, {}, {"retry-after": rng.choice(("abc", "-5", "1e309", "nan", "Wed, 21 Oct 2015 07:28:00 GMT", "9" * 400))}, {"retry-after-ms": "\ud800"}, [("a", "b")], "x"))
        body_paths = _paths(body)
        new_body, done = mutate(rng, body, body_paths)
        if rng.random() < 0.1:
            new_body = rng.choice((json.dumps(body), b"\xff\xfe{", "not json", b"", "{" * 5000, new_body))
            done.append("body_as_text")
        return [status, new_body, headers], done
    return mutate(rng, doc, paths)


# ---------------------------------------------------------------------------------- oracle


class Finding(AssertionError):
    """A converter broke its contract on one input."""


def _valid_path(path: Any) -> bool:
    return path is None or (type(path) is str and not path.startswith(".") and ".." not in path)


def check(fmt: Any, entry: str, value: Any) -> str:
    """Run one case; returns the outcome ('ok' or the error category). Raises Finding."""
    fn = getattr(fmt, entry)
    if entry == "error_from_wire":
        try:
            err = fn(*value)
        except BaseException as exc:  # noqa: BLE001
            raise Finding(f"error_from_wire raised {type(exc).__name__}: {exc!s:.300}") from exc
        if not isinstance(err, ProviderError):
            raise Finding(f"error_from_wire returned {type(err).__name__}, not a ProviderError")
        if err.category not in wiremap.ERROR_CATEGORIES:
            raise Finding(f"unknown category {err.category!r}")
        str(err)
        return err.category
    try:
        fn(value)
    except ProviderError as exc:
        if exc.category not in wiremap.ERROR_CATEGORIES:
            raise Finding(f"unknown category {exc.category!r}") from exc
        if not _valid_path(exc.path):
            raise Finding(f"malformed error path {exc.path!r}") from exc
        str(exc)
        return exc.category
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001
        raise Finding(f"{entry} raised {type(exc).__name__}: {exc!s:.300}") from exc
    return "ok"


def cases(seed: int, key: str, entry: str, count: int) -> Iterator[tuple[Any, list[str]]]:
    rng = random.Random(f"{seed}:{key}:{entry}")
    for _ in range(count):
        c = case(rng, key, entry)
        if c is None:
            return
        yield c

"""Random JSONL lines for fuzzing `wiremap convert`, and the check of a run over them.

Used by tests/fuzz/test_fuzz_convert.py (a few hundred lines, fixed seeds) and by
bench/fuzz_convert.py (the long, bounded run). A line is any bytes but LF: valid bodies of the
source format, bodies mutated by tests/fuzz/mutate.py, random bytes, byte flips, truncations,
invalid UTF-8, lone surrogate escapes, nesting far past every limit, and odd JSON.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import mutate

KINDS = ("valid", "mutated_body", "random_bytes", "byte_flips", "truncated", "bad_utf8", "surrogate_escape", "deep", "odd_json")
ENTRY = {"request": "request_from_wire", "response": "response_from_wire"}
DEPTHS = (257, 300, 999, 1_000, 1_500, 5_000, 20_000)
BAD_UTF8 = (b"\xff", b"\xfe", b"\xc3\x28", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80")
REJECT_KEYS = {"line", "category", "message", "path"}
INTERNAL = "wiremap_internal_error"


def _seeds(key: str, what: str) -> list[Any]:
    pool = mutate.seeds(key)["requests" if what == "request" else "responses"]
    assert pool, f"{key} has no {what} seeds"
    return pool


def _strings(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    stack = [(value, path)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, str):
            out.append(where)
        elif isinstance(node, dict):
            stack.extend((v, (*where, k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, (*where, i)) for i, v in enumerate(node))
    return out


def _with_surrogate(rng: random.Random, body: Any) -> Any:
    body = json.loads(json.dumps(body))
    paths = _strings(body)
    if not paths:
        return {"model": "m", "messages": [{"role": "user", "content": "a\ud800"}]}
    path = rng.choice(paths)
    node = body
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = node[path[-1]] + rng.choice(("\ud800", "\udc80", "\udfff", "x\ud83d"))
    return body


def _no_lf(data: bytes) -> bytes:
    return data.replace(b"\n", b" ")


def _deep(rng: random.Random, body: Any) -> bytes:
    n = rng.choice(DEPTHS)
    inner = rng.choice((b"[" * n + b"]" * n, b'{"a":' * n + b"1" + b"}" * n))
    if rng.random() < 0.3 or not isinstance(body, dict):
        return inner
    head = json.dumps(body)[:-1].encode()
    return head + (b"," if len(head) > 1 else b"") + b'"x":' + inner + b"}"


def line(rng: random.Random, key: str, what: str) -> tuple[str, bytes]:
    """One random line for `convert --from key --what what`: (its kind, its bytes; no LF)."""
    kind = rng.choice(KINDS)
    seed = rng.choice(_seeds(key, what))
    valid = json.dumps(seed, ensure_ascii=rng.random() < 0.5).encode("utf-8")
    if kind == "valid":
        return kind, valid
    if kind == "mutated_body":
        case = mutate.case(rng, key, ENTRY[what])
        body = case[0] if case is not None else seed
        try:
            text = json.dumps(body, ensure_ascii=rng.random() < 0.3, default=repr)
        except (ValueError, TypeError, RecursionError):
            return kind, valid
        return kind, _no_lf(text.encode("utf-8", "surrogatepass"))  # a lone surrogate: CESU-8 bytes, not UTF-8
    if kind == "random_bytes":
        return kind, _no_lf(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200))))
    if kind == "byte_flips":
        data = bytearray(valid)
        for _ in range(rng.randrange(1, 6)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        return kind, _no_lf(bytes(data))
    if kind == "truncated":
        return kind, valid[: rng.randrange(len(valid) + 1)]
    if kind == "bad_utf8":
        at = rng.randrange(len(valid) + 1)
        return kind, valid[:at] + rng.choice(BAD_UTF8) + valid[at:]
    if kind == "surrogate_escape":
        return kind, json.dumps(_with_surrogate(rng, seed)).encode("ascii")
    if kind == "deep":
        return kind, _deep(rng, seed)
    return kind, rng.choice((
        b"NaN", b"Infinity", b"-Infinity", b"1" * 5000, b"1e999", b'"a string"', b"null", b"[]", b"{}", b"true",
        b"\xef\xbb\xbf" + valid, valid + b"\r", valid + b"\r\r", b"\x00", b"", b" ", b"\t", valid + b" trailing",
        valid + valid, b'{"model": "m", "messages": [{"role": "user", "content": "\\u0000"}]}',
        b'{"a": "\\ud800\\udc00"}', b'{"\\ud800": 1}',
    ))


def lines(seed: str, key: str, what: str, count: int) -> tuple[list[bytes], dict[str, int]]:
    """`count` random lines and how many of each kind."""
    rng = random.Random(seed)
    out: list[bytes] = []
    kinds: dict[str, int] = {}
    for _ in range(count):
        kind, data = line(rng, key, what)
        assert b"\n" not in data
        out.append(data)
        kinds[kind] = kinds.get(kind, 0) + 1
    return out, kinds


def write(path: Path, data: list[bytes], *, final_newline: bool = True) -> None:
    path.write_bytes(b"\n".join(data) + (b"\n" if final_newline else b""))


def check_run(count: int, out_path: Path, rejects_path: Path) -> dict[str, Any]:
    """What a run over `count` input lines must leave: in = out + rejected, every output line a
    JSON object in UTF-8, every reject record `{line, category, message, path}` with distinct,
    increasing line numbers in 1..count, and no internal error. Returns the counts."""
    out = out_path.read_bytes().split(b"\n")
    rej = rejects_path.read_bytes().split(b"\n")
    assert out[-1] == b"" and rej[-1] == b"", "every record ends with LF"
    out, rej = out[:-1], rej[:-1]
    for data in out:
        assert isinstance(json.loads(data.decode("utf-8")), dict)
    numbers = []
    categories: dict[str, int] = {}
    for data in rej:
        record = json.loads(data.decode("utf-8"))
        assert set(record) == REJECT_KEYS, record
        assert isinstance(record["message"], str) and record["message"]
        assert record["path"] is None or isinstance(record["path"], str)
        numbers.append(record["line"])
        categories[record["category"]] = categories.get(record["category"], 0) + 1
    assert numbers == sorted(set(numbers)) and all(1 <= n <= count for n in numbers), "one record per rejected line, in order"
    assert len(out) + len(rej) == count, f"in {count} != out {len(out)} + rejected {len(rej)}"
    assert INTERNAL not in categories, categories
    return {"lines": count, "written": len(out), "rejected": len(rej), "categories": categories}

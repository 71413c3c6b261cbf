"""Compiled stream parse rules (codegen/emit/stream.py `parse_function`) against the interpreter
they replace: the same canonical events, error events included (their categories, messages and
paths), for every format's rules on every recorded stream.

The oracle is `StreamParser` as it was before the rules were compiled: its rule table prepared
once, then, for every decoded event, every rule group walked with `_get` (copied below from
runtime/stream.py at that commit). Both parsers share everything else (SSE framing, `_apply`),
so a difference can only come from matching a rule or gathering its values.

The streams: tests/stream/recorded.py, the recorded traffic in ../shared/recorded (when it is
beside the repository), and variants of both with values replaced by other JSON types, removed,
or put inside lists (so the rules' type tests, paths into lists and `_Malformed` reports are
reached). Each stream is read by the parse rules of its own format and of every other distinct
rule table, split at random byte positions. A table with what the committed mappings do not use
(int indexes in a `when` path, `true` against 1, null against missing, every `when_type`, an
empty path, mixed event names in one `each` group) is compiled here and run on random events.
"""

from __future__ import annotations

import json
import random
import sys
import types
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recorded import ALL  # noqa: E402

import wiremap  # noqa: E402
from wiremap.codegen.emit.stream import ParseRules, parse_function  # noqa: E402
from wiremap.runtime.format import Format, formats, get_format  # noqa: E402
from wiremap.runtime.stream import StreamParser, _Malformed  # noqa: E402
from wiremap.runtime.stream_emit import MISSING  # noqa: E402

RECORDED_DIR = Path(__file__).resolve().parents[3] / "shared" / "recorded"

_JSON_TYPES = {"string": (str,), "number": (int, float), "boolean": (bool,), "object": (dict,), "array": (list,)}


def _get(obj: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        if isinstance(key, int):
            if type(obj) is not list or not -len(obj) <= key < len(obj):
                return MISSING
            obj = obj[key]
        else:
            if type(obj) is not dict or key not in obj:
                return MISSING
            obj = obj[key]
    return obj


class Interpreter(StreamParser):
    """The parser before its rules were compiled: the rule table walked for every event."""

    def __init__(self, fmt: str | Format) -> None:
        super().__init__(fmt)
        parse = self.table["parse"]
        old_rules: list[dict[str, Any]] = [
            {
                **rule,
                "event": frozenset(rule["event"]) if rule.get("event") is not None else None,
                "when": [(tuple(p), v) for p, v in rule.get("when") or ()],
                "unless": [(tuple(p), v) for p, v in rule.get("unless") or ()],
                "when_type": [(tuple(p), _JSON_TYPES[t]) for p, t in rule.get("when_type") or ()],
                "each": tuple(rule["each"]) if rule.get("each") is not None else None,
                "fields": [
                    (name, tuple(tuple(p) for p in path) if path and isinstance(path[0], list) else tuple(path), optional)
                    for name, path, optional in rule["fields"]
                ],
                "const": [(name, value) for name, value in (rule.get("const") or {}).items()],
            }
            for rule in parse["rules"]
        ]
        self._groups: list[list[dict[str, Any]]] = []
        for rule in old_rules:
            if rule["each"] is not None and self._groups and self._groups[-1][0]["each"] == rule["each"]:
                self._groups[-1].append(rule)
            else:
                self._groups.append([rule])

    def _message(self, event: str | None, data: str, out: list[dict[str, Any]]) -> None:
        self.events_seen += 1
        if self._done_marker is not None and data == self._done_marker:
            self._end(out)
            return
        if not data and event is None:
            return
        try:
            obj = json.loads(data)
        except (ValueError, RecursionError) as exc:
            self._error(out, "provider_invalid_response", f"stream event {self.events_seen} is not JSON: {exc}", raw=data[:2000])
            return
        if type(obj) is not dict:
            self._error(out, "provider_invalid_response", f"stream event {self.events_seen} is not a JSON object", raw=obj)
            return
        name = event
        if name is None and self._event_from:
            kind = obj.get(self._event_from)
            name = kind if isinstance(kind, str) else None
        try:
            if self._carry is not None:  # the carried data: shared, as SSE framing and `_apply` are
                self._pending = self._unread(obj, name)
                self._claimed = False
            self._walk(obj, name, out)
            if self._pending is not None:
                self._unclaimed(obj, name)
        except _Malformed as exc:
            self._error(out, "provider_invalid_response", exc.message, raw=obj, path=exc.path)
        except RecursionError:  # a value nested past Python's limit somewhere in the event
            self._error(out, "provider_invalid_response", f"stream event {self.events_seen} is nested too deeply", raw=data[:2000])

    def _walk(self, obj: dict[str, Any], name: str | None, out: list[dict[str, Any]]) -> None:
        """Every rule group against the event, as before the rules were compiled."""
        for group in self._groups:
            each = group[0]["each"]
            if each is None:
                units: list[tuple[dict[str, Any], Any, Any]] = [(group[0], obj, None)]
            else:  # consecutive rules over one list: item by item, so the parts keep their order
                seq = _get(obj, each)
                units = [(rule, x, (each, i)) for i, x in enumerate(seq) for rule in group] if type(seq) is list else []
            for rule, item, base_path in units:
                events = rule.get("event")
                if events is not None and name not in events:
                    continue
                when, unless = rule["when"], rule["unless"]
                # with `each`, when/unless test the item; without, the event
                if when and not all(_get(item, p) == v for p, v in when):
                    continue
                if unless and any(_get(item, p) == v for p, v in unless):
                    continue
                if rule["when_type"] and not all(type(_get(item, p)) in t for p, t in rule["when_type"]):
                    continue  # `when_type`: the value there is another JSON type (another rule reads it)
                values: dict[str, Any] = {}
                ok = True
                for fname, path, optional in rule["fields"]:
                    if path and type(path[0]) is tuple:  # a composite key: one value per path
                        parts = tuple(_get(item, p) for p in path)
                        value = MISSING if any(v is MISSING or v is None for v in parts) else parts
                        where_path = path[0]
                    else:
                        value = _get(item, path)
                        where_path = path
                    if value is MISSING or value is None:
                        if optional:
                            continue
                        ok = False
                        break
                    values[fname] = (value, (where_path, base_path))  # the path text only when it is reported
                for fname, value in rule["const"]:
                    values[fname] = (value, ((), base_path))
                if ok:
                    self._claimed = True  # as StreamParser._rule
                    self._apply(rule["emit"], values, obj, out, rule)
                if self.failed or self.ended:
                    return


# ------------------------------------------------------------------------------------ streams


def _recorded_streams() -> list[tuple[str, str, bytes]]:
    """(id, format, body) of every stream in tests/stream/recorded.py and ../shared/recorded."""
    found = [(r.id, r.format, r.body) for r in ALL]
    for path in sorted(RECORDED_DIR.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                record = json.loads(line)
                if record["kind"] == "stream":
                    found.append((f"{path.name}:{n}", record["format"], record["sse"].encode("utf-8")))
    return found


STREAMS = _recorded_streams()
FORMATS = [key for key in formats() if get_format(key).stream]


def _tables() -> list[str]:
    """One format per distinct parse table (its rules, `done`, `event_from`): a dialect that
    keeps its base's rules compiles to the same function."""
    seen: dict[str, str] = {}
    for key in FORMATS:
        parse = get_format(key).stream["parse"]  # type: ignore[index]
        seen.setdefault(repr((parse["rules"], parse.get("done"), parse.get("event_from"))), key)
    return sorted(seen.values())


TABLES = _tables()
_SUBSTITUTES: list[Any] = [None, 0, 7, -1, 1.5, True, False, "", "x", [], [1, "a"], {}, {"type": "text"}, [{"index": 0}]]


def _mutate(body: bytes, rng: random.Random) -> bytes:
    """A variant of an SSE body: in some `data:` objects, one value replaced by another JSON type
    (or removed, or put in a list); every other line as it was."""
    lines = body.decode("utf-8").split("\n")
    for n, line in enumerate(lines):
        if not line.startswith("data:") or rng.random() > 0.3:
            continue
        try:
            obj = json.loads(line[5:])
        except ValueError:
            continue
        spots: list[tuple[Any, Any]] = []

        def walk(value: Any) -> None:
            if isinstance(value, dict):
                for k, v in value.items():
                    spots.append((value, k))
                    walk(v)
            elif isinstance(value, list):
                for i, v in enumerate(value):
                    spots.append((value, i))
                    walk(v)

        walk(obj)
        if not spots:
            continue
        holder, key = rng.choice(spots)
        roll = rng.random()
        if roll < 0.15 and isinstance(holder, dict):
            del holder[key]
        elif roll < 0.25:
            holder[key] = [holder[key]]
        else:
            holder[key] = rng.choice(_SUBSTITUTES)
        lines[n] = "data: " + json.dumps(obj, ensure_ascii=False)
    return "\n".join(lines).encode("utf-8")


def _splits(body: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.sample(range(1, len(body)), min(len(body) - 1, rng.randint(0, 12)))) if len(body) > 1 else []
    return [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)])]


def _read(parser: StreamParser, chunks: list[bytes]) -> str:
    """Every event, call by call, and where the parser stopped: as text, so that types count."""
    calls = [parser.feed(chunk) for chunk in chunks] + [parser.close()]
    return repr((calls, parser.events_seen, parser.failed, parser.ended, parser.finished))


def _same(fmt: str | Format, chunks: list[bytes]) -> str:
    expected = _read(Interpreter(fmt), chunks)
    got = _read(StreamParser(fmt), chunks)
    assert got == expected
    return got


@pytest.mark.parametrize("table", TABLES)
def test_every_recorded_stream_reads_the_same_under_every_table(table: str) -> None:
    rng = random.Random(f"cross:{table}")
    for _id, _fmt, body in STREAMS:
        _same(table, _splits(body, rng))


@pytest.mark.parametrize("stream", STREAMS, ids=[s[0] for s in STREAMS])
def test_a_recorded_stream_and_its_variants_read_the_same_in_their_format(stream: tuple[str, str, bytes]) -> None:
    ident, fmt, body = stream
    rng = random.Random(ident)
    for n in range(8):
        _same(fmt, _splits(body if n == 0 else _mutate(body, rng), rng))


def test_the_variants_reach_error_events_with_paths() -> None:
    # the comparison above is only as good as what the variants reach: errors with a path
    # (`_Malformed`, the rules' values) among them
    rng = random.Random("paths")
    paths = set()
    for ident, fmt, body in STREAMS[:: max(1, len(STREAMS) // 40)]:
        for _ in range(4):
            for call in StreamParser(fmt).feed(_mutate(body, rng)):
                if call["type"] == "error" and "path" in call:
                    paths.add(call["path"])
    assert len(paths) >= 5, paths


# ------------------------------------------------------------------------------------ a table of every form


SYNTHETIC_RULES: list[dict[str, Any]] = [
    {"emit": "error", "fields": [["error", ["error"], False]], "event": ["error", "oops"], "when": [], "each": None, "status": 503,
     "wrap": "error"},
    {"emit": "message_start", "fields": [["id", ["m", "id"], True], ["model", ["m", "model"], True]], "event": ["start"], "when": [], "each": None},
    # int indexes in a when path; true against 1; null against missing
    {"emit": "text", "fields": [["text", ["a", 0, "t"], False], ["index", ["a", 1], True]], "event": None,
     "when": [[["a", 0, "k"], True]], "each": None},
    {"emit": "reasoning", "fields": [["text", ["r"], False]], "event": None, "when": [[["flag"], None]], "unless": [[["n"], 2], [["n"], "2"]],
     "each": None},
    # every when_type, with paths into lists
    *[{"emit": "text", "fields": [["text", ["s", 0], False]], "event": ["typed"], "when": [], "each": None, "when_type": [[["v", 0], kind]]}
      for kind in ("string", "number", "boolean", "object", "array")],
    # an each group with several event names, and an empty path (the item itself)
    {"emit": "tool_call", "fields": [["index", ["i"], False], ["id", ["id"], True], ["name", ["f", "n"], True], ["arguments", ["f", "a"], True]],
     "event": ["calls"], "when": [], "each": ["d", "calls"]},
    {"emit": "text", "fields": [["text", [], False]], "event": ["calls", "texts"], "when": [], "unless": [[["i"], 0]], "each": ["d", "calls"]},
    {"emit": "signature", "fields": [["signature", ["sig"], False], ["index", [["o"], ["c"]], True]], "event": None, "when": [[["kind"], "sig"]],
     "each": ["d", "calls"], "const": None},
    # a composite key, and a const with an each base
    {"emit": "text", "fields": [["index", [["o"], ["c"]], False], ["text", ["t"], False]], "event": ["parts"], "when": [], "each": ["ps"]},
    {"emit": "redacted_reasoning", "fields": [["index", ["o"], False]], "event": ["parts"], "when": [], "each": ["ps"], "const": {"data": "fixed"}},
    {"emit": "block_end", "fields": [["index", ["end"], False]], "event": None, "when": [], "each": None},
    {"emit": "usage", "fields": [["usage", ["u"], False]], "event": None, "when": [], "each": None},
    {"emit": "finish", "fields": [["reason", ["fin"], False]], "event": ["stop", "typed"], "when": [], "each": None},
    {"emit": "end", "fields": [], "event": ["done"], "when": [], "each": None},
]
for _rule in SYNTHETIC_RULES:
    if _rule.get("const") is None:
        _rule.pop("const", None)
    if not _rule.get("unless"):
        _rule.pop("unless", None)


def _synthetic_format() -> Format:
    """openai_chat with the synthetic rules, matched by the function the generator writes."""
    fn = parse_function(ParseRules("_stream_parse", SYNTHETIC_RULES))
    source = (
        "from typing import Any\n"
        "from wiremap.runtime.stream_emit import MISSING as _MISSING, RuleApply as _RuleApply\n"
        f"def {fn.name}{fn.signature}:\n" + "\n".join(fn.body) + "\n"
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, "<parse>", "exec"), namespace)
    base = get_format("openai_chat")
    module = types.ModuleType("synthetic_parse")
    module.__dict__.update(vars(base.module))
    table = dict(base.module.STREAM)
    table["parse"] = {"done": "[DONE]", "event_from": "type", "rules": SYNTHETIC_RULES, "match": namespace[fn.name]}
    module.STREAM = table
    return wiremap.load_format(module)


_LEAVES: list[Any] = [None, 0, 1, 2, "2", 1.0, True, False, "", "hi", "x", {}, [], {"id": "c"}, [1], {"type": "text"}]


def _random_event(rng: random.Random) -> dict[str, Any]:
    def leaf() -> Any:
        return rng.choice(_LEAVES)

    obj: dict[str, Any] = {}
    if rng.random() < 0.9:
        obj["type"] = rng.choice(["start", "typed", "typed", "calls", "calls", "texts", "parts", "parts", "stop", "oops", "ping", None, 3])
    for key, make in (
        ("a", lambda: [{"k": rng.choice([True, 1, 1.0, False, None]), "t": rng.choice(["t", 5, None])}, rng.choice([0, "a", 2.5, None])][: rng.randint(0, 2)]),
        ("flag", lambda: rng.choice([None, 0, False])),
        ("r", lambda: rng.choice(["think", "", 4, None])),
        ("n", lambda: rng.choice([2, "2", 2.0, 3])),
        ("v", lambda: [leaf()] if rng.random() < 0.8 else leaf()),
        ("s", lambda: [rng.choice(["s", "s", 9, None])]),
        ("d", lambda: {"calls": [
            {"i": rng.choice([0, 1, "k", None, 1.5]), "id": rng.choice(["c1", None, 3]), "f": {"n": rng.choice(["get", 4]), "a": rng.choice(["{}", {"x": 1}, 2])},
             "kind": rng.choice(["sig", None]), "sig": rng.choice(["s1", {"q": 1}, 8]), "o": rng.choice([0, 1, None, [1]]), "c": rng.choice([0, "c", None])}
            if rng.random() < 0.8 else leaf() for _ in range(rng.randint(0, 3))
        ] if rng.random() < 0.9 else leaf()}),
        ("ps", lambda: [{"o": rng.choice([0, 1, "o", None, 2.5]), "c": rng.choice([0, 1, None, [0]]), "t": rng.choice(["p", None, 6])}
                        for _ in range(rng.randint(0, 3))]),
        ("end", lambda: rng.choice([0, 1, "k", None, 1.5])),
        ("u", lambda: rng.choice([{"prompt_tokens": 3}, 7, None])),
        ("fin", lambda: rng.choice(["stop", "length", None, 3])),
        ("m", lambda: {"id": rng.choice(["m1", 5, None]), "model": rng.choice(["x", None])}),
        ("error", lambda: rng.choice([{"message": "boom", "type": "overloaded_error"}, "bad", None])),
        ("kind", lambda: rng.choice(["sig", "other"])),
    ):
        if rng.random() < 0.6:
            obj[key] = make()
    return obj


@pytest.mark.parametrize("seed", range(6))
def test_a_table_of_every_rule_form_reads_random_events_the_same(seed: int) -> None:
    fmt = _synthetic_format()
    rng = random.Random(seed)
    for _ in range(100):
        events = [_random_event(rng) for _ in range(rng.randint(1, 12))]
        lines = []
        for ev in events:
            named = rng.random() < 0.2
            lines.append((f"event: {rng.choice(['calls', 'parts', 'error', 'done'])}\n" if named else "") + f"data: {json.dumps(ev)}\n\n")
        if rng.random() < 0.5:
            lines.append("data: [DONE]\n\n")
        body = "".join(lines).encode("utf-8")
        _same(fmt, _splits(body, rng))


def test_a_module_generated_with_interpreted_rules_is_refused_by_name() -> None:
    base = get_format("openai_chat")
    module = types.ModuleType("pre_compiled_parse")
    module.__dict__.update(vars(base.module))
    table = dict(base.module.STREAM)
    table["parse"] = {k: v for k, v in table["parse"].items() if k != "match"}
    module.STREAM = table
    with pytest.raises(NotImplementedError, match="openai_chat was generated before stream parse rules were compiled"):
        StreamParser(wiremap.load_format(module))

"""Streaming: canonical stream events and one generic engine driven by each format's `STREAM` table.

A mapping's `stream:` section (mappings/README.md "stream") is compiled by the generator into the
converter module's `STREAM` constant: plain data, except for the functions of that module it
names (codegen/emit/stream.py): each emit row is one (`(values) -> (event, data)`) that writes
the row's templates, and the parse rules are matched by one (`_stream_parse`) that tests a
decoded event against each rule and gathers its values, so neither a template nor a rule's paths
are interpreted here. Everything format-specific lives there; this module only reads it:

- `StreamParser(fmt)`: bytes in (split at any byte boundary), canonical events out. SSE framing
  (LF, CRLF or CR line ends, multi-line `data:`, comments and `id:`/`retry:` lines ignored), the
  table's end sentinel (`[DONE]`), keep-alives (`ping`) and unknown event kinds ignored.
- `StreamAssembler(fmt)`: canonical events -> the `Response` the non-streamed parser gives for the
  equivalent body (OpenArmature §6 "Streaming assembly"); `raw` is that equivalent body, with the
  terminal usage object kept verbatim.
- The table's `framing: aws_eventstream` reads and writes the AWS binary event-stream instead of
  SSE (`runtime/eventstream.py`): `:event-type` names the event, an exception message is the
  stream's error.
- `StreamEmitter(fmt)`: canonical events -> the format's SSE bytes, with what it could not carry
  recorded as `Loss` records.
- `stream_request_to_wire(fmt, request)`: the request body of a streaming call: the table's
  `request` fields (`stream: true`, `stream_options`) are managed (OpenArmature §6): a matching
  extras value is absorbed, a conflicting one is `provider_invalid_request`.
- `translate_stream(source_bytes_or_events, source, target)`: re-emits a stream in another format
  as it arrives (sync or async iterables), with the assembled `Response` and the loss report.

Canonical stream events are plain dicts (public API, like the canonical model):

    {"type": "message_start", "raw": {"id": ..., "model": ...}}        # the wire's top-level scalars; id?, model?, created?
                                                                       # where the table names them (Gemini's modelVersion)
    {"type": "text_delta", "index": 0, "text": "Hel"}                  # index: the content part
    {"type": "text_signature", "index": 0, "signature": "c2ln"}       # a text part's own signature (Gemini)
    {"type": "reasoning_delta", "index": 0, "text": "Let me"}
    {"type": "reasoning_signature", "index": 0, "signature": "EqQB..."}
    {"type": "redacted_reasoning", "index": 1, "data": "opaque"}
    {"type": "tool_call_start", "index": 0, "id": "call_a", "name": "get_weather"}  # index: the call; signature?
    {"type": "tool_call_delta", "index": 0, "arguments": "{\\"city\\":"}
    {"type": "tool_call_end", "index": 0}
    {"type": "usage", "usage": {"prompt_tokens": 7, ...}, "raw": {...wire usage, verbatim}}
    {"type": "finish", "finish_reason": "stop", "raw": "end_turn"}
    {"type": "carried", "origin": "azure/openai_chat",                  # wire data the canonical model does not model
     "data": [{"path": ["choices", 0, "content_filter_results"], "value": {...}}, ...]}
    {"type": "error", "category": "provider_unavailable", "message": "...", "raw": {...}}
    # error_type?: an AWS event-stream exception's `:exception-type`

Content indexes number the parts of `message.content` in order (a new index starts a new part);
tool-call indexes number `message.tool_calls`. Every event after `message_start`; `usage` is
cumulative (the latest one holds the totals); `error` is always the last event.

`carried` (at most one, just before the stream's end or its `error`): the wire data of the stream
its rules do not read, with the format's origin (runtime/carry.py), each at a wire path: a key no
rule and no table of the format names, at its path in the event (prefixed by the event's name
where the events are named; its last non-empty value: such keys repeat on every chunk, or grow), a
whole named event no rule names or matches, at the event's name (every one, in order), and what a
`carry` rule reads, at its `to` path of the non-streamed body (merged by its `merge`). `StreamAssembler` folds
it into `Response.carried`, so a translation names it as lost where the target is another wire
(docs/canonical.md "Carried data in streams").
"""

from __future__ import annotations

import base64
import json
from json.decoder import JSONDecoder
from json.encoder import encode_basestring
from json.scanner import make_scanner
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from typing import Any, Final

from .canonical import Response
from .carry import ABSENT, Carried, copy_value as carry_copy, placed
from .errors import (
    InvalidRequestError,
    InvalidResponseError,
    ProviderError,
    UnavailableError,
    error_class,
)
from .eventstream import MEDIA_TYPE as EVENTSTREAM_MEDIA_TYPE, EventStreamDecoder, EventStreamMessage, encode_message
from .format import Format, get_format
from .stream_emit import MISSING as _MISSING, Lazy, RuleApply, Unreported, Unwritable
from .validate import MAX_JSON_DEPTH, json_too_deep
from .wire import deep_equal, error_row, usage_addend, usage_counter, usage_rest

_EVENTSTREAM: Final = ("aws_eventstream", "aws_eventstream_chunks")  # the framings of AWS's binary event-stream

__all__ = [
    "STREAM_EVENT_TYPES",
    "StreamParser",
    "StreamAssembler",
    "StreamEmitter",
    "StreamTranslation",
    "stream_request_to_wire",
    "translate_stream",
    "stream_error",
]

STREAM_EVENT_TYPES: Final = (
    "message_start",
    "text_delta",
    "text_signature",
    "reasoning_delta",
    "reasoning_signature",
    "redacted_reasoning",
    "tool_call_start",
    "tool_call_delta",
    "tool_call_end",
    "usage",
    "finish",
    "carried",
    "error",
)

_PART_KINDS: Final = {"text_delta": "text", "text_signature": "text", "reasoning_delta": "thinking", "reasoning_signature": "thinking", "redacted_reasoning": "redacted_thinking"}


def _canonical_json(value: Any) -> str:
    """An object kept verbatim as text (a reasoning item, an entry): compact, keys sorted,
    non-ASCII kept -- the encoding the non-streamed readers use (wire.dumps)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _fmt(key: str | Format) -> Format:
    return key if isinstance(key, Format) else get_format(key)


def _table(fmt: Format) -> dict[str, Any]:
    table = fmt.stream
    if not table:
        raise InvalidRequestError(
            f"{fmt.key} does not support streaming (its mapping has no `stream:` table); "
            "call without stream", path="stream"
        )
    return table


def _get(obj: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        if isinstance(key, int):
            if type(obj) is not list or not -len(obj) <= key < len(obj):
                return _MISSING
            obj = obj[key]
        else:
            if type(obj) is not dict or key not in obj:
                return _MISSING
            obj = obj[key]
    return obj


def _path_text(path: tuple[Any, ...], prefix: str = "") -> str:
    out = prefix
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


def _set(obj: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    """Set a value at a path of object keys (lists along the way: their first item)."""
    cur: Any = obj
    for i, key in enumerate(path[:-1]):
        nxt = cur[key] if (isinstance(key, int) and isinstance(cur, list) and key < len(cur)) else (
            cur.get(key) if isinstance(cur, dict) else None
        )
        if not isinstance(nxt, (dict, list)):
            nxt = [] if isinstance(path[i + 1], int) else {}
            if isinstance(cur, dict):
                cur[key] = nxt
            else:  # pragma: no cover - paths into lists are only read
                return
        cur = nxt
    last = path[-1]
    if isinstance(cur, dict):
        cur[last] = value
    elif isinstance(cur, list) and isinstance(last, int) and last < len(cur):
        cur[last] = value


# ------------------------------------------------------------------------------------ usage


def _usage_sum(raw: Any, where: Mapping[str, Any]) -> int | None:
    optional = where.get("optional") or [False] * len(where["sum"])
    total = 0
    for p, opt in zip(where["sum"], optional):
        value = _get(raw, tuple(p))
        v = usage_addend(None if value is _MISSING else value) if opt else usage_counter(None if value is _MISSING else value)
        if v is None:
            return None
        total += v
    return total


def usage_from_wire(spec: Mapping[str, Any], raw: Any) -> dict[str, Any]:
    """Canonical usage from a wire usage object, by the table's counters (malformed -> null).
    A sum counter (codegen/sections/usage.py) is read at its `path` when it has one, else summed."""
    out: dict[str, Any] = {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}
    if type(raw) is not dict:
        return out
    for key, other in (spec.get("fallback") or {}).items():  # response.usage.fallback
        if type(raw.get(key)) is not dict and type(raw.get(other)) is dict:
            raw = {**raw, key: raw[other]}
    for name, where in spec["counters"].items():
        if isinstance(where, dict) and "path" not in where:
            value = _usage_sum(raw, where)
            if name in ("cached_tokens", "cache_creation_tokens", "reasoning_tokens"):
                if value is not None:
                    out[name] = value
            else:
                out[name] = value
        else:
            value = _get(raw, tuple(where["path"] if isinstance(where, dict) else where))
            if name in ("cached_tokens", "cache_creation_tokens", "reasoning_tokens"):
                if value is not _MISSING and value is not None:
                    out[name] = usage_counter(value)
            else:
                out[name] = usage_counter(None if value is _MISSING else value)
    return out


def usage_to_wire(spec: Mapping[str, Any], usage: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A wire usage object from canonical usage; None when the table writes counters
    all-or-nothing (`omit`) and one is unreported. A sum counter writes its `path` (if any) and
    its free addend, the counter minus what the other counters write at its other addends
    (codegen/sections/usage.py), in the counter's place; a sum with no free addend is derived and not
    written. The same rules as the generated `response_to_wire`."""
    usage = usage or {}
    zero = spec.get("unreported") == "zero"
    names = ("prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens", "cache_creation_tokens", "reasoning_tokens")
    counters = spec["counters"]
    if not zero and any(usage.get(n) is None for n in names[:3] if n in counters):
        return None
    writes: list[tuple[tuple[Any, ...], Any]] = []  # (wire path, value) in counter order
    value_of: dict[tuple[Any, ...], Any] = {}
    for name in names:
        where = counters.get(name)
        path = where.get("path") if isinstance(where, dict) else where
        if path is None:
            continue
        value = usage.get(name)
        if name in names[:3]:
            value = value if value is not None else 0
        value_of[tuple(path)] = value
    for name in names:
        where = counters.get(name)
        if where is None:
            continue
        path = where.get("path") if isinstance(where, dict) else where
        if path is not None and value_of.get(tuple(path)) is not None:
            writes.append((tuple(path), value_of[tuple(path)]))
        if isinstance(where, dict) and where.get("free") is not None:
            free = where["free"]
            optional = where.get("optional") or [False] * len(where["sum"])
            bound = [value_of.get(tuple(p)) for k, p in enumerate(where["sum"]) if k != free]
            value = usage.get(name)
            if name in names[:3] and value is None:
                value = 0
            if optional[free] and any(v is None for v in bound):
                continue  # an optional free addend is written only beside every other addend
            rest = usage_rest(value, *(usage_addend(v) for v in bound))
            value_of[tuple(where["sum"][free])] = rest
            if rest is not None:
                writes.append((tuple(where["sum"][free]), rest))
    out: dict[str, Any] = {}
    for path, value in writes:
        _set(out, path, value)
    return out


def _merge_usage(into: dict[str, Any], new: Mapping[str, Any]) -> None:
    for key, value in new.items():
        if value is None and into.get(key) is not None:
            continue  # a later event that does not repeat a counter keeps the earlier one
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge_usage(into[key], value)
        else:
            into[key] = json.loads(json.dumps(value)) if isinstance(value, (dict, list)) else value


def _finish(table: Mapping[str, Any], wire: Any) -> str:
    mapped = table["finish"]["map"].get(wire) if isinstance(wire, str) else None
    return str(mapped) if mapped is not None else str(table["finish"]["default"])


def _finish_to_wire(table: Mapping[str, Any], canonical: str, raw: Any) -> Any:
    fin = table["finish"]
    if isinstance(raw, str) and fin["map"].get(raw) == canonical:
        return raw  # the provider's own listed value, when it means the same
    if canonical in fin["emit"]:
        return fin["emit"][canonical]
    for wire, value in fin["map"].items():
        if value == canonical:
            return wire
    return canonical


# ------------------------------------------------------------------------------------ SSE framing


class SSEDecoder:
    """Server-sent-event framing over byte chunks split anywhere (WHATWG HTML §9.2.6)."""

    __slots__ = ("_buf", "_event", "_data")

    def __init__(self) -> None:
        self._buf = b""
        self._event: str | None = None
        self._data: list[str] | None = None

    def feed(self, chunk: bytes) -> list[tuple[str | None, str]]:
        buf = self._buf + chunk if self._buf else chunk
        hold = b""
        if b"\r" in buf:
            if buf.endswith(b"\r"):  # maybe half of a CRLF: decide with the next chunk
                buf, hold = buf[:-1], b"\r"
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = buf.split(b"\n")
        rest = lines.pop()
        self._buf = rest + hold if hold else rest
        out: list[tuple[str | None, str]] = []
        for line in lines:
            # the lines of nearly every event, read by their bytes ("data: " and "event: " are
            # ASCII, so decoding the rest is decoding the line); any other line by `_line`
            if not line:
                if self._data is not None:
                    out.append((self._event, self._data[0] if len(self._data) == 1 else "\n".join(self._data)))
                self._event, self._data = None, None
            elif line.startswith(b"data: "):
                if self._data is None:
                    self._data = [line[6:].decode("utf-8", "replace")]
                else:
                    self._data.append(line[6:].decode("utf-8", "replace"))
            elif line.startswith(b"event: "):
                self._event = line[7:].decode("utf-8", "replace")
            else:
                self._line(line, out)
        return out

    def close(self) -> list[tuple[str | None, str]]:
        """What is left at the end of the body (a last event without its blank line is kept)."""
        out: list[tuple[str | None, str]] = []
        buf, self._buf = self._buf, b""
        if buf:
            for line in buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n"):
                self._line(line, out)
        if self._data is not None:
            out.append((self._event, "\n".join(self._data)))
        self._event, self._data = None, None
        return out

    def _line(self, raw: bytes, out: list[tuple[str | None, str]]) -> None:
        if not raw:
            if self._data is not None:
                out.append((self._event, "\n".join(self._data)))
            self._event, self._data = None, None
            return
        line = raw.decode("utf-8", "replace")
        if line.startswith(":"):
            return  # comment / keep-alive
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            if self._data is None:
                self._data = [value]
            else:
                self._data.append(value)
        elif name == "event":
            self._event = value
        # id, retry and unknown fields are ignored


# ------------------------------------------------------------------------------------ parser


def _unknown_keys(obj: dict[str, Any], path: tuple[Any, ...], at: tuple[Any, ...], carry: "_CarrySpec",
                  out: dict[tuple[Any, ...], Any]) -> None:
    """Each value in `obj` (and in the objects inside its named keys, through lists) under a key
    no rule and no table names, at its path, into `out` (the last one wins). `at` is the path
    inside the event with list positions as "*" (what `whole` lists: values a rule reads whole).
    Null and empty values are no data (a chunk's way of saying "nothing here"). Runs on every
    event: a named key holding a scalar, most of a chunk, costs a set lookup and a type test."""
    known = carry.known
    for k, v in obj.items():
        if k in known:
            t = type(v)
            if t is dict:
                if v:
                    inner = at + (k,)
                    if inner not in carry.whole:
                        _unknown_keys(v, path + (k,), inner, carry, out)
            elif t is list and v:
                inner = at + (k, "*")
                if inner not in carry.whole and at + (k,) not in carry.whole:
                    for i, item in enumerate(v):
                        if type(item) is dict:
                            _unknown_keys(item, path + (k, i), inner, carry, out)
        elif v is not None and k not in carry.noise and v != "" and v != [] and v != {}:
            out[path + (k,)] = v


class _CarrySpec:
    """What a format's stream rules read (STREAM.parse.carry), looked up once per format."""

    __slots__ = ("table", "origin", "known", "noise", "whole", "events", "quiet")

    def __init__(self, fmt: Format, carry: Mapping[str, Any]) -> None:
        self.table = carry
        module = fmt.module
        self.origin = str(getattr(module, "ORIGIN", f"{fmt.provider}/{fmt.key}"))
        self.known = frozenset(getattr(module, "WIRE_KEYS", ())) | frozenset(carry["keys"])
        self.noise = frozenset(carry.get("ignore_keys") or ())
        self.whole = frozenset(tuple(p) for p in carry.get("whole") or ())
        self.events = None if carry["events"] is None else frozenset(carry["events"])
        self.quiet = frozenset(carry["quiet"])


_CARRY_SPECS: dict[tuple[str, int], _CarrySpec] = {}
_scan: Final = make_scanner(JSONDecoder())  # type: ignore[arg-type]  # typeshed names the C class, not the decoder it takes


def _loads(data: str) -> Any:
    """`json.loads(data)` for an event's data: the scanner straight away when the text is one
    JSON value from its first character to its last; anything else (whitespace around it, bad
    JSON) by `json.loads`, so its value and its error are json.loads's own."""
    try:
        obj, end = _scan(data, 0)
    except (StopIteration, ValueError):
        return json.loads(data)
    if end != len(data):
        return json.loads(data)
    return obj


class _Malformed(Exception):
    def __init__(self, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


class StreamParser:
    """Bytes of one streamed response in `fmt`'s wire format -> canonical stream events.

    `feed(chunk)` returns the events completed by that chunk; `close()` the rest (an `error`
    event when the stream ended before its end marker). After an `error` event nothing more is
    produced. Never raises for bad input: malformed events become an `error` event
    (`provider_invalid_response`) naming the path.
    """

    def __init__(self, fmt: str | Format, *, wire_map: Any = None) -> None:
        self.format = _fmt(fmt)
        self.table = _table(self.format)
        # the call's WireMap (mapping `wire_rules`): tool calls come back with the caller's ids and names
        # wire_rules, or a Provider's renames under the format's tool-name rule (TOOL_NAME_RULE)
        self.wire_map = wire_map if self.format.wire_rules or getattr(self.format.module, "TOOL_NAME_RULE", None) else None
        parse = self.table["parse"]
        self._done_marker: str | None = parse.get("done")
        self._event_from: str | None = parse.get("event_from")
        # the rules are matched by a function of the converter module (`_stream_parse`,
        # codegen/emit/stream.py); the rule dicts stay for what applying one reads (an error
        # rule's status/wrap, an entry rule's concat/text_keys)
        self._match: Callable[[dict[str, Any], str | None, list[dict[str, Any]], RuleApply], None] | None = parse.get("match")
        if not callable(self._match):
            raise NotImplementedError(f"{self.format.key} was generated before stream parse rules were compiled "
                                      "(its STREAM has no parse function); regenerate it")
        self._rules: list[dict[str, Any]] = parse["rules"]
        self._synthesize = self.table["tool_calls"].get("missing_id") == "synthesize"
        self._new_id = self.table["tool_calls"].get("new_id") == "new_call"
        self._always_new = self.table["tool_calls"].get("new_id") == "always"  # calls arrive whole
        self._sse = SSEDecoder()
        # `framing: aws_eventstream`: binary messages (runtime/eventstream.py) instead of SSE
        self._eventstream = EventStreamDecoder() if self.table.get("framing") in _EVENTSTREAM else None
        self._chunks = self.table.get("framing") == "aws_eventstream_chunks"  # each event a `chunk` of base64 JSON
        self.started = False
        self.ended = False
        self.failed = False
        self.finished = False
        self._parts: dict[Any, int] = {}
        self._part_count = 0
        self._last_kind: str | None = None
        self._last_part: int | None = None
        self._tools: dict[Any, int] = {}
        self._tool_ids: list[str] = []
        self._open_tools: list[int] = []
        self._usage: dict[str, Any] = {}
        self._entries: dict[Any, tuple[dict[str, Any], dict[str, Any]]] = {}  # `entry` rules: open entries, in order
        self._entry_key: Any = _MISSING
        self._entry_seen = 0  # the event that last gave an entry a piece
        self.events_seen = 0
        # carried data (docs/canonical.md "Carried data in streams"): what the table says the rules
        # read (STREAM.parse.carry, compiled by the generator) is looked up once, here
        carry = parse.get("carry")
        self._carried: dict[tuple[Any, ...], Any] = {}
        self._pending: dict[tuple[Any, ...], Any] | None = None  # the current event's unread keys
        self._claimed = False  # whether a rule read the current event
        self._carry: _CarrySpec | None = None
        if carry is not None:
            key = (self.format.key, id(carry))  # a dialect shares its base's table, not its origin
            spec = _CARRY_SPECS.get(key)
            if spec is None or spec.table is not carry:
                spec = _CARRY_SPECS[key] = _CarrySpec(self.format, carry)
            self._carry = spec

    # -- public
    def feed(self, chunk: bytes) -> list[dict[str, Any]]:
        if self.failed or self.ended:
            return []
        out: list[dict[str, Any]] = []
        if self._eventstream is not None:
            self._frames(chunk, out)
            return out
        for event, data in self._sse.feed(chunk):
            self._message(event, data, out)
            if self.failed or self.ended:
                break
        return out

    def close(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._eventstream is not None and not (self.failed or self.ended):
            self._frames(None, out)
        elif not (self.failed or self.ended):
            for event, data in self._sse.close():
                self._message(event, data, out)
                if self.failed or self.ended:
                    break
        if self.failed or self.ended:
            return out
        if self.finished:
            self._end(out)  # finish reason seen, only the end marker missing: nothing is lost
            return out
        self._error(out, "provider_unavailable", "the stream ended before the response was complete "
                    "(connection closed mid-stream)")
        return out

    # -- internals
    def _frames(self, chunk: bytes | None, out: list[dict[str, Any]]) -> None:
        """`framing: aws_eventstream`: the messages `chunk` completes (None: the end of the body).
        An `event` message is read as an SSE event named by its `:event-type`; an `exception`
        (or `error`) message is the stream's error, its `:exception-type` (`:error-code`) the type."""
        assert self._eventstream is not None
        try:
            if chunk is None:
                self._eventstream.close()
                return
            messages = self._eventstream.feed(chunk)
        except InvalidResponseError as exc:
            self._error(out, "provider_invalid_response", exc.message, path=exc.path)
            return
        for msg in messages:
            kind = msg.text(":message-type") or "event"
            try:
                data = msg.payload.decode("utf-8")
            except UnicodeDecodeError:
                self._error(out, "provider_invalid_response", f"the event-stream message at byte {msg.offset} has a payload that is not UTF-8",
                            path=f"stream@{msg.offset}")
                return
            if kind == "event" and self._chunks:
                inner = self._chunk(msg, data, out)
                if inner is not None:
                    self._message(None, inner, out)
            elif kind == "event":
                self._message(msg.text(":event-type"), data, out)
            else:
                error_type = msg.text(":exception-type") if kind == "exception" else msg.text(":error-code")
                self._exception(error_type or kind, data, msg.text(":error-message"), out)
            if self.failed or self.ended:
                return

    def _chunk(self, msg: EventStreamMessage, data: str, out: list[dict[str, Any]]) -> str | None:
        """`framing: aws_eventstream_chunks`: the event inside a `chunk` message (Bedrock
        InvokeModelWithResponseStream: a PayloadPart `{"bytes": base64}` whose bytes are one
        event's JSON). Other event names are skipped, as botocore's parser skips them."""
        if msg.text(":event-type") != "chunk":
            return None
        try:
            part: Any = json.loads(data)
        except (ValueError, RecursionError):
            part = None
        raw = part.get("bytes") if type(part) is dict else None
        if not isinstance(raw, str):
            self._error(out, "provider_invalid_response", f"the event-stream chunk at byte {msg.offset} is not a PayloadPart "
                        '({"bytes": base64})', path=f"stream@{msg.offset}")
            return None
        try:
            return base64.b64decode(raw, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            self._error(out, "provider_invalid_response", f"the event-stream chunk at byte {msg.offset} holds bytes that are not "
                        "base64 of UTF-8 text", path=f"stream@{msg.offset}.bytes")
            return None

    def _exception(self, error_type: str, data: str, message: str | None, out: list[dict[str, Any]]) -> None:
        """An event-stream exception: the format's error rules read its payload, with the
        exception type given as the AWS error-type header (mapping `errors.type_header`)."""
        self.events_seen += 1
        try:
            obj: Any = json.loads(data) if data else {}
        except (ValueError, RecursionError):
            obj = data
        body = obj if type(obj) is dict else {"message": message or (obj if isinstance(obj, str) else "") or error_type}
        err = self.format.error_from_wire(500, body, {"x-amzn-errortype": error_type})
        text = getattr(err, "message", "") or message or error_type
        self._error(out, err.category, f"{error_type}: {text}" if error_type not in text else text, raw=body)
        out[-1]["error_type"] = error_type

    def _error(self, out: list[dict[str, Any]], category: str, message: str, raw: Any = None, path: str | None = None) -> None:
        ev: dict[str, Any] = {"type": "error", "category": category, "message": message}
        if path:
            ev["path"] = path
        if raw is not None:
            ev["raw"] = raw
        self._ensure_start(out)
        if self._entries and not self.failed:
            self.failed = True  # what the entries hold is kept; a bad one does not recurse here
            self._flush_entries(out)
        if self._carried or self._pending:
            self._flush_carried(out)
        out.append(ev)
        self.failed = True

    def _ensure_start(self, out: list[dict[str, Any]], raw: Any = None, named: Mapping[str, Any] | None = None) -> None:
        if not self.started:
            self.started = True
            scalars = {k: v for k, v in raw.items() if not isinstance(v, (dict, list))} if isinstance(raw, dict) else {}
            ev: dict[str, Any] = {"type": "message_start", "raw": scalars}
            if named:  # the rule's `id` / `model` / `created`: where this wire names them (Gemini's modelVersion)
                ev.update(named)
            out.append(ev)

    def _end(self, out: list[dict[str, Any]]) -> None:
        self._ensure_start(out)
        self._flush_entries(out)
        if self.failed:
            return
        self._close_tools(out)
        if self._carried or self._pending:
            self._flush_carried(out)
        self.ended = True

    def _flush_carried(self, out: list[dict[str, Any]]) -> None:
        if self._pending:  # the keys of the event that ends the stream (its rule read it)
            self._carried.update(self._pending)
        self._pending = None
        if not self._carried:
            return
        carried, self._carried = self._carried, {}
        assert self._carry is not None
        out.append({"type": "carried", "origin": self._carry.origin, "data": [{"path": list(p), "value": v} for p, v in carried.items()]})

    def _unread(self, obj: dict[str, Any], name: str | None) -> dict[tuple[Any, ...], Any] | None:
        """What of a decoded event no rule reads: the keys no rule and no table names, found
        before the rules are applied (None: nothing to look for; a whole event no rule names is
        kept here). Null is no data (a chunk's way of saying "nothing here"), and keep-alive
        events (only `ignore` rules name them) hold none."""
        carry = self._carry
        assert carry is not None
        if name is not None and carry.events is not None:
            if name in carry.quiet:
                return None
            if name not in carry.events:
                self._carried.setdefault((name,), []).append(obj)
                return None
        found: dict[tuple[Any, ...], Any] = {}
        _unknown_keys(obj, () if name is None else (name,), (), carry, found)
        return found

    def _unclaimed(self, obj: dict[str, Any], name: str | None) -> None:
        """After the rules: the keys `_unread` found are carried; but a named event that no rule
        matched (a block of a kind no rule reads: Anthropic's `web_search_tool_result`, a
        `citations_delta`) is carried whole, every one in order, at its name."""
        pending, self._pending = self._pending, None
        if pending is None or self.failed or self.ended:
            return
        if self._claimed or name is None:
            if pending:
                self._carried.update(pending)
        else:
            self._carried.setdefault((name,), []).append(obj)

    def _close_tools(self, out: list[dict[str, Any]]) -> None:
        for k in self._open_tools:
            out.append({"type": "tool_call_end", "index": k})
        self._open_tools = []

    def _message(self, event: str | None, data: str, out: list[dict[str, Any]]) -> None:
        self.events_seen += 1
        if self._done_marker is not None and data == self._done_marker:
            self._end(out)
            return
        if not data and event is None:
            return
        try:
            obj = _loads(data)
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
            carry = self._carry
            if carry is not None:
                if carry.events is None:  # unnamed events (a chunk): only their keys are looked at
                    found: dict[tuple[Any, ...], Any] = {}
                    _unknown_keys(obj, () if name is None else (name,), (), carry, found)
                    self._pending = found
                else:
                    self._pending = self._unread(obj, name)
                self._claimed = False
            assert self._match is not None
            self._match(obj, name, out, self._rule)  # bound per event: a bound method kept on self is a reference cycle (garbage only the GC frees)
            pending = self._pending
            if pending is not None:
                if pending or (name is not None and not self._claimed):
                    self._unclaimed(obj, name)
                else:
                    self._pending = None
        except _Malformed as exc:
            self._error(out, "provider_invalid_response", exc.message, raw=obj, path=exc.path)
        except RecursionError:  # a value nested past Python's limit somewhere in the event
            self._error(out, "provider_invalid_response", f"stream event {self.events_seen} is nested too deeply", raw=data[:2000])

    def _rule(self, index: int, values: dict[str, Any], obj: dict[str, Any], out: list[dict[str, Any]]) -> bool:
        """A rule the parse function matched (`RuleApply`): applied, and whether the parser has
        stopped, after which no later rule is tried."""
        rule = self._rules[index]
        self._claimed = True  # the event is read: what no rule reads in it is carried key by key
        kind = rule["emit"]
        if self.started and not self._entries and self._quick(kind, values, out):
            return False
        self._apply(kind, values, obj, out, rule)
        return self.failed or self.ended

    def _quick(self, kind: str, values: dict[str, Any], out: list[dict[str, Any]]) -> bool:
        """What `_apply` does for the rules of nearly every event once the stream has started and
        no reasoning entry is open: a start again (nothing), a text or reasoning piece, or a piece
        of an open tool call's arguments, with an int index or none. False: not one of those
        (or a value of another type): `_apply` applies the rule."""
        if kind == "message_start":
            return True  # the start is sent once
        n = len(values)
        if kind == "text" or kind == "reasoning":
            tv = values.get("text")
            iv = values.get("index")
            if tv is None or type(tv[0]) is not str or n != (1 if iv is None else 2) or (iv is not None and type(iv[0]) is not int):
                return False
            text = tv[0]
            if text:
                idx = self._part(kind, _MISSING if iv is None else iv[0])
                out.append({"type": "text_delta" if kind == "text" else "reasoning_delta", "index": idx, "text": text})
            elif iv is not None:
                self._part(kind, iv[0])  # the block opens: later deltas join it
            return True
        if kind == "tool_call" and n == 2 and not self._always_new:
            av = values.get("arguments")
            iv = values.get("index")
            if av is None or iv is None or type(av[0]) is not str or type(iv[0]) is not int:
                return False
            k = self._tools.get(iv[0])
            if k is None:
                return False  # a new call: `_apply` opens it
            if av[0]:
                out.append({"type": "tool_call_delta", "index": k, "arguments": av[0]})
            return True
        return False

    @staticmethod
    def _where(where: Any) -> str:
        path, base = where
        prefix = "" if base is None else f"{_path_text(base[0])}[{base[1]}]"
        return _path_text(path, prefix)

    @staticmethod
    def _str(values: dict[str, Any], name: str) -> str | None:
        if name not in values:
            return None
        value, where = values[name]
        if type(value) is dict and name in ("signature", "data"):
            # a provider-bound object kept verbatim (an OpenAI Responses reasoning item)
            try:
                return _canonical_json(value)
            except ValueError:
                path = StreamParser._where(where)
                raise _Malformed(f"the object at {path} is not JSON (a non-finite number)", path) from None
        if type(value) is not str:
            path = StreamParser._where(where)
            raise _Malformed(f"expected a string at {path}, got {type(value).__name__}", path)
        return value

    @staticmethod
    def _args(values: dict[str, Any]) -> str | None:
        """Tool-call arguments: a piece of JSON text, or a whole JSON object (calls that arrive
        whole, Gemini's `functionCall.args`), written as its JSON text."""
        if "arguments" in values and type(values["arguments"][0]) is dict:
            value, where = values["arguments"]
            if json_too_deep(value, "") is not None:  # the limit response_from_wire applies
                path = StreamParser._where(where)
                raise _Malformed(f"tool call arguments nested deeper than {MAX_JSON_DEPTH} levels", path)
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        return StreamParser._str(values, "arguments")

    def _part(self, kind: str, key: Any, new: bool = False) -> int:
        if key is not _MISSING:
            idx = self._parts.get(key)
            if idx is None or new:
                idx = self._part_count
                self._part_count += 1
                self._parts[key] = idx
        elif new or self._last_kind != kind or self._last_part is None:
            idx = self._part_count
            self._part_count += 1
        else:
            idx = self._last_part
        self._last_kind, self._last_part = kind, idx
        return idx

    def _key(self, values: dict[str, Any]) -> Any:
        if "index" not in values:
            return _MISSING
        value, where = values["index"]
        if type(value) is tuple:  # a composite key (`index: [output_index, content_index]`)
            bad = next((v for v in value if type(v) is not int and type(v) is not str), _MISSING)
            if bad is _MISSING:
                return value
            value = bad
        if type(value) is not int and type(value) is not str:
            path = self._where(where)
            raise _Malformed(f"expected an index at {path}, got {type(value).__name__}", path)
        return value

    def _signed(self, idx: int) -> None:
        """A signature ends its part: the next delta without a wire index starts a new part (the
        signed part is the unit the provider verifies, as in its non-streamed body)."""
        if self._last_part == idx:
            self._last_kind = None

    def _flush_entries(self, out: list[dict[str, Any]]) -> None:
        """`entry` rules: every open entry, merged from its pieces, becomes the signature of the
        current reasoning part (or, when it has no text under `text_keys`, a redacted part)."""
        entries, self._entries = self._entries, {}
        self._entry_key = _MISSING
        for entry, rule in entries.values():
            try:
                text = _canonical_json(entry)
            except ValueError:
                if not self.failed:
                    self._error(out, "provider_invalid_response", "a reasoning entry is not JSON (a non-finite number)", raw=entry)
                return
            keys = rule.get("text_keys")
            if keys is not None and not any(type(entry.get(k)) is str and entry.get(k) for k in keys):
                idx = self._part("redacted_reasoning", _MISSING, new=True)
                out.append({"type": "redacted_reasoning", "index": idx, "data": text})
                self._last_kind = None
            else:
                idx = self._part("reasoning", _MISSING)
                out.append({"type": "reasoning_signature", "index": idx, "signature": text})
                self._signed(idx)

    def _entry(self, values: dict[str, Any], rule: dict[str, Any], out: list[dict[str, Any]]) -> None:
        value, where = values["entry"]
        if type(value) is not dict:
            path = self._where(where)
            raise _Malformed(f"expected a reasoning entry (an object) at {path}, got {type(value).__name__}", path)
        key = self._key(values)
        if key is _MISSING:  # a piece without its own key continues the open entry
            key = self._entry_key if self._entries else object()
        if self._entries and key not in self._entries:
            self._flush_entries(out)  # entries arrive one after another: a new key ends the others
        merged, _rule = self._entries.setdefault(key, ({}, rule))
        concat = rule.get("concat") or ()
        for k, v in value.items():
            cur = merged.get(k, _MISSING)
            if k in concat and type(v) is str and type(cur) is str:
                merged[k] = cur + v  # pieces of the entry's text, in order
            elif cur is _MISSING or ((cur is None or cur == "") and v is not None and v != ""):
                merged[k] = json.loads(json.dumps(v)) if isinstance(v, (dict, list)) else v  # the first value given
        self._entry_key = key
        self._entry_seen = self.events_seen

    def _carry_value(self, values: dict[str, Any], rule: dict[str, Any]) -> None:
        """A carry rule: its value kept at its `to` path, merged with the earlier pieces."""
        value, where = values["value"]
        path = tuple(rule["to"])
        merge = rule.get("merge", "last")
        if merge == "concat":
            if type(value) is not str:
                at = self._where(where)
                raise _Malformed(f"expected a string at {at}, got {type(value).__name__}", at)
            self._carried[path] = self._carried.get(path, "") + value
        elif merge == "append":
            self._carried.setdefault(path, []).append(value)
        else:
            self._carried[path] = value

    def _apply(self, kind: str, values: dict[str, Any], obj: dict[str, Any], out: list[dict[str, Any]], rule: dict[str, Any]) -> None:
        if kind == "ignore":
            return
        if kind == "carry":
            self._carry_value(values, rule)
            return
        if kind == "message_start":
            raw = values["raw"][0] if "raw" in values else obj
            named: dict[str, Any] = {k: values[k][0] for k in ("id", "model", "created") if k in values and isinstance(values[k][0], (str, int)) and type(values[k][0]) is not bool}
            self._ensure_start(out, raw, named)
            return
        if kind == "end":
            self._end(out)
            return
        if kind == "error":
            code = values["code"][0] if "code" in values else None
            status = code if type(code) is int and 400 <= code <= 599 else int(rule.get("status", 500))
            # `wrap`: the event is a bare error object; the format's error rules read it in its envelope
            body = {rule["wrap"]: obj} if "wrap" in rule else obj
            err = self.format.error_from_wire(status, body, {})
            # a `message` field: the event's own words, where the format's errors.message does not
            # read (Cohere's message-end `delta.error`)
            said = values["message"][0] if "message" in values else None
            message = said if isinstance(said, str) and said else getattr(err, "message", str(err))
            self._error(out, err.category, message or "stream error", raw=obj)
            return
        self._ensure_start(out, obj)
        if kind == "entry":
            self._entry(values, rule, out)
            return
        if self._entries and (kind in ("tool_call", "finish") or (kind == "text" and self._str(values, "text"))):
            self._flush_entries(out)  # the reasoning they belong to ends before the answer (an empty text is none)
            if self.failed:
                return
        if kind in ("text", "reasoning"):
            text = self._str(values, "text")
            key = self._key(values)
            signature = self._str(values, "signature")  # a text part's own signature (Gemini)
            if (text and kind == "reasoning" and key is _MISSING and self._entries and self._entry_seen != self.events_seen
                    and (self._last_kind != "reasoning" or self._last_part is None)):
                self._flush_entries(out)  # a new reasoning part without a piece of its own: the open entry has ended
                if self.failed:
                    return
            if text:
                idx = self._part(kind, key)
                out.append({"type": "text_delta" if kind == "text" else "reasoning_delta", "index": idx, "text": text})
            elif key is not _MISSING:
                self._part(kind, key)  # the block opens: later deltas join it
            if signature:
                idx = self._part(kind, key)
                out.append({"type": "text_signature" if kind == "text" else "reasoning_signature", "index": idx, "signature": signature})
                self._signed(idx)
        elif kind == "signature":
            sig = self._str(values, "signature")
            if sig:
                idx = self._part("reasoning", self._key(values))
                out.append({"type": "reasoning_signature", "index": idx, "signature": sig})
                self._signed(idx)
        elif kind == "redacted_reasoning":
            data = self._str(values, "data")
            idx = self._part("redacted_reasoning", self._key(values), new=True)
            out.append({"type": "redacted_reasoning", "index": idx, "data": data or ""})
        elif kind == "tool_call":
            key = self._key(values)
            key = 0 if key is _MISSING else key
            call_id = self._str(values, "id")
            name = self._str(values, "name")
            args = self._args(values)
            k = None if self._always_new else self._tools.get(key)
            if k is None and not call_id and not name:
                # a match with neither id nor name where no call is open is no client tool call (it could
                # not be dispatched): the argument pieces of a block no rule opened as one -- Anthropic's
                # server_tool_use input, whose result the server itself adds (issue 14); the event is
                # then carried whole (no rule read it)
                self._claimed = False
                return
            if k is None or (self._new_id and call_id and self._tool_ids[k] and call_id != self._tool_ids[k]):
                if k is not None and k in self._open_tools:
                    self._open_tools.remove(k)
                    out.append({"type": "tool_call_end", "index": k})
                k = len(self._tool_ids)
                self._tools[key] = k
                if not call_id and self._synthesize and self._always_new:
                    # a whole call without an id: the non-streamed reader's deterministic id
                    from .wire import synthesized_call_id

                    parsed = values["arguments"][0] if "arguments" in values and type(values["arguments"][0]) is dict else {}
                    call_id = synthesized_call_id(name or "", parsed, k)
                self._tool_ids.append(call_id or "")
                self._open_tools.append(k)
                caller_id, caller_name = call_id or "", name or ""
                if self.wire_map is not None:  # wire_rules: the caller's own id and tool name again
                    caller_id = self.wire_map.caller_id(caller_id) if caller_id else caller_id
                    caller_name = self.wire_map.caller_name(caller_name) if caller_name else caller_name
                start: dict[str, Any] = {"type": "tool_call_start", "index": k, "id": caller_id, "name": caller_name}
                signature = self._str(values, "signature")
                if signature:
                    start["signature"] = signature
                out.append(start)
            elif call_id and not self._tool_ids[k]:
                self._tool_ids[k] = call_id
            if args:
                out.append({"type": "tool_call_delta", "index": k, "arguments": args})
        elif kind == "block_end":
            key = self._key(values)
            k = self._tools.get(key) if key is not _MISSING else None
            if k is not None and k in self._open_tools:
                self._open_tools.remove(k)
                out.append({"type": "tool_call_end", "index": k})
        elif kind == "usage":
            value, where = values["usage"]
            if type(value) is not dict:
                path = self._where(where)
                raise _Malformed(f"expected a usage object at {path}", path)
            _merge_usage(self._usage, value)
            out.append({
                "type": "usage",
                "usage": usage_from_wire(self.table["usage"], self._usage),
                "raw": json.loads(json.dumps(self._usage)),
            })
        elif kind == "finish":
            value, _where = values["reason"]
            self._close_tools(out)
            self.finished = True
            reason = _finish(self.table, value)
            if "detail" in values:  # finish_reason.detail_map: the detail overrides, as the non-streamed reader
                detail = values["detail"][0]
                mapped = self.table["finish"].get("detail_map", {}).get(detail) if isinstance(detail, str) else None
                if mapped is not None:
                    reason = str(mapped)
            with_calls = self.table["finish"].get("with_tool_calls")
            if with_calls is not None and reason == "stop" and self._tool_ids:
                reason = with_calls  # finish_reason.with_tool_calls, as the non-streamed reader
            out.append({"type": "finish", "finish_reason": reason, "raw": value})
        else:  # pragma: no cover - the generator validates emit kinds
            raise _Malformed(f"unknown stream rule kind {kind!r}")


# ------------------------------------------------------------------------------------ assembler


class StreamAssembler:
    """Canonical stream events -> the `Response` of the equivalent non-streamed call."""

    def __init__(self, fmt: str | Format) -> None:
        self.format = _fmt(fmt)
        self.table = _table(self.format)
        self.start: dict[str, Any] = {}
        self.parts: list[dict[str, Any]] = []
        self._part_at: dict[int, dict[str, Any]] = {}
        self.calls: list[dict[str, Any]] = []
        self.usage: dict[str, Any] | None = None
        self.usage_raw: dict[str, Any] | None = None
        self.finish_reason: str | None = None
        self.finish_raw: Any = None
        self.error: dict[str, Any] | None = None
        self.count = 0
        self.carried: dict[tuple[Any, ...], Any] = {}  # `carried` events: wire path -> value
        self.carried_origin: str | None = None
        self._pieces: dict[int, list[str]] = {}  # a text or reasoning part's text pieces not yet joined

    def add(self, ev: Mapping[str, Any]) -> None:
        self.count += 1
        t = ev.get("type")
        if t == "text_delta":  # the most frequent event: its piece joins the open part of its index
            part = self._part_at.get(ev.get("index", 0))
            if part is not None and part["type"] == "text":
                self._pieces[id(part)].append(ev.get("text", ""))
                return
        if t == "message_start":
            self.start = dict(ev.get("raw") or {})
        elif t in _PART_KINDS:
            idx = ev.get("index", 0)
            part = self._part_at.get(idx)
            kind = _PART_KINDS[t]
            if part is None or part["type"] != kind:
                part = {"type": kind}
                if kind == "redacted_thinking":
                    part["data"] = ""
                else:
                    part["text"] = ""
                    self._pieces[id(part)] = []
                self.parts.append(part)
                self._part_at[idx] = part
            if t == "text_delta" or t == "reasoning_delta":
                self._pieces[id(part)].append(ev.get("text", ""))  # joined when read (`_joined`)
            elif t == "reasoning_signature" or t == "text_signature":
                part["signature"] = part.get("signature", "") + ev.get("signature", "")
            else:
                part["data"] += ev.get("data", "")
        elif t == "tool_call_start":
            idx = ev.get("index", len(self.calls))
            while len(self.calls) <= idx:
                self.calls.append({"id": "", "name": "", "arguments": ""})
            self.calls[idx]["id"] = ev.get("id", "")
            self.calls[idx]["name"] = ev.get("name", "")
            if ev.get("signature"):
                self.calls[idx]["signature"] = ev["signature"]
        elif t == "tool_call_delta":
            idx = ev.get("index", 0)
            while len(self.calls) <= idx:
                self.calls.append({"id": "", "name": "", "arguments": ""})
            self.calls[idx]["arguments"] += ev.get("arguments", "")
        elif t == "usage":
            self.usage = dict(ev.get("usage") or {})
            raw = ev.get("raw")
            self.usage_raw = dict(raw) if isinstance(raw, dict) else None
        elif t == "finish":
            self.finish_reason = ev.get("finish_reason")
            self.finish_raw = ev.get("raw")
        elif t == "carried":
            data = ev.get("data")
            origin = ev.get("origin")
            if isinstance(origin, str) and isinstance(data, list):
                if self.carried_origin not in (None, origin):
                    self.carried = {}  # data of one wire only (a caller's events mixing two)
                self.carried_origin = origin
                for item in data:
                    path = item.get("path") if isinstance(item, Mapping) else None
                    if isinstance(path, list) and path and all(type(k) in (str, int) for k in path):
                        self.carried[tuple(path)] = item.get("value")
        elif t == "error":
            self.error = dict(ev)

    # -- results
    def _joined(self) -> None:
        """Each part's text pieces joined into its `text`."""
        for part in self.parts:
            pieces = self._pieces.get(id(part))
            if pieces:
                part["text"] += "".join(pieces)
                pieces.clear()

    def _message(self, lenient: bool) -> dict[str, Any]:
        provider = self.format.provider
        content: list[dict[str, Any]] = []
        self._joined()
        for part in self.parts:
            block = dict(part)
            if block["type"] == "text" and not block["text"]:
                continue
            if block["type"] in ("thinking", "redacted_thinking") or "signature" in block:
                block["origin"] = provider
            content.append(block)
        msg: dict[str, Any] = {"role": "assistant"}
        if not content:
            msg["content"] = None
        elif len(content) == 1 and content[0]["type"] == "text" and "signature" not in content[0]:
            msg["content"] = content[0]["text"]
        elif all(b["type"] == "text" and "signature" not in b for b in content) and self.table.get("content") == "joined_text":
            msg["content"] = "".join(b["text"] for b in content)
        else:
            msg["content"] = content
        calls = []
        for k, call in enumerate(self.calls):
            text = call["arguments"]
            try:
                args = json.loads(text) if text.strip() else {}
            except ValueError:
                args = _MISSING
            except RecursionError:  # too deep for the decoder: past the limit as well
                if not lenient:
                    raise InvalidResponseError(f"nested deeper than {MAX_JSON_DEPTH} levels", path=f"message.tool_calls[{k}].arguments") from None
                args = _MISSING
            if type(args) is dict:
                where = json_too_deep(args, f"message.tool_calls[{k}].arguments")
                if where is not None:  # the limit response_from_wire applies (MAX_JSON_DEPTH)
                    if not lenient:
                        raise InvalidResponseError(f"nested deeper than {MAX_JSON_DEPTH} levels", path=where)
                    args = _MISSING
            if args is _MISSING or type(args) is not dict:
                if not lenient:
                    raise InvalidResponseError(
                        f"the streamed arguments of tool call {k} are not a JSON object: {text[:200]!r}",
                        path=f"message.tool_calls[{k}].arguments",
                    )
                args = None
            tool_call: dict[str, Any] = {"id": call["id"], "name": call["name"], "arguments": args}
            if call.get("signature"):
                tool_call["signature"], tool_call["origin"] = call["signature"], provider
            calls.append(tool_call)
        if calls:
            msg["tool_calls"] = calls
        return msg

    def partial(self) -> dict[str, Any]:
        """What was assembled so far, as a canonical response dict with finish_reason `error`
        (tool-call arguments that do not parse are null, OpenArmature §3 degraded responses)."""
        usage = self.usage or {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}
        out: dict[str, Any] = {"message": self._message(True), "finish_reason": "error", "usage": usage}
        raw = dict(self.start)
        if self.usage_raw is not None:
            raw["usage"] = self.usage_raw
        out["raw"] = raw
        return out

    def snapshot(self, finish_reason: str | None = None) -> Response:
        """What was assembled so far as a `Response` (never raises: tool-call arguments that do
        not parse are null), with the given finish reason; `raw` is the opening event's scalars.
        The emitter writes it through `response_to_wire` for a `{response}` slot."""
        usage = self.usage or {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}
        finish = finish_reason or self.finish_reason or self.table["finish"]["default"]
        return Response.from_dict({"message": self._message(True), "finish_reason": finish, "usage": usage, "raw": dict(self.start)})

    def response(self) -> Response:
        """The assembled `Response` (raises the stream's error, carrying `partial`, if it had one)."""
        if self.error is not None:
            raise stream_error(self.error, self.partial())
        finish = self.finish_reason or self.table["finish"]["default"]
        usage = self.usage or {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}
        try:
            message = self._message(finish == "error")
        except ProviderError as exc:
            exc.partial = self.partial()
            raise
        d: dict[str, Any] = {"message": message, "finish_reason": finish, "usage": usage, "raw": dict(self.start)}
        response = Response.from_dict(d)
        try:
            body = self.format.response_to_wire(response)
        except ProviderError:
            body = dict(self.start)
        carried = self._carried(body) if self.carried and self.carried_origin is not None else None
        if self.usage_raw is not None:
            _set(body, tuple(self.table["usage"]["path"]), self.usage_raw)  # verbatim (§6, §7)
        if self.finish_raw is not None:
            _set(body, tuple(self.table["finish"]["path"]), self.finish_raw)
        response.carried = carried
        response.raw = body
        return response

    def _carried(self, rewritten: dict[str, Any]) -> Carried:
        """The `carried` events as the `Carried` the non-streamed reader gives for the same data
        (runtime/carry.py): each value at its path, anchored where the assembled response's
        re-write has that path's anchor (what `residual` computes for a body)."""
        known = frozenset(getattr(self.format.module, "WIRE_KEYS", ()))
        carried = placed(str(self.carried_origin), list(self.carried.items()), rewritten, known)
        carried.reader = self.format.key
        return carried


def stream_error(event: Mapping[str, Any], partial: dict[str, Any] | None = None) -> ProviderError:
    """The typed error of an `error` stream event; `partial` is what was assembled before it."""
    category = str(event.get("category") or "provider_invalid_response")
    try:
        cls = error_class(category)
    except (KeyError, ValueError):
        cls = InvalidResponseError
    error_type = event.get("error_type")
    err = cls(str(event.get("message") or "stream error"), path=event.get("path"), body=event.get("raw"),
              provider_type=error_type if isinstance(error_type, str) else None)
    err.partial = partial
    return err


# ------------------------------------------------------------------------------------ emitter


_WHAT: Final = {
    "reasoning_delta": "reasoning text",
    "reasoning_signature": "a reasoning signature",
    "redacted_reasoning": "redacted reasoning",
    "text_signature": "a text signature",
}


_encode_str: Final = encode_basestring  # what json.dumps(ensure_ascii=False) writes for a string
# two probe values: a row's bytes are split where the value goes, and the two splits must agree
_PROBES: Final = ("wiremap-fast-lane-\u00b7-a", "wiremap-fast-lane-\u00b7-b")
# the delta events with a fast lane: (the value written verbatim, the open block's key prefix)
_LANE_EVENTS: Final = {"text_delta": ("text", "part"), "reasoning_delta": ("text", "part"), "tool_call_delta": ("arguments", "tool")}


class _Lane:
    """The fast lane of one delta event kind of one emitter (`StreamEmitter._fast`).

    Built from the generated table's `plain` rows (codegen/emit/stream.py `EmitRow.plain`): when
    every row of the event writes its text (or arguments) only as a whole JSON string, and
    otherwise reads only values fixed once the stream has started (id, model, created, the
    defaults) or the event's `index` and open `block`, the event's SSE bytes are the same pieces
    around that string each time. They are rendered once per (index, block), with a probe value
    in its place, and each event is then the JSON string of its value joined between them."""

    __slots__ = ("field", "kind", "rows", "what", "idx", "block", "pieces", "open_key", "ctx")

    def __init__(self, field: str, kind: str, rows: list[Any], what: str) -> None:
        self.field = field
        self.kind = kind  # the open block's key prefix ("part" / "tool")
        self.rows = rows
        self.what = what
        # the index and block the pieces were rendered for, the open block's key and the loss
        # context (`StreamEmitter._ctx`) of that index
        self.idx: int | None = None
        self.block: int | None = None
        self.pieces: list[bytes] | None = None
        self.open_key = ""
        self.ctx: Any = None

    def retarget(self, t: str, idx: int) -> None:
        """Another index than the last event's: its block key and loss context."""
        self.idx, self.pieces = idx, None
        self.open_key = self.kind + str(idx)
        path = f"message.tool_calls[{idx}]" if self.kind == "tool" else f"message.content[{idx}]"
        self.ctx = ((t, idx), path, self.what)


class StreamEmitter:
    """Canonical stream events -> `fmt`'s SSE bytes (or AWS event-stream messages, by the table's
    `framing`; `media_type` is the answer's content type). `emit(ev)` returns the bytes of one event,
    `close()` the closing events; `losses` lists what the format could not carry. For a format
    with `wire_rules` (Mistral), tool-call ids and names that do not fit are repaired on the way
    out and recorded on `wire_map` (and as `changed` losses).

    `request` is the client's own streaming request body in this format, when known (a gateway
    answering it): a table whose `usage_when` names what asks for the usage chunk (OpenAI's
    `stream_options.include_usage: true`) writes its `usage` rows only when that request asked.
    Without a request, they are written whenever usage was reported."""

    def __init__(
        self,
        fmt: str | Format,
        *,
        wire_map: Any = None,
        request: Mapping[str, Any] | None = None,
        raw_from: str | Format | None = None,
    ) -> None:
        from .translate import Loss, origin_of

        self._Loss = Loss
        self.format = _fmt(fmt)
        # `raw_from`: the format whose wire the events' `raw` values are in. When it speaks this
        # format's wire, a `{response}` body gets the provider's own usage object back verbatim
        # (as StreamAssembler.response does), not the canonical counters re-written
        self._raw_same_wire = raw_from is not None and origin_of(_fmt(raw_from)) == origin_of(self.format)
        self.table = _table(self.format)
        self.framing: str = self.table.get("framing", "sse")  # `aws_eventstream`: binary messages
        self.media_type: str = EVENTSTREAM_MEDIA_TYPE if self.framing in _EVENTSTREAM else "text/event-stream"
        self.spec: dict[str, Any] = self.table["emit"]  # each row a function: (values) -> (event, data)
        if not all(callable(row) for row in self.spec["message_start"] + self.spec["end"]):
            raise NotImplementedError(f"{self.format.key} was generated before stream emit rows were compiled "
                                      "(its STREAM rows are templates); regenerate it")
        self.losses: list[Any] = []
        self._lost: set[tuple[str, Any]] = set()
        self._values: dict[str, Any] = dict(self.spec.get("defaults") or {})
        self._blocks = "blocks" in self.spec
        self._open: tuple[str, int, str] | None = None  # (part or tool key, block number, kind)
        self._acc: dict[str, Any] = {}  # what the open block holds (its stop rows may name it)
        self._block_count = 0
        self._tool_blocks: dict[int, int] = {}
        self._started = False
        self._pending_start: dict[str, Any] | None = None
        self._pending_named: dict[str, Any] = {}
        asks = self.spec.get("usage_when")
        # `usage_when`: the usage rows only when the client's request asked for them
        self._usage_asked = not asks or request is None or all(_get(request, tuple(p)) == v for p, v in asks)
        self._args_sent: set[int] = set()
        self._calls: dict[int, dict[str, Any]] = {}  # tool_call_whole: calls being buffered
        self._whole: dict[str, Any] | None = None  # reasoning_whole: the reasoning part being buffered
        self._usage_key: int | None = None
        self._usage_wire: dict[str, Any] | None = None
        self._finish: str | None = None
        self._finish_raw: Any = None
        self._usage: dict[str, Any] | None = None
        self._failed = False
        self._closed = False
        self._seq = 0
        self._ctx: tuple[tuple[str, Any], str, str] | None = None  # the event being written: loss key, path, what
        # `{response}`: the answer assembled so far, written through the format's response_to_wire
        self._assembler = StreamAssembler(self.format) if self.spec.get("names_response") else None
        self._response_cache: tuple[int, str | None, Any] | None = None
        self._lanes: dict[Any, _Lane] = {}  # event type -> its fast lane
        plain = self.spec.get("plain")
        if plain and self.framing == "sse":
            for t, (field, kind) in _LANE_EVENTS.items():
                lane = self._lane(t, field, kind, plain)
                if lane is not None:
                    self._lanes[t] = lane
        rules = self.format.wire_rules or {}
        self.wire_map: Any = None
        self._rules: Any = None
        self._wire_ids: set[str] = set()
        if rules.get("tool_call_id") or rules.get("tool_name"):
            from .wire_rules import WireMap, RulePass

            self.wire_map = wire_map if wire_map is not None else WireMap()
            self._rules = RulePass(rules, self.wire_map, self.format.key)

    def _lane(self, t: str, field: str, kind: str, plain: Mapping[Any, Any]) -> _Lane | None:
        """The fast lane of the delta event `t`, when its rows allow one (`_Lane`)."""
        rows = self.spec.get(t) or []
        if not rows or (t == "reasoning_delta" and "reasoning_whole" in self.spec) or (t == "tool_call_delta" and "tool_call_whole" in self.spec):
            return None
        reads: set[str] = set()
        fixed = set(self._values) | {"id", "model", "created"}  # fixed once the stream has started
        for row in rows:
            if row not in plain:
                return None
            row_reads, row_plain = plain[row]
            if field in row_reads and field not in row_plain:
                return None
            reads.update(n for n in row_reads if n != field)
        if not reads <= fixed | {"index", "block"}:
            return None  # usage, sequence, the response, another value of the event: the general path
        what = "the tool call" if t == "tool_call_delta" else _WHAT.get(t, t)
        return _Lane(field, kind, rows, what)

    def _fast(self, lane: _Lane, t: str, ev: Mapping[str, Any]) -> bytes | None:
        """A delta event by its lane: None when the event or the emitter's state is not the
        lane's (then the general path writes it). An event with other keys than its type, index
        and value goes the general path (its rows could name them)."""
        if len(ev) != 3:
            return None
        value = ev.get(lane.field)
        idx = ev.get("index")
        if type(value) is not str or type(idx) is not int:
            return None
        if idx != lane.idx:
            lane.retarget(t, idx)
        block = None
        if self._blocks:
            opened = self._open
            if opened is None or opened[0] != lane.open_key:
                return None  # a block to open (or a delta after its block): the general path
            block = opened[1]
            if block != lane.block:
                lane.block, lane.pieces = block, None
        pieces = lane.pieces
        if pieces is None:  # rendered once per index and block (the other values are fixed)
            pieces = lane.pieces = self._probe(lane, idx, block)
            if pieces is None:
                return None
        # what the general path does besides writing: the assembler, the loss context, the
        # open block's text, the calls with arguments, the event sequence
        if self._assembler is not None:
            self._assembler.add(ev)
        self._ctx = lane.ctx
        if lane.kind == "tool":
            if value:
                self._args_sent.add(idx)
            if block is not None:
                self._acc["arguments"].append(value)
        elif block is not None:
            self._acc["text"].append(value)
        self._seq += len(lane.rows)
        return _encode_str(value).encode("utf-8").join(pieces)

    def _probe(self, lane: _Lane, idx: int, block: int | None) -> list[bytes] | None:
        """The lane's rows written with each probe value in place of the event's value, split
        around it; None when a row cannot be written or the two splits differ."""
        split: list[list[str]] = []
        for probe in _PROBES:
            extra: dict[str, Any] = {"index": idx, lane.field: probe}
            if block is not None:
                extra["block"] = block
            values = self._vals(**extra)
            texts = []
            for row in lane.rows:
                try:
                    event, data = row(values)
                except Unwritable:
                    return None
                text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
                texts.append((f"event: {event}\n" if event else "") + f"data: {text}\n\n")
            split.append("".join(texts).split(_encode_str(probe)))
        if split[0] != split[1]:
            return None
        return [piece.encode("utf-8") for piece in split[0]]

    def _write(self, items: list[Callable[[Mapping[str, Any]], tuple[Any, Any]]], values: dict[str, Any], exception: bool = False) -> bytes:
        """The rows of one canonical event, all of them or none (a row that cannot be written
        drops the event, recorded as a loss). `framing: aws_eventstream`: one binary message per
        row, its `event` the `:event-type` (`exception`: an exception message, its `event` the
        `:exception-type`)."""
        out = []
        binary: list[bytes] = []
        seq = self._seq
        for row in items:
            values["sequence"] = seq
            try:
                event, data = row(values)  # the row compiled by the generator (codegen/emit/stream.py)
            except Unwritable as exc:
                if self._ctx is not None:
                    key, path, what = self._ctx
                    self._lose(key, path, f"{what} is not written to the {self.format.key} stream: {exc}")
                return b""
            seq += 1
            text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
            if self.framing == "aws_eventstream_chunks":  # one PayloadPart per event; the event's JSON names its type
                part = json.dumps({"bytes": base64.b64encode(text.encode("utf-8")).decode("ascii")}, separators=(",", ":"))
                binary.append(encode_message({":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"},
                                             part.encode("utf-8")))
                continue
            if self.framing == "aws_eventstream":
                name = str(event or "")  # the generator requires `event` on every row of this framing
                headers = {":exception-type": name, ":content-type": "application/json", ":message-type": "exception"} if exception else \
                    {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
                binary.append(encode_message(headers, text.encode("utf-8")))
                continue
            out.append((f"event: {event}\n" if event else "") + f"data: {text}\n\n")
        self._seq = seq
        return b"".join(binary) if binary else "".join(out).encode("utf-8")

    def _lose(self, key: tuple[str, Any], path: str, detail: str, kind: str = "dropped") -> None:
        if key not in self._lost:
            self._lost.add(key)
            self.losses.append(self._Loss(path, kind, detail))

    def _vals(self, **extra: Any) -> dict[str, Any]:
        values = dict(self._values)
        key = id(self._usage)
        if self._usage_key != key:  # written once per usage event, not per emitted event
            self._usage_key = key
            self._usage_wire = usage_to_wire(self.table["usage"], self._usage)
            if self._usage_wire is None:  # required places get zeros; `{usage?}` leaves it out
                self._usage_wire = Unreported(usage_to_wire({**self.table["usage"], "unreported": "zero"}, self._usage) or {})
        values["usage"] = self._usage_wire
        if self._assembler is not None:
            values["response"] = Lazy(self._response_wire)
        values.update(extra)
        return values

    def _response_wire(self) -> Any:
        """`{response}`: what was assembled so far, as the format's own response body."""
        assert self._assembler is not None
        key = (self._assembler.count, self._finish)
        if self._response_cache is not None and self._response_cache[:2] == key:
            return self._response_cache[2]
        snapshot = self._assembler.snapshot(self._finish or "stop")
        try:
            body = self.format.response_to_wire(snapshot)
        except ProviderError as exc:
            self._lose(("response", 0), "message", f"the assembled response cannot be written as a {self.format.key} body: {exc.message}")
            raise Unwritable("no response body") from None
        usage_raw = self._assembler.usage_raw
        if self._raw_same_wire and usage_raw is not None and self._usage is not None:
            _set(body, tuple(self.table["usage"]["path"]), dict(usage_raw))  # this wire's own usage, verbatim
        self._response_cache = (key[0], key[1], body)
        return body

    def comment(self, text: str) -> bytes:
        """An SSE comment line (clients ignore it): how the gateway reports losses in-stream.
        The AWS event-stream framing has no comments: nothing is written."""
        if self.framing in _EVENTSTREAM:
            return b""
        return "".join(f": {line}\n" for line in text.splitlines() or [""]).encode("utf-8") + b"\n"

    def _start(self, raw: Mapping[str, Any] | None) -> bytes:
        self._started = True
        for key, names in (("id", ("id",)), ("model", ("model",)), ("created", ("created", "created_at"))):
            if key in self._pending_named:
                self._values[key] = self._pending_named[key]
                continue
            for name in names:
                value = raw.get(name) if raw else None
                if value is not None and not isinstance(value, (dict, list)):
                    self._values[key] = value
                    break
        return self._write(self.spec.get("message_start", []), self._vals())

    def _close_block(self) -> bytes:
        if self._open is None:
            return b""
        _key, block, kind = self._open
        self._open = None
        acc = {k: "".join(v) if type(v) is list else v for k, v in self._acc.items()}  # pieces joined
        return self._write(self.spec["blocks"]["stop"].get(kind) or [], self._vals(**{**acc, "block": block}))

    def _open_block(self, key: tuple[str, int], kind: str, **values: Any) -> bytes:
        out = self._close_block()
        block = self._block_count
        self._block_count += 1
        self._open = (key[0] + str(key[1]), block, kind)
        self._acc = {"index": key[1], "text": [], "arguments": [], "signature": [], "data": values.get("data", ""),
                     "call_id": values.get("call_id", ""), "name": values.get("name", "")}
        if kind == "tool_call":
            self._tool_blocks[key[1]] = block
        start = self.spec["blocks"]["start"].get(kind) or []
        values.setdefault("index", key[1])  # `{index}`: the part's (or call's) own index, as the stop has it
        return out + self._write(start, self._vals(block=block, **values))

    def _repair_call(self, ev: Mapping[str, Any]) -> Mapping[str, Any]:
        """wire_rules on the way out: a tool-call id or name the format does not accept is
        rewritten (deterministically, as request_to_wire does), recorded on `wire_map`."""
        idx = ev.get("index", 0)
        caller_id, caller_name = str(ev.get("id") or ""), str(ev.get("name") or "")
        before = len(self.wire_map.changes)
        try:
            wire_id = self._rules.wire_id(caller_id, f"message.tool_calls[{idx}].id", self._wire_ids) if caller_id else caller_id
            wire_name = self._rules.wire_name(caller_name, f"message.tool_calls[{idx}].name") if caller_name else caller_name
        except ProviderError as exc:  # a `reject` rule: a stream cannot refuse mid-way; sent as it is
            self._lose(("wire_rules", idx), f"message.tool_calls[{idx}]", f"{exc.message}; sent unchanged", "changed")
            return ev
        self._wire_ids.add(wire_id)
        for change in self.wire_map.changes[before:]:
            self._lose(("wire_rules", change.path), change.path,
                       f"wire_rules.{change.rule} {change.action}: {change.before!r} -> {change.after!r}", "changed")
        if wire_id == caller_id and wire_name == caller_name:
            return ev
        return {**ev, "id": wire_id, "name": wire_name}

    def emit(self, ev: Mapping[str, Any]) -> bytes:
        if self._failed or self._closed:
            return b""
        t = ev.get("type")
        lane = self._lanes.get(t) if self._started and self._whole is None else None
        if lane is not None:
            data = self._fast(lane, str(t), ev)
            if data is not None:
                return data
        if t == "tool_call_start" and self._rules is not None:
            ev = self._repair_call(ev)
        if self._assembler is not None:
            self._assembler.add(ev)
        if t == "carried":  # wire data for its own wire: the translation's loss report names it
            return b""
        out = b""
        if t == "message_start":
            if not self._started:
                self._pending_start = dict(ev.get("raw") or {})
                # id / model / created as the source's table names them: they win over raw's own keys
                self._pending_named = {k: ev[k] for k in ("id", "model", "created") if ev.get(k) is not None}
            return b""
        if t == "usage" and not self._started and self._pending_start is not None:
            self._usage = dict(ev.get("usage") or {})  # the start event carries the usage known so far
            return b""
        if not self._started:
            out += self._start(self._pending_start)
        idx = ev.get("index", 0)
        if self._whole is not None and t != "usage" and not (t in ("reasoning_delta", "reasoning_signature") and idx == self._whole["index"]):
            out += self._flush_whole()
        self._ctx = ((str(t), idx), f"message.content[{idx}]", _WHAT.get(str(t), str(t)))
        if t in _PART_KINDS:
            if "reasoning_whole" in self.spec and t in ("reasoning_delta", "reasoning_signature"):
                if self._whole is None:
                    self._whole = {"index": idx, "text": "", "signature": ""}
                self._whole["text" if t == "reasoning_delta" else "signature"] += str(ev.get("text" if t == "reasoning_delta" else "signature", ""))
                return out
            templates = self.spec.get(t) or []
            carried_by_start = self._blocks and t == "redacted_reasoning" and "redacted_reasoning" in self.spec["blocks"]["start"]
            if not templates and not carried_by_start:  # a block start carries it, or it is lost
                self._lose((str(t), idx), f"message.content[{idx}]", f"{_WHAT.get(str(t), str(t))} has no place in a {self.format.key} stream")
                return out
            if self._blocks:
                kind = "text" if t in ("text_delta", "text_signature") else ("redacted_reasoning" if t == "redacted_reasoning" else "reasoning")
                if self._open is None or self._open[0] != "part" + str(idx):
                    out += self._open_block(("part", idx), kind, data=ev.get("data", ""))
                    if t == "redacted_reasoning":
                        return out
                values = self._vals(**{k: v for k, v in ev.items() if k != "type"})
                values["block"] = self._open[1] if self._open else 0
                if t in ("text_delta", "reasoning_delta"):
                    self._acc["text"].append(str(ev.get("text", "")))
                elif t in ("reasoning_signature", "text_signature"):
                    self._acc["signature"].append(str(ev.get("signature", "")))
            else:
                values = self._vals(**{k: v for k, v in ev.items() if k != "type"})
            return out + self._write(templates, values)
        self._ctx = ((str(t), idx), f"message.tool_calls[{idx}]", "the tool call")
        if "tool_call_whole" in self.spec and t in ("tool_call_start", "tool_call_delta", "tool_call_end"):
            return out + self._whole_call(t, idx, ev)
        if t == "tool_call_start":
            if self._blocks:
                return out + self._open_block(("tool", idx), "tool_call", index=idx, call_id=ev.get("id", ""), name=ev.get("name", ""))
            return out + self._write(self.spec.get("tool_call_start", []), self._vals(index=idx, call_id=ev.get("id", ""), name=ev.get("name", "")))
        if t == "tool_call_delta":
            if ev.get("arguments"):
                self._args_sent.add(idx)
            if self._blocks:
                if self._open is None or self._open[0] != "tool" + str(idx):
                    self._lose(("tool_call_delta", idx), f"message.tool_calls[{idx}].arguments",
                               "arguments arrived after their tool-call block was closed (interleaved tool calls)")
                    return out
                self._acc["arguments"].append(str(ev.get("arguments", "")))
                return out + self._write(self.spec.get("tool_call_delta", []), self._vals(block=self._open[1], index=idx, arguments=ev.get("arguments", "")))
            return out + self._write(self.spec.get("tool_call_delta", []), self._vals(index=idx, arguments=ev.get("arguments", "")))
        if t == "tool_call_end":
            if idx not in self._args_sent:  # a call with no argument text: its arguments are `{}`
                out += self.emit({"type": "tool_call_delta", "index": idx, "arguments": "{}"})
            if self._blocks and self._open is not None and self._open[0] == "tool" + str(idx):
                return out + self._close_block()
            return out + self._write(self.spec.get("tool_call_end", []), self._vals(index=idx))
        if t == "usage":
            self._usage = dict(ev.get("usage") or {})
            return out
        if t == "finish":
            self._finish = str(ev.get("finish_reason") or "stop")
            self._finish_raw = ev.get("raw")
            if self._blocks:
                out += self._close_block()
            if "finish" in self.spec:
                out += self._write(self.spec["finish"], self._vals(finish_reason=_finish_to_wire(self.table, self._finish, self._finish_raw)))
            return out
        if t == "error":
            self._failed = True
            status, body = self._error_body(ev)
            rows = getattr(self.format.module, "ERROR_ROWS", None)  # `{type}`: the errors.emit type of its category
            error_type = error_row(rows, getattr(self.format.module, "ERROR_ROWS_UPSTREAM", {}), stream_error(ev))[1] if rows else _MISSING
            return out + self._write(self.spec.get("error", []), self._vals(error=body, status=status, type=error_type), exception=True)
        return out

    def _flush_whole(self) -> bytes:
        """`reasoning_whole`: a reasoning part written once, at its end, with its joined text and
        signature (a format whose reasoning item opens with what only its end says: its id)."""
        part, self._whole = self._whole, None
        if part is None:
            return b""
        out = self._close_block() if self._blocks else b""
        idx = part["index"]
        self._ctx = (("reasoning_whole", idx), f"message.content[{idx}]", "reasoning")
        written = self._write(self.spec["reasoning_whole"], self._vals(index=idx, block=self._block_count, text=part["text"], signature=part["signature"] or None))
        if written:  # a part that could not be written takes no block number
            self._block_count += 1
        return out + written

    def _whole_call(self, t: Any, idx: int, ev: Mapping[str, Any]) -> bytes:
        """`tool_call_whole`: a format whose calls arrive whole (Gemini) gets each call once, at
        its end, with the argument pieces joined and parsed into an object."""
        if t == "tool_call_start":
            self._calls[idx] = {"call_id": ev.get("id") or None, "name": ev.get("name", ""), "arguments": "", "signature": ev.get("signature")}
            return b""
        call = self._calls.setdefault(idx, {"call_id": None, "name": "", "arguments": "", "signature": None})
        if t == "tool_call_delta":
            call["arguments"] += str(ev.get("arguments", ""))
            return b""
        self._calls.pop(idx, None)
        try:
            args = json.loads(call["arguments"] or "{}")
        except (ValueError, RecursionError):
            args = None
        if type(args) is dict and json_too_deep(args, "") is not None:
            self._lose(("tool_call_delta", idx), f"message.tool_calls[{idx}].arguments",
                       f"the streamed arguments are nested deeper than {MAX_JSON_DEPTH} levels; the call is written with {{}}")
            args = {}
        elif type(args) is not dict:
            self._lose(("tool_call_delta", idx), f"message.tool_calls[{idx}].arguments",
                       "the streamed arguments are not a JSON object; the call is written with {}")
            args = {}
        return self._write(self.spec["tool_call_whole"], self._vals(index=idx, call_id=call["call_id"], name=call["name"], arguments=args, signature=call["signature"]))

    def _error_body(self, ev: Mapping[str, Any]) -> tuple[int, Any]:
        """The format's own error envelope for the event, and the HTTP status it stands for
        (`{status}` in an error row: Groq's `error.status_code`)."""
        err = stream_error(ev)
        if self.format.error_to_wire is None:  # pragma: no cover - pre-error_to_wire modules
            return 500, {"error": {"message": err.message}}
        status, body, _headers = self.format.error_to_wire(err)
        return status, body

    def close(self, trailer: str | None = None) -> bytes:
        """The closing events (pending finish and usage, the end marker); `trailer` is written
        as an SSE comment before them."""
        if self._closed:
            return b""
        out = b"" if self._started or self._failed else self._start(self._pending_start)
        if not self._failed:
            out += self._flush_whole()
        self._closed = True
        if self._blocks and not self._failed:
            out += self._close_block()
        if trailer:
            out += self.comment(trailer)
        if self._failed:
            return out
        if "finish_usage" in self.spec:
            finish = self._finish or "stop"
            self._ctx = (("finish", 0), "finish_reason", "the finish")
            out += self._write(self.spec["finish_usage"], self._vals(finish_reason=_finish_to_wire(self.table, finish, self._finish_raw)))
        if "usage" in self.spec and self._usage is not None:
            wire_usage = usage_to_wire(self.table["usage"], self._usage)
            if wire_usage is not None and not self._usage_asked:  # `usage_when`: the client did not ask for it
                self._lose(("usage", 0), "usage", f"the usage is not written: the client's request did not ask for it ({self.format.key} stream usage_when)")
            elif wire_usage is not None:
                out += self._write(self.spec["usage"], self._vals(usage=wire_usage))
        out += self._write(self.spec.get("end", []), self._vals())
        return out


# ------------------------------------------------------------------------------------ requests


def stream_request_to_wire(fmt: str | Format, request: Any, **kwargs: Any) -> dict[str, Any]:
    """The wire body of a streaming call: `request_to_wire` plus the table's managed `request`
    fields. An extras key naming one of them must equal it (then it is absorbed); otherwise
    `provider_invalid_request` at `config.extras.<key>` (OpenArmature §6, §8.1.6)."""
    f = _fmt(fmt)
    table = _table(f)
    managed: dict[str, Any] = table["request"]
    req = request.to_dict() if hasattr(request, "to_dict") else dict(request)
    config = req.get("config")
    extras = config.get("extras") if isinstance(config, dict) else None
    if isinstance(extras, dict) and any(k in managed for k in extras):
        extras = dict(extras)
        for key, value in managed.items():
            if key in extras:
                if not deep_equal(extras[key], value):
                    raise InvalidRequestError(
                        f"{key} is managed by {f.key} on a streaming call (it sends {json.dumps(value)}); "
                        f"the extras value {json.dumps(extras[key], default=str)} conflicts",
                        path=f"config.extras.{key}",
                    )
                del extras[key]
        req = {**req, "config": {**(config or {}), "extras": extras}}
        if not extras:
            del req["config"]["extras"]
            if not req["config"]:
                del req["config"]
    wire: dict[str, Any] = f.request_to_wire(req, **kwargs)
    for key, value in managed.items():
        wire[key] = json.loads(json.dumps(value))
    return wire


# ------------------------------------------------------------------------------------ translation


def forward_event(ev: Mapping[str, Any], source: Format, emitter: "StreamEmitter") -> Mapping[str, Any] | None:
    """The event as it goes on to `emitter`'s format when it comes from `source`'s: signed data
    goes back only to its origin (CANONICAL.md, as `signatures: strip_foreign`), so another
    provider's reasoning or text signature or redacted reasoning is not forwarded (a `Loss` on
    the emitter) and a tool
    call's signature is left off (reported by the response losses). None: nothing to emit."""
    if source.provider == emitter.format.provider:
        return ev
    t = ev.get("type")
    if t in ("reasoning_signature", "text_signature", "redacted_reasoning"):
        idx = ev.get("index", 0)
        what = {"reasoning_signature": "reasoning signature", "text_signature": "text signature"}.get(str(t), "redacted reasoning block")
        emitter._lose((str(t), idx), f"message.content[{idx}]",
                      f"a {source.provider} {what} is not sent to {emitter.format.provider}")
        return None
    if t == "tool_call_start" and "signature" in ev:
        return {k: v for k, v in ev.items() if k != "signature"}
    return ev


_SIGNED: Final = frozenset(("reasoning_signature", "text_signature", "redacted_reasoning", "tool_call_start"))  # what forward_event reads


class StreamTranslation:
    """A stream re-emitted in another format, as it arrives.

    Iterate it (sync for a sync source, `async for` for an async one) to get the target's SSE
    bytes. A stream's bytes into its own format (or a format of the same wire with the same
    stream table, `same_stream`) pass through as they came, read only for `response`. Afterwards: `response` (the assembled `Response`, or None after an error), `error`
    (the typed error that ended the stream, with `.partial`), `losses` (what the target could
    not carry; also written as a final `: wiremap-losses [...]` SSE comment when `trailer`).
    """

    def __init__(self, source_stream: Any, source: str | Format, target: str | Format, *, trailer: bool = True,
                 request: Mapping[str, Any] | None = None) -> None:
        self.source = _fmt(source)
        self.target = _fmt(target)
        self._input = source_stream
        self._trailer = trailer
        self.parser: StreamParser | None = None
        self.assembler = StreamAssembler(self.source)
        self.emitter = StreamEmitter(self.target, request=request, raw_from=self.source)
        self.response: Response | None = None
        self.error: ProviderError | None = None
        self.losses: list[Any] = []
        # the same wire in and out (one format, or two whose stream tables are one: a dialect that
        # changes only the transport, Azure's two routes): bytes go through as they came, read
        # only for the assembled response -- the identity, carried data and all
        self.passthrough = same_stream(self.source, self.target)
        self._raw = False  # bytes were passed through (canonical events are always re-emitted)

    def _events(self, item: Any) -> list[dict[str, Any]]:
        if isinstance(item, (bytes, bytearray, memoryview)):
            if self.parser is None:
                self.parser = StreamParser(self.source)
            return self.parser.feed(bytes(item))
        if isinstance(item, str):
            if self.parser is None:
                self.parser = StreamParser(self.source)
            return self.parser.feed(item.encode("utf-8"))
        if isinstance(item, Mapping):
            return [dict(item)]
        raise TypeError(f"translate_stream takes bytes or canonical event dicts, got {type(item).__name__}")

    def _step(self, item: Any) -> bytes:
        if self.passthrough and isinstance(item, (bytes, bytearray, memoryview, str)):
            data = item.encode("utf-8") if isinstance(item, str) else bytes(item)
            for ev in self._events(data):
                self.assembler.add(ev)
            self._raw = True
            return data
        return self._push(self._events(item))

    def _push(self, events: list[dict[str, Any]]) -> bytes:
        out = []
        add, emit = self.assembler.add, self.emitter.emit
        same = self.source.provider == self.emitter.format.provider
        for ev in events:
            add(ev)
            # forward_event changes only signed data and tool-call starts between providers
            fwd = ev if same or ev.get("type") not in _SIGNED else forward_event(ev, self.source, self.emitter)
            if fwd is not None:
                out.append(emit(fwd))
        return b"".join(out)

    def _finish(self) -> bytes:
        out = b""
        if self._raw:  # passed through: the source's own closing is in its bytes already
            for ev in self.parser.close() if self.parser is not None else []:
                self.assembler.add(ev)
            try:
                self.response = self.assembler.response()
            except ProviderError as exc:
                self.error = exc.with_traceback(None)  # its traceback's frames hold this translation: a reference cycle
            return b""
        if self.parser is not None:
            out += self._push(self.parser.close())
        from .translate import response_losses

        losses = list(self.emitter.losses)
        try:
            self.response = self.assembler.response()
        except ProviderError as exc:
            self.error = exc.with_traceback(None)  # its traceback's frames hold this translation: a reference cycle
            if self.assembler.error is None:  # the assembly itself failed: tell the client
                out += self.emitter.emit({"type": "error", "category": exc.category, "message": exc.message})
        if self.response is not None:
            try:
                _wire, more = response_losses(without_own_carried(self.response, self.target), self.target, source=self.source)
            except ProviderError:
                more = []
            more = more + rewritten_carried_losses(self.response, self.target)
            seen = {(loss.path, loss.kind) for loss in losses}
            losses += [loss for loss in more if (loss.path, loss.kind) not in seen and not loss.path.startswith("message.content")]
        self.losses = losses
        trailer = None
        if self._trailer and losses:
            trailer = "wiremap-losses " + json.dumps([loss.to_dict() for loss in losses], ensure_ascii=False, separators=(",", ":"))
        return out + self.emitter.close(trailer)

    def __iter__(self) -> Iterator[bytes]:
        for item in self._input:
            data = self._step(item)
            if data:
                yield data
        tail = self._finish()
        if tail:
            yield tail

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if not isinstance(self._input, AsyncIterable):
            for data in self:
                yield data
            return
        async for item in self._input:
            data = self._step(item)
            if data:
                yield data
        tail = self._finish()
        if tail:
            yield tail


_SAME_STREAM: dict[tuple[str, str], bool] = {}


def same_stream(source: str | Format, target: str | Format) -> bool:
    """Whether a `source` stream is, byte for byte, a `target` stream: one format, or two of
    one wire (the same carried-data origin) whose stream tables are the same."""
    a, b = _fmt(source), _fmt(target)
    key = (a.key, b.key)
    same = _SAME_STREAM.get(key)
    if same is None:
        from .translate import origin_of

        same = a.key == b.key or (bool(a.stream) and origin_of(a) == origin_of(b) and a.stream == b.stream)
        _SAME_STREAM[key] = same
    return same


def rewritten_carried_losses(response: Response, target: str | Format) -> list[Any]:
    """A stream re-written from its events for a target of its own wire (another dialect, or
    canonical events in): the provider data no rule reads goes back to that wire in a
    non-streamed body, but a re-written stream has no place for it. Each op is named as
    dropped (another wire's loss report names it already: `response_losses`)."""
    from .carry import ABSENT, path_text
    from .translate import Loss, origin_of

    fmt = _fmt(target)
    carried = response.carried
    if carried is None or carried.origin != origin_of(fmt):
        return []
    return [
        Loss(path_text(path), "dropped", f"provider data a re-written {fmt.key} stream has no place for (a stream of the same format passes through whole)")
        for path, value in carried.ops
        if value is not ABSENT
    ]


def without_own_carried(response: Response, target: str | Format) -> Response:
    """`response` for the loss report of a stream translated to `target`: a stream's carried data
    (its `carried` event) is named as lost on another wire; going back to its own wire it is no
    loss (a same-format gateway passes the stream through byte for byte)."""
    from .translate import origin_of

    carried = response.carried
    if carried is None or carried.origin != origin_of(_fmt(target)):
        return response
    return Response(response.message, response.finish_reason, response.usage, response.raw, response.parsed, None)


def translate_stream(
    events_or_bytes: Iterable[Any] | AsyncIterable[Any],
    source: str | Format,
    target: str | Format,
    *,
    trailer: bool = True,
    request: Mapping[str, Any] | None = None,
) -> StreamTranslation:
    """A stream in `source`'s wire format (byte chunks, split anywhere) or canonical events ->
    the same stream in `target`'s SSE bytes, produced as the input arrives. See
    `StreamTranslation` for the assembled response, the error and the loss report. `request`: the
    client's streaming request body in `target`'s format, when known (what it asked to be sent,
    `StreamEmitter`)."""
    return StreamTranslation(events_or_bytes, source, target, trailer=trailer, request=request)


def events_from_response(response: Response | Mapping[str, Any]) -> list[dict[str, Any]]:
    """A whole `Response` as the canonical events of a stream that delivers it in one piece
    (what a gateway sends a streaming client when the upstream answered atomically)."""
    resp = response if isinstance(response, Response) else Response.from_dict(response)
    d = resp.to_dict()
    raw_value = d.get("raw")
    raw: dict[str, Any] = raw_value if isinstance(raw_value, dict) else {}
    out: list[dict[str, Any]] = [{"type": "message_start", "raw": {k: v for k, v in raw.items() if not isinstance(v, (dict, list))}}]
    msg = d["message"]
    content = msg.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) and content else (content if isinstance(content, list) else [])
    for i, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            out.append({"type": "text_delta", "index": i, "text": block["text"]})
            if block.get("signature"):
                out.append({"type": "text_signature", "index": i, "signature": block["signature"]})
        elif kind == "thinking":
            if block.get("text"):
                out.append({"type": "reasoning_delta", "index": i, "text": block["text"]})
            if block.get("signature"):
                out.append({"type": "reasoning_signature", "index": i, "signature": block["signature"]})
        elif kind == "redacted_thinking":
            out.append({"type": "redacted_reasoning", "index": i, "data": block.get("data", "")})
    for k, call in enumerate(msg.get("tool_calls") or []):
        start: dict[str, Any] = {"type": "tool_call_start", "index": k, "id": call["id"], "name": call["name"]}
        if call.get("signature"):
            start["signature"] = call["signature"]
        out.append(start)
        args = call.get("arguments")
        out.append({"type": "tool_call_delta", "index": k, "arguments": json.dumps(args if args is not None else {}, ensure_ascii=False, separators=(",", ":"))})
        out.append({"type": "tool_call_end", "index": k})
    out.append({"type": "finish", "finish_reason": d["finish_reason"], "raw": None})
    usage = d.get("usage") or {}
    if any(usage.get(n) is not None for n in ("prompt_tokens", "completion_tokens", "total_tokens")):
        out.append({"type": "usage", "usage": usage, "raw": None})
    carried = resp.carried
    if carried is not None:  # its carried wire data, for the loss report or its own wire
        data = [{"path": list(path), "value": carry_copy(value)} for path, value in carried.ops if value is not ABSENT]
        if data:
            out.append({"type": "carried", "origin": carried.origin, "data": data})
    return out


def parse_stream(data: bytes | Iterable[bytes], fmt: str | Format, *, wire_map: Any = None) -> list[dict[str, Any]]:
    """Every canonical event of a whole recorded stream (convenience for tests and tools); with
    the call's `wire_map` (mapping `wire_rules`), tool calls carry the caller's ids and names."""
    parser = StreamParser(fmt, wire_map=wire_map)
    chunks = [data] if isinstance(data, (bytes, bytearray)) else data
    out: list[dict[str, Any]] = []
    for chunk in chunks:
        out += parser.feed(bytes(chunk))
    out += parser.close()
    return out


__all__ += ["events_from_response", "forward_event", "without_own_carried", "same_stream", "rewritten_carried_losses", "parse_stream", "usage_from_wire", "usage_to_wire", "SSEDecoder"]

_ = (UnavailableError,)

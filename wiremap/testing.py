"""Runs the fixtures of a mapping file (`mappings/fixtures/<key>.yaml`, or a mapping's own
`fixtures:`); the generated test modules call these.

`fixture_outcome` gives what a fixture's call returned beside what the fixture expects, as two
plain JSON dicts, so a test can `assert actual == expected` and pytest shows the difference.
Also usable by third parties testing their own mappings. Needs pytest.
"""

from __future__ import annotations

import copy
import difflib
import json
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from wiremap.runtime.errors import ProviderError, UnsupportedOptionWarning
from wiremap.runtime.format import Format

__all__ = ["fixture_outcome", "round_trip_outcome", "run_fixture", "run_round_trip", "assert_same_json"]

#: what a fixture pins; `fixture_outcome` answers each one the fixture gives
_OUTCOMES = ("expect_wire", "expect_canonical", "expect_error", "expect_events", "expect_sse", "expect_changes", "expect_warning")


def _dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, default=repr)


def assert_same_json(actual: Any, expected: Any) -> None:
    """Equal as JSON, types included (1 is not 1.0, True is not 1); key order ignored.
    On a difference, the message is a unified diff of the two as indented JSON."""
    if actual == expected and _dumps(actual) == _dumps(expected):
        return
    diff = difflib.unified_diff(_dumps(expected).splitlines(), _dumps(actual).splitlines(), "expected", "actual", lineterm="")
    raise AssertionError("not the same JSON (- expected, + actual):\n" + "\n".join(diff))


def _error_outcome(exc: ProviderError, expect: dict[str, Any]) -> dict[str, Any]:
    """The error as `expect_error` reads it: the keys the fixture gives; `message_contains` and
    `retry_after` (within 1 s) read as expected when they hold. The message is added when
    anything differs, to show what was raised."""
    got: dict[str, Any] = {"category": exc.category}
    if "path" in expect:
        got["path"] = exc.path
    if "message_contains" in expect:
        got["message_contains"] = expect["message_contains"] if expect["message_contains"] in str(exc) else str(exc)
    if "retry_after" in expect:
        want = expect["retry_after"]
        close = exc.retry_after is None if want is None else exc.retry_after is not None and abs(exc.retry_after - want) <= 1.0
        got["retry_after"] = want if close else exc.retry_after
    if got != expect:
        got["message"] = str(exc)
    return got


def _call_or_error(case: dict[str, Any], fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
    """Call `fn`. With `expect_error`, a ProviderError is the outcome (and a return is reported
    as `expect_error: null` beside `returned`); without, it propagates with its traceback."""
    if "expect_error" not in case:
        return fn(*args, **kwargs), {}
    try:
        result = fn(*args, **kwargs)
    except ProviderError as exc:
        return None, {"expect_error": _error_outcome(exc, case["expect_error"])}
    plain = result.to_dict() if hasattr(result, "to_dict") else result
    return None, {"expect_error": None, "returned": plain}


def fixture_outcome(fmt: Format, case: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Runs one fixture; returns `(actual, expected)`, two plain JSON dicts keyed by the
    fixture's `expect_*` keys. A warning is part of the outcome (`expect_warning`, or `warnings`
    when the fixture expects none), never noise.

    What a fixture implies besides its pinned outcome (the call does not mutate its input,
    `Response.raw` is the body, the same format writes back what it read, a stream read byte by
    byte gives the same events) is checked once the pinned outcome matches, and fails with its
    own message."""
    expected = {k: case[k] for k in _OUTCOMES if k in case}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        actual, checks = _outcome(fmt, case)
        if all(k in expected and _same(v, expected[k]) for k, v in actual.items()):
            for check in checks:
                check()
    texts = [str(w.message) for w in caught]
    if "expect_warning" in case:
        actual["expect_warning"] = case["expect_warning"] if any(case["expect_warning"] in t for t in texts) else texts
    elif texts:
        actual["warnings"] = texts
    return actual, expected


def _same(actual: Any, expected: Any) -> bool:
    return bool(actual == expected and _dumps(actual) == _dumps(expected))


def run_fixture(fmt: Format, case: dict[str, Any]) -> None:
    """Runs one fixture and asserts its outcome (`fixture_outcome`), types included."""
    actual, expected = fixture_outcome(fmt, case)
    assert_same_json(actual, expected)


def _wire_map_kwargs(case: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """`wire_map:` in a fixture: a WireMap (mapping `wire_rules:`) passed to the call."""
    if "wire_map" not in case:
        return None, {}
    from wiremap.runtime.wire_rules import WireMap

    wire_map = WireMap.from_dict(case["wire_map"])
    return wire_map, {"wire_map": wire_map}


def _outcome(fmt: Format, case: dict[str, Any]) -> tuple[dict[str, Any], list[Callable[[], None]]]:
    wire_map, extra = _wire_map_kwargs(case)
    actual, checks = _run_call(fmt, case, extra)
    if "expect_changes" in case:
        actual["expect_changes"] = [c.to_dict() for c in wire_map.changes] if wire_map is not None else None
    return actual, checks


def _run_call(fmt: Format, case: dict[str, Any], extra: dict[str, Any]) -> tuple[dict[str, Any], list[Callable[[], None]]]:
    checks: list[Callable[[], None]] = []
    if "to_wire" in case:
        request = case["to_wire"]
        before = copy.deepcopy(request)
        wire, actual = _call_or_error(case, fmt.request_to_wire, request, **extra)
        if "expect_wire" in case:
            actual["expect_wire"] = wire
            if case.get("key_order") == "exact":  # the caller's key order, kept (user JSON)
                checks.append(lambda: _same_key_order(wire, case["expect_wire"]))

        def unchanged() -> None:
            assert request == before, "request_to_wire mutated its input"

        checks.append(unchanged)
        return actual, checks
    if "from_wire" in case:
        body = case["from_wire"]
        response, actual = _call_or_error(case, fmt.response_from_wire, body, response_schema=case.get("response_schema"), **extra)
        if response is None:
            return actual, checks
        plain = response.to_dict()
        raw = plain.pop("raw")
        if "carried" not in case["expect_canonical"]:  # the residual is pinned only where asked
            plain.pop("carried", None)
        actual["expect_canonical"] = plain

        def raw_is_body() -> None:
            assert raw is body, "Response.raw must be the body, verbatim"

        checks.append(raw_is_body)
        if fmt.kind == "chat" and not extra:  # a wire_map gives back the caller's names, on purpose
            checks.append(lambda: _same_format_identity(fmt.response_to_wire, response, body))
        return actual, checks
    if "request_from_wire" in case:
        body = case["request_from_wire"]
        request, actual = _call_or_error(case, fmt.request_from_wire, body, **extra)
        if request is None:
            return actual, checks
        plain = request.to_dict()
        if "carried" not in case["expect_canonical"]:  # the residual is pinned only where asked
            plain.pop("carried", None)
        actual["expect_canonical"] = plain
        if fmt.kind == "chat" and not extra:
            checks.append(lambda: _same_format_identity(fmt.request_to_wire, request, body))
        return actual, checks
    if "stream_from_wire" in case:
        return _run_stream_from_wire(fmt, case, extra)
    if "stream_to_wire" in case:
        return _run_stream_to_wire(fmt, case, extra)
    if "response_to_wire" in case:
        wire, actual = _call_or_error(case, fmt.response_to_wire, case["response_to_wire"])
        if "expect_wire" in case:
            actual["expect_wire"] = wire
        return actual, checks
    spec = case["error_from_wire"]
    err = fmt.error_from_wire(spec["status"], spec.get("body"), spec.get("headers"))
    assert isinstance(err, ProviderError), "error_from_wire returns the error"
    return {"expect_error": _error_outcome(err, case["expect_error"])}, checks


def _same_key_order(wire: Any, expected: Any) -> None:
    if json.dumps(wire) != json.dumps(expected):
        diff = difflib.unified_diff(
            json.dumps(expected, indent=2).splitlines(), json.dumps(wire, indent=2).splitlines(), "expected", "actual", lineterm=""
        )
        raise AssertionError("key order differs (key_order: exact):\n" + "\n".join(diff))


def _same_format_identity(write: Any, record: Any, body: Any) -> None:
    """Same format in and out is the identity: what was read writes back as the body it was
    read from (what the tables do not model rides as carried data, runtime/carry.py). A record
    the format's own pre-send rules refuse (an OpenArmature dialect's ordering rules) is exempt:
    it has nothing to write."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            again = write(record)
    except ProviderError:
        return
    if any(issubclass(w.category, UnsupportedOptionWarning) for w in caught):
        return  # the table drops an option this API version or model refuses, and says so
    try:
        assert_same_json(again, body)
    except AssertionError as exc:
        raise AssertionError(f"the same format does not write back the body it read: {exc}") from None


def _run_stream_from_wire(
    fmt: Format, case: dict[str, Any], extra: dict[str, Any] | None = None
) -> tuple[dict[str, Any], list[Callable[[], None]]]:
    """The stream's events, the same whether it arrives whole or byte by byte; a stream that
    does not end in an error assembles into a Response whose raw parses back to it. With
    `wire_map:` (mapping `wire_rules`), tool calls carry the caller's ids and names."""
    from wiremap.runtime.stream import StreamAssembler, parse_stream

    extra = extra or {}
    body = case["stream_from_wire"].encode("utf-8")
    events = parse_stream(body, fmt, **extra)

    def byte_by_byte() -> None:
        assert parse_stream([body[i : i + 1] for i in range(len(body))], fmt, **extra) == events, "byte-by-byte reads differ"

    def assembles() -> None:
        asm = StreamAssembler(fmt)
        for ev in events:
            asm.add(ev)
        if events and events[-1]["type"] == "error":
            with pytest.raises(ProviderError) as info:
                asm.response()
            assert info.value.category == events[-1]["category"] and info.value.partial is not None
            return
        response = asm.response()
        again = fmt.response_from_wire(response.raw).to_dict()
        again.pop("carried", None)
        plain = response.to_dict()
        plain.pop("carried", None)  # the stream's carried data: pinned by the `carried` event
        if "thinking" not in json.dumps(plain) or "thinking" in json.dumps(again):  # a body that can carry it
            again.pop("raw")
            plain.pop("raw")
            assert_same_json(again, plain)

    return {"expect_events": events}, [byte_by_byte, assembles]


def _run_stream_to_wire(
    fmt: Format, case: dict[str, Any], extra: dict[str, Any] | None = None
) -> tuple[dict[str, Any], list[Callable[[], None]]]:
    """Canonical events -> exactly the expected SSE text, which parses back to the same answer.
    With `wire_map:` (mapping `wire_rules`) the emitter records its repairs on that map."""
    from wiremap.runtime.stream import StreamAssembler, StreamEmitter, parse_stream

    emitter = StreamEmitter(fmt, **(extra or {}), request=case.get("stream_request"))  # `stream_request`: the client's body
    out = b"".join(emitter.emit(ev) for ev in case["stream_to_wire"]) + emitter.close()

    def parses_back() -> None:
        if any(ev.get("type") == "error" for ev in case["stream_to_wire"]):
            return
        source = StreamAssembler(fmt)
        for ev in case["stream_to_wire"]:
            source.add(ev)
        back = StreamAssembler(fmt)
        for ev in parse_stream(out, fmt, wire_map=emitter.wire_map):  # repaired ids and names read back as the caller's
            back.add(ev)
        a, b = source.response().to_dict(), back.response().to_dict()
        a.pop("raw")
        b.pop("raw")
        a.pop("carried", None)  # the emitter writes no carried data (its losses are the translation's)
        b.pop("carried", None)
        if not [loss for loss in emitter.losses if not loss.detail.startswith("wire_rules.")]:
            assert_same_json(b, a)

    return {"expect_sse": out.decode("utf-8")}, [parses_back]


def round_trip_outcome(fmt: Format, case: dict[str, Any]) -> tuple[Any, Any]:
    """wire -> canonical -> wire for a fixture that pins a wire body: `(body written back, body)`."""
    if "to_wire" in case:
        wire = case["expect_wire"]
        if "wire_map" in case:  # through the rules: the wire read back with the map, then resent
            wire_map, extra = _wire_map_kwargs(case)
            fmt.request_to_wire(case["to_wire"], **extra)  # fills the map as the call did
            return fmt.request_to_wire(fmt.request_from_wire(wire, **extra), **extra), wire
        return fmt.request_to_wire(fmt.request_from_wire(wire)), wire
    body = case["from_wire"]
    return fmt.response_to_wire(fmt.response_from_wire(body)), body


def run_round_trip(fmt: Format, case: dict[str, Any]) -> None:
    """wire -> canonical -> wire is the identity for fixtures not declared lossy."""
    assert_same_json(*round_trip_outcome(fmt, case))

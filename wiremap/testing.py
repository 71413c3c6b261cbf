"""Runs the fixtures of a mapping file (`fixtures:`); the generated test modules call these.

Also usable by third parties testing their own mappings. Needs pytest.
"""

from __future__ import annotations

import copy
import json
import warnings
from typing import Any

import pytest

from wiremap.runtime.errors import ProviderError, UnsupportedOptionWarning
from wiremap.runtime.format import Format

__all__ = ["run_fixture", "run_round_trip", "assert_same_json"]


def assert_same_json(actual: Any, expected: Any) -> None:
    """Equal as JSON, types included (1 is not 1.0, True is not 1); key order ignored."""
    assert actual == expected
    assert json.dumps(actual, sort_keys=True) == json.dumps(expected, sort_keys=True)


def _check_error(exc: ProviderError, expect: dict[str, Any]) -> None:
    assert exc.category == expect["category"], f"got {exc.category}: {exc}"
    if "path" in expect:
        assert exc.path == expect["path"], f"error path {exc.path!r}, expected {expect['path']!r} ({exc})"
    if "message_contains" in expect:
        assert expect["message_contains"] in str(exc), str(exc)
    if "retry_after" in expect:
        if expect["retry_after"] is None:
            assert exc.retry_after is None
        else:
            assert exc.retry_after == pytest.approx(expect["retry_after"], abs=1.0)


def _raises(expect: dict[str, Any], fn: Any, *args: Any, **kwargs: Any) -> None:
    with pytest.raises(ProviderError) as info:
        fn(*args, **kwargs)
    _check_error(info.value, expect)


def run_fixture(fmt: Format, case: dict[str, Any]) -> None:
    """Runs one fixture; a warning is part of the outcome (`expect_warning`), never noise."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _run_fixture(fmt, case)
    texts = [str(w.message) for w in caught]
    if "expect_warning" in case:
        assert any(case["expect_warning"] in t for t in texts), f"expected a warning containing {case['expect_warning']!r}, got {texts}"
    else:
        assert not texts, f"unexpected warnings: {texts}"


def _wire_map_kwargs(case: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """`wire_map:` in a fixture: a WireMap (mapping `wire_rules:`) passed to the call."""
    if "wire_map" not in case:
        return None, {}
    from wiremap.runtime.wire_rules import WireMap

    wire_map = WireMap.from_dict(case["wire_map"])
    return wire_map, {"wire_map": wire_map}


def _run_fixture(fmt: Format, case: dict[str, Any]) -> None:
    wire_map, extra = _wire_map_kwargs(case)
    _run_call(fmt, case, extra)
    if "expect_changes" in case:
        assert wire_map is not None, "expect_changes needs wire_map"
        assert_same_json([c.to_dict() for c in wire_map.changes], case["expect_changes"])


def _run_call(fmt: Format, case: dict[str, Any], extra: dict[str, Any]) -> None:
    if "to_wire" in case:
        request = case["to_wire"]
        before = copy.deepcopy(request)
        if "expect_error" in case:
            _raises(case["expect_error"], fmt.request_to_wire, request, **extra)
        else:
            wire = fmt.request_to_wire(request, **extra)
            assert_same_json(wire, case["expect_wire"])
            if case.get("key_order") == "exact":  # the caller's key order, kept (user JSON)
                assert json.dumps(wire) == json.dumps(case["expect_wire"]), "key order differs"
        assert request == before, "request_to_wire mutated its input"
    elif "from_wire" in case:
        body = case["from_wire"]
        schema = case.get("response_schema")
        if "expect_error" in case:
            _raises(case["expect_error"], fmt.response_from_wire, body, response_schema=schema, **extra)
            return
        response = fmt.response_from_wire(body, response_schema=schema, **extra)
        plain = response.to_dict()
        assert plain.pop("raw") is body, "Response.raw must be the body, verbatim"
        if "carried" not in case["expect_canonical"]:  # the residual is pinned only where asked
            plain.pop("carried", None)
        assert_same_json(plain, case["expect_canonical"])
        if fmt.kind == "chat" and not extra:  # a wire_map gives back the caller's names, on purpose
            _same_format_identity(fmt.response_to_wire, response, body)
    elif "request_from_wire" in case:
        body = case["request_from_wire"]
        if "expect_error" in case:
            _raises(case["expect_error"], fmt.request_from_wire, body, **extra)
        else:
            request = fmt.request_from_wire(body, **extra)
            plain = request.to_dict()
            if "carried" not in case["expect_canonical"]:  # the residual is pinned only where asked
                plain.pop("carried", None)
            assert_same_json(plain, case["expect_canonical"])
            if fmt.kind == "chat" and not extra:
                _same_format_identity(fmt.request_to_wire, request, body)
    elif "stream_from_wire" in case:
        _run_stream_from_wire(fmt, case, extra)
    elif "stream_to_wire" in case:
        _run_stream_to_wire(fmt, case, extra)
    elif "response_to_wire" in case:
        if "expect_error" in case:
            _raises(case["expect_error"], fmt.response_to_wire, case["response_to_wire"])
        else:
            assert_same_json(fmt.response_to_wire(case["response_to_wire"]), case["expect_wire"])
    else:
        spec = case["error_from_wire"]
        err = fmt.error_from_wire(spec["status"], spec.get("body"), spec.get("headers"))
        assert isinstance(err, ProviderError), "error_from_wire returns the error"
        _check_error(err, case["expect_error"])


def _same_format_identity(write: Any, record: Any, body: Any) -> None:
    """Same format in and out is the identity: what was read writes back as the body it was
    read from (what the tables do not model rides as carried data, runtime/carry.py). A record
    the format's own pre-send rules refuse (an OpenArmature dialect's ordering rules) is exempt:
    it has nothing to write."""
    import warnings

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            again = write(record)
    except ProviderError:
        return
    if any(issubclass(w.category, UnsupportedOptionWarning) for w in caught):
        return  # the table drops an option this API version or model refuses, and says so
    assert_same_json(again, body)


def _run_stream_from_wire(fmt: Format, case: dict[str, Any], extra: dict[str, Any] | None = None) -> None:
    """The stream's events, the same whether it arrives whole or byte by byte; a stream that
    does not end in an error assembles into a Response whose raw parses back to it. With
    `wire_map:` (mapping `wire_rules`), tool calls carry the caller's ids and names."""
    from wiremap.runtime.stream import StreamAssembler, parse_stream

    extra = extra or {}
    body = case["stream_from_wire"].encode("utf-8")
    events = parse_stream(body, fmt, **extra)
    assert_same_json(events, case["expect_events"])
    assert parse_stream([body[i : i + 1] for i in range(len(body))], fmt, **extra) == events, "byte-by-byte reads differ"
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
    if "thinking" not in json.dumps(plain) or "thinking" in json.dumps(again):  # a body that can carry it
        again.pop("raw")
        plain.pop("raw")
        assert_same_json(again, plain)


def _run_stream_to_wire(fmt: Format, case: dict[str, Any], extra: dict[str, Any] | None = None) -> None:
    """Canonical events -> exactly the expected SSE text, which parses back to the same answer.
    With `wire_map:` (mapping `wire_rules`) the emitter records its repairs on that map."""
    from wiremap.runtime.stream import StreamAssembler, StreamEmitter, parse_stream

    emitter = StreamEmitter(fmt, **(extra or {}), request=case.get("stream_request"))  # `stream_request`: the client's body
    out = b"".join(emitter.emit(ev) for ev in case["stream_to_wire"]) + emitter.close()
    assert out.decode("utf-8") == case["expect_sse"]
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
    if not [loss for loss in emitter.losses if not loss.detail.startswith("wire_rules.")]:
        assert_same_json(b, a)


def run_round_trip(fmt: Format, case: dict[str, Any]) -> None:
    """wire -> canonical -> wire is the identity for fixtures not declared lossy."""
    if "to_wire" in case:
        wire = case["expect_wire"]
        if "wire_map" in case:  # through the rules: the wire read back with the map, then resent
            wire_map, extra = _wire_map_kwargs(case)
            fmt.request_to_wire(case["to_wire"], **extra)  # fills the map as the call did
            assert_same_json(fmt.request_to_wire(fmt.request_from_wire(wire, **extra), **extra), wire)
            return
        assert_same_json(fmt.request_to_wire(fmt.request_from_wire(wire)), wire)
    else:
        body = case["from_wire"]
        assert_same_json(fmt.response_to_wire(fmt.response_from_wire(body)), body)

"""OpenArmature llm-provider conformance (../shared/conformance/openarmature) against the
`openarmature.openai_chat` and `openarmature.anthropic_messages` formats.

The OpenArmature harness drives `complete()` through a mock HTTP provider. This module checks
the same contract one layer down, on the converters (test_openarmature_runtime.py runs it over
real HTTP through `wiremap.Provider`):

- `test_wire_request`: `request_to_wire(request)` equals `expected_wire_request` (exact deep
  equality, "*" wildcard, tool-call `arguments` strings compared decoded) and satisfies
  `expected_wire_request_checks` / `expected_wire_request_absent_keys`;
- `test_complete`: the call as the harness runs it: `request_to_wire` (a pre-send rejection
  must raise the expected category), then the mock response: status 200 through
  `response_from_wire(body, response_schema=...)`, any other status through
  `error_from_wire(status, body, headers)` (returned, not raised);
- `test_wire_bytes_identical`: `expected_wire_bytes_identical` groups give identical bytes.

Cases that need a real HTTP exchange (the `ready()` probe, a connection failure, a §7.1
call-level retry / reask loop) are not collected here: test_openarmature_runtime.py runs them,
and every other complete() case too, through `wiremap.Provider` against a loopback server. Gemini (§8.3) cases run against `openarmature.gemini_generate_content`
(and its prompt-fallback dialect for 051). Streaming calls (`call.stream`) build their request
with `stream_request_to_wire`; a `stream_body` mock is framed as server-sent events and parsed
and assembled by `wiremap.runtime.stream`.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

import openarmature_cases as oa  # noqa: E402
from _support import (  # noqa: E402
    ABSENT,
    OPENARMATURE_FIXTURES,
    TRANSIENT_CATEGORIES,
    deep_match,
    load_wiremap,
    plain,
    report,
    strip_key,
    unsupported,
    wire_bytes,
)

pytestmark = pytest.mark.conformance

CASES, GROUPS, LOAD_ERROR = oa.load()


def _param(item: Any, xfail_reason: str | None = None) -> Any:
    marks = []
    if item.skip:
        marks.append(pytest.mark.skip(reason=item.skip))
    elif getattr(item, "needs_runtime", None):
        marks.append(pytest.mark.xfail(reason=item.needs_runtime, strict=False))
    elif xfail_reason:
        marks.append(pytest.mark.xfail(reason=xfail_reason, strict=False))
    return pytest.param(item, id=item.id, marks=marks)


WIRE_PARAMS = [_param(c, c.xfail_wire) for c in CASES if c.has_wire_expectation]
# ready() probes and connection failures: test_openarmature_runtime.py (real HTTP)
COMPLETE_PARAMS = [_param(c, c.xfail_complete) for c in CASES if not c.over_http]
GROUP_PARAMS = [_param(g) for g in GROUPS]


# ---------------------------------------------------------------------------------------------
# the suite itself


def test_suite_present() -> None:
    """The data is there and the loader sees what ../shared/conformance/README.md states."""
    assert LOAD_ERROR is None, LOAD_ERROR
    fixtures = {c.fixture for c in CASES}
    assert (
        len(fixtures) == oa.EXPECTED_FIXTURES
    ), f"{len(fixtures)} fixtures under {OPENARMATURE_FIXTURES}, expected {oa.EXPECTED_FIXTURES}"
    wire = {m: sum(1 for c in CASES if c.mapping == m and c.expected_wire) for m in oa.EXPECTED_WIRE_REQUESTS}
    assert wire == oa.EXPECTED_WIRE_REQUESTS
    assert sum(1 for c in CASES if c.expected_raises) == oa.EXPECTED_RAISES
    # every case that is neither skipped nor runtime-only asserts something we run
    for case in CASES:
        if not case.skip and not case.needs_runtime:
            assert (
                case.has_wire_expectation
                or case.expected_response
                or case.expected_raises
                or case.expected.get("success") is True
            ), case.id


# ---------------------------------------------------------------------------------------------
# helpers


def _format(key: str | None) -> Any:
    assert key is not None
    return load_wiremap().get_format(key)


def _system_content_references_schema(wire: dict[str, Any], schema: Any) -> bool:
    texts = [
        m.get("content")
        for m in wire.get("messages", [])
        if isinstance(m, dict) and m.get("role") == "system"
    ]
    if isinstance(wire.get("system"), str):
        texts.append(wire["system"])
    props = list((schema or {}).get("properties", {}))
    for text in texts:
        if not isinstance(text, str):
            continue
        if json.dumps(schema, sort_keys=True) in text or json.dumps(schema) in text:
            return True
        if props and all(p in text for p in props):
            return True
    return False


def _wire_check_problems(case: oa.Case, wire: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    for check, wanted in case.wire_checks.items():
        if check.endswith("_absent"):
            key = check[: -len("_absent")]
            if wanted and key in wire:
                problems.append(f"check {check}: wire has {key}={wire[key]!r}")
        elif check == "system_message_content_references_schema":
            if wanted and not _system_content_references_schema(wire, case.response_schema):
                problems.append(f"check {check}: no system text references the schema")
        else:
            problems.append(f"check {check}: unknown to this harness (extend _wire_check_problems)")
    for key in case.wire_absent_keys:
        if key in wire:
            problems.append(f"absent key {key!r} present on the wire: {wire[key]!r}")
    return problems


def _error_problems(err: Any, raises: dict[str, Any], case: oa.Case) -> list[str]:
    wm = load_wiremap()
    if not isinstance(err, wm.ProviderError):
        return [f"expected a wiremap.ProviderError, got {type(err).__name__}: {err!r}"]
    problems: list[str] = []
    category = raises["category"]
    if err.category != category:
        problems.append(f"category: expected {category}, got {err.category} ({err!r})")
    if bool(err.transient) != (category in TRANSIENT_CATEGORIES):
        # 024 (provider_call_count: 1 under the default RetryMiddleware classifier) reduces to
        # this: structured_output_invalid must not be transient.
        problems.append(
            f"transient: {category} must be transient={category in TRANSIENT_CATEGORIES}"
        )
    for key, wanted in (raises.get("carries") or {}).items():
        if key == "response_schema_present":
            if wanted and getattr(err, "response_schema", None) != case.response_schema:
                problems.append("carries.response_schema: not the requested schema")
        elif key == "error_message_present":
            if wanted and not getattr(err, "error_message", None):
                problems.append("carries.error_message: empty")
        elif key == "error_message_mentions":
            if wanted not in str(getattr(err, "error_message", "")):
                problems.append(f"carries.error_message: does not mention {wanted!r}")
        elif key == "usage":
            got = plain(getattr(err, "usage", None)) or {}
            for name, value in wanted.items():
                problems += deep_match(value, got.get(name, ABSENT), f"error.usage.{name}")
        elif key in ("output_content", "finish_reason"):
            problems += deep_match(
                wanted, getattr(err, key, ABSENT), f"error.{key}", wildcard=False
            )
        else:
            problems.append(f"carries.{key}: unknown to this harness")
    if "message" in raises and raises["message"] not in str(err):
        problems.append(f"message: {raises['message']!r} not in {str(err)!r}")
    return problems


def _message_problems(expected: dict[str, Any], actual: Any) -> list[str]:
    if not isinstance(actual, dict):
        return [f"message: expected an object, got {actual!r}"]
    problems: list[str] = []
    for key, wanted in expected.items():
        got = actual.get(key, ABSENT)
        if key == "tool_calls" and wanted is None:  # fixture `tool_calls: null` = absent
            if got is not ABSENT:
                problems.append(f"message.tool_calls: expected absent, got {got!r}")
            continue
        if key == "content" and wanted is None and got is ABSENT:
            continue  # null content and absent content are the same
        # `origin` is the parser's provenance stamp (CANONICAL.md), not part of the fixtures
        problems += deep_match(wanted, strip_key(got, "origin"), f"message.{key}", wildcard=False)
    return problems


def _response_problems(expected: dict[str, Any], actual: dict[str, Any], body: Any) -> list[str]:
    problems: list[str] = []
    if "message" in expected:
        problems += _message_problems(expected["message"], actual.get("message", ABSENT))
    if "finish_reason" in expected:
        problems += deep_match(
            expected["finish_reason"], actual.get("finish_reason", ABSENT), "finish_reason"
        )
    if "usage" in expected:
        usage = actual.get("usage")
        if not isinstance(usage, dict):  # §6: the usage record is always present
            problems.append(f"usage: expected a record, got {usage!r}")
        else:
            for name, value in expected["usage"].items():
                problems += deep_match(value, usage.get(name, ABSENT), f"usage.{name}")
    if "parsed" in expected:
        if expected["parsed"] is None:
            if actual.get("parsed") is not None:
                problems.append(f"parsed: expected absent, got {actual['parsed']!r}")
        else:
            problems += deep_match(
                expected["parsed"], actual.get("parsed", ABSENT), "parsed", wildcard=False
            )
    raw = actual.get("raw", ABSENT)
    for key in (expected.get("raw_check") or {}).get("required_keys", []):
        if not isinstance(raw, dict) or key not in raw:
            problems.append(f"raw.{key}: missing")
    # §6: raw is the provider body verbatim (covers every raw_check / *_verbatim invariant)
    problems += deep_match(body, raw, "raw", wildcard=False, decode_arguments=False)
    return problems


# ---------------------------------------------------------------------------------------------
# tests


def _to_wire(fmt: Any, case: oa.Case) -> dict[str, Any]:
    """The wire request as the call sends it: `complete(stream=True)` adds the managed stream
    fields (and refuses a mapping without streaming, §5), otherwise `request_to_wire`."""
    if case.call.get("stream"):
        from wiremap.runtime.stream import stream_request_to_wire

        return stream_request_to_wire(fmt, case.request)
    return fmt.request_to_wire(case.request)


def sse_body(stream_body: list[Any]) -> bytes:
    """The mock's stream_body as the harness's SSE server frames it: one `data:` line each."""
    return b"".join(
        b"data: " + (item if isinstance(item, str) else json.dumps(item)).encode() + b"\n\n" for item in stream_body
    )


def _check_stream(case: oa.Case, fmt: Any, stream_body: list[Any]) -> None:
    from wiremap.runtime.stream import StreamAssembler, parse_stream

    body = sse_body(stream_body)
    events = parse_stream(body, fmt)
    asm = StreamAssembler(fmt)
    for ev in events:
        asm.add(ev)
    response = asm.response()
    actual = plain(response)
    expected = case.expected_response or {}
    problems = _response_problems({k: v for k, v in expected.items() if k != "raw_check"}, actual, actual["raw"])
    raw = actual["raw"]
    for key in (expected.get("raw_check") or {}).get("required_keys", []):
        if key not in raw:
            problems.append(f"raw.{key}: missing")
    # §6 streaming: the terminal chunk's usage block survives verbatim on the assembled raw
    terminal = [c["usage"] for c in stream_body if isinstance(c, dict) and isinstance(c.get("usage"), dict)]
    if terminal and raw.get("usage") != terminal[-1]:
        problems.append(f"raw.usage: expected the terminal chunk's {terminal[-1]!r}, got {raw.get('usage')!r}")
    # §6: content is the ordered concatenation of the streamed deltas
    deltas = "".join(e["text"] for e in events if e["type"] == "text_delta")
    content = actual["message"].get("content")
    text = content if isinstance(content, str) else "".join(b["text"] for b in content or [] if b.get("type") == "text")
    if deltas != (text or ""):
        problems.append(f"content {text!r} is not the concatenation of the deltas {deltas!r}")
    # the same stream split byte by byte assembles identically
    bytewise = StreamAssembler(fmt)
    for ev in parse_stream([body[i : i + 1] for i in range(len(body))], fmt):
        bytewise.add(ev)
    if plain(bytewise.response()) != actual:
        problems.append("the stream fed byte by byte assembles differently")
    assert not problems, report(f"{case.id}: streamed response differs", problems, f"response={actual}")


@pytest.mark.parametrize("case", WIRE_PARAMS)
def test_wire_request(case: oa.Case) -> None:
    if case.needs_runtime:
        unsupported(case.needs_runtime)
    wm = load_wiremap()
    fmt = _format(case.format_key)
    request = case.request
    before = copy.deepcopy(request)
    try:
        wire = _to_wire(fmt, case)
    except wm.ProviderError as exc:
        pytest.fail(f"request_to_wire rejected the request: {exc!r}\nrequest={request}")
    assert request == before, "request_to_wire mutated its input"
    problems: list[str] = []
    if case.expected_wire is not None:
        problems += deep_match(
            case.expected_wire,
            wire,
            "wire",
            collapse_single_text=case.fixture in oa.COLLAPSE_SINGLE_TEXT_OK,
        )
    problems += _wire_check_problems(case, wire)
    assert not problems, report(
        f"{case.id}: wire request differs", problems, f"request={request}", f"wire={wire}"
    )


def _bind_wildcard_tool_names(body: Any, wire: dict[str, Any]) -> Any:
    """A mock body may name the synthetic structured-output tool "*" (fixture 041: the name is
    implementation-defined); the provider would echo the name the request forced."""
    choice = wire.get("tool_choice")
    name = choice.get("name") if isinstance(choice, dict) else None
    if isinstance(body, dict) and isinstance(name, str):
        for block in body.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") == "*":
                block["name"] = name
    return body


@pytest.mark.parametrize("case", COMPLETE_PARAMS)
def test_complete(case: oa.Case) -> None:
    if case.needs_runtime:
        unsupported(case.needs_runtime)
    wm = load_wiremap()
    fmt = _format(case.format_key)
    raises = case.expected_raises
    request = case.request
    before = copy.deepcopy(request)
    try:
        wire = _to_wire(fmt, case)
    except wm.ProviderError as exc:
        assert request == before, "request_to_wire mutated its input"
        if raises is None:
            pytest.fail(f"request_to_wire rejected a request the fixture sends: {exc!r}")
        problems = _error_problems(exc, raises, case)
        assert not problems, report(f"{case.id}: pre-send rejection", problems, f"error={exc!r}")
        return
    assert request == before, "request_to_wire mutated its input"
    if not case.responses:
        assert raises is not None, f"{case.id}: fixture has no mock response for this call"
        pytest.fail(
            f"expected a pre-send {raises['category']} but request_to_wire accepted the request:"
            f"\nrequest={request}\nwire={wire}"
        )
    mock = case.responses[0]
    if mock.status == 200 and mock.stream_body is not None:
        _check_stream(case, fmt, mock.stream_body)
        return
    if mock.status == 200:
        body = _bind_wildcard_tool_names(copy.deepcopy(mock.body), wire)
        try:
            response = fmt.response_from_wire(
                body, response_schema=copy.deepcopy(case.response_schema)
            )
        except wm.ProviderError as exc:
            if raises is None:
                pytest.fail(f"response_from_wire raised {exc!r} for body {mock.body}")
            problems = _error_problems(exc, raises, case)
            assert not problems, report(f"{case.id}: response error", problems, f"error={exc!r}")
            return
        actual = plain(response)
        if raises is not None:
            pytest.fail(f"expected {raises['category']}, got a response: {actual}")
        problems = _response_problems(case.expected_response or {}, actual, body)
        assert not problems, report(f"{case.id}: response differs", problems, f"response={actual}")
        return
    # an HTTP error status: error_from_wire returns the error
    try:
        err = fmt.error_from_wire(mock.status, copy.deepcopy(mock.body), dict(mock.headers))
    except wm.ProviderError as exc:
        pytest.fail(f"error_from_wire must return the error, not raise it: {exc!r}")
    assert raises is not None, f"{case.id}: HTTP {mock.status} mock without expected.raises"
    problems = _error_problems(err, raises, case)
    wanted_retry_after = raises.get("retry_after_seconds")
    if wanted_retry_after is not None:
        if getattr(err, "retry_after", None) != wanted_retry_after:
            problems.append(f"retry_after: expected {wanted_retry_after}, got {err.retry_after!r}")
        # header names are case-insensitive (HTTP/2 servers send `retry-after`)
        lowered = {k.lower(): v for k, v in mock.headers.items()}
        err2 = fmt.error_from_wire(mock.status, copy.deepcopy(mock.body), lowered)
        if getattr(err2, "retry_after", None) != wanted_retry_after:
            problems.append(f"retry_after with lower-case header names: got {err2.retry_after!r}")
    assert not problems, report(
        f"{case.id}: HTTP {mock.status} mapping", problems, f"body={mock.body}", f"error={err!r}"
    )


@pytest.mark.parametrize("group", GROUP_PARAMS)
def test_wire_bytes_identical(group: oa.ByteStabilityGroup) -> None:
    requests = [c.request for c in group.cases]
    # harness sanity: the inputs are structurally equal but built in different orders
    assert all(r == requests[0] for r in requests[1:]), "fixture inputs are not equivalent"
    assert len({wire_bytes(r) for r in requests}) > 1, "fixture inputs do not differ in order"
    fmt = _format(group.format_key)
    wires = [fmt.request_to_wire(r) for r in requests]
    for i, wire in enumerate(wires[1:], start=1):
        problems = deep_match(wires[0], wire, "wire", wildcard=False, decode_arguments=False)
        assert not problems, report(f"call {i} differs from call 0", problems)
    encoded = [wire_bytes(w) for w in wires]
    assert len(set(encoded)) == 1, (
        "equal wire dicts serialize to different bytes (object key order follows the input):\n"
        + "\n".join(encoded)
    )

"""OpenArmature llm-provider conformance over real HTTP, through `wiremap.Provider`.

The OpenArmature harness drives `ready()` / `complete()` against a mock provider. Here the mock
is a loopback HTTP server (tests/runtime/loopback.py) that serves each fixture's
`mock_provider`: its `responses` in order on the format's endpoint (status, headers, body; a
`connection_failure` closes the connection without answering) and its `health_endpoint` on the
ready() probe's path. Each case runs through `Provider(format_key, model=..., base_url=server)`:

- `complete()` cases: a pre-send rejection must raise the expected category with nothing sent;
  otherwise the body the server received must equal `request_to_wire(request)` and the fixture's
  `expected_wire_request` (+ checks and absent keys), and the result must match
  `expected.response` (raw = the body the server sent) or `expected.raises` (category,
  transient, carried fields, `retry_after` from the real Retry-After header, and the httpx
  exception as `__cause__`);
- `ready()` cases (fixture 007): success, or the expected category.

Every complete() case of test_openarmature.py runs here too, so the error categories, structured
output and its fallbacks are also checked from real responses. The §7.1 call-level retry / reask
cases (056-066) run only here: the fixture's `retry` record is passed to `complete(retry=...)`
(its `reask.template` becomes the caller's builder, `template.format(output_content=...,
error_message=...)`), each attempt consumes the next mock response, and the requests the server
received (`wire_requests`: sampling, appended messages) and the per-attempt spans (`llm_spans`,
read back with the OpenTelemetry SDK's in-memory exporter) are checked. Gemini (§8.3) binds the model to the URL
path (`/v1beta/models/{model}:generateContent`): the body the server receives has no `model`, and
the fixtures' `expected_wire_request.model` is checked against the path instead.
"""

from __future__ import annotations

import asyncio
import copy
import re
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

_HERE = Path(__file__).resolve().parent
for _path in (_HERE, _HERE.parent / "runtime"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import openarmature_cases as oa  # noqa: E402
import test_openarmature as base  # noqa: E402 - the shared assertions
from _support import deep_match, load_wiremap, plain, report  # noqa: E402
from loopback import LoopbackServer, Reply, Seen  # noqa: E402

pytestmark = pytest.mark.conformance

API_KEY = "sk-openarmature-conformance"

CASES, _GROUPS, LOAD_ERROR = oa.load()


def _param(case: oa.Case) -> Any:
    marks = [pytest.mark.skip(reason=case.skip)] if case.skip else []
    return pytest.param(case, id=case.id, marks=marks)


RUNTIME_PARAMS = [_param(c) for c in CASES if not c.needs_runtime]


def test_runtime_cases_present() -> None:
    assert LOAD_ERROR is None, LOAD_ERROR
    over_http = [c for c in CASES if c.over_http and not c.skip]
    assert {c.id for c in over_http} >= {
        "004-error-categories::connection_failure",
        "007-ready-check::model_listed_and_loaded",
        "007-ready-check::model_listed_not_loaded",
        "007-ready-check::authentication_failed",
        "007-ready-check::model_unknown_to_provider",
        "007-ready-check::network_failure",
    }
    for case in over_http:
        assert not case.needs_runtime, case.id  # collected here, not xfailed anywhere


class _Mock:
    """The fixture's mock provider as a loopback-server handler."""

    def __init__(self, case: oa.Case, fmt: Any) -> None:
        self.case = case
        self.endpoint = fmt.transport["endpoint"]
        # `{field}` placeholders: path-bound request fields (Gemini's {model})
        self.path_params = re.findall(r"\{([^{}]*)\}", self.endpoint["path"])
        path = self.endpoint["path"]
        for name in self.path_params:
            path = path.replace("{" + name + "}", urllib.parse.quote(case.model, safe=""))
        self.path = path
        self.pending = list(case.responses)
        self.sent: list[Any] = []  # the bodies served, as sent
        self.problems: list[str] = []

    def __call__(self, seen: Seen) -> Reply:
        case = self.case
        if case.operation == "ready":
            health = case.mock.get("health_endpoint") or {}
            if seen.method != "GET" or seen.path != health.get("path"):
                self.problems.append(
                    f"ready() probed {seen.method} {seen.path}, fixture serves {health.get('path')}"
                )
                return Reply(404, {"error": {"message": "no such probe"}})
            if health.get("connection_failure"):
                return Reply.close()
            return Reply(
                int(health.get("status", 200)),
                copy.deepcopy(health.get("body")),
                headers=dict(health.get("headers") or {}),
            )
        if (seen.method, seen.path) != (self.endpoint["method"], self.path):
            self.problems.append(
                f"complete() sent {seen.method} {seen.path}, endpoint is {self.endpoint}"
            )
        if not self.pending:
            self.problems.append("complete() sent a request the fixture has no response for")
            return Reply(599, "no mock response left")
        mock = self.pending.pop(0)
        if mock.connection_failure:
            return Reply.close()
        if mock.stream_body is not None:  # §8.1.6: the harness's SSE server
            self.sent.append(None)
            return Reply(int(mock.status or 200), base.sse_body(mock.stream_body), content_type="text/event-stream")
        body = copy.deepcopy(mock.body)
        if mock.status == 200:
            body = base._bind_wildcard_tool_names(body, seen.json())
        self.sent.append(body)
        return Reply(int(mock.status or 200), body, headers=dict(mock.headers))


def _retry_record(case: oa.Case, observed: list[tuple[str, int]]) -> dict[str, Any] | None:
    """The fixture's §7.1 retry record as `complete(retry=...)` takes it: the declarative
    `reask: {template}` stand-in becomes the caller's builder; `on_retry` records each retry."""
    retry = case.retry
    if retry is None:
        return None
    record = dict(retry)
    reask = record.get("reask")
    if isinstance(reask, dict):
        template = str(reask["template"])
        record["reask"] = lambda output, message: template.format(
            output_content=output, error_message=message
        )
    record["on_retry"] = lambda error, index: observed.append((error.category, index))
    return record


def _run(
    case: oa.Case, fmt: Any, url: str, tracer_provider: Any = None, retry: Any = None
) -> tuple[Any, BaseException | None]:
    wm = load_wiremap()
    request = case.request or {}

    async def main() -> Any:
        async with wm.Provider(
            fmt, model=case.model, api_key=API_KEY, base_url=url, timeout=10,
            tracer_provider=tracer_provider,
        ) as p:
            if case.operation == "ready":
                return await p.ready()
            return await p.complete(
                request["messages"],
                tools=request.get("tools"),
                config=request.get("config"),
                response_schema=request.get("response_schema"),
                tool_choice=request.get("tool_choice"),
                stream=bool(case.call.get("stream")),
                retry=retry,
            )

    try:
        return asyncio.run(main()), None
    except Exception as exc:  # noqa: BLE001 - checked below
        return None, exc


@pytest.mark.parametrize("case", RUNTIME_PARAMS)
def test_runtime(case: oa.Case) -> None:
    import httpx

    wm = load_wiremap()
    fmt = wm.get_format(case.format_key)
    mock = _Mock(case, fmt)
    before = copy.deepcopy(case.request)
    if case.retry is not None:
        _check_retry_case(case, fmt, mock, before)
        return
    with LoopbackServer(mock) as server:
        result, error = _run(case, fmt, server.url)
    assert not server.errors, server.errors
    problems = list(mock.problems)
    assert case.request == before, "complete() mutated its input"
    raises = case.expected_raises

    if case.operation == "ready":
        assert len(server.requests) == 1, "ready() probes once"
        if raises is None:
            assert case.expected.get("success") is True
            assert error is None, f"ready() raised {error!r}"
            return
        assert error is not None, f"ready() returned; expected {raises['category']}"
        problems += base._error_problems(error, raises, case)
        assert not problems, report(f"{case.id}: ready()", problems, f"error={error!r}")
        return

    if case.pre_send:
        assert (
            error is not None
        ), f"expected a pre-send {raises and raises['category']}, got {result!r}"
        problems += base._error_problems(error, raises or {}, case)
        if server.requests:
            problems.append(f"a pre-send rejection sent {len(server.requests)} request(s)")
        assert not problems, report(f"{case.id}: pre-send", problems, f"error={error!r}")
        return

    # exactly one request went out (no retries), carrying the converter's body
    assert len(server.requests) == 1, f"{len(server.requests)} requests sent; one expected"
    wire = server.requests[0].json()
    for name in mock.path_params:  # path-bound: in the URL (checked by the mock), not the body
        if name in wire:
            problems.append(f"path-bound field {name!r} was also sent in the body")
        wire[name] = case.model
    problems += deep_match(
        base._to_wire(fmt, case), wire, "sent", wildcard=False, decode_arguments=False
    )
    if case.expected_wire is not None:
        problems += deep_match(
            case.expected_wire,
            wire,
            "wire",
            collapse_single_text=case.fixture in oa.COLLAPSE_SINGLE_TEXT_OK,
        )
    problems += base._wire_check_problems(case, wire)
    headers = server.requests[0].headers
    if headers.get("user-agent") != f"wiremap/{wm.__version__}":
        problems.append(f"user-agent: {headers.get('user-agent')!r}")

    mock_response = case.responses[0]
    if raises is not None:
        if error is None:
            problems.append(f"expected {raises['category']}, got a response: {plain(result)}")
        else:
            problems += base._error_problems(error, raises, case)
            wanted = raises.get("retry_after_seconds")
            if wanted is not None and getattr(error, "retry_after", None) != wanted:
                problems.append(
                    f"retry_after: expected {wanted}, got {getattr(error, 'retry_after', None)!r}"
                )
            if mock_response.connection_failure:
                if not isinstance(error.__cause__, httpx.TransportError):
                    problems.append(
                        f"__cause__: expected an httpx transport error, got {error.__cause__!r}"
                    )
            elif mock_response.status != 200:
                cause = error.__cause__
                if (
                    not isinstance(cause, httpx.HTTPStatusError)
                    or cause.response.status_code != mock_response.status
                ):
                    problems.append(
                        f"__cause__: expected HTTPStatusError({mock_response.status}), got {cause!r}"
                    )
                if getattr(error, "status", None) != mock_response.status:
                    problems.append(
                        f"status: expected {mock_response.status}, got {getattr(error, 'status', None)!r}"
                    )
        assert not problems, report(
            f"{case.id}: error", problems, f"error={error!r}", f"wire={wire}"
        )
        return

    if error is not None:
        pytest.fail(report(f"{case.id}: complete() raised {error!r}", problems, f"wire={wire}"))
    actual = plain(result)
    # a streamed body has no JSON body to compare raw with: raw is the assembled equivalent
    # (required keys and the terminal usage are checked by test_openarmature.py's stream check)
    sent = mock.sent[0] if mock.sent[0] is not None else actual["raw"]
    problems += base._response_problems(case.expected_response or {}, actual, sent)
    assert not problems, report(
        f"{case.id}: response differs", problems, f"response={plain(result)}"
    )


# ---------------------------------------------------------------------------------------------
# §7.1 call-level retry / reask


def _span_problems(expected: list[dict[str, Any]], spans: list[Any]) -> list[str]:
    """The fixture's `llm_spans` against the attempt spans. OpenArmature's own response
    attributes are read from their GenAI equivalents (`openarmature.llm.finish_reason` is
    `gen_ai.response.finish_reasons[0]`, `.model` is `gen_ai.response.model`); the attempt
    attributes carry the §7.1 names; `error_category` is `error.type`."""
    if len(spans) != len(expected):
        return [f"llm_spans: expected {len(expected)} attempt spans, got {len(spans)}"]
    problems: list[str] = []
    for i, (want, span) in enumerate(zip(expected, spans)):
        attrs = dict(span.attributes or {})
        where = f"llm_spans[{i}]"
        for name, value in (want.get("attributes") or {}).items():
            if name == "openarmature.llm.finish_reason":
                got: Any = list(attrs.get("gen_ai.response.finish_reasons") or [None])[0]
            elif name == "openarmature.llm.model":
                got = attrs.get("gen_ai.response.model")
            else:
                got = attrs.get(name, "<absent>")
            if got != value:
                problems.append(f"{where}.{name}: expected {value!r}, got {got!r}")
        for name in want.get("attributes_absent") or ():
            if name in attrs:
                problems.append(f"{where}.{name}: expected absent, got {attrs[name]!r}")
        category = attrs.get("error.type")
        if category != want.get("error_category"):
            problems.append(f"{where}.error_category: expected {want.get('error_category')!r}, got {category!r}")
    return problems


def _wire_request_problems(case: oa.Case, fmt: Any, sent: list[Any]) -> list[str]:
    """`wire_requests`: attempt i's body is the base request's wire form with the attempt's
    `sampling` merged into the config (so its fields are the base's, overridden), and its
    `messages` are the caller's followed by `appended_messages` (exact `content`, or every
    `content_contains` substring in it)."""
    expected = case.expected.get("wire_requests")
    if expected is None:  # 056-058: one request per attempt span, each the unchanged request
        expected = [{} for _ in case.expected.get("llm_spans") or ()]
    if len(sent) != len(expected):
        return [f"wire_requests: expected {len(expected)} requests, got {len(sent)}"]
    request = case.request or {}
    base_messages = fmt.request_to_wire(request)["messages"]
    problems: list[str] = []
    for i, (want, wire) in enumerate(zip(expected, sent)):
        where = f"wire_requests[{i}]"
        config = {**(request.get("config") or {}), **(want.get("sampling") or {})}
        shaped = fmt.request_to_wire({**request, **({"config": config} if config else {})})
        shaped.pop("messages")
        problems += deep_match(
            shaped, {k: v for k, v in wire.items() if k != "messages"}, where, wildcard=False
        )
        messages = wire.get("messages") or []
        if messages[: len(base_messages)] != base_messages:
            problems.append(f"{where}.messages: the caller's messages are not sent first, unchanged")
        appended = messages[len(base_messages) :]
        wanted = want.get("appended_messages") or []
        if len(appended) != len(wanted):
            problems.append(f"{where}.appended_messages: expected {len(wanted)}, got {appended!r}")
            continue
        for j, (w, got) in enumerate(zip(wanted, appended)):
            at = f"{where}.appended_messages[{j}]"
            if got.get("role") != w["role"]:
                problems.append(f"{at}.role: expected {w['role']!r}, got {got.get('role')!r}")
            content = got.get("content")
            if "content" in w and content != w["content"]:
                problems.append(f"{at}.content: expected {w['content']!r}, got {content!r}")
            for part in w.get("content_contains") or ():
                if not isinstance(content, str) or part not in content:
                    problems.append(f"{at}.content: {part!r} not in {content!r}")
    return problems


def _check_retry_case(case: oa.Case, fmt: Any, mock: _Mock, before: Any) -> None:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    observed: list[tuple[str, int]] = []
    retry = _retry_record(case, observed)
    retry_before = copy.deepcopy(case.retry)
    with LoopbackServer(mock) as server:
        result, error = _run(case, fmt, server.url, tracer_provider, retry)
    assert not server.errors, server.errors
    problems = list(mock.problems)
    if case.request != before:
        problems.append("complete() mutated the caller's messages or config")
    if case.retry != retry_before:
        problems.append("complete() mutated the retry record")
    sent = [seen.json() for seen in server.requests]
    problems += _wire_request_problems(case, fmt, sent)
    expected_spans = case.expected.get("llm_spans") or []
    problems += _span_problems(expected_spans, list(exporter.get_finished_spans()))
    # on_retry observes each retry once, with the failed attempt's error, before its wait
    wanted_retries = [(s["error_category"], s["attempt_index"]) for s in expected_spans[:-1]]
    if observed != wanted_retries:
        problems.append(f"on_retry: expected {wanted_retries}, got {observed}")
    raises = case.expected_raises
    if raises is not None:
        if error is None:
            problems.append(f"expected {raises['category']}, got a response: {plain(result)}")
        else:
            problems += base._error_problems(error, raises, case)
        assert not problems, report(f"{case.id}: retry loop", problems, f"error={error!r}", f"sent={sent}")
        return
    if error is not None:
        pytest.fail(report(f"{case.id}: complete() raised {error!r}", problems, f"sent={sent}"))
    problems += base._response_problems(case.expected_response or {}, plain(result), mock.sent[-1])
    assert not problems, report(f"{case.id}: retry loop", problems, f"response={plain(result)}", f"sent={sent}")

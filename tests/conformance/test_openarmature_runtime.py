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

Every complete() case of test_openarmature.py that is not a retry/reask (§7.1, outside the
runtime) or streaming (issue #7) case runs here too, so the error categories, structured output
and its fallbacks are also checked from real responses. Gemini (§8.3) binds the model to the URL
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


# Retry/reask and streaming cases stay expected failures in test_openarmature.py.
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


def _run(case: oa.Case, fmt: Any, url: str) -> tuple[Any, BaseException | None]:
    wm = load_wiremap()
    request = case.request or {}

    async def main() -> Any:
        async with wm.Provider(
            fmt, model=case.model, api_key=API_KEY, base_url=url, timeout=10
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

"""OpenArmature llm-provider fixtures (../shared/conformance/openarmature) as flat case records.

Each fixture `NNN-name.yaml` has one of three shapes; all become `Case` records:

- `mock_provider` + `calls:` — sequential calls sharing one mock; call *i* consumes the next mock
  response (a call that is rejected pre-send has no response left for it: `responses: []`);
- `cases:` — table style; each case has its own `call`, `mock_provider`, `expected` and wire
  expectations (falling back to the fixture-level `mock_provider`);
- `call:` + `expected:` — one call that consumes every mock response (retry / reask loops).

A fixture without `mapping:` targets §8.1 (OpenAI-compatible); otherwise `anthropic`, `gemini`,
or the harness-only `streaming_unsupported_stub`. The spec-level `call` is translated into the
canonical request dict of ../shared/CANONICAL.md (`to_canonical`); the bound model identifier is
not written in the fixtures' calls, so it is taken from the fixture's wire/mock bodies (they agree
within every fixture) or the harness default of the mapping.

Run `python tests/conformance/openarmature_cases.py` for a summary.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from _support import OPENARMATURE_FIXTURES, missing

FORMAT_KEYS = {
    "openai": "openarmature.openai_chat",
    "anthropic": "openarmature.anthropic_messages",
    "gemini": "openarmature.gemini_generate_content",
    # the harness's synthetic mapping without streaming (fixture 060): an OpenAI-compatible
    # dialect whose only change is that it has no stream table
    "streaming_unsupported_stub": "openarmature.openai_chat_atomic",
}
IN_SCOPE = ("openai", "anthropic", "gemini", "streaming_unsupported_stub")

# The bound model when neither the expected wire request nor a mock body names one
# (fixtures 003/004/014-020/031/039/074: the OpenArmature harness binds these).
DEFAULT_MODELS = {"openai": "test-model", "anthropic": "claude-test", "gemini": "gemini-test"}

# Totals stated by ../shared/conformance/README.md; test_suite_present checks the loader
# reproduces them, so a changed suite (or a loader bug) cannot pass silently.
EXPECTED_FIXTURES = 80
EXPECTED_WIRE_REQUESTS = {"openai": 37, "anthropic": 17, "gemini": 14}
EXPECTED_RAISES = 63

# Fixtures whose only deviation is §3.1.1: the single-TextBlock user content MAY go out as the
# plain string (009's header allows either wire form).
COLLAPSE_SINGLE_TEXT_OK = frozenset({"009-content-blocks-text-only-equivalence"})


@dataclass(frozen=True)
class MockResponse:
    status: int | None
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    connection_failure: bool = False
    stream_body: list[Any] | None = None

    @classmethod
    def from_fixture(cls, raw: dict[str, Any]) -> "MockResponse":
        return cls(
            status=raw.get("status"),
            body=raw.get("body"),
            headers=dict(raw.get("headers") or {}),
            connection_failure=bool(raw.get("connection_failure", False)),
            stream_body=raw.get("stream_body"),
        )


@dataclass
class Case:
    fixture: str  # "005-openai-wire-mapping"
    name: str  # the table case name, "call0".. for `calls:`, "call" for `call:`
    mapping: str  # openai | anthropic | gemini | streaming_unsupported_stub
    operation: str  # complete | ready
    call: dict[str, Any]  # the fixture's call, verbatim
    model: str
    request: dict[str, Any] | None  # canonical request dict (None for ready())
    expected_wire: dict[str, Any] | None = None
    wire_checks: dict[str, Any] = field(default_factory=dict)
    wire_absent_keys: tuple[str, ...] = ()
    responses: list[MockResponse] = field(default_factory=list)
    mock: dict[str, Any] = field(default_factory=dict)  # capabilities, health_endpoint, ...
    expected: dict[str, Any] = field(default_factory=dict)
    needs_runtime: str | None = None  # why the case cannot run here (xfail reason)
    skip: str | None = None  # out of scope for now
    xfail_wire: str | None = None  # known gap on the wire-request side only
    xfail_complete: str | None = None  # known gap on the response side

    @property
    def id(self) -> str:
        return f"{self.fixture}::{self.name}"

    @property
    def format_key(self) -> str | None:
        # Capability metadata selects the structured-output fallback, which wiremap declares
        # per mapping: a derived file whose only change is `structured_output.mode`.
        caps = self.capabilities
        if self.mapping == "openai" and caps.get("supports_native_response_format") is False:
            return "openarmature.openai_chat_prompt_fallback"  # §8.1.5.1
        if self.mapping == "anthropic" and caps.get("supports_native_structured_output") is False:
            return "openarmature.anthropic_messages_tool_coercion"  # §8.2.5.1
        if self.mapping == "gemini" and caps.get("supports_native_structured_output") is False:
            return "openarmature.gemini_generate_content_prompt_fallback"  # §8.3.5.1
        return FORMAT_KEYS.get(self.mapping)

    @property
    def capabilities(self) -> dict[str, Any]:
        return dict(self.mock.get("capabilities") or {})

    @property
    def expected_response(self) -> dict[str, Any] | None:
        return self.expected.get("response")

    @property
    def expected_raises(self) -> dict[str, Any] | None:
        return self.expected.get("raises")

    @property
    def has_wire_expectation(self) -> bool:
        return bool(self.expected_wire or self.wire_checks or self.wire_absent_keys)

    @property
    def over_http(self) -> bool:
        """Only a real HTTP exchange can run it: the ready() probe, a connection failure, or a
        §7.1 retry / reask loop, whose attempts consume the mock responses in turn
        (test_openarmature_runtime.py runs these through `wiremap.Provider`)."""
        health = self.mock.get("health_endpoint") or {}
        return (
            self.operation == "ready"
            or self.retry is not None
            or bool(health.get("connection_failure"))
            or any(r.connection_failure for r in self.responses)
        )

    @property
    def retry(self) -> dict[str, Any] | None:
        """The call's §7.1 retry record (`max_attempts`, `backoff`, `per_attempt_override`,
        `reask`), as the fixture writes it."""
        retry = self.call.get("retry")
        return dict(retry) if isinstance(retry, dict) else None

    @property
    def pre_send(self) -> bool:
        """Expected to be rejected before anything is sent (no mock response to consume)."""
        return self.expected_raises is not None and not self.responses

    @property
    def response_schema(self) -> dict[str, Any] | None:
        return (self.request or {}).get("response_schema")


@dataclass
class ByteStabilityGroup:
    """`expected_wire_bytes_identical`: the listed calls must produce identical wire bytes."""

    fixture: str
    mapping: str
    cases: list[Case]
    skip: str | None = None

    @property
    def id(self) -> str:
        return f"{self.fixture}::bytes_identical"

    @property
    def format_key(self) -> str | None:
        return FORMAT_KEYS.get(self.mapping)


# ---------------------------------------------------------------------------------------------
# canonical translation


def _message(msg: dict[str, Any]) -> dict[str, Any]:
    """A fixture message as a canonical message dict.

    Keys whose value is null are dropped (`tool_calls: null` = absent), except an assistant's
    `content: null` beside non-empty `tool_calls`, which CANONICAL.md allows and which the
    §8.1 wire form keeps (`content: null`).
    """
    out = {k: copy.deepcopy(v) for k, v in msg.items() if v is not None}
    if (
        msg.get("role") == "assistant"
        and "content" in msg
        and msg["content"] is None
        and msg.get("tool_calls")
    ):
        out["content"] = None
    return out


def to_canonical(call: dict[str, Any], model: str) -> dict[str, Any]:
    """The spec-level `complete()` call as a canonical request dict (CANONICAL.md)."""
    request: dict[str, Any] = {
        "model": model,
        "messages": [_message(m) for m in call.get("messages") or []],
    }
    if call.get("tools"):  # `tools: []` is the same as absent (§5)
        request["tools"] = copy.deepcopy(call["tools"])
    if call.get("tool_choice") is not None:
        request["tool_choice"] = copy.deepcopy(call["tool_choice"])
    config = {k: copy.deepcopy(v) for k, v in (call.get("config") or {}).items() if v is not None}
    if config:  # null-skip (§6): a None declared field is "not supplied"
        request["config"] = config
    if call.get("response_schema") is not None:
        request["response_schema"] = copy.deepcopy(call["response_schema"])
    return request


# ---------------------------------------------------------------------------------------------
# classification


def _runtime_reason(call: dict[str, Any], responses: list[MockResponse]) -> str | None:
    """Why a case cannot run (an xfail reason), or None. ready() probes, connection failures and
    call-level retry / reask loops (§7.1) run over real HTTP through `wiremap.Provider`
    (test_openarmature_runtime.py)."""
    # streaming calls (§5/§8.1.6) run: `stream_request_to_wire` builds the request, the mock's
    # stream_body is framed as SSE and parsed/assembled by wiremap.runtime.stream
    return None


def _capability_gaps(mock: dict[str, Any]) -> tuple[str | None, str | None]:
    """No capability is a known gap any more: `Case.format_key` picks the fallback dialect."""
    return None, None


def _skip_reason(mapping: str) -> str | None:
    if mapping not in IN_SCOPE:
        return (
            f"mapping {mapping!r} is a synthetic stub of the OpenArmature harness "
            "(§5 streaming rejection), not a wire format wiremap implements"
        )
    return None


def _model_for(fixture: dict[str, Any], mapping: str) -> str:
    """The bound model: from the fixture's expected wire requests or mock bodies."""

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            wire = node.get("expected_wire_request")
            if isinstance(wire, dict) and isinstance(wire.get("model"), str):
                return wire["model"]
            for response in (node.get("mock_provider") or {}).get("responses") or []:
                for body in [response.get("body"), *(response.get("stream_body") or [])]:
                    if isinstance(body, dict) and isinstance(body.get("model"), str):
                        return body["model"]
            for value in node.values():
                found = walk(value)
                if found:
                    return found
        elif isinstance(node, list):
            for value in node:
                found = walk(value)
                if found:
                    return found
        return None

    return walk(fixture) or DEFAULT_MODELS.get(mapping, "test-model")


# ---------------------------------------------------------------------------------------------
# loading


def fixture_paths() -> list[Path]:
    if not OPENARMATURE_FIXTURES.is_dir():
        raise FileNotFoundError(missing(OPENARMATURE_FIXTURES))
    return sorted(OPENARMATURE_FIXTURES.glob("[0-9][0-9][0-9]-*.yaml"))


def _make_case(
    fixture_id: str,
    name: str,
    mapping: str,
    model: str,
    call: dict[str, Any],
    holder: dict[str, Any],
    mock: dict[str, Any],
    responses: list[MockResponse],
    expected: dict[str, Any],
) -> Case:
    operation = call.get("operation", "complete")
    xfail_wire, xfail_complete = _capability_gaps(mock)
    return Case(
        fixture=fixture_id,
        name=name,
        mapping=mapping,
        operation=operation,
        call=call,
        model=model,
        request=to_canonical(call, model) if operation == "complete" else None,
        expected_wire=holder.get("expected_wire_request"),
        wire_checks=dict(holder.get("expected_wire_request_checks") or {}),
        wire_absent_keys=tuple(holder.get("expected_wire_request_absent_keys") or ()),
        responses=responses,
        mock=mock,
        expected=dict(expected or {}),
        needs_runtime=_runtime_reason(call, responses),
        skip=_skip_reason(mapping),
        xfail_wire=xfail_wire,
        xfail_complete=xfail_complete,
    )


def load_fixture(path: Path) -> tuple[list[Case], list[ByteStabilityGroup]]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    fixture_id = path.stem
    mapping = data.get("mapping", "openai")
    model = _model_for(data, mapping)
    top_mock = data.get("mock_provider") or {}
    cases: list[Case] = []
    if "calls" in data:
        pending = [MockResponse.from_fixture(r) for r in top_mock.get("responses") or []]
        for i, call in enumerate(data["calls"]):
            # Each call consumes the next response; a pre-send rejection finds none left.
            responses = [pending.pop(0)] if pending else []
            cases.append(
                _make_case(
                    fixture_id,
                    f"call{i}",
                    mapping,
                    model,
                    call,
                    call,
                    top_mock,
                    responses,
                    call.get("expected") or {},
                )
            )
    elif "cases" in data:
        for entry in data["cases"]:
            mock = entry.get("mock_provider") or top_mock
            responses = [MockResponse.from_fixture(r) for r in mock.get("responses") or []]
            cases.append(
                _make_case(
                    fixture_id,
                    entry["name"],
                    mapping,
                    model,
                    entry["call"],
                    entry,
                    mock,
                    responses,
                    entry.get("expected") or {},
                )
            )
    elif "call" in data:
        responses = [MockResponse.from_fixture(r) for r in top_mock.get("responses") or []]
        cases.append(
            _make_case(
                fixture_id,
                "call",
                mapping,
                model,
                data["call"],
                data,
                top_mock,
                responses,
                data.get("expected") or {},
            )
        )
    else:
        raise ValueError(f"{path}: unknown fixture shape (keys: {sorted(data)})")

    groups: list[ByteStabilityGroup] = []
    identical = data.get("expected_wire_bytes_identical")
    if identical:
        groups.append(
            ByteStabilityGroup(
                fixture=fixture_id,
                mapping=mapping,
                cases=[cases[i] for i in identical["calls"]],
                skip=_skip_reason(mapping),
            )
        )
    return cases, groups


def load() -> tuple[list[Case], list[ByteStabilityGroup], str | None]:
    """All cases and byte-stability groups, plus an error message when the data is missing."""
    try:
        paths = fixture_paths()
    except FileNotFoundError as exc:
        return [], [], str(exc)
    cases: list[Case] = []
    groups: list[ByteStabilityGroup] = []
    for path in paths:
        c, g = load_fixture(path)
        cases += c
        groups += g
    return cases, groups, None


def summary(cases: list[Case]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for c in cases:
        m = out.setdefault(
            c.mapping,
            {
                "cases": 0,
                "wire_requests": 0,
                "raises": 0,
                "pre_send": 0,
                "responses": 0,
                "runtime": 0,
                "over_http": 0,
                "skip": 0,
            },
        )
        m["cases"] += 1
        m["wire_requests"] += bool(c.expected_wire)
        m["raises"] += c.expected_raises is not None
        m["pre_send"] += c.pre_send
        m["responses"] += c.expected_response is not None
        m["runtime"] += c.needs_runtime is not None
        m["over_http"] += c.over_http
        m["skip"] += c.skip is not None
    return out


if __name__ == "__main__":  # pragma: no cover - a developer aid
    import json

    all_cases, all_groups, error = load()
    if error:
        raise SystemExit(error)
    print(json.dumps(summary(all_cases), indent=1))
    for c in all_cases:
        flags = [
            f
            for f, v in (
                ("runtime", c.needs_runtime),
                ("over_http", c.over_http),
                ("skip", c.skip),
                ("xfail_wire", c.xfail_wire),
                ("xfail_complete", c.xfail_complete),
            )
            if v
        ]
        print(f"{c.id:90s} {c.mapping:10s} {','.join(flags)}")

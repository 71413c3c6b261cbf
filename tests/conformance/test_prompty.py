"""Prompty cross-runtime vectors (../shared/conformance/prompty) against the
`prompty.openai_chat` and `prompty.anthropic_messages` formats.

- `test_wire_request`: each `WireConformance.toRequest` vector for OpenAI chat (apiType chat) and
  Anthropic: the Prompty input becomes a canonical request (prompty_cases.to_canonical) and
  `request_to_wire` must equal `expected.request_body` exactly. Vectors with a single text part
  run twice: as a one-block list and as the §3.1.1-equivalent plain string (`[string]`).
- `test_process`: each `Processor.process` vector for those providers: `response_from_wire`
  (with `response_schema={"type": "object"}` when `has_outputs`) and Prompty's `result` derived
  from the canonical response (prompty_cases.prompty_result) must equal `expected.result`.

Embedding and image vectors run against `prompty.openai_embeddings` / `prompty.openai_images`
(kinds embeddings and images), Responses vectors against `prompty.openai_responses`; the two `processStream`
vectors need the streaming runtime and are expected failures.
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

import prompty_cases as pc  # noqa: E402
from _support import (  # noqa: E402
    deep_match,
    load_wiremap,
    plain,
    report,
    unsupported,
)

pytestmark = pytest.mark.conformance

WIRE, WIRE_ERROR = pc.load_wire()
PROCESS, PROCESS_ERROR = pc.load_process()

# What any response_schema-carrying call asks for when Prompty only says "has outputs": the
# process vectors carry no output schema, and Prompty's processor only JSON-parses.
ANY_OBJECT_SCHEMA = {"type": "object"}


def _param(item: Any) -> Any:
    marks = []
    if item.skip:
        marks.append(pytest.mark.skip(reason=item.skip))
    elif getattr(item, "needs_runtime", None):
        marks.append(pytest.mark.xfail(reason=item.needs_runtime, strict=False))
    return pytest.param(item, id=item.id, marks=marks)


WIRE_PARAMS = [_param(v) for v in WIRE]
PROCESS_PARAMS = [_param(v) for v in PROCESS]


def test_suite_present() -> None:
    assert WIRE_ERROR is None, WIRE_ERROR
    assert PROCESS_ERROR is None, PROCESS_ERROR
    base = [v for v in WIRE if v.variant == "blocks"]
    assert len(base) == pc.EXPECTED_WIRE
    assert len(PROCESS) == pc.EXPECTED_PROCESS
    counts = {
        "openai_chat": sum(1 for v in base if v.provider == "openai" and v.api_type == "chat"),
        "anthropic": sum(1 for v in base if v.provider == "anthropic"),
    }
    assert counts == {"openai_chat": 18, "anthropic": 5}, counts


def _normalize_result(value: Any) -> Any:
    """Tool-call lists compare with `arguments` decoded (JSON spacing is not significant)."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        out = []
        for item in value:
            item = dict(item)
            if isinstance(item.get("arguments"), str):
                try:
                    item["arguments"] = json.loads(item["arguments"])
                except ValueError:
                    pass
            out.append(item)
        return out
    return value


@pytest.mark.parametrize("vector", WIRE_PARAMS)
def test_wire_request(vector: pc.WireVector) -> None:
    try:
        request = pc.to_canonical(vector.input, variant=vector.variant)
    except pc.CannotExpress as exc:
        pytest.fail(f"Prompty input has no canonical form: {exc}")
    wm = load_wiremap()
    fmt = wm.get_format(vector.format_key)
    before = copy.deepcopy(request)
    try:
        wire = fmt.request_to_wire(request)
    except wm.ProviderError as exc:
        pytest.fail(f"request_to_wire rejected the request: {exc!r}\nrequest={request}")
    assert request == before, "request_to_wire mutated its input"
    problems = deep_match(vector.expected_body, wire, "request_body", wildcard=False)
    assert not problems, report(
        f"{vector.id}: {vector.description}", problems, f"request={request}", f"wire={wire}"
    )


@pytest.mark.parametrize("vector", PROCESS_PARAMS)
def test_process(vector: pc.ProcessVector) -> None:
    if vector.needs_runtime:
        unsupported(vector.needs_runtime)
    wm = load_wiremap()
    fmt = wm.get_format(vector.format_key)
    if vector.operation == "processStream":
        _process_stream(vector, fmt)
        return
    has_outputs = bool(vector.input.get("has_outputs"))
    body = vector.input["response"]
    problems: list[str] = []
    try:
        response = fmt.response_from_wire(
            copy.deepcopy(body), response_schema=ANY_OBJECT_SCHEMA if has_outputs else None
        )
    except wm.ProviderError as exc:
        # Prompty §7.7: when the content does not parse, the processor returns the raw string;
        # a mapping that raises structured_output_invalid carries it as output_content.
        if not (has_outputs and exc.category == "structured_output_invalid"):
            pytest.fail(f"response_from_wire raised {exc!r}")
        result = getattr(exc, "output_content", None)
        actual: Any = {"error": repr(exc)}
    else:
        actual = plain(response)
        result = pc.prompty_result(actual, has_outputs=has_outputs)
        problems += deep_match(body, actual.get("raw"), "raw", wildcard=False)
    problems += deep_match(
        _normalize_result(vector.expected["result"]),
        _normalize_result(result),
        "result",
        wildcard=False,
    )
    assert not problems, report(
        f"{vector.id}: {vector.description}", problems, f"response={actual}"
    )


def _process_stream(vector: pc.ProcessVector, fmt: Any) -> None:
    """Prompty `processStream`: provider chunks go through the format's stream parser as SSE;
    a `transportError` event is the connection dropping after the stream opened (the parser is
    closed without its end marker). Prompty's chunks are read off the canonical events: a text
    delta is a text chunk; the stream's typed error is a failure whose outcome is
    `indeterminate` when it is transient (a transport failure: the answer may have been
    produced, reconciliation needed) and `determinate` otherwise."""
    import json as _json

    from wiremap.runtime.stream import StreamAssembler, StreamParser

    parser = StreamParser(fmt)
    asm = StreamAssembler(fmt)
    chunks: list[dict[str, Any]] = []
    transport_message = None
    events: list[dict[str, Any]] = []
    for item in vector.input["events"]:
        if item["kind"] == "provider":
            events += parser.feed(b"data: " + _json.dumps(item["value"]).encode() + b"\n\n")
        elif item["kind"] == "transportError":
            transport_message = item["message"]
            events += parser.close()
            break
    else:
        events += parser.close()
    failure = None
    for ev in events:
        asm.add(ev)
        if ev["type"] == "text_delta":
            chunks.append({"kind": "text", "value": ev["text"]})
    try:
        asm.response()
        committed = True
    except load_wiremap().ProviderError as exc:
        committed = False
        message = transport_message if transport_message is not None and exc.category == "provider_unavailable" else exc.message
        failure = {"outcome": "indeterminate" if exc.transient else "determinate", "message": message}
        chunks.append({"kind": "failure", "failure": failure})
        partial = exc.partial
    else:
        partial = None
    expected = vector.expected
    text = ""
    if partial is not None:
        content = partial["message"].get("content")
        text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content or [] if b.get("type") == "text")
    actual = {
        "chunks": chunks,
        "partialText": text,
        "requiresReconciliation": bool(failure and failure["outcome"] == "indeterminate"),
        "completionCommitted": committed,
    }
    problems = deep_match(expected, actual, "processStream", wildcard=False)
    assert not problems, report(f"{vector.id}: {vector.description}", problems, f"events={events}")

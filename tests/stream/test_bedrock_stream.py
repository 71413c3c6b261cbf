"""bedrock_converse's ConverseStream table (mappings/bedrock_converse.yaml `stream:`), driven end to end.

The fixtures file holds SSE text only, so the event-stream bodies live here. Each body is what
AWS's reference (ConverseStream, ConverseStreamOutput) says the service sends: messageStart,
contentBlockStart (toolUse only), contentBlockDelta (text, toolUse.input, reasoningContent
text/signature/redactedContent), contentBlockStop, messageStop {stopReason}, metadata {usage,
metrics}, and exception messages. botocore's own event-stream parser is the oracle for what the
emitter writes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from wiremap.runtime.errors import RateLimitError, UnavailableError
from wiremap.runtime.eventstream import EventStreamDecoder, encode_message
from wiremap.runtime.format import get_format
from wiremap.runtime.stream import StreamAssembler, StreamEmitter, StreamParser, stream_error

FMT = get_format("bedrock_converse")


def event(name: str, payload: Any) -> bytes:
    return encode_message({":event-type": name, ":content-type": "application/json", ":message-type": "event"},
                          json.dumps(payload).encode())


def exception(name: str, message: str) -> bytes:
    return encode_message({":exception-type": name, ":content-type": "application/json", ":message-type": "exception"},
                          json.dumps({"message": message}).encode())


USAGE = {"inputTokens": 20, "outputTokens": 30, "totalTokens": 1050, "cacheReadInputTokens": 1000}

BODY = b"".join([
    event("messageStart", {"role": "assistant"}),
    event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "Need the "}}}),
    event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "weather."}}}),
    event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "c2lnLTE="}}}),
    event("contentBlockStop", {"contentBlockIndex": 0}),
    event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "Let me "}}),
    event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "check."}}),
    event("contentBlockStop", {"contentBlockIndex": 1}),
    event("contentBlockStart", {"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}}}),
    event("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": "{\"city\": "}}}),
    event("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": "\"Paris\"}"}}}),
    event("contentBlockStop", {"contentBlockIndex": 2}),
    event("messageStop", {"stopReason": "tool_use"}),
    event("metadata", {"usage": USAGE, "metrics": {"latencyMs": 812}}),
])


def parse(*chunks: bytes) -> list[dict[str, Any]]:
    parser = StreamParser(FMT)
    out = [ev for chunk in chunks for ev in parser.feed(chunk)]
    return out + parser.close()


def assemble(events: list[dict[str, Any]]) -> dict[str, Any]:
    assembler = StreamAssembler(FMT)
    for ev in events:
        assembler.add(ev)
    return assembler.response().to_dict()


def test_a_converse_stream_reads_into_canonical_events_split_anywhere() -> None:
    whole = parse(BODY)
    assert [ev["type"] for ev in whole] == [
        "message_start", "reasoning_delta", "reasoning_delta", "reasoning_signature",
        "text_delta", "text_delta", "tool_call_start", "tool_call_delta", "tool_call_delta", "tool_call_end",
        "finish", "usage",
    ]
    for cut in range(0, len(BODY) + 1, 7):
        assert parse(BODY[:cut], BODY[cut:]) == whole, cut
    response = assemble(whole)
    assert response["message"]["content"] == [
        {"type": "thinking", "text": "Need the weather.", "signature": "c2lnLTE=", "origin": "bedrock"},
        {"type": "text", "text": "Let me check."},
    ]
    assert response["message"]["tool_calls"] == [{"id": "tooluse_1", "name": "get_weather", "arguments": {"city": "Paris"}}]
    assert response["finish_reason"] == "tool_calls"
    # the usage accounting of the non-streamed reader: prompt = input + cache reads
    assert response["usage"] == {"prompt_tokens": 1020, "completion_tokens": 30, "total_tokens": 1050, "cached_tokens": 1000}


def test_the_assembled_raw_is_the_converse_response_body() -> None:
    response = assemble(parse(BODY))
    raw = response["raw"]
    assert raw["stopReason"] == "tool_use" and raw["usage"] == USAGE
    assert raw["output"]["message"]["content"][2] == {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}}


def test_redacted_reasoning_in_a_stream() -> None:
    body = b"".join([
        event("messageStart", {"role": "assistant"}),
        event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": "ZW5j"}}}),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "ok"}}),
        event("messageStop", {"stopReason": "end_turn"}),
    ])
    response = assemble(parse(body))
    assert response["message"]["content"] == [
        {"type": "redacted_thinking", "data": "ZW5j", "origin": "bedrock"},
        {"type": "text", "text": "ok"},
    ]
    assert response["finish_reason"] == "stop"


@pytest.mark.parametrize(
    ("name", "category", "cls"),
    [
        ("throttlingException", "provider_rate_limit", RateLimitError),
        ("internalServerException", "provider_unavailable", UnavailableError),
        ("serviceUnavailableException", "provider_unavailable", UnavailableError),
        ("modelStreamErrorException", "provider_unavailable", UnavailableError),
        ("validationException", "provider_invalid_request", None),
    ],
)
def test_an_exception_event_ends_the_stream_typed_by_the_errors_table(name: str, category: str, cls: type | None) -> None:
    start = event("messageStart", {"role": "assistant"}) + event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}})
    events = parse(start, exception(name, "it failed"), event("messageStop", {"stopReason": "end_turn"}))
    err = events[-1]
    assert [ev["type"] for ev in events] == ["message_start", "text_delta", "error"]
    assert err["category"] == category and err["error_type"] == name and "it failed" in err["message"]
    if cls is not None:
        assert isinstance(stream_error(err), cls)


def _decode(out: bytes) -> list[Any]:
    dec = EventStreamDecoder()
    msgs = dec.feed(out)
    dec.close()
    return msgs


def test_the_emitter_writes_a_converse_stream_that_reads_back() -> None:
    emitter = StreamEmitter(FMT)
    assert emitter.media_type == "application/vnd.amazon.eventstream"
    events = parse(BODY)
    out = b"".join(emitter.emit(ev) for ev in events) + emitter.close()
    msgs = _decode(out)
    names = [m.headers[":event-type"] for m in msgs]
    assert names[0] == "messageStart" and names[-2:] == ["messageStop", "metadata"]
    # the events AWS sends, no more: a text or reasoning block opens with its first delta
    # (stream.emit.blocks.start.text: [], no empty delta before it)
    assert names == [m.headers[":event-type"] for m in _decode(BODY)]
    assert {m.headers[":message-type"] for m in msgs} == {"event"}
    starts = [json.loads(m.payload) for m in msgs if m.headers[":event-type"] == "contentBlockStart"]
    assert starts == [{"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}}}]
    assert json.loads(msgs[-2].payload) == {"stopReason": "tool_use"}
    assert json.loads(msgs[-1].payload)["usage"] == USAGE
    # what it wrote reads back as the same answer
    assert {k: v for k, v in assemble(parse(out)).items() if k != "raw"} == {k: v for k, v in assemble(events).items() if k != "raw"}


def test_botocore_parses_what_the_emitter_writes() -> None:
    """botocore's own ConverseStream parser (the service model's event shapes) is the oracle."""
    botocore_session = pytest.importorskip("botocore.session")
    from botocore.eventstream import EventStream  # noqa: PLC0415
    from botocore.parsers import EventStreamJSONParser  # noqa: PLC0415

    client = botocore_session.get_session().create_client(
        "bedrock-runtime", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    output_shape = client.meta.service_model.operation_model("ConverseStream").output_shape.members["stream"]
    emitter = StreamEmitter(FMT)
    out = b"".join(emitter.emit(ev) for ev in parse(BODY)) + emitter.close()

    class Raw:
        def stream(self) -> Any:
            yield out

    parsed = list(EventStream(Raw(), output_shape, EventStreamJSONParser(), "ConverseStream"))
    kinds = [next(iter(e)) for e in parsed]
    assert kinds[0] == "messageStart" and kinds[-2:] == ["messageStop", "metadata"]
    text = "".join(e["contentBlockDelta"]["delta"].get("text", "") for e in parsed if "contentBlockDelta" in e)
    assert text == "Let me check."
    tool_input = "".join(e["contentBlockDelta"]["delta"]["toolUse"]["input"] for e in parsed
                         if "contentBlockDelta" in e and "toolUse" in e["contentBlockDelta"]["delta"])
    assert json.loads(tool_input) == {"city": "Paris"}
    assert parsed[-1]["metadata"]["usage"]["cacheReadInputTokens"] == 1000


def test_the_emitter_writes_an_error_as_an_exception_message() -> None:
    emitter = StreamEmitter(FMT)
    out = emitter.emit({"type": "message_start", "raw": {}})
    out += emitter.emit({"type": "error", "category": "provider_rate_limit", "message": "slow down"})
    msgs = _decode(out)
    assert msgs[-1].headers[":message-type"] == "exception"
    # the union member name AWS writes (value map stream_exception), not the shape name
    assert msgs[-1].headers[":exception-type"] == "throttlingException"
    assert json.loads(msgs[-1].payload) == {"message": "slow down"}
    assert parse(out)[-1]["category"] == "provider_rate_limit"


def test_the_stream_endpoint_and_request() -> None:
    assert FMT.stream is not None and FMT.stream["framing"] == "aws_eventstream"
    assert FMT.endpoint is not None and FMT.endpoint["path"] == "/model/{modelId}/converse"

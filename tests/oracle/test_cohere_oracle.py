"""cohere_chat against the official `cohere` SDK's v2 types, checked strictly (tests/oracle/sdk_oracle.py:
no unknown key at any level, every required key, every value of its declared type).

- a request body is checked against the parameters of `cohere.v2.client.V2Client.chat` (the SDK
  sends them as the JSON body of POST /v2/chat), made into one pydantic model, with `stream`
  for a streaming body;
- a response body against `V2ChatResponse`, a stream event against `V2ChatStreamResponse`;
- the SDK's open enums (`ChatFinishReason`, `V2ChatRequestToolChoice` are `Union[Literal[...], Any]`)
  are closed here: a finish reason or tool_choice outside the documented values is an error.

Every fixture of mappings/fixtures/cohere_chat.yaml goes through: what the converters write for
its input, the bodies the fixture expects, the client bodies it reads, and every event of its
streams. Hypothesis draws canonical requests and responses as for the base formats, and every
recorded stream (tests/stream/recorded.py) translated into Cohere's is checked event by event.
"""

from __future__ import annotations

import json
import sys
import typing
import warnings
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

cohere_client = pytest.importorskip("cohere.v2.client")
from cohere.v2.types.v2chat_response import V2ChatResponse  # noqa: E402
from cohere.v2.types.v2chat_stream_response import V2ChatStreamResponse  # noqa: E402

import pydantic  # noqa: E402

_TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_TESTS))
sys.path.insert(0, str(_TESTS / "oracle"))
sys.path.insert(0, str(_TESTS / "stream"))
import strategies as gen  # noqa: E402
from recorded import ALL, Recorded  # noqa: E402
from sdk_oracle import OracleError, check_typed  # noqa: E402

import wiremap  # noqa: E402
from wiremap import ProviderError  # noqa: E402
from wiremap.runtime.stream import SSEDecoder, StreamEmitter, parse_stream, translate_stream  # noqa: E402

FMT = wiremap.get_format("cohere_chat")
FIXTURES = yaml.safe_load((_TESTS.parent / "mappings" / "fixtures" / "cohere_chat.yaml").read_text("utf-8"))["fixtures"]

FINISH_REASONS = {"COMPLETE", "STOP_SEQUENCE", "MAX_TOKENS", "TOOL_CALL", "ERROR", "TIMEOUT"}  # api: ChatFinishReason
TOOL_CHOICES = {"REQUIRED", "NONE"}  # api: V2ChatRequestToolChoice
STREAM_TYPES = {"message-start", "content-start", "content-delta", "content-end", "tool-plan-delta", "tool-call-start",
                "tool-call-delta", "tool-call-end", "citation-start", "citation-end", "message-end", "debug"}


def _request_model() -> type[pydantic.BaseModel]:
    """V2Client.chat's parameters as one model: the JSON body the SDK sends."""
    hints = typing.get_type_hints(cohere_client.V2Client.chat, include_extras=True)
    fields: dict[str, Any] = {}
    for name, tp in hints.items():
        if name in ("request_options", "return"):
            continue
        fields[name] = (tp, ...) if name in ("model", "messages") else (tp, None)
    fields["stream"] = (typing.Optional[bool], None)  # chat_stream sends `stream: true`
    return pydantic.create_model("CohereV2ChatBody", **fields)


REQUEST = _request_model()


def check_request(body: Any, extras: Any = ()) -> None:
    """`extras`: root keys the request's own config.extras put there (undeclared pass-through
    fields, OpenArmature §6: tolerated at the root; SDK-declared ones are still type-checked)."""
    check_typed(body, REQUEST, allow_extra_root_keys={k for k in extras if k not in REQUEST.model_fields})
    if "tool_choice" in body and body["tool_choice"] not in TOOL_CHOICES:
        raise OracleError("tool_choice", f"{body['tool_choice']!r} is not one of {sorted(TOOL_CHOICES)}")


def check_response(body: Any) -> None:
    check_typed(body, V2ChatResponse)
    if body["finish_reason"] not in FINISH_REASONS:
        raise OracleError("finish_reason", f"{body['finish_reason']!r} is not one of {sorted(FINISH_REASONS)}")


def check_stream(text: bytes) -> int:
    dec = SSEDecoder()
    events = dec.feed(text) + dec.close()
    for name, data in events:
        obj = json.loads(data)
        assert obj["type"] in STREAM_TYPES and name == obj["type"], (name, obj)
        check_typed(obj, V2ChatStreamResponse)
        if obj["type"] == "message-end" and obj["delta"]["finish_reason"] not in FINISH_REASONS:
            raise OracleError("delta.finish_reason", f"{obj['delta']['finish_reason']!r}")
    assert events and json.loads(events[0][1])["type"] == "message-start"
    assert json.loads(events[-1][1])["type"] == "message-end", "a Cohere stream ends with message-end"
    return len(events)


def _cases(kind: str, expect: str) -> list[Any]:
    return [pytest.param(c, id=c["id"]) for c in FIXTURES if kind in c and expect in c]


def quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("case", _cases("to_wire", "expect_wire"))
def test_to_wire_bodies_pass_the_oracle(case: dict[str, Any]) -> None:
    check_request(case["expect_wire"])
    check_request(quiet(FMT.request_to_wire, case["to_wire"]))


@pytest.mark.parametrize("case", _cases("request_from_wire", "expect_canonical"))
def test_client_bodies_and_their_round_trip_pass_the_oracle(case: dict[str, Any]) -> None:
    check_request(case["request_from_wire"])
    request = FMT.request_from_wire(case["request_from_wire"])
    check_request(quiet(FMT.request_to_wire, request))


#: from_wire fixtures whose input is deliberately outside the SDK's types: written back as it came
INPUT_NOT_SDK_SHAPED = {"resp_finish_unknown": "a finish reason the reference does not list"}


@pytest.mark.parametrize("case", _cases("from_wire", "expect_canonical"))
def test_response_bodies_and_their_round_trip_pass_the_oracle(case: dict[str, Any]) -> None:
    response = FMT.response_from_wire(case["from_wire"], response_schema=case.get("response_schema"))
    if case["id"] in INPUT_NOT_SDK_SHAPED:
        with pytest.raises(OracleError):
            check_response(case["from_wire"])
        assert FMT.response_to_wire(response) == case["from_wire"]  # the same format: the identity
        return
    check_response(case["from_wire"])
    check_response(FMT.response_to_wire(response))


@pytest.mark.parametrize("case", _cases("response_to_wire", "expect_wire"))
def test_response_to_wire_passes_the_oracle(case: dict[str, Any]) -> None:
    check_response(case["expect_wire"])
    check_response(FMT.response_to_wire(case["response_to_wire"]))


@pytest.mark.parametrize("case", _cases("stream_to_wire", "expect_sse"))
def test_emitted_streams_pass_the_oracle(case: dict[str, Any]) -> None:
    assert check_stream(case["expect_sse"].encode()) > 0


@pytest.mark.parametrize("case", _cases("stream_from_wire", "expect_events"))
def test_read_streams_written_back_pass_the_oracle(case: dict[str, Any]) -> None:
    events = parse_stream(case["stream_from_wire"].encode(), FMT)
    emitter = StreamEmitter(FMT)
    out = b"".join(emitter.emit(ev) for ev in events) + emitter.close()
    check_stream(out)


def test_a_streaming_request_body_passes_the_oracle() -> None:
    from wiremap.runtime.stream import stream_request_to_wire

    body = stream_request_to_wire(FMT, {"model": "command-a-03-2025", "messages": [{"role": "user", "content": "Hi"}]})
    assert body["stream"] is True
    check_request(body)


@pytest.mark.parametrize("rec", ALL, ids=[r.id for r in ALL])
def test_every_recorded_stream_translated_into_cohere_passes_the_oracle(rec: Recorded) -> None:
    # the emitter's own output: a Cohere stream's bytes into Cohere pass through whole
    source = parse_stream(rec.body, rec.format) if rec.format == "cohere_chat" else [rec.body]
    out = b"".join(translate_stream(source, rec.format, "cohere_chat"))
    assert check_stream(out) >= 2


# --- the oracle has teeth ---------------------------------------------------------------------


def test_the_oracle_catches_wrong_bodies() -> None:
    body = FMT.request_to_wire({"model": "m", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "a"}, {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}}]}]})
    check_request(body)
    body["messages"][0]["content"][1]["image_url"]["detial"] = "low"
    with pytest.raises(OracleError, match="detial"):
        check_request(body)
    with pytest.raises(OracleError, match="top_p"):
        check_request({"model": "m", "messages": [], "top_p": 0.5})  # Cohere calls it p
    with pytest.raises(OracleError, match="tool_choice"):
        check_request({"model": "m", "messages": [], "tool_choice": "auto"})
    with pytest.raises(OracleError, match="finish_reason"):
        check_response({"id": "x", "finish_reason": "stop", "message": {"role": "assistant"}})
    with pytest.raises(OracleError):
        check_stream(b'event: content-delta\ndata: {"type":"content-delta","index":0,"delta":{"message":{"content":{"txt":"a"}}}}\n\n')


# --- generated bodies -------------------------------------------------------------------------

PROFILE = gen.Profile(
    key="cohere_chat",
    image_inline_types=("image/png", "image/jpeg", "image/gif", "image/webp"),  # any type goes into the data URI
    audio_types=(),  # audio.*: reject
    file_url=False,  # file.*: reject
    file_inline_types=(),
    strict_closes_schemas=False,
    extras_known=(("safety_mode", st.sampled_from(["CONTEXTUAL", "STRICT"])), ("priority", st.integers(0, 3))),
    options_known=(("logprobs", st.booleans()), ("reasoning_budget", st.integers(1, 4096))),
)
SETTINGS = settings(max_examples=120, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(data=st.data())
def test_generated_requests_pass_the_oracle(data: st.DataObject) -> None:
    with mock.patch.dict(gen.PROFILES, {"cohere_chat": PROFILE}):
        request = data.draw(gen.canonical_requests("cohere_chat"), label="request")
    try:
        body = quiet(FMT.request_to_wire, request)
    except ProviderError as exc:  # a forced single tool or an option past its range: refused before sending, by design
        ranged = {f"config.{name}" for name in FMT.module.OPTION_RANGES}
        assert exc.path is not None and (exc.path.startswith("tool_choice") or exc.path in ranged), exc
        return
    check_request(body, (request.get("config") or {}).get("extras") or {})


@SETTINGS
@given(data=st.data())
def test_generated_responses_pass_the_oracle(data: st.DataObject) -> None:
    with mock.patch.dict(gen.PROFILES, {"cohere_chat": PROFILE}):
        response = data.draw(gen.canonical_responses("cohere_chat"), label="response")
    check_response(FMT.response_to_wire(response))

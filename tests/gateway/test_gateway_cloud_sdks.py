"""The gateway end to end on 127.0.0.1 for the cloud-hosted dialects, driven by the official
anthropic SDK's platform clients (their request rewriting is the oracle of what these wires are):

- `anthropic.AnthropicBedrock` -> gateway (inbound anthropic.bedrock) -> a loopback server playing
  OpenAI: the SDK pops `model` and `stream` into /model/{model}/invoke[-with-response-stream],
  adds `anthropic_version` (and `anthropic_beta` from the beta header), authenticates with a
  Bedrock API key (bearer) or SigV4 (dummy AWS credentials, signed through boto3), and decodes
  the stream with botocore's event-stream parser (`chunk` PayloadParts);
- `anthropic.AnthropicVertex` -> gateway (inbound anthropic.vertex) -> the same upstream: the SDK
  POSTs /v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:rawPredict
  (`:streamRawPredict` with `stream: true`) with `access_token=` as the bearer token;
- the `openai` SDK -> gateway (upstream anthropic.bedrock / anthropic.vertex / gemini.vertex) ->
  a loopback server playing the cloud: what the upstream receives is each cloud's own wire.

`messages.create`, non-streamed and streamed, for each client."""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

anthropic = pytest.importorskip("anthropic")
openai = pytest.importorskip("openai")
pytest.importorskip("uvicorn")
pytest.importorskip("botocore")  # AnthropicBedrock's stream decoder

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import Reply  # noqa: E402
from test_gateway_sdks import Gateway, Upstream, chat_completion  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402
from wiremap.runtime.eventstream import EventStreamDecoder, encode_message  # noqa: E402

MODEL_BEDROCK = "anthropic.claude-sonnet-4-5-20250929-v1:0"
MODEL_VERTEX = "claude-sonnet-4-5@20250929"
OPENAI_SSE = "".join(
    f"data: {json.dumps(c)}\n\n"
    for c in [
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-4o",
         "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}, "finish_reason": None}]},
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-4o",
         "choices": [{"index": 0, "delta": {"content": "lo!"}, "finish_reason": "stop"}]},
        {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-4o", "choices": [],
         "usage": {"prompt_tokens": 12, "completion_tokens": 2, "total_tokens": 14}},
    ]
) + "data: [DONE]\n\n"


@pytest.fixture(scope="module")
def openai_upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


@pytest.fixture(scope="module")
def bedrock_gateway(openai_upstream: Upstream) -> Iterator[Gateway]:
    gw = Gateway(create_app("anthropic.bedrock", "openai_chat", openai_upstream.server.url))
    yield gw
    gw.stop()


@pytest.fixture(scope="module")
def vertex_gateway(openai_upstream: Upstream) -> Iterator[Gateway]:
    gw = Gateway(create_app("anthropic.vertex", "openai_chat", openai_upstream.server.url))
    yield gw
    gw.stop()


def bedrock_client(gw: Gateway, **kw: Any) -> Any:
    kw.setdefault("api_key", "ABSK-bedrock-client-key")
    return anthropic.AnthropicBedrock(base_url=gw.url, aws_region="us-east-1", max_retries=0, timeout=20, **kw)


def vertex_client(gw: Gateway) -> Any:
    return anthropic.AnthropicVertex(base_url=gw.url + "/v1", region="us-east5", project_id="my-proj",
                                     access_token="ya29.client-token", max_retries=0, timeout=20)


def check_openai_request(up: Upstream, key: str) -> dict[str, Any]:
    sent = up.last
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {key}"
    body = sent.json()
    # the model came from the URL; the cloud's version field is protocol and is not forwarded
    assert "anthropic_version" not in body
    assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]
    return body


# ====================================================== AnthropicBedrock -> gateway -> "OpenAI"


def test_bedrock_sdk_messages_create(bedrock_gateway: Gateway, openai_upstream: Upstream) -> None:
    openai_upstream.replies.append(Reply(200, chat_completion({"content": "Hello!"})))
    out = bedrock_client(bedrock_gateway).messages.create(
        model=MODEL_BEDROCK, max_tokens=50, system="Be brief.", messages=[{"role": "user", "content": "Hi"}]
    )
    body = check_openai_request(openai_upstream, "ABSK-bedrock-client-key")
    assert body["model"] == MODEL_BEDROCK and body["max_completion_tokens"] == 50
    assert out.content[0].text == "Hello!" and out.stop_reason == "end_turn"
    assert (out.usage.input_tokens, out.usage.output_tokens) == (12, 6)


def test_bedrock_sdk_messages_create_streamed(bedrock_gateway: Gateway, openai_upstream: Upstream) -> None:
    openai_upstream.replies.append(Reply(200, OPENAI_SSE, content_type="text/event-stream"))
    events = list(bedrock_client(bedrock_gateway).messages.create(
        model=MODEL_BEDROCK, max_tokens=50, system="Be brief.", messages=[{"role": "user", "content": "Hi"}], stream=True
    ))
    body = check_openai_request(openai_upstream, "ABSK-bedrock-client-key")
    assert body["model"] == MODEL_BEDROCK and body["stream"] is True
    kinds = [e.type for e in events]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert "".join(e.delta.text for e in events if e.type == "content_block_delta") == "Hello!"
    delta = next(e for e in events if e.type == "message_delta")
    assert delta.delta.stop_reason == "end_turn" and delta.usage.output_tokens == 2


def test_bedrock_sdk_stream_helper_with_a_beta(bedrock_gateway: Gateway, openai_upstream: Upstream) -> None:
    """`messages.stream` (the SDK's accumulating helper) over the event-stream; a beta header is
    copied by the SDK into the body's `anthropic_beta` (config.betas), which OpenAI has no row
    for: reported as lost on the way there (tests/gateway/test_gateway_betas.py: the rest)."""
    openai_upstream.replies.append(Reply(200, OPENAI_SSE, content_type="text/event-stream"))
    client = bedrock_client(bedrock_gateway)
    with client.messages.stream(
        model=MODEL_BEDROCK, max_tokens=50, system="Be brief.", messages=[{"role": "user", "content": "Hi"}],
        extra_headers={"anthropic-beta": "context-1m-2025-08-07"},
    ) as stream:
        final = stream.get_final_message()
        losses = stream.response.headers.get("x-wiremap-losses", "")
    check_openai_request(openai_upstream, "ABSK-bedrock-client-key")
    assert final.content[0].text == "Hello!" and final.stop_reason == "end_turn"
    assert stream.response.headers["content-type"] == "application/vnd.amazon.eventstream"
    assert "config.betas" in losses and "context-1m-2025-08-07" in losses


def test_bedrock_sdk_sigv4_with_dummy_aws_credentials(openai_upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """AnthropicBedrock with AWS credentials signs with SigV4 (through boto3). A SigV4
    signature is no key the gateway can forward: the gateway holds the upstream's own key."""
    pytest.importorskip("boto3")
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)
    gw = Gateway(create_app("anthropic.bedrock", "openai_chat", openai_upstream.server.url,
                            forward_client_key=False, upstream_api_key="sk-gateway-own"))
    try:
        openai_upstream.replies.append(Reply(200, chat_completion({"content": "Hello!"})))
        client = anthropic.AnthropicBedrock(base_url=gw.url, aws_region="us-east-1", aws_access_key="AKIDEXAMPLE",
                                            aws_secret_key="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", max_retries=0, timeout=20)
        out = client.messages.create(model=MODEL_BEDROCK, max_tokens=50, system="Be brief.", messages=[{"role": "user", "content": "Hi"}])
        assert out.content[0].text == "Hello!"
        check_openai_request(openai_upstream, "sk-gateway-own")
    finally:
        gw.stop()


def test_bedrock_sdk_gets_its_own_exception_class(bedrock_gateway: Gateway, openai_upstream: Upstream) -> None:
    openai_upstream.replies.append(Reply(429, {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}))
    with pytest.raises(anthropic.RateLimitError) as info:
        bedrock_client(bedrock_gateway).messages.create(model=MODEL_BEDROCK, max_tokens=5, messages=[{"role": "user", "content": "Hi"}])
    assert info.value.status_code == 429
    assert info.value.response.json()["__type"] == "ThrottlingException"  # the AWS shape, as Bedrock answers


# ======================================================= AnthropicVertex -> gateway -> "OpenAI"


def test_vertex_sdk_messages_create(vertex_gateway: Gateway, openai_upstream: Upstream) -> None:
    openai_upstream.replies.append(Reply(200, chat_completion({"content": "Hello!"})))
    out = vertex_client(vertex_gateway).messages.create(
        model=MODEL_VERTEX, max_tokens=50, system="Be brief.", messages=[{"role": "user", "content": "Hi"}]
    )
    body = check_openai_request(openai_upstream, "ya29.client-token")
    assert body["model"] == MODEL_VERTEX
    assert out.content[0].text == "Hello!" and out.stop_reason == "end_turn"


def test_vertex_sdk_messages_create_streamed(vertex_gateway: Gateway, openai_upstream: Upstream) -> None:
    openai_upstream.replies.append(Reply(200, OPENAI_SSE, content_type="text/event-stream"))
    events = list(vertex_client(vertex_gateway).messages.create(
        model=MODEL_VERTEX, max_tokens=50, system="Be brief.", messages=[{"role": "user", "content": "Hi"}], stream=True
    ))
    body = check_openai_request(openai_upstream, "ya29.client-token")
    assert body["model"] == MODEL_VERTEX and body["stream"] is True
    assert "".join(e.delta.text for e in events if e.type == "content_block_delta") == "Hello!"
    assert events[-1].type == "message_stop"


# ================================================= openai SDK -> gateway -> the cloud dialects


def chunk(event: dict[str, Any]) -> bytes:
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode()}).encode()
    return encode_message({":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}, payload)


ANTHROPIC_EVENTS = [
    {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": [],
                                          "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi there"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 3}},
    {"type": "message_stop"},
]
ANTHROPIC_MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                     "content": [{"type": "text", "text": "Hi there"}], "stop_reason": "end_turn", "stop_sequence": None,
                     "usage": {"input_tokens": 9, "output_tokens": 3}}


@pytest.fixture
def cloud_upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


def openai_client_to(gw: Gateway) -> Any:
    return openai.OpenAI(base_url=gw.url + "/v1", api_key="cloud-token-123", max_retries=0, timeout=20)


@pytest.mark.parametrize("stream", [False, True])
def test_bedrock_as_the_upstream(cloud_upstream: Upstream, stream: bool) -> None:
    gw = Gateway(create_app("openai_chat", "anthropic.bedrock", cloud_upstream.server.url))
    try:
        client = openai_client_to(gw)
        messages = [{"role": "user", "content": "Hi"}]
        if stream:
            cloud_upstream.replies.append(Reply(200, b"".join(chunk(e) for e in ANTHROPIC_EVENTS), content_type="application/vnd.amazon.eventstream"))
            chunks = list(client.chat.completions.create(model=MODEL_BEDROCK, messages=messages, max_tokens=20, stream=True))
            assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Hi there"
            path = f"/model/{MODEL_BEDROCK}/invoke-with-response-stream"
        else:
            cloud_upstream.replies.append(Reply(200, ANTHROPIC_MESSAGE))
            out = client.chat.completions.create(model=MODEL_BEDROCK, messages=messages, max_tokens=20)
            assert out.choices[0].message.content == "Hi there"
            path = f"/model/{MODEL_BEDROCK}/invoke"
        sent = cloud_upstream.last
        assert sent.path.replace("%3A", ":") == path
        assert sent.headers["authorization"] == "Bearer cloud-token-123"
        body = sent.json()
        assert body["anthropic_version"] == "bedrock-2023-05-31" and "model" not in body and "stream" not in body
    finally:
        gw.stop()


@pytest.mark.parametrize("stream", [False, True])
def test_vertex_anthropic_as_the_upstream(cloud_upstream: Upstream, stream: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "proj-1")
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
    gw = Gateway(create_app("openai_chat", "anthropic.vertex", cloud_upstream.server.url))
    try:
        client = openai_client_to(gw)
        messages = [{"role": "user", "content": "Hi"}]
        if stream:
            sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in ANTHROPIC_EVENTS)
            cloud_upstream.replies.append(Reply(200, sse, content_type="text/event-stream"))
            chunks = list(client.chat.completions.create(model=MODEL_VERTEX, messages=messages, max_tokens=20, stream=True))
            assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Hi there"
            verb = "streamRawPredict"
        else:
            cloud_upstream.replies.append(Reply(200, ANTHROPIC_MESSAGE))
            out = client.chat.completions.create(model=MODEL_VERTEX, messages=messages, max_tokens=20)
            assert out.choices[0].message.content == "Hi there"
            verb = "rawPredict"
        sent = cloud_upstream.last
        assert sent.path == f"/v1/projects/proj-1/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5%4020250929:{verb}"
        assert sent.headers["authorization"] == "Bearer cloud-token-123"
        body = sent.json()
        assert body["anthropic_version"] == "vertex-2023-10-16" and "model" not in body
        assert body.get("stream") is (True if stream else None)
    finally:
        gw.stop()


def test_gemini_vertex_as_the_upstream(cloud_upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj-2")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
    gw = Gateway(create_app("openai_chat", "gemini.vertex", cloud_upstream.server.url))
    try:
        cloud_upstream.replies.append(Reply(200, {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi there"}]}, "finishReason": "STOP", "index": 0}],
                                                  "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 3, "totalTokenCount": 12}}))
        out = openai_client_to(gw).chat.completions.create(model="gemini-2.5-flash", messages=[{"role": "user", "content": "Hi"}])
        assert out.choices[0].message.content == "Hi there"
        sent = cloud_upstream.last
        assert sent.path == "/v1/projects/proj-2/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent"
        assert sent.headers["authorization"] == "Bearer cloud-token-123"
        assert sent.json() == {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
    finally:
        gw.stop()


def test_bedrock_upstream_signed_with_sigv4_by_the_gateway(cloud_upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """No key for the upstream (the gateway keeps the client's to itself): the gateway signs its
    Bedrock requests with SigV4 from the AWS credentials in its environment."""
    for name in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    gw = Gateway(create_app("openai_chat", "anthropic.bedrock", cloud_upstream.server.url, forward_client_key=False))
    try:
        cloud_upstream.replies.append(Reply(200, ANTHROPIC_MESSAGE))
        out = openai_client_to(gw).chat.completions.create(model=MODEL_BEDROCK, messages=[{"role": "user", "content": "Hi"}], max_tokens=20)
        assert out.choices[0].message.content == "Hi there"
        auth = cloud_upstream.last.headers["authorization"]
        assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") and "/eu-central-1/bedrock/aws4_request" in auth
        assert "cloud-token-123" not in json.dumps(cloud_upstream.last.headers)
    finally:
        gw.stop()


def test_the_emitted_chunks_are_what_botocore_decodes() -> None:
    """What the gateway writes for a Bedrock client, read with AWS's own parser: each message is
    a `chunk` event whose PayloadPart bytes are one Messages stream event."""
    from botocore.eventstream import EventStreamBuffer
    from botocore.loaders import Loader
    from botocore.model import ServiceModel
    from botocore.parsers import EventStreamJSONParser

    from wiremap.runtime.stream import StreamEmitter

    emitter = StreamEmitter("anthropic.bedrock")
    events = [{"type": "message_start", "id": "msg_9", "model": "m", "raw": {}}, {"type": "text_delta", "index": 0, "text": "Hé"},
              {"type": "finish", "finish_reason": "stop"}, {"type": "usage", "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}]
    raw = b"".join(emitter.emit(e) for e in events) + emitter.close()
    shape = ServiceModel(Loader().load_service_model("bedrock-runtime", "service-2")).shape_for("ResponseStream")
    buf = EventStreamBuffer()
    buf.add_data(raw)
    parsed = [EventStreamJSONParser().parse(m.to_response_dict(), shape) for m in buf]
    inner = [json.loads(p["chunk"]["bytes"]) for p in parsed]
    assert [e["type"] for e in inner] == ["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]
    assert inner[2]["delta"] == {"type": "text_delta", "text": "Hé"}
    assert len(list(EventStreamDecoder().feed(raw))) == len(inner)


def test_a_converse_client_names_its_model_only_in_the_url(cloud_upstream: Upstream) -> None:
    """Bedrock Converse's model is the URL's `{modelId}` and not in the body (botocore sends it
    so): the gateway reads the path-bound field of that name from the URL."""
    import httpx

    gw = Gateway(create_app("bedrock_converse", "openai_chat", cloud_upstream.server.url))
    try:
        cloud_upstream.replies.append(Reply(200, chat_completion({"content": "Hello!"})))
        r = httpx.post(gw.url + "/model/us.anthropic.claude-haiku-4-5/converse", headers={"authorization": "Bearer br-key"},
                       json={"messages": [{"role": "user", "content": [{"text": "Hi"}]}]}, timeout=20)
        assert r.status_code == 200, r.text
        assert r.json()["output"]["message"]["content"] == [{"text": "Hello!"}]
        assert cloud_upstream.last.json()["model"] == "us.anthropic.claude-haiku-4-5"
    finally:
        gw.stop()

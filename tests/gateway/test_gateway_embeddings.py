"""Embeddings through the gateway on 127.0.0.1, driven by official SDKs (issue 17):

- the `openai` SDK (`embeddings.create`, with `dimensions`) -> gateway (inbound openai_embeddings)
  -> a loopback upstream playing Cohere (cohere_embed): the upstream receives Cohere's wire
  (POST /v2/embed, texts, output_dimension, embedding_types, the client's key as bearer), its
  answer comes back as OpenAI's vectors and usage, its errors as the SDK's own exception classes;
- the same SDK -> a loopback upstream playing Gemini (gemini_batch_embed_contents), and one
  playing Amazon Titan Text Embeddings on Bedrock (bedrock_titan_embeddings);
- the `mistralai` SDK -> gateway (inbound mistral_embeddings) -> the Cohere upstream;
- the `openai` SDK -> an openai_embeddings upstream: the same wire, passed through;
- a config file (`wiremap serve --config`) routing embeddings models to two upstreams, and the
  kinds a gateway refuses to mix.

Each test checks both ends: what the upstream received and what the client SDK parsed.
"""

from __future__ import annotations

import base64
import json
import struct
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import Reply  # noqa: E402
from test_gateway_sdks import Gateway, Upstream  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402
from wiremap.gateway_config import GatewayConfig, GatewayConfigError, load_gateway_file  # noqa: E402

# exact in float32, so a base64 float32 answer decodes to these very numbers
VECTORS = [[0.5, -0.25, 0.125, 1.0], [-1.0, 0.75, 0.0, 2.5]]


def f32(vector: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode()


def cohere_embed(kind: str = "float", tokens: int = 7) -> dict[str, Any]:
    vectors: list[Any] = VECTORS if kind == "float" else [f32(v) for v in VECTORS]
    return {"id": "emb-1", "response_type": "embeddings_by_type", "embeddings": {kind: vectors},
            "texts": ["hello", "world"], "meta": {"billed_units": {"input_tokens": tokens}}}


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


@pytest.fixture(scope="module")
def openai_to_cohere(upstream: Upstream) -> Iterator[Any]:
    gw = Gateway(create_app("openai_embeddings", "cohere_embed", upstream.server.url))
    yield openai.OpenAI(base_url=gw.url + "/v1", api_key="co-client-key", max_retries=0, timeout=20)
    gw.stop()


def test_openai_sdk_to_cohere(openai_to_cohere: Any, upstream: Upstream) -> None:
    upstream.replies.append(Reply(200, cohere_embed("float")))
    raw = openai_to_cohere.embeddings.with_raw_response.create(
        model="embed-v4.0", input=["hello", "world"], dimensions=256, encoding_format="float")
    resp = raw.parse()
    seen = upstream.last
    assert seen.method == "POST" and seen.path == "/v2/embed"
    assert seen.headers["authorization"] == "Bearer co-client-key"
    assert seen.json() == {"model": "embed-v4.0", "texts": ["hello", "world"], "input_type": "search_document",
                           "output_dimension": 256, "embedding_types": ["float"]}
    # what the SDK parsed: the vectors in order, the usage Cohere billed
    assert [d.embedding for d in resp.data] == VECTORS
    assert [d.index for d in resp.data] == [0, 1]
    assert resp.usage.prompt_tokens == 7 and resp.usage.total_tokens == 7
    assert resp.model == "embed-v4.0"  # Cohere's answer names none: the model asked of it
    # Cohere requires input_type: the default the gateway added is reported, as for chat
    assert raw.headers["x-wiremap-upstream"] == "cohere_embed"
    losses = json.loads(raw.headers["x-wiremap-losses"])
    assert {"direction": "request", "path": "config.input_type", "kind": "added"}.items() <= losses[0].items()
    assert all(x["path"] != "config.encoding_format" for x in losses)  # float asked, float answered


def test_openai_sdk_default_base64(openai_to_cohere: Any, upstream: Upstream) -> None:
    """Without encoding_format the openai SDK asks for base64 (and decodes it): Cohere is asked
    for base64 too, its float32 strings are read, and the SDK gets the same floats."""
    upstream.replies.append(Reply(200, cohere_embed("base64", tokens=3)))
    raw = openai_to_cohere.embeddings.with_raw_response.create(model="embed-v4.0", input=["hello", "world"], dimensions=4)
    resp = raw.parse()
    sent = upstream.last.json()
    # the answer is written as the base64 float32 asked for (openai-node decodes it without
    # looking), and that encoding is no loss
    written = [d["embedding"] for d in json.loads(raw.content)["data"]]
    assert written == [f32(v) for v in VECTORS]
    losses = json.loads(raw.headers.get("x-wiremap-losses") or "[]")
    assert all(x["path"] != "config.encoding_format" for x in losses)
    assert sent["embedding_types"] == ["base64"] and sent["output_dimension"] == 4
    assert [d.embedding for d in resp.data] == VECTORS
    assert resp.usage.prompt_tokens == 3


def test_openai_sdk_error_classes(openai_to_cohere: Any, upstream: Upstream) -> None:
    """Cohere's errors reach the openai SDK as its own exception classes, with the message."""
    upstream.replies.append(Reply(429, {"message": "You are using a Trial key, which is limited"}, headers={"retry-after": "1"}))
    with pytest.raises(openai.RateLimitError) as info:
        openai_to_cohere.embeddings.create(model="embed-v4.0", input="hello", encoding_format="float")
    assert "Trial key" in str(info.value)
    upstream.replies.append(Reply(401, {"message": "invalid api token"}))
    with pytest.raises(openai.AuthenticationError):
        openai_to_cohere.embeddings.create(model="embed-v4.0", input="hello", encoding_format="float")
    upstream.replies.append(Reply(400, {"message": "invalid request: output_dimension 7 is not supported"}))
    with pytest.raises(openai.BadRequestError) as bad:
        openai_to_cohere.embeddings.create(model="embed-v4.0", input="hello", dimensions=7, encoding_format="float")
    assert "output_dimension" in str(bad.value)


def test_openai_sdk_bad_request_in_openai_envelope(openai_to_cohere: Any, upstream: Upstream) -> None:
    """A body the inbound table refuses never reaches the upstream; the SDK gets its 400."""
    before = len(upstream.server.requests)
    with pytest.raises(openai.BadRequestError) as info:
        openai_to_cohere.embeddings.create(model="embed-v4.0", input=[], encoding_format="float")
    assert info.value.status_code == 400
    assert len(upstream.server.requests) == before


def test_stream_refused(openai_to_cohere: Any, upstream: Upstream) -> None:
    """Embeddings are not streamed: `stream: true` is the inbound format's 400, nothing is sent."""
    before = len(upstream.server.requests)
    with pytest.raises(openai.BadRequestError) as info:
        openai_to_cohere.embeddings.create(model="embed-v4.0", input="hello", extra_body={"stream": True})
    assert "not streamed" in str(info.value)
    assert len(upstream.server.requests) == before


def test_openai_sdk_to_gemini_batch(upstream: Upstream) -> None:
    gw = Gateway(create_app("openai_embeddings", "gemini_batch_embed_contents", upstream.server.url))
    try:
        client = openai.OpenAI(base_url=gw.url + "/v1", api_key="g-client-key", max_retries=0, timeout=20)
        upstream.replies.append(Reply(200, {"embeddings": [{"values": v} for v in VECTORS]}))
        resp = client.embeddings.create(model="gemini-embedding-001", input=["hello", "world"], dimensions=768, encoding_format="float")
        seen = upstream.last
        assert seen.path == "/v1beta/models/gemini-embedding-001:batchEmbedContents"
        assert seen.headers["x-goog-api-key"] == "g-client-key"
        assert seen.json()["requests"] == [
            {"model": "models/gemini-embedding-001", "content": {"parts": [{"text": t}]}, "outputDimensionality": 768}
            for t in ("hello", "world")
        ]
        assert [d.embedding for d in resp.data] == VECTORS
        assert resp.model == "gemini-embedding-001"
        upstream.replies.append(Reply(404, {"error": {"code": 404, "message": "models/nope is not found", "status": "NOT_FOUND"}}))
        with pytest.raises(openai.NotFoundError):
            client.embeddings.create(model="nope", input="hello", encoding_format="float")
    finally:
        gw.stop()


def test_openai_sdk_to_bedrock_titan(upstream: Upstream) -> None:
    """Titan Text Embeddings V2 on Bedrock (InvokeModel): the model in the URL, one inputText per
    call, dimensions and embeddingTypes; its float `embedding` comes back as the SDK's vectors
    (float and the SDK's default base64 of float32), its inputTextTokenCount as the usage, and
    Bedrock's errors (x-amzn-ErrorType) as the SDK's exception classes."""
    model = "amazon.titan-embed-text-v2:0"
    gw = Gateway(create_app("openai_embeddings", "bedrock_titan_embeddings", upstream.server.url))
    try:
        client = openai.OpenAI(base_url=gw.url + "/v1", api_key="ABSKbedrock-client-key", max_retries=0, timeout=20)
        upstream.replies.append(Reply(200, {"embedding": VECTORS[0], "inputTextTokenCount": 3, "embeddingsByType": {"float": VECTORS[0]}}))
        resp = client.embeddings.create(model=model, input="hello", dimensions=256, encoding_format="float")
        seen = upstream.last
        assert seen.method == "POST" and seen.path == "/model/amazon.titan-embed-text-v2%3A0/invoke"
        assert seen.headers["authorization"] == "Bearer ABSKbedrock-client-key"
        assert seen.json() == {"inputText": "hello", "dimensions": 256, "embeddingTypes": ["float"]}
        assert [d.embedding for d in resp.data] == [VECTORS[0]] and resp.data[0].index == 0
        assert resp.model == model and resp.usage.prompt_tokens == 3 and resp.usage.total_tokens == 3

        # the SDK's default: base64 of float32, decoded by the SDK to the same numbers
        upstream.replies.append(Reply(200, {"embedding": VECTORS[1], "inputTextTokenCount": 2}))
        resp = client.embeddings.create(model=model, input=["world"])
        assert upstream.last.json() == {"inputText": "world"}
        assert resp.data[0].embedding == VECTORS[1]

        # Titan embeds one text per call: two are the client's 400, nothing is sent
        before = len(upstream.server.requests)
        with pytest.raises(openai.BadRequestError) as bad:
            client.embeddings.create(model=model, input=["hello", "world"], encoding_format="float")
        assert "one text" in str(bad.value) and len(upstream.server.requests) == before

        # Bedrock's errors: the type in x-amzn-ErrorType, the message in {message}
        upstream.replies.append(Reply(400, {"message": "Malformed input request: expected maxLength: 50000"},
                                      headers={"x-amzn-ErrorType": "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}))
        with pytest.raises(openai.BadRequestError) as bad:
            client.embeddings.create(model=model, input="hello", encoding_format="float")
        assert "Malformed input request" in str(bad.value)
        upstream.replies.append(Reply(429, {"message": "Too many requests, please wait before trying again."},
                                      headers={"x-amzn-ErrorType": "ThrottlingException"}))
        with pytest.raises(openai.RateLimitError):
            client.embeddings.create(model=model, input="hello", encoding_format="float")
        upstream.replies.append(Reply(403, {"message": "The security token included in the request is invalid."},
                                      headers={"x-amzn-ErrorType": "UnrecognizedClientException"}))
        with pytest.raises(openai.AuthenticationError):
            client.embeddings.create(model=model, input="hello", encoding_format="float")
    finally:
        gw.stop()


def test_mistral_sdk_to_cohere(upstream: Upstream) -> None:
    mistral = pytest.importorskip("mistralai.client")
    gw = Gateway(create_app("mistral_embeddings", "cohere_embed", upstream.server.url))
    try:
        client = mistral.Mistral(api_key="sk-mistral-client", server_url=gw.url, timeout_ms=20000)
        upstream.replies.append(Reply(200, cohere_embed("float", tokens=5)))
        resp = client.embeddings.create(model="embed-v4.0", inputs=["hello", "world"], output_dimension=512)
        sent = upstream.last.json()
        assert upstream.last.path == "/v2/embed" and upstream.last.headers["authorization"] == "Bearer sk-mistral-client"
        assert sent["texts"] == ["hello", "world"] and sent["output_dimension"] == 512
        assert [d.embedding for d in resp.data] == VECTORS
        assert resp.usage.prompt_tokens == 5 and resp.model == "embed-v4.0"  # required by the SDK's model
        upstream.replies.append(Reply(429, {"message": "slow down"}))
        with pytest.raises(mistral.errors.SDKError) as info:
            client.embeddings.create(model="embed-v4.0", inputs=["hello"])
        assert info.value.status_code == 429
    finally:
        gw.stop()


def test_cohere_sdk_to_openai(upstream: Upstream) -> None:
    cohere = pytest.importorskip("cohere")
    gw = Gateway(create_app("cohere_embed", "openai_embeddings", upstream.server.url))
    try:
        client = cohere.ClientV2(api_key="sk-openai-client", base_url=gw.url, timeout=20, max_retries=0)
        answer = {"object": "list", "model": "text-embedding-3-large", "usage": {"prompt_tokens": 4, "total_tokens": 4},
                  "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(VECTORS)]}
        upstream.replies.append(Reply(200, answer))
        resp = client.embed(model="text-embedding-3-large", texts=["hello", "world"], input_type="search_query",
                            embedding_types=["float"], output_dimension=1024)
        assert upstream.last.path == "/v1/embeddings" and upstream.last.headers["authorization"] == "Bearer sk-openai-client"
        sent = upstream.last.json()
        assert sent["input"] == ["hello", "world"] and sent["dimensions"] == 1024 and sent["encoding_format"] == "float"
        assert resp.embeddings.float_ == VECTORS
        assert resp.meta.billed_units.input_tokens == 4
        upstream.replies.append(Reply(429, {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}))
        with pytest.raises(cohere.errors.TooManyRequestsError):
            client.embed(model="text-embedding-3-large", texts=["hello"], input_type="search_query", embedding_types=["float"])
    finally:
        gw.stop()


def test_gemini_embed_content_path_model(upstream: Upstream) -> None:
    """Gemini's embedContent takes the model from the URL (`{model}`), the key from x-goog-api-key."""
    httpx = pytest.importorskip("httpx")
    gw = Gateway(create_app("gemini_embed_content", "openai_embeddings", upstream.server.url))
    try:
        answer = {"object": "list", "model": "text-embedding-3-small", "usage": {"prompt_tokens": 1, "total_tokens": 1},
                  "data": [{"object": "embedding", "index": 0, "embedding": VECTORS[0]}]}
        upstream.replies.append(Reply(200, answer))
        got = httpx.post(gw.url + "/v1beta/models/text-embedding-3-small:embedContent", headers={"x-goog-api-key": "sk-openai-client"},
                         json={"content": {"parts": [{"text": "hello"}]}, "outputDimensionality": 4}, timeout=20)
        assert got.status_code == 200, got.text
        sent = upstream.last.json()
        assert sent["model"] == "text-embedding-3-small" and sent["input"] in ("hello", ["hello"]) and sent["dimensions"] == 4
        assert got.json()["embedding"]["values"] == VECTORS[0]
        upstream.replies.append(Reply(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}))
        bad = httpx.post(gw.url + "/v1beta/models/text-embedding-3-small:embedContent", headers={"x-goog-api-key": "sk-wrong"},
                         json={"content": {"parts": [{"text": "hello"}]}}, timeout=20)
        assert bad.status_code == 401 and bad.json()["error"]["status"] == "UNAUTHENTICATED"
    finally:
        gw.stop()


def test_same_format_passes_through(upstream: Upstream) -> None:
    """openai_embeddings at both ends: the client's bytes and the upstream's answer as they are."""
    gw = Gateway(create_app("openai_embeddings", "openai_embeddings", upstream.server.url))
    try:
        client = openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-openai-client", max_retries=0, timeout=20)
        answer = {"object": "list", "model": "text-embedding-3-small", "usage": {"prompt_tokens": 2, "total_tokens": 2},
                  "data": [{"object": "embedding", "index": 0, "embedding": f32(VECTORS[0])}]}
        upstream.replies.append(Reply(200, answer))
        resp = client.embeddings.create(model="text-embedding-3-small", input="hello", dimensions=4, user="u-1")
        assert upstream.last.path == "/v1/embeddings"
        assert upstream.last.json() == {"model": "text-embedding-3-small", "input": "hello", "dimensions": 4,
                                        "user": "u-1", "encoding_format": "base64"}
        assert resp.data[0].embedding == VECTORS[0] and resp.usage.prompt_tokens == 2
    finally:
        gw.stop()


# --- kinds, and a config file's routes ------------------------------------------------------


def test_kinds_do_not_mix() -> None:
    with pytest.raises(ValueError, match="one kind"):
        GatewayConfig("openai_embeddings", "openai_chat", "http://127.0.0.1:1")
    with pytest.raises(ValueError, match="one kind"):
        GatewayConfig("openai_chat", "cohere_embed", "http://127.0.0.1:1")
    with pytest.raises(ValueError, match="kind images"):
        GatewayConfig("openai_images", "openai_images", "http://127.0.0.1:1")


def test_config_file_refuses_other_kind_upstream(tmp_path: Path) -> None:
    path = tmp_path / "gw.yaml"
    path.write_text(textwrap.dedent("""\
        inbound: openai_embeddings
        upstreams:
          chat:
            format: anthropic_messages
            base_url: http://127.0.0.1:1
        default: {upstream: chat}
        """))
    with pytest.raises(GatewayConfigError) as info:
        load_gateway_file(path)
    assert "upstreams.chat.format" in str(info.value) and "kind chat" in str(info.value)


def test_config_file_routes_embeddings(tmp_path: Path, upstream: Upstream) -> None:
    """Routes by model: embed-* to a Cohere upstream (Gemini its fallback), every other model to
    a Gemini one."""
    other = Upstream()
    with other.server:
        path = tmp_path / "gw.yaml"
        path.write_text(textwrap.dedent(f"""\
            inbound: openai_embeddings
            upstreams:
              cohere:
                format: cohere_embed
                base_url: {upstream.server.url}
              gemini:
                format: gemini_batch_embed_contents
                base_url: {other.server.url}
            routes:
              - {{model: "embed-*", upstream: cohere, fallbacks: [{{upstream: gemini, upstream_model: gemini-embedding-001}}]}}
            default: {{upstream: gemini}}
            """))
        gw = Gateway(create_app(config_file=path))
        try:
            client = openai.OpenAI(base_url=gw.url + "/v1", api_key="client-key", max_retries=0, timeout=20)
            upstream.replies.append(Reply(200, cohere_embed("float")))
            resp = client.embeddings.create(model="embed-v4.0", input=["hello", "world"], encoding_format="float")
            assert upstream.last.path == "/v2/embed" and [d.embedding for d in resp.data] == VECTORS
            other.replies.append(Reply(200, {"embeddings": [{"values": VECTORS[1]}]}))
            resp = client.embeddings.create(model="gemini-embedding-001", input="world", encoding_format="float")
            assert other.last.path == "/v1beta/models/gemini-embedding-001:batchEmbedContents"
            assert resp.data[0].embedding == VECTORS[1]
            # Cohere unavailable: the route's fallback, Gemini, under its own model name
            upstream.replies.append(Reply(503, {"message": "service unavailable"}))
            other.replies.append(Reply(200, {"embeddings": [{"values": VECTORS[0]}]}))
            raw = client.embeddings.with_raw_response.create(model="embed-v4.0", input="hello", encoding_format="float")
            assert other.last.path == "/v1beta/models/gemini-embedding-001:batchEmbedContents"
            assert raw.headers["x-wiremap-upstream"] == "gemini_batch_embed_contents"
            assert raw.parse().data[0].embedding == VECTORS[0] and raw.parse().model == "gemini-embedding-001"
        finally:
            gw.stop()

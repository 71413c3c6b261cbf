"""Provider.embed() over real HTTP for the embeddings formats of issue 17: each format's URL
(the model bound into the path where the table says so), its auth header, the body it sends
and the canonical result it reads back."""

from __future__ import annotations

from typing import Any

import pytest

import wiremap
from loopback import Reply, Seen

KEY = "k-test-0123456789"


def _answer(seen: Seen) -> Reply:
    body = seen.json()
    if seen.path.endswith(":batchEmbedContents"):
        return Reply(200, {"embeddings": [{"values": [float(len(r["content"]["parts"][0]["text"]))]} for r in body["requests"]]})
    if seen.path.endswith(":embedContent"):
        return Reply(200, {"embedding": {"values": [float(len(body["content"]["parts"][0]["text"])), 0.5]}})
    if seen.path.endswith("/invoke"):
        return Reply(200, {"embedding": [float(len(body["inputText"])), 0.25], "inputTextTokenCount": 4, "embeddingsByType": {"float": [1.0]}})
    if seen.path == "/v2/embed":
        vectors = [[float(len(t)), 1.0] for t in body["texts"]]
        return Reply(200, {"id": "c1", "embeddings": {"float": vectors}, "texts": body["texts"], "meta": {"billed_units": {"input_tokens": 6}}, "response_type": "embeddings_by_type"})
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    data = [{"object": "embedding", "index": i, "embedding": [float(len(t))]} for i, t in enumerate(texts)]
    return Reply(200, {"id": "m1", "object": "list", "model": body["model"], "data": data, "usage": {"prompt_tokens": 3, "total_tokens": 3, "completion_tokens": 0}})


CASES = [
    (
        "gemini_batch_embed_contents",
        "gemini-embedding-001",
        {"dimensions": 768},
        "/v1beta/models/gemini-embedding-001:batchEmbedContents",
        ("x-goog-api-key", KEY),
        {"requests": [{"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "hello"}]}, "outputDimensionality": 768}]},
        [[5.0]],
        None,
    ),
    # key, model, config, path, auth header, body sent, vectors, prompt tokens
    (
        "gemini_embed_content",
        "gemini-embedding-001",
        {"input_type": "search_query", "dimensions": 768},
        "/v1beta/models/gemini-embedding-001:embedContent",
        ("x-goog-api-key", KEY),
        {"content": {"parts": [{"text": "hello"}]}, "taskType": "RETRIEVAL_QUERY", "outputDimensionality": 768},
        [[5.0, 0.5]],
        None,
    ),
    (
        "bedrock_titan_embeddings",
        "amazon.titan-embed-text-v2:0",
        {"dimensions": 256, "encoding_format": "float"},
        "/model/amazon.titan-embed-text-v2%3A0/invoke",
        ("authorization", f"Bearer {KEY}"),
        {"inputText": "hello", "dimensions": 256, "embeddingTypes": ["float"]},
        [[5.0, 0.25]],
        4,
    ),
    (
        "cohere_embed",
        "embed-v4.0",
        {"input_type": "search_document", "encoding_format": "float"},
        "/v2/embed",
        ("authorization", f"Bearer {KEY}"),
        {"model": "embed-v4.0", "texts": ["hello"], "input_type": "search_document", "embedding_types": ["float"]},
        [[5.0, 1.0]],
        6,
    ),
    (
        "mistral_embeddings",
        "mistral-embed",
        {"dimensions": 512},
        "/v1/embeddings",
        ("authorization", f"Bearer {KEY}"),
        {"model": "mistral-embed", "input": "hello", "output_dimension": 512},
        [[5.0]],
        3,
    ),
]


@pytest.mark.parametrize("key, model, config, path, auth, sent, vectors, tokens", CASES, ids=[c[0] for c in CASES])
def test_embed_reaches_the_provider(serve: Any, key: str, model: str, config: dict[str, Any], path: str, auth: tuple[str, str], sent: dict[str, Any], vectors: list[list[float]], tokens: int | None) -> None:
    server = serve(_answer)
    with wiremap.Provider(key, model=model, api_key=KEY, base_url=server.url) as p:
        result = p.embed_sync("hello", config=config)
    (seen,) = server.requests
    assert seen.method == "POST" and seen.raw_path == path
    assert seen.headers[auth[0]] == auth[1]
    assert seen.json() == sent  # a path-bound model is not in the body
    assert result.embeddings == vectors
    assert result.usage.prompt_tokens == tokens


def test_one_text_formats_refuse_several_before_sending(serve: Any) -> None:
    server = serve(_answer)
    with wiremap.Provider("gemini_embed_content", model="m", api_key=KEY, base_url=server.url) as p:
        with pytest.raises(wiremap.InvalidRequestError) as info:
            p.embed_sync(["a", "b"])
    assert info.value.path == "messages" and "one text per call" in str(info.value)
    assert server.requests == []


@pytest.mark.parametrize("key, env", [("gemini_embed_content", "GEMINI_API_KEY"), ("cohere_embed", "CO_API_KEY"), ("mistral_embeddings", "MISTRAL_API_KEY"), ("bedrock_titan_embeddings", "AWS_BEARER_TOKEN_BEDROCK")])
def test_transport_names_the_key_variable(key: str, env: str) -> None:
    assert wiremap.get_format(key).transport["api_key_env"] == env

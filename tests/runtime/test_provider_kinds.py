"""Provider over real HTTP for the non-chat kinds: `embed()` (kind embeddings) and
`generate_image()` (kind images), their sync twins, kind guards, errors and spans."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import wiremap
from loopback import Reply, Seen

KEY = "sk-test-0123456789"


def _embeddings(seen: Seen) -> Reply:
    body = seen.json()
    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
    # answered out of order: the canonical result follows `index`
    data = [{"object": "embedding", "index": i, "embedding": [float(len(t)), float(i)]} for i, t in enumerate(texts)]
    return Reply(200, {"object": "list", "data": data[::-1], "model": body["model"], "usage": {"prompt_tokens": 7, "total_tokens": 7}})


def _images(seen: Seen) -> Reply:
    body = seen.json()
    return Reply(
        200,
        {
            "created": 1700000000,
            "data": [{"b64_json": "iVBORw0K"} for _ in range(body.get("n", 1))],
            "output_format": body.get("output_format", "png"),
            "usage": {"input_tokens": 3, "input_tokens_details": {"image_tokens": 0, "text_tokens": 3}, "output_tokens": 100, "total_tokens": 103},
        },
    )


def test_format_kinds() -> None:
    assert wiremap.get_format("openai_embeddings").kind == "embeddings"
    assert wiremap.get_format("prompty.openai_images").kind == "images"
    assert wiremap.get_format("openai_chat").kind == "chat"


def test_embed_list_of_strings(serve: Any) -> None:
    server = serve(_embeddings)

    async def main() -> wiremap.EmbeddingsResponse:
        async with wiremap.Provider("openai_embeddings", model="text-embedding-3-small", api_key=KEY, base_url=server.url) as p:
            return await p.embed(["ab", "cde"], config={"extras": {"dimensions": 2}})

    result = asyncio.run(main())
    assert isinstance(result, wiremap.EmbeddingsResponse)
    assert result.embeddings == [[2.0, 0.0], [3.0, 1.0]]
    assert result.model == "text-embedding-3-small"
    assert result.usage.prompt_tokens == 7 and result.usage.completion_tokens is None
    (seen,) = server.requests
    assert seen.method == "POST" and seen.path == "/v1/embeddings"
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.json() == {"model": "text-embedding-3-small", "input": ["ab", "cde"], "dimensions": 2}


def test_embed_sync_one_string_and_messages(serve: Any) -> None:
    server = serve(_embeddings)
    with wiremap.Provider("openai_embeddings", model="m", api_key=KEY, base_url=server.url) as p:
        one = p.embed_sync("hello")
        many = p.embed_sync([{"role": "system", "content": "a"}, {"role": "user", "content": "bb"}])
    assert one.embeddings == [[5.0, 0.0]]
    assert many.embeddings == [[1.0, 0.0], [2.0, 1.0]]
    assert [s.json()["input"] for s in server.requests] == ["hello", ["a", "bb"]]


def test_generate_image(serve: Any) -> None:
    server = serve(_images)
    with wiremap.Provider("openai_images", model="gpt-image-2", api_key=KEY, base_url=server.url) as p:
        result = p.generate_image_sync("A cat", config={"extras": {"n": 2, "output_format": "webp"}})
    assert isinstance(result, wiremap.ImagesResponse)
    assert [i.to_dict() for i in result.images] == [
        {"source": {"type": "inline", "base64_data": "iVBORw0K"}, "media_type": "image/webp"}
    ] * 2
    assert isinstance(result.usage, wiremap.Usage) and result.usage.total_tokens == 103
    (seen,) = server.requests
    assert seen.path == "/v1/images/generations"
    assert seen.json() == {"model": "gpt-image-2", "prompt": "A cat", "n": 2, "output_format": "webp"}


def test_pre_send_errors_send_nothing(serve: Any) -> None:
    server = serve(_images)
    with wiremap.Provider("openai_images", model="gpt-image-2", api_key=KEY, base_url=server.url) as p:
        with pytest.raises(wiremap.InvalidRequestError) as info:
            p.generate_image_sync("A cat", config={"extras": {"response_format": "url"}})
        assert info.value.path == "config.extras.response_format"
    assert server.requests == []


def test_kind_guards() -> None:
    with wiremap.Provider("openai_embeddings", model="m", api_key=KEY) as p:
        with pytest.raises(wiremap.InvalidRequestError, match="embed"):
            p.complete_sync([{"role": "user", "content": "hi"}])
        with pytest.raises(wiremap.InvalidRequestError, match="kind embeddings"):
            p.generate_image_sync("x")
    with wiremap.Provider("openai_chat", model="m", api_key=KEY) as p:
        with pytest.raises(wiremap.InvalidRequestError, match="complete"):
            p.embed_sync("x")


def test_http_error_uses_the_error_table(serve: Any) -> None:
    server = serve(lambda seen: Reply(429, {"error": {"message": "slow down", "type": "requests"}}, headers={"retry-after": "3"}))
    with wiremap.Provider("openai_embeddings", model="m", api_key=KEY, base_url=server.url) as p:
        with pytest.raises(wiremap.RateLimitError) as info:
            p.embed_sync("x")
    assert info.value.retry_after == pytest.approx(3, abs=1)


def test_bad_body_is_invalid_response(serve: Any) -> None:
    server = serve(lambda seen: Reply(200, {"object": "list", "data": [{"index": 0, "embedding": "%%"}], "model": "m"}))
    with wiremap.Provider("openai_embeddings", model="m", api_key=KEY, base_url=server.url) as p:
        with pytest.raises(wiremap.InvalidResponseError) as info:
            p.embed_sync("x")
    assert info.value.path == "data[0].embedding"


def test_spans(serve: Any) -> None:
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    server = serve(lambda seen: _embeddings(seen) if seen.path.endswith("embeddings") else _images(seen))
    with wiremap.Provider("openai_embeddings", model="e", api_key=KEY, base_url=server.url, tracer_provider=tracer_provider) as p:
        p.embed_sync("x")
    with wiremap.Provider("openai_images", model="g", api_key=KEY, base_url=server.url, tracer_provider=tracer_provider) as p:
        p.generate_image_sync("x")
    spans = exporter.get_finished_spans()
    assert [s.name for s in spans] == ["embeddings e", "generate_content g"]
    assert spans[0].attributes["gen_ai.operation.name"] == "embeddings"
    assert spans[0].attributes["gen_ai.usage.input_tokens"] == 7
    assert spans[1].attributes["gen_ai.usage.output_tokens"] == 100

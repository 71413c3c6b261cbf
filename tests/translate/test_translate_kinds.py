"""Translation between formats of the non-chat kinds (embeddings, images), and its kind guard."""

from __future__ import annotations

import pytest

import wiremap
from wiremap.runtime.translate import translate_request, translate_response

EMB_BODY = {
    "object": "list",
    "data": [{"object": "embedding", "index": 0, "embedding": [0.5, 1.0]}],
    "model": "m",
    "usage": {"prompt_tokens": 2, "total_tokens": 2},
}


def test_embeddings_response_between_dialects_is_lossless() -> None:
    t = translate_response(EMB_BODY, "openai_embeddings", "prompty.openai_embeddings")
    assert t.result == EMB_BODY and t.lossless


def test_images_request_between_base_and_dialect() -> None:
    body = {"model": "gpt-image-2", "prompt": "A cat", "size": "1024x1024"}
    t = translate_request(body, "prompty.openai_images", "openai_images")
    assert t.result == body and t.lossless


def test_images_request_refused_by_the_target_names_the_path() -> None:
    body = {"model": "gpt-image-2", "prompt": "A cat", "response_format": "url"}
    with pytest.raises(wiremap.InvalidRequestError) as info:
        translate_request(body, "prompty.openai_images", "openai_images")
    assert info.value.path == "config.extras.response_format"


@pytest.mark.parametrize(
    "fn, body",
    [
        (translate_request, {"model": "m", "input": "x"}),
        (translate_response, EMB_BODY),
    ],
)
def test_kinds_do_not_mix(fn, body) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(wiremap.InvalidRequestError, match="only formats of one kind translate"):
        fn(body, "openai_embeddings", "openai_chat")


@pytest.mark.parametrize("key", ["openai_embeddings", "openai_images", "prompty.openai_images"])
def test_error_to_wire_reads_back_as_its_category(key: str) -> None:
    """errors.emit (the OpenAI error object): every category rendered, read back by the format's
    own rules, keeps its category (model_not_loaded has no status of its own: 503 is unavailable)."""
    fmt = wiremap.get_format(key)
    for category in (
        "provider_authentication",
        "provider_invalid_model",
        "provider_invalid_request",
        "provider_rate_limit",
        "provider_unavailable",
    ):
        error = wiremap.runtime.errors.error_class(category)("the model `x` failed" if category == "provider_invalid_model" else "boom")
        status, body, headers = fmt.error_to_wire(error)
        assert body["error"]["message"]
        assert fmt.error_from_wire(status, body, headers).category == category


def test_gateway_serves_chat_and_embeddings_one_kind_at_a_time() -> None:
    pytest.importorskip("starlette")
    from wiremap.gateway import GatewayConfig

    assert GatewayConfig("openai_embeddings", "cohere_embed", "http://127.0.0.1:9").upstream.key == "cohere_embed"
    with pytest.raises(ValueError, match="kind embeddings and inbound format 'openai_chat' kind chat"):
        GatewayConfig("openai_chat", "openai_embeddings", "http://127.0.0.1:9")
    with pytest.raises(ValueError, match="kind images"):
        GatewayConfig("openai_chat", "openai_images", "http://127.0.0.1:9")

"""Translation between every pair of embeddings formats (issue 17): the canonical options
(config.input_type, dimensions, encoding_format) cross where both wires have them, and whatever a
target cannot carry is named in the loss report, never silently lost."""

from __future__ import annotations

import itertools
import json
import struct
from typing import Any

import pytest

import wiremap
from wiremap.runtime.translate import translate_request, translate_response

EMBEDDINGS = sorted(k for k in wiremap.formats() if wiremap.get_format(k).kind == "embeddings")
NEW = ["cohere_embed", "gemini_embed_content", "gemini_batch_embed_contents", "mistral_embeddings", "bedrock_titan_embeddings"]

#: one text, every option each format can state, as that format's client writes it
REQUESTS: dict[str, dict[str, Any]] = {
    "openai_embeddings": {"model": "m", "input": "hello", "dimensions": 256, "encoding_format": "float"},
    "prompty.openai_embeddings": {"model": "m", "input": "hello", "dimensions": 256, "encoding_format": "float"},
    "mistral_embeddings": {"model": "m", "input": "hello", "output_dimension": 256, "output_dtype": "float"},
    "cohere_embed": {"model": "m", "texts": ["hello"], "input_type": "search_query", "output_dimension": 256, "embedding_types": ["float"]},
    "gemini_embed_content": {"model": "m", "content": {"parts": [{"text": "hello"}]}, "taskType": "RETRIEVAL_QUERY", "outputDimensionality": 256},
    "bedrock_titan_embeddings": {"modelId": "m", "inputText": "hello", "dimensions": 256, "embeddingTypes": ["float"]},
    "gemini_batch_embed_contents": {"model": "m", "requests": [{"model": "models/m", "content": {"parts": [{"text": "hello"}]}, "taskType": "RETRIEVAL_QUERY", "outputDimensionality": 256}]},
}
#: the canonical options each format carries (its options rows with a wire field)
CARRIES = {
    "openai_embeddings": {"dimensions", "encoding_format"},
    "prompty.openai_embeddings": {"dimensions", "encoding_format"},
    "mistral_embeddings": {"dimensions", "encoding_format"},
    "cohere_embed": {"input_type", "dimensions", "encoding_format"},
    "gemini_embed_content": {"input_type", "dimensions"},
    "bedrock_titan_embeddings": {"dimensions", "encoding_format"},
    "gemini_batch_embed_contents": {"input_type", "dimensions"},
}


def test_every_embeddings_format_has_a_request_here() -> None:
    assert set(EMBEDDINGS) == set(REQUESTS) and set(NEW) <= set(EMBEDDINGS)


@pytest.mark.parametrize("source, target", list(itertools.permutations(EMBEDDINGS, 2)))
def test_options_cross_or_are_named(source: str, target: str) -> None:
    t = translate_request(REQUESTS[source], source, target)
    sent = wiremap.get_format(source).request_from_wire(REQUESTS[source]).config.to_dict()
    got = wiremap.get_format(target).request_from_wire(t.result).config.to_dict()
    losses = {loss.path: loss.kind for loss in t.losses}
    for option in ("input_type", "dimensions", "encoding_format"):
        if option in sent and option in CARRIES[target]:
            assert got.get(option) == sent[option], (option, t.result)
            assert f"config.{option}" not in losses
        elif option in sent:  # the target has no such field: dropped, and said so
            assert option not in got and losses[f"config.{option}"] == "dropped"
    # the one loss that is not a drop: Cohere requires input_type and adds its default
    if target == "cohere_embed" and "input_type" not in sent:
        assert losses["config.input_type"] == "added" and t.result["input_type"] == "search_document"
    assert set(losses) <= {"config.input_type", "config.encoding_format", "config.dimensions"}, t.losses


def test_task_type_maps_between_cohere_and_gemini() -> None:
    t = translate_request({"model": "m", "texts": ["d"], "input_type": "search_document"}, "cohere_embed", "gemini_embed_content")
    assert t.result == {"model": "m", "content": {"parts": [{"text": "d"}]}, "taskType": "RETRIEVAL_DOCUMENT"} and t.lossless
    back = translate_request(t.result, "gemini_embed_content", "cohere_embed")
    assert back.result == {"model": "m", "texts": ["d"], "input_type": "search_document"} and back.lossless


def test_a_task_type_cohere_cannot_spell_is_named_as_changed() -> None:
    body = {"model": "m", "content": {"parts": [{"text": "d"}]}, "taskType": "SEMANTIC_SIMILARITY"}
    t = translate_request(body, "gemini_embed_content", "cohere_embed")
    assert t.result["input_type"] == "search_document"
    assert [(x.path, x.kind) for x in t.losses] == [("config.input_type", "changed")]
    with pytest.raises(wiremap.TranslationLossError):
        translate_request(body, "gemini_embed_content", "cohere_embed", strict=True)


def test_quantized_encoding_to_openai_is_named_as_dropped() -> None:
    t = translate_request({"model": "m", "texts": ["d"], "input_type": "clustering", "embedding_types": ["int8"]}, "cohere_embed", "openai_embeddings")
    assert t.result == {"model": "m", "input": "d"}
    assert {(x.path, x.kind) for x in t.losses} == {("config.input_type", "dropped"), ("config.encoding_format", "dropped")}


def test_several_texts_to_a_one_text_format_is_refused_naming_messages() -> None:
    with pytest.raises(wiremap.InvalidRequestError) as info:
        translate_request({"model": "m", "input": ["a", "b"]}, "openai_embeddings", "bedrock_titan_embeddings")
    assert info.value.path == "messages"


RESPONSES: dict[str, dict[str, Any]] = {
    "openai_embeddings": {"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.5, -0.25]}], "model": "m", "usage": {"prompt_tokens": 2, "total_tokens": 2}},
    "mistral_embeddings": {"id": "e", "object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.5, -0.25]}], "model": "m", "usage": {"prompt_tokens": 2, "total_tokens": 2, "completion_tokens": 0}},
    "cohere_embed": {"id": "c", "embeddings": {"float": [[0.5, -0.25]]}, "meta": {"billed_units": {"input_tokens": 2}}, "response_type": "embeddings_by_type"},
    "gemini_embed_content": {"embedding": {"values": [0.5, -0.25]}},
    "bedrock_titan_embeddings": {"embedding": [0.5, -0.25], "inputTextTokenCount": 2, "embeddingsByType": {"float": [0.5, -0.25]}},
    "gemini_batch_embed_contents": {"embeddings": [{"values": [0.5, -0.25]}]},
}


@pytest.mark.parametrize("source, target", list(itertools.permutations(RESPONSES, 2)))
def test_responses_carry_the_vectors(source: str, target: str) -> None:
    t = translate_response(RESPONSES[source], source, target)
    back = wiremap.get_format(target).response_from_wire(t.result)
    assert back.embeddings == [[0.5, -0.25]]
    losses = {x.path for x in t.losses}
    src_model = wiremap.get_format(source).response_from_wire(RESPONSES[source]).model
    # what the target cannot state is named: the model name, the usage Gemini does not report
    if src_model is not wiremap.NOT_GIVEN and back.model is wiremap.NOT_GIVEN:
        assert "model" in losses
    gemini = ("gemini_embed_content", "gemini_batch_embed_contents")  # no usage reported
    if source not in gemini and target in gemini:
        assert any(p.startswith("usage") for p in losses)
    if source not in gemini and target not in gemini:
        assert back.usage.prompt_tokens == 2


def test_several_vectors_to_a_one_vector_format_is_refused() -> None:
    body = {"object": "list", "data": [{"object": "embedding", "index": i, "embedding": [float(i)]} for i in range(2)], "model": "m", "usage": {"prompt_tokens": 2, "total_tokens": 2}}
    with pytest.raises(wiremap.InvalidRequestError) as info:
        translate_response(body, "openai_embeddings", "gemini_embed_content")
    assert info.value.path == "embeddings"


def test_request_from_wire_leaves_the_body_alone() -> None:
    """Reading consumes nested fields from its own copy (runtime/wire.take_in): the caller's body,
    nested objects included, is unchanged."""
    import copy

    body = {"model": "m", "content": {"parts": [{"text": "a"}], "role": "user"}, "taskType": "CLUSTERING"}
    before = copy.deepcopy(body)
    with pytest.raises(wiremap.InvalidRequestError):  # `role` beside the parts has no canonical home
        wiremap.get_format("gemini_embed_content").request_to_wire(wiremap.get_format("gemini_embed_content").request_from_wire(body))
    assert body == before


def test_several_texts_cross_to_the_gemini_batch_not_to_embed_content() -> None:
    body = {"model": "m", "texts": ["a", "b"], "input_type": "classification"}
    t = translate_request(body, "cohere_embed", "gemini_batch_embed_contents")
    assert [r["content"]["parts"][0]["text"] for r in t.result["requests"]] == ["a", "b"]
    assert {r["taskType"] for r in t.result["requests"]} == {"CLASSIFICATION"} and t.lossless
    with pytest.raises(wiremap.InvalidRequestError):
        translate_request(body, "cohere_embed", "gemini_embed_content")


@pytest.mark.parametrize("target", ["openai_embeddings", "cohere_embed"])
def test_an_answer_is_written_in_the_base64_the_request_asked_for(target: str) -> None:
    # float32 is what a base64 client asks for: its rounding of these (inexact) floats is no loss
    response = {"embeddings": [[0.1, -0.2, 0.3]], "model": "m", "usage": {"prompt_tokens": 2, "completion_tokens": None, "total_tokens": 2}, "raw": {}}
    wire, losses = wiremap.runtime.translate.response_losses(response, target, encoding_format="base64")
    text = json.dumps(wire)
    assert '0.1' not in text  # the vectors went out as base64 strings, not numbers
    back = wiremap.get_format(target).response_from_wire(wire)
    assert back.embeddings == [list(struct.unpack("<3f", struct.pack("<3f", 0.1, -0.2, 0.3)))]
    assert [x for x in losses if x.path.startswith(("embeddings", "config"))] == []  # (Cohere's answer has no model: that one is named)
    # a format without base64 writes float arrays, and says the encoding changed
    wire, losses = wiremap.runtime.translate.response_losses(response, "mistral_embeddings", encoding_format="base64")
    assert wire["data"][0]["embedding"] == [0.1, -0.2, 0.3]
    assert [(x.path, x.kind) for x in losses] == [("config.encoding_format", "changed")]


def test_a_quantized_type_asked_for_is_a_named_change() -> None:
    response = {"embeddings": [[0.5, -0.25]], "model": "m", "usage": {"prompt_tokens": 2, "completion_tokens": None, "total_tokens": 2}, "raw": {}}
    wire, losses = wiremap.runtime.translate.response_losses(response, "cohere_embed", encoding_format="int8")
    assert wire["embeddings"] == {"float": [[0.5, -0.25]]}  # not float values under an int8 key
    assert [(x.path, x.kind) for x in losses if x.path != "model"] == [("config.encoding_format", "changed")]


def test_the_same_embeddings_format_in_and_out_is_the_identity() -> None:
    """A base64 embeddings answer translated into its own format stays base64, byte for byte, and
    reports nothing (the record holds float vectors: a re-write gave float arrays, silently)."""
    import base64
    import struct

    vector = base64.b64encode(struct.pack("<3f", 0.5, -0.25, 1.0)).decode()
    body = {"object": "list", "model": "text-embedding-3-small", "usage": {"prompt_tokens": 2, "total_tokens": 2},
            "data": [{"object": "embedding", "index": 0, "embedding": vector}]}
    t = wiremap.translate_response(body, "openai_embeddings", "openai_embeddings")
    assert t.result == body and t.result is not body and t.losses == []
    with pytest.raises(wiremap.InvalidResponseError):  # still read: a broken body is still refused
        wiremap.translate_response({"object": "list", "data": [{"embedding": 3}]}, "openai_embeddings", "openai_embeddings")

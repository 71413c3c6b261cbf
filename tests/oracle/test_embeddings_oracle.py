"""Every fixture body of the embeddings formats added for issue 17, checked by a strict oracle:

- mistral_embeddings: the official `mistralai` SDK models (EmbeddingRequest, EmbeddingResponse),
  walked strictly by sdk_oracle's checker and parsed by the SDK;
- gemini_embed_content, gemini_batch_embed_contents: the v1beta protobuf types
  (EmbedContentRequest, EmbedContentResponse, BatchEmbedContentsRequest,
  BatchEmbedContentsResponse) of google-ai-generativelanguage, parsed with unknown fields refused;
- cohere_embed: a JSON Schema transcribed from the Cohere reference's OpenAPI definition of
  POST /v2/embed (no Cohere SDK is installed; V2EmbedRequest / EmbedByTypeResponse below);
- bedrock_titan_embeddings: a JSON Schema of the Titan Text Embeddings V2 body and response as the
  Bedrock user guide states them (botocore types InvokeModel's body as a blob, so it cannot tell).

For each fixture: a `to_wire` body the converter wrote and a `request_from_wire` body a client
sent pass the request oracle; a `from_wire` body, and what response_to_wire writes back from it,
pass the response oracle, as do `response_to_wire` outputs. Path-bound fields (Titan `modelId`)
are taken out first, as Provider does before sending. `test_oracle_is_strict` proves each oracle
notices a misspelled key.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

import wiremap

_HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(_HERE))
from compat_oracle import check_mistral_embeddings_request, check_mistral_embeddings_response  # noqa: E402
from gemini_oracle import (  # noqa: E402
    check_gemini_batch_embed_request,
    check_gemini_batch_embed_response,
    check_gemini_embed_request,
    check_gemini_embed_response,
)

FIXTURES = _HERE.parent.parent / "mappings" / "fixtures"

_INPUT_TYPE = ["search_document", "search_query", "classification", "clustering", "image"]
_EMBEDDING_TYPE = ["float", "int8", "uint8", "binary", "ubinary", "base64"]
_NUMBERS = {"type": "array", "items": {"type": "array", "items": {"type": "number"}}}
_INTEGERS = {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}

#: api (docs.cohere.com/reference/embed, OpenAPI): V2EmbedRequest; `inputs`/`images` omitted on
#: purpose (the mapping sends text only, and an extra key must fail)
COHERE_REQUEST = {
    "type": "object",
    "additionalProperties": False,
    "required": ["model", "input_type"],
    "properties": {
        "texts": {"type": "array", "items": {"type": "string"}},
        "model": {"type": "string"},
        "input_type": {"enum": _INPUT_TYPE},
        "max_tokens": {"type": "integer"},
        "output_dimension": {"type": "integer"},
        "embedding_types": {"type": "array", "items": {"enum": _EMBEDDING_TYPE}},
        "truncate": {"enum": ["NONE", "START", "END"]},
        "priority": {"type": "integer"},
    },
}
#: api: EmbedByTypeResponse (id and embeddings required); each type may be absent or null
COHERE_RESPONSE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "embeddings"],
    "properties": {
        "response_type": {"enum": ["embeddings_floats", "embeddings_by_type"]},
        "id": {"type": "string"},
        "embeddings": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "float": {"anyOf": [_NUMBERS, {"type": "null"}]},
                "int8": {"anyOf": [_INTEGERS, {"type": "null"}]},
                "uint8": {"anyOf": [_INTEGERS, {"type": "null"}]},
                "binary": {"anyOf": [_INTEGERS, {"type": "null"}]},
                "ubinary": {"anyOf": [_INTEGERS, {"type": "null"}]},
                "base64": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
            },
        },
        "texts": {"type": "array", "items": {"type": "string"}},
        "meta": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "api_version": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["version"],
                    "properties": {"version": {"type": "string"}, "is_deprecated": {"type": "boolean"}, "is_experimental": {"type": "boolean"}},
                },
                "billed_units": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {k: {"type": "number"} for k in ("images", "input_tokens", "output_tokens", "search_units", "classifications")},
                },
                "tokens": {"type": "object", "additionalProperties": False, "properties": {"input_tokens": {"type": "number"}, "output_tokens": {"type": "number"}}},
                "cached_tokens": {"type": "number"},
                "warnings": {"type": "array", "items": {"type": "string"}},
            },
        },
    },
}
#: api (Bedrock user guide, Titan Text Embeddings V2 request)
TITAN_REQUEST = {
    "type": "object",
    "additionalProperties": False,
    "required": ["inputText"],
    "properties": {
        "inputText": {"type": "string"},
        "dimensions": {"enum": [1024, 512, 256]},
        "normalize": {"type": "boolean"},
        "embeddingTypes": {"type": "array", "minItems": 1, "items": {"enum": ["float", "binary"]}},
    },
}
#: api: V2 response (G1's has no embeddingsByType)
TITAN_RESPONSE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["embedding", "inputTextTokenCount"],
    "properties": {
        "embedding": {"type": "array", "items": {"type": "number"}},
        "inputTextTokenCount": {"type": "integer"},
        "embeddingsByType": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"float": {"type": "array", "items": {"type": "number"}}, "binary": {"type": "array", "items": {"type": "integer"}}},
        },
    },
}


def _schema(schema: dict[str, Any]) -> Any:
    validator = jsonschema.Draft202012Validator(schema)

    def check(body: Any) -> None:
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
        if errors:
            raise AssertionError(f"{'.'.join(map(str, errors[0].absolute_path))}: {errors[0].message}")

    return check


def _without(keys: tuple[str, ...], check: Any) -> Any:
    """The body as sent: path-bound fields leave it for the URL (Provider._exchange)."""

    def run(body: Any) -> None:
        check({k: v for k, v in body.items() if k not in keys})

    return run


ORACLES: dict[str, tuple[Any, Any]] = {
    "mistral_embeddings": (check_mistral_embeddings_request, check_mistral_embeddings_response),
    "gemini_embed_content": (check_gemini_embed_request, check_gemini_embed_response),
    "gemini_batch_embed_contents": (check_gemini_batch_embed_request, check_gemini_batch_embed_response),
    "cohere_embed": (_schema(COHERE_REQUEST), _schema(COHERE_RESPONSE)),
    "bedrock_titan_embeddings": (_without(("modelId",), _schema(TITAN_REQUEST)), _schema(TITAN_RESPONSE)),
}


def _cases() -> list[Any]:
    out = []
    for key in ORACLES:
        for case in yaml.safe_load((FIXTURES / f"{key}.yaml").read_text("utf-8"))["fixtures"]:
            if "expect_error" in case or "error_from_wire" in case:
                continue
            out.append(pytest.param(key, case, id=f"{key}::{case['id']}"))
    return out


def _quiet(fn: Any, *args: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wiremap.UnsupportedOptionWarning)
        return fn(*args)


@pytest.mark.parametrize("key, case", _cases())
def test_fixture_bodies_pass_the_oracle(key: str, case: dict[str, Any]) -> None:
    fmt = wiremap.get_format(key)
    check_request, check_response = ORACLES[key]
    if "to_wire" in case:
        check_request(_quiet(fmt.request_to_wire, case["to_wire"]))
        check_request(case["expect_wire"])
    elif "request_from_wire" in case:
        check_request(case["request_from_wire"])
        check_request(_quiet(fmt.request_to_wire, fmt.request_from_wire(case["request_from_wire"])))
    elif "from_wire" in case:
        check_response(case["from_wire"])
        check_response(fmt.response_to_wire(fmt.response_from_wire(case["from_wire"])))
    elif "response_to_wire" in case:
        check_response(fmt.response_to_wire(case["response_to_wire"]))
        check_response(case["expect_wire"])


@pytest.mark.parametrize(
    "key, request_body, response_body",
    [
        ("mistral_embeddings", {"model": "m", "input": "a", "output_dtpe": "int8"}, {"id": "e", "object": "list", "model": "m", "usage": {}, "data": [{"embeding": [1.0]}]}),
        ("gemini_embed_content", {"model": "m", "content": {"parts": [{"txt": "a"}]}}, {"embedding": {"value": [1.0]}}),
        ("gemini_batch_embed_contents", {"model": "m", "requests": [{"model": "models/m", "contents": {}}]}, {"embeddings": [{"vals": [1.0]}]}),
        ("cohere_embed", {"model": "m", "input_type": "search_query", "texts": ["a"], "embeding_types": ["float"]}, {"id": "e", "embeddings": {"floats": [[1.0]]}}),
        ("bedrock_titan_embeddings", {"modelId": "m", "inputText": "a", "dimension": 256}, {"embedding": [1.0], "inputTokenCount": 1}),
    ],
)
def test_oracle_is_strict(key: str, request_body: dict[str, Any], response_body: dict[str, Any]) -> None:
    check_request, check_response = ORACLES[key]
    with pytest.raises(AssertionError):
        check_request(request_body)
    with pytest.raises(AssertionError):
        check_response(response_body)


def test_titan_dimensions_outside_the_documented_values_fail() -> None:
    """api: dimensions is 1024, 512 or 256: the schema is not a rubber stamp."""
    with pytest.raises(AssertionError):
        ORACLES["bedrock_titan_embeddings"][0]({"modelId": "m", "inputText": "a", "dimensions": 300})

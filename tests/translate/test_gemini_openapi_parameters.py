"""Gemini's `FunctionDeclaration.parameters`: the tool's parameters as a Schema, "a select subset
of an OpenAPI 3.0 schema object" (type names in capitals, `nullable`, `propertyOrdering`), which
google-genai and pydantic-ai send (12 recorded declarations). wiremap carried it and named it
lost, so a tool reached OpenAI or Anthropic with no parameters at all. It is now read as the JSON
Schema that says the same (mapping row `tools.schema_also`, runtime/wire.py `openapi_schema`):
another wire gets the tool's schema and nothing is named lost; the same wire gets `parameters`
back as given."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import wiremap
from wiremap.generated import gemini_generate_content as gemini
from wiremap.runtime.errors import InvalidRequestError

RECORDED = Path(__file__).resolve().parents[3] / "shared" / "recorded" / "gemini_generate_content.jsonl"


def _body(parameters: Any, **declaration: Any) -> dict[str, Any]:
    return {
        "model": "gemini-2.5-flash",
        "contents": [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}],
        "tools": [{"functionDeclarations": [{"name": "get_weather", "description": "Current weather.", "parameters": parameters, **declaration}]}],
    }


OPENAPI = {
    "type": "OBJECT",
    "properties": {
        "units": {"type": "STRING", "enum": ["celsius", "fahrenheit"], "format": "enum", "nullable": True},
        "city": {"type": "STRING", "description": "The city.", "example": "Paris"},
        "days": {"type": "ARRAY", "items": {"type": "INTEGER", "minimum": 1}, "maxItems": 7},
        "when": {"anyOf": [{"type": "STRING"}, {"type": "NUMBER"}], "nullable": True},
        "extra": {"type": "TYPE_UNSPECIFIED", "description": "Anything."},
    },
    "required": ["city"],
    "propertyOrdering": ["city", "days", "units"],
}

JSON_SCHEMA = {
    "type": "object",
    "properties": {  # in propertyOrdering's order, the rest after it as given
        "city": {"type": "string", "description": "The city.", "examples": ["Paris"]},
        "days": {"type": "array", "items": {"type": "integer", "minimum": 1}, "maxItems": 7},
        "units": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit"], "format": "enum"},
        "when": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]},
        "extra": {"description": "Anything."},
    },
    "required": ["city"],
}


def test_another_wire_gets_the_json_schema_and_nothing_is_named_lost() -> None:
    body = _body(OPENAPI)
    out = wiremap.translate_request(body, "gemini_generate_content", "openai_chat")
    (tool,) = out.result["tools"]
    assert json.dumps(tool["function"]["parameters"]) == json.dumps(JSON_SCHEMA)  # key order too
    assert not [loss for loss in out.losses if "tools" in loss.path]
    anthropic = wiremap.translate_request(body, "gemini_generate_content", "anthropic_messages")
    assert anthropic.result["tools"][0]["input_schema"] == JSON_SCHEMA


def test_the_same_wire_gets_parameters_back_as_given() -> None:
    body = _body(OPENAPI)
    same = wiremap.translate_request(body, "gemini_generate_content", "gemini_generate_content")
    assert same.result == body and same.losses == []
    assert gemini.request_to_wire(gemini.request_from_wire(body)) == body
    assert gemini.request_from_wire(body).tools[0].parameters == JSON_SCHEMA


def test_the_recorded_declarations_reach_other_wires() -> None:
    if not RECORDED.is_file():  # pragma: no cover - the data sits beside the repository
        pytest.skip("no recorded traffic")
    seen = 0
    for line in RECORDED.read_text("utf-8").splitlines():
        record = json.loads(line)
        body = record.get("body")
        if record["kind"] != "request" or type(body) is not dict or '"parameters"' not in json.dumps(body):
            continue
        body = {"model": record["meta"].get("model", "gemini"), **body}
        out = wiremap.translate_request(body, "gemini_generate_content", "openai_chat")
        assert all(t["function"]["parameters"]["type"] == "object" for t in out.result["tools"])
        assert not [loss for loss in out.losses if "parameters" in loss.path]
        seen += 1
    assert seen >= 12


def test_proto_spelled_keywords_are_read_and_property_names_are_the_callers() -> None:
    schema = {"type": "OBJECT", "properties": {"max_items": {"type": "STRING"}, "function_call": {"type": "INTEGER"}},
              "property_ordering": ["function_call", "max_items"], "min_properties": 1}
    body = {"model": "gemini-2.5-flash", "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
            "tools": [{"function_declarations": [{"name": "f", "parameters": schema}]}]}
    read = gemini.request_from_wire(body)
    assert read.tools[0].parameters == {
        "type": "object", "properties": {"function_call": {"type": "integer"}, "max_items": {"type": "string"}}, "minProperties": 1,
    }
    assert list(read.tools[0].parameters["properties"]) == ["function_call", "max_items"]
    assert gemini.request_to_wire(read) == body
    out = wiremap.translate_request(body, "gemini_generate_content", "openai_chat")
    assert not [loss for loss in out.losses if "parameters" in loss.path]


def test_beside_parameters_json_schema_it_is_not_read_and_is_named_lost() -> None:
    """The API refuses both ("mutually exclusive with parameters"): the JSON Schema is the
    tool's, and `parameters` is named where it cannot go."""
    body = _body(OPENAPI, parametersJsonSchema={"type": "object", "properties": {}})
    assert gemini.request_from_wire(body).tools[0].parameters == {"type": "object", "properties": {}}
    out = wiremap.translate_request(body, "gemini_generate_content", "openai_chat")
    assert ("tools[0].functionDeclarations[0].parameters", "dropped") in {(x.path, x.kind) for x in out.losses}


@pytest.mark.parametrize(
    "parameters, path",
    [
        ("OBJECT", "tools[0].functionDeclarations[0].parameters"),
        ({"type": "OBJECT", "properties": {"a": {"type": "TEXT"}}}, "tools[0].functionDeclarations[0].parameters.properties.a.type"),
        ({"type": 3}, "tools[0].functionDeclarations[0].parameters.type"),
        ({"type": "ARRAY", "items": ["STRING"]}, "tools[0].functionDeclarations[0].parameters.items"),
        ({"anyOf": {"type": "STRING"}}, "tools[0].functionDeclarations[0].parameters.anyOf"),
        ({"type": "STRING", "nullable": "yes"}, "tools[0].functionDeclarations[0].parameters.nullable"),
        ({"type": "OBJECT", "propertyOrdering": "a"}, "tools[0].functionDeclarations[0].parameters.propertyOrdering"),
    ],
)
def test_a_schema_the_api_cannot_take_is_refused_at_its_path(parameters: Any, path: str) -> None:
    with pytest.raises(InvalidRequestError) as exc:
        gemini.request_from_wire(_body(parameters))
    assert exc.value.path == path


def test_the_openarmature_dialect_reads_parameters_as_its_json_schema() -> None:
    """There `parameters` is the template's own field (OpenArmature §8.3.1: verbatim)."""
    dialect = wiremap.get_format("openarmature.gemini_generate_content")
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    body = _body(copy.deepcopy(schema))
    assert dialect.request_from_wire(body).tools[0].parameters == schema


# --- structured output: GenerationConfig.responseSchema (structured_output.schema_also) --------


def _structured(generation_config: dict[str, Any]) -> dict[str, Any]:
    return {"model": "gemini-2.5-flash", "contents": [{"role": "user", "parts": [{"text": "Where?"}]}], "generationConfig": generation_config}


RESPONSE_SCHEMA = {
    "type": "OBJECT",
    "properties": {"country": {"type": "STRING"}, "city": {"type": "STRING", "nullable": True}},
    "required": ["city", "country"],
    "property_ordering": ["city", "country"],
}


def test_a_response_schema_is_the_requests_structured_output() -> None:
    body = _structured({"responseMimeType": "application/json", "responseSchema": RESPONSE_SCHEMA, "temperature": 0.5})
    read = gemini.request_from_wire(body)
    assert read.response_schema == {
        "type": "object", "properties": {"city": {"type": ["string", "null"]}, "country": {"type": "string"}}, "required": ["city", "country"],
    }
    assert read.config.json_mode is not True  # the schema says it
    same = wiremap.translate_request(body, "gemini_generate_content", "gemini_generate_content")
    assert same.result == body and same.losses == []
    out = wiremap.translate_request(body, "gemini_generate_content", "openai_chat")
    assert out.result["response_format"]["type"] == "json_schema"
    assert out.result["response_format"]["json_schema"]["schema"] == read.response_schema
    assert not [loss for loss in out.losses if "responseSchema" in loss.path]


def test_a_response_schema_without_the_json_mime_type_is_not_read_and_is_named_lost() -> None:
    body = _structured({"responseSchema": RESPONSE_SCHEMA, "temperature": 0.5})
    assert gemini.request_from_wire(body).response_schema is wiremap.NOT_GIVEN
    out = wiremap.translate_request(body, "gemini_generate_content", "openai_chat")
    assert ("generationConfig.responseSchema", "dropped") in {(x.path, x.kind) for x in out.losses}


def test_a_response_schema_the_api_cannot_take_is_refused_at_its_path() -> None:
    body = _structured({"responseMimeType": "application/json", "responseSchema": {"type": "RECORD"}})
    with pytest.raises(InvalidRequestError) as exc:
        gemini.request_from_wire(body)
    assert exc.value.path == "generationConfig.responseSchema.type"

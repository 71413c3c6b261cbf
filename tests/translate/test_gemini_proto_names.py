"""The Gemini API parses a request by protobuf's JSON mapping, which takes every field by its
lowerCamelCase name and by its proto field name: Google's own SDKs send `inline_data`,
`function_declarations`, `parameters_json_schema` (151 of the recorded tool declarations). The
base format used to read only the reference's camelCase, so such a request kept its meaning
only on the way back to Gemini: translated to another provider, its images, tool schemas,
system instruction and options were dropped (named in the loss report, but gone). Mapping
`request.field_names` (also: proto) reads either spelling, never inside the caller's JSON."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

import wiremap
from wiremap import translate_request
from wiremap.runtime.errors import InvalidRequestError

SCHEMA = {"type": "object", "properties": {"mime_type": {"type": "string"}, "file_uri": {"type": "string"}}, "required": ["mime_type"]}


def snake_body() -> dict[str, Any]:
    return {
        "model": "gemini-2.5-flash",
        "system_instruction": {"parts": [{"text": "Be brief."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "What is this?"}, {"inline_data": {"mime_type": "image/png", "data": "iVBORw0KGgo="}}]},
            {"role": "model", "parts": [{"function_call": {"name": "lookup", "args": {"mime_type": "x", "file_uri": "y"}}}]},
            {"role": "user", "parts": [{"function_response": {"name": "lookup", "response": {"result": "a PNG"}}}]},
        ],
        "tools": [{"function_declarations": [{"name": "lookup", "description": "Look it up", "parameters_json_schema": SCHEMA}]}],
        "tool_config": {"function_calling_config": {"mode": "AUTO"}},
        "generation_config": {"max_output_tokens": 64, "temperature": 0.2, "stop_sequences": ["END"]},
    }


def test_the_same_wire_gets_the_callers_spelling_back() -> None:
    fmt = wiremap.get_format("gemini_generate_content")
    body = snake_body()
    again = fmt.request_to_wire(fmt.request_from_wire(body))
    assert json.dumps(again, sort_keys=True) == json.dumps(body, sort_keys=True)
    # the caller's JSON inside, as given (key order included)
    assert json.dumps(again["tools"][0]["function_declarations"][0]["parameters_json_schema"]) == json.dumps(SCHEMA)
    t = translate_request(body, "gemini_generate_content", "gemini_generate_content")
    assert t.losses == [] and json.dumps(t.result, sort_keys=True) == json.dumps(body, sort_keys=True)


@pytest.mark.parametrize("target", ["openai_chat", "anthropic_messages"])
def test_another_provider_gets_what_the_proto_names_say(target: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        snake = translate_request(snake_body(), "gemini_generate_content", target)
        camel_body = json.loads(
            json.dumps(snake_body())
            .replace('"system_instruction"', '"systemInstruction"').replace('"inline_data"', '"inlineData"')
            .replace('"function_call"', '"functionCall"').replace('"function_response"', '"functionResponse"')
            .replace('"function_declarations"', '"functionDeclarations"').replace('"parameters_json_schema"', '"parametersJsonSchema"')
            .replace('"tool_config"', '"toolConfig"').replace('"function_calling_config"', '"functionCallingConfig"')
            .replace('"generation_config"', '"generationConfig"').replace('"max_output_tokens"', '"maxOutputTokens"')
            .replace('"stop_sequences"', '"stopSequences"')
        )
        # the args and the schema keep their proto-looking keys: the replace above touched
        # `mime_type` nowhere, and the camelCase body's user JSON is the same
        camel = translate_request(camel_body, "gemini_generate_content", target)
    assert json.dumps(snake.result) == json.dumps(camel.result)
    assert [(x.path, x.kind) for x in snake.losses] == [(x.path, x.kind) for x in camel.losses]
    text = json.dumps(snake.result)
    assert "iVBORw0KGgo=" in text and "Be brief." in text and '"mime_type": {"type": "string"}, "file_uri": {"type": "string"}' in text
    assert not any("google wire data" in x.detail for x in snake.losses), snake.losses  # nothing left unread


def test_a_key_no_table_names_inside_a_renamed_value_is_still_a_loss() -> None:
    body = snake_body()
    body["contents"][0]["parts"][1]["inline_data"]["display_name"] = "cat.png"
    t = translate_request(body, "gemini_generate_content", "openai_chat")
    assert [(x.path, x.kind) for x in t.losses] == [("contents[0].parts[1].inline_data.display_name", "dropped")]


def test_both_spellings_given_read_the_json_name_and_carry_the_other() -> None:
    body = snake_body()
    body["generationConfig"] = {"maxOutputTokens": 32}
    fmt = wiremap.get_format("gemini_generate_content")
    request = fmt.request_from_wire(body)
    assert request.config.max_tokens == 32
    again = fmt.request_to_wire(request)
    assert json.dumps(again, sort_keys=True) == json.dumps(body, sort_keys=True)
    t = translate_request(body, "gemini_generate_content", "openai_chat")
    assert ("generation_config", "dropped") in [(x.path, x.kind) for x in t.losses]


def test_the_openarmature_dialect_lists_the_json_names_only() -> None:
    fmt = wiremap.get_format("openarmature.gemini_generate_content")
    with pytest.raises(InvalidRequestError):
        fmt.request_from_wire(snake_body())


def test_a_body_in_the_json_names_is_read_as_it_is_without_a_copy() -> None:
    import sys

    proto = sys.modules[wiremap.get_format("gemini_generate_content").request_from_wire.__module__].PROTO_NAMES
    camel = {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": "x"}}]}], "tools": [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"properties": {"mime_type": {}}}}]}]}
    assert proto.spelled(camel) == (camel, frozenset(), frozenset())
    assert proto.spelled(camel)[0] is camel
    snake = {"contents": [{"role": "user", "parts": [{"inline_data": {"mime_type": "image/png", "data": "x"}}]}]}
    read, renamed, structural = proto.spelled(snake)
    assert read == {"contents": [{"role": "user", "parts": [{"inlineData": {"mimeType": "image/png", "data": "x"}}]}]}
    assert renamed == structural == {("contents", 0, "parts", 0, "inline_data"), ("contents", 0, "parts", 0, "inline_data", "mime_type")}
    assert snake["contents"][0]["parts"][0] == {"inline_data": {"mime_type": "image/png", "data": "x"}}  # never changed in place

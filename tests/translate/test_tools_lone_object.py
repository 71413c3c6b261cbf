"""`tools.lone_object` (Gemini): the live API took `tools` as one Tool object, not an array, and
called the tool (a recorded pydantic-ai request). The reader takes it as a one-item array, the
same wire gets the lone object back, another provider gets the tool, and a format without the
row still refuses it, naming the field."""

from __future__ import annotations

import json
import warnings

import pytest

import wiremap
from wiremap.runtime import carry
from wiremap.runtime.errors import InvalidRequestError

TOOL = {"name": "get_capital", "description": "Get the capital of a country.",
        "parametersJsonSchema": {"type": "object", "properties": {"country": {"type": "string"}}, "required": ["country"]}}
BODY = {"model": "gemini-2.0-flash", "contents": [{"role": "user", "parts": [{"text": "Capital of France?"}]}],
        "tools": {"functionDeclarations": [TOOL]}}


def test_a_lone_tools_object_reads_as_its_tools() -> None:
    fmt = wiremap.get_format("gemini_generate_content")
    req = fmt.request_from_wire(BODY)
    assert [t.name for t in req.tools] == ["get_capital"]
    assert req.tools[0].parameters == TOOL["parametersJsonSchema"]
    assert fmt.request_to_wire(req) == BODY  # the same wire: the lone object, as it was sent
    assert fmt.request_to_wire(fmt.request_from_wire({**BODY, "tools": [BODY["tools"]]}))["tools"] == [BODY["tools"]]


def test_another_provider_gets_the_tool_and_nothing_is_named_lost() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = wiremap.translate_request(BODY, "gemini_generate_content", "openai_chat")
    assert [t["function"]["name"] for t in out.result["tools"]] == ["get_capital"]
    assert out.result["tools"][0]["function"]["parameters"] == TOOL["parametersJsonSchema"]
    assert out.report() == []
    assert wiremap.translator("gemini_generate_content", "openai_chat").request(BODY) == out.result


def test_the_dict_form_of_its_carried_data_names_nothing_lost_either() -> None:
    carried = wiremap.get_format("gemini_generate_content").request_from_wire(BODY).carried
    again = carry.Carried.from_dict(carried.to_dict(), "carried")
    assert again.opaque == carried.opaque
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = wiremap.translate_request(BODY, "gemini_generate_content", "openai_chat").result
    assert carry.losses(again, "openai/openai_chat", out, carried.known) == []


def test_the_proto_spelling_of_a_lone_object_reads_too() -> None:
    body = {**BODY, "tools": {"function_declarations": [{**{k: v for k, v in TOOL.items() if k != "parametersJsonSchema"},
                                                          "parameters_json_schema": TOOL["parametersJsonSchema"]}]}}
    fmt = wiremap.get_format("gemini_generate_content")
    req = fmt.request_from_wire(body)
    assert [t.name for t in req.tools] == ["get_capital"]
    assert json.dumps(fmt.request_to_wire(req), sort_keys=True) == json.dumps(body, sort_keys=True)


@pytest.mark.parametrize("key", ["anthropic_messages", "openai_chat"])
def test_a_format_without_the_row_still_refuses_a_lone_object(key: str) -> None:
    body = {"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}],
            "tools": {"name": "x", "input_schema": {"type": "object"}} if key == "anthropic_messages"
            else {"type": "function", "function": {"name": "x"}}}
    with pytest.raises(InvalidRequestError) as err:
        wiremap.get_format(key).request_from_wire(body)
    assert err.value.path == "tools"

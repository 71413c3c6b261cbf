"""Structured output through the Provider (OpenArmature §5/§6/§8.x.5), native and fallback modes,
and the inputs of complete() left untouched."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest

import wiremap
from loopback import Reply, Seen, anthropic_body, openai_body

KEY = "sk-test-0123456789"
SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "temp_c": {"type": "integer"}},
    "required": ["city", "temp_c"],
    "additionalProperties": False,
}
GOOD = '{"city": "Paris", "temp_c": 21}'
MESSAGES = [
    {"role": "system", "content": "You report weather."},
    {"role": "user", "content": "Weather in Paris?"},
]


def _body(key: str, content: str, finish: str = "stop") -> dict[str, Any]:
    if key.startswith("anthropic"):
        return anthropic_body(
            content, stop_reason="max_tokens" if finish == "length" else "end_turn"
        )
    return openai_body(content, finish_reason=finish)


def _run(server_url: str, key: str, messages: Any = MESSAGES, **kwargs: Any) -> wiremap.Response:
    async def main() -> wiremap.Response:
        async with wiremap.Provider(key, model="m", api_key=KEY, base_url=server_url) as p:
            return await p.complete(messages, **kwargs)

    return asyncio.run(main())


@pytest.mark.parametrize(
    "key,mode,check",
    [
        ("openai_chat", None, lambda w: w["response_format"]["type"] == "json_schema"),
        ("openai_chat", "native", lambda w: "response_format" in w),
        (
            "openai_chat",
            "prompt_fallback",
            lambda w: "response_format" not in w
            and json.dumps(SCHEMA, sort_keys=True, separators=(",", ":"))
            in w["messages"][0]["content"],
        ),
        (
            "anthropic_messages",
            None,
            lambda w: w["output_config"]["format"]["type"] == "json_schema",
        ),
        (
            "anthropic_messages",
            "prompt_fallback",
            lambda w: "output_config" not in w and "JSON Schema" in w["system"],
        ),
    ],
)
def test_structured_output_modes(serve: Any, key: str, mode: str | None, check: Any) -> None:
    server = serve(lambda seen: Reply(200, _body(key, GOOD)))
    response = _run(server.url, key, response_schema=SCHEMA, structured_output=mode)
    assert response.parsed == {"city": "Paris", "temp_c": 21}
    assert response.message.content == GOOD  # verbatim (§6)
    wire = server.requests[0].json()
    assert check(wire), wire


def test_anthropic_tool_coercion(serve: Any) -> None:
    def handler(seen: Seen) -> Reply:
        wire = seen.json()
        name = wire["tool_choice"]["name"]
        content = [
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": name,
                "input": {"city": "Paris", "temp_c": 21},
            }
        ]
        return Reply(200, anthropic_body(content=content, stop_reason="tool_use"))

    server = serve(handler)
    response = _run(
        server.url, "anthropic_messages", response_schema=SCHEMA, structured_output="tool_coercion"
    )
    assert response.parsed == {"city": "Paris", "temp_c": 21}
    assert response.finish_reason == "stop"


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages"])
@pytest.mark.parametrize("mode", ["native", "prompt_fallback"])
@pytest.mark.parametrize(
    "content,finish,mentions",
    [
        ('{"city": "Paris", "temp_c": "warm"}', "stop", "/temp_c"),
        ('{"city": "Paris"}', "stop", "temp_c"),
        ("Sure! Here is the weather: sunny", "stop", "Expecting value"),
        ('{"city": "Par', "length", "Unterminated string"),
    ],
)
def test_structured_output_invalid(
    serve: Any, key: str, mode: str, content: str, finish: str, mentions: str
) -> None:
    server = serve(lambda seen: Reply(200, _body(key, content, finish)))
    with pytest.raises(wiremap.StructuredOutputInvalidError) as info:
        _run(server.url, key, response_schema=SCHEMA, structured_output=mode)
    err = info.value
    assert err.category == "structured_output_invalid" and not err.transient
    assert err.response_schema == SCHEMA
    assert err.output_content == content
    assert mentions in err.error_message
    assert err.finish_reason == finish
    assert err.usage.prompt_tokens == 11 and err.usage.completion_tokens == 7
    assert len(server.requests) == 1  # no reask, no retry


def test_no_schema_no_parsed(serve: Any) -> None:
    server = serve(lambda seen: Reply(200, openai_body(GOOD)))
    response = _run(server.url, "openai_chat")
    assert "parsed" not in response.to_dict()


def test_tool_calls_finish_has_no_parsed(serve: Any) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    server = serve(
        lambda seen: Reply(200, openai_body(GOOD, finish_reason="tool_calls", tool_calls=[call]))
    )
    response = _run(
        server.url,
        "openai_chat",
        response_schema=SCHEMA,
        tools=[{"name": "f", "parameters": {"type": "object"}}],
    )
    assert response.finish_reason == "tool_calls"
    assert "parsed" not in response.to_dict()


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages"])
@pytest.mark.parametrize("mode", ["native", "prompt_fallback"])
def test_inputs_are_never_mutated(serve: Any, key: str, mode: str) -> None:
    """messages, tools, config, response_schema and tool_choice are the same after the call
    (the prompt fallback edits a copy of the system message), also when the call fails."""
    server = serve(lambda seen: Reply(200, _body(key, GOOD)))
    messages = copy.deepcopy(MESSAGES) + [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "name": "lookup", "arguments": {"q": "x"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
    tools = [
        {
            "name": "lookup",
            "description": "Look up",
            "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
        }
    ]
    config = {"max_tokens": 64, "stop_sequences": ["END"], "extras": {"metadata": {"user_id": "u"}}}
    schema = copy.deepcopy(SCHEMA)
    tool_choice = {"type": "tool", "name": "lookup"}
    before = copy.deepcopy((messages, tools, config, schema, tool_choice))

    _run(
        server.url,
        key,
        messages,
        tools=tools,
        config=config,
        response_schema=schema,
        tool_choice=tool_choice,
        structured_output=mode,
    )
    assert (messages, tools, config, schema, tool_choice) == before
    if mode == "prompt_fallback":
        sent = server.requests[0].json()
        system = sent["system"] if key == "anthropic_messages" else sent["messages"][0]["content"]
        assert system != MESSAGES[0]["content"] and system.startswith(MESSAGES[0]["content"])

    # a failing call leaves them untouched too
    server.handler = lambda seen: Reply(200, _body(key, "not json"))
    with pytest.raises(wiremap.StructuredOutputInvalidError):
        _run(
            server.url,
            key,
            messages,
            tools=tools,
            config=config,
            response_schema=schema,
            tool_choice=tool_choice,
            structured_output=mode,
        )
    assert (messages, tools, config, schema, tool_choice) == before

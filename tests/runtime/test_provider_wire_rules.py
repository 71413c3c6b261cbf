"""Wire rules through the Provider (mapping `wire_rules:`): a Mistral call sends 9-character
alphanumeric tool-call ids and fitting tool names, and the caller gets its own ids and names back."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import wiremap
from loopback import Reply, Seen, openai_body

KEY = "sk-test-0123456789"
NINE = re.compile(r"^[A-Za-z0-9]{9}$")
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
LONG_NAME = "mcp__crm-server__lookup.customer.record.by.email.address.and.region.v2"  # 70 chars, dots
MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "Find ann@example.com"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "toolu_01A09q90qw90lq917835lq9", "name": LONG_NAME, "arguments": {"email": "ann@example.com"}}],
    },
    {"role": "tool", "tool_call_id": "toolu_01A09q90qw90lq917835lq9", "content": "no match"},
    {"role": "user", "content": "Try the EU region."},
]
TOOLS = [{"name": LONG_NAME, "parameters": {"type": "object", "properties": {"email": {"type": "string"}}}}]


def _complete(url: str, **kwargs: Any) -> wiremap.Response:
    async def main() -> wiremap.Response:
        async with wiremap.Provider("mistral", model="mistral-large-latest", api_key=KEY, base_url=url) as p:
            return await p.complete(MESSAGES, tools=TOOLS, **kwargs)

    return asyncio.run(main())


def _handler(seen_bodies: list[dict[str, Any]]) -> Any:
    def handler(seen: Seen) -> Reply:
        body = seen.json()
        seen_bodies.append(body)
        wire_name = body["tools"][0]["function"]["name"]
        old_id = body["messages"][1]["tool_calls"][0]["id"]
        # The model calls the tool again (its own fresh id) and, unusually, reuses the old id.
        calls = [
            {"id": "Dq8zRk2Ws", "type": "function", "function": {"name": wire_name, "arguments": '{"email":"ann@example.com","region":"eu"}'}},
            {"id": old_id, "type": "function", "function": {"name": wire_name, "arguments": "{}"}},
        ]
        return Reply(200, openai_body("", model="mistral-large-latest", finish_reason="tool_calls", tool_calls=calls))

    return handler


def test_mistral_call_sends_nine_char_ids_and_returns_the_callers(serve: Any) -> None:
    bodies: list[dict[str, Any]] = []
    server = serve(_handler(bodies))
    response = _complete(server.url)

    (body,) = bodies
    call = body["messages"][1]["tool_calls"][0]
    result = body["messages"][2]
    assert NINE.match(call["id"]), call["id"]
    assert result["tool_call_id"] == call["id"], "the result keeps pointing at its call"
    assert NAME.match(call["function"]["name"]) and call["function"]["name"] == body["tools"][0]["function"]["name"]
    assert len(body["tools"][0]["function"]["name"]) <= 64
    assert "random_seed" not in body and "max_completion_tokens" not in body

    calls = response.message.tool_calls
    assert isinstance(calls, list)
    assert [c.name for c in calls] == [LONG_NAME, LONG_NAME], "the caller's own tool name comes back"
    assert calls[0].id == "Dq8zRk2Ws", "a fresh id from the model is kept as it is"
    assert calls[1].id == "toolu_01A09q90qw90lq917835lq9", "an id this call rewrote maps back"
    assert calls[0].arguments == {"email": "ann@example.com", "region": "eu"}


def test_caller_map_records_every_repair_and_is_deterministic(serve: Any) -> None:
    bodies: list[dict[str, Any]] = []
    server = serve(_handler(bodies))
    first = wiremap.WireMap()
    _complete(server.url, wire_map=first)
    second = wiremap.WireMap()
    _complete(server.url, wire_map=second)

    assert bodies[0] == bodies[1], "the same conversation gives the same wire bytes (no state between calls)"
    assert first.to_dict() == second.to_dict()
    kinds = sorted({(c.rule, c.action) for c in first.changes})
    assert kinds == [("tool_call_id", "rewrite"), ("tool_name", "rename")]
    paths = [c.path for c in first.changes]
    assert paths == ["messages[1].tool_calls[0].id", "messages[1].tool_calls[0].name", "messages[2].tool_call_id", "tools[0].name"]
    assert first.ids == {"toolu_01A09q90qw90lq917835lq9": bodies[0]["messages"][1]["tool_calls"][0]["id"]}


def test_format_without_rules_takes_no_map(serve: Any) -> None:
    """openai_chat has no wire_rules: ids go out as given; only its declared tool-name rule
    (request.tools.name: the API refuses this 70-character dotted name) renames, on the map."""
    bodies: list[dict[str, Any]] = []
    server = serve(lambda seen: (bodies.append(seen.json()), Reply(200, openai_body("ok")))[1])
    wire_map = wiremap.WireMap()

    async def main() -> None:
        async with wiremap.Provider("openai_chat", model="gpt-test", api_key=KEY, base_url=server.url) as p:
            await p.complete(MESSAGES, tools=TOOLS, wire_map=wire_map)

    asyncio.run(main())
    assert bodies[0]["messages"][1]["tool_calls"][0]["id"] == "toolu_01A09q90qw90lq917835lq9"
    assert {c.rule for c in wire_map.changes} == {"tool_name"} and not wire_map.ids
    assert NAME.match(bodies[0]["tools"][0]["function"]["name"])


# --- a format's declared tool-name rule (request.tools.name), no wire_rules section -----------
# OpenAI refuses a function name outside [a-zA-Z0-9_-]{1,64}; an MCP server's `files.read` is a
# real name (issue 20). The Provider sends it renamed and the caller gets `files.read` back.

MCP_NAME = "files.read"


def _openai_name_handler(bodies: list[dict[str, Any]], stream: bool = False) -> Any:
    def handler(seen: Seen) -> Reply:
        body = seen.json()
        bodies.append(body)
        wire_name = body["tools"][0]["function"]["name"]
        if not stream:
            calls = [{"id": "call_1", "type": "function", "function": {"name": wire_name, "arguments": '{"path":"a.txt"}'}}]
            return Reply(200, openai_body("", finish_reason="tool_calls", tool_calls=calls))
        chunks = [
            {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test", "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": wire_name, "arguments": ""}}]}, "finish_reason": None}]},
            {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"path":"a.txt"}'}}]}, "finish_reason": None}]},
            {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        ]
        data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        return Reply(200, data.encode(), content_type="text/event-stream")

    return handler


def test_openai_call_fits_tool_names_to_the_declared_rule(serve: Any) -> None:
    tools = [{"name": MCP_NAME, "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}]
    for stream in (False, True):
        bodies: list[dict[str, Any]] = []
        server = serve(_openai_name_handler(bodies, stream))
        names = wiremap.WireMap()

        async def main() -> wiremap.Response:
            async with wiremap.Provider("openai_chat", model="gpt-test", api_key=KEY, base_url=server.url) as p:
                return await p.complete([{"role": "user", "content": "read a.txt"}], tools=tools, stream=stream, wire_map=names)

        response = asyncio.run(main())
        (body,) = bodies
        sent = body["tools"][0]["function"]["name"]
        assert NAME.match(sent) and sent != MCP_NAME and names.caller_name(sent) == MCP_NAME
        (call,) = response.message.tool_calls  # type: ignore[misc]
        assert call.name == MCP_NAME and call.arguments == {"path": "a.txt"}, stream


def test_names_that_fit_are_sent_as_they_are(serve: Any) -> None:
    bodies: list[dict[str, Any]] = []
    server = serve(_openai_name_handler(bodies))

    async def main() -> wiremap.Response:
        async with wiremap.Provider("openai_chat", model="gpt-test", api_key=KEY, base_url=server.url) as p:
            return await p.complete([{"role": "user", "content": "x"}], tools=[{"name": "read_file", "parameters": {"type": "object"}}])

    response = asyncio.run(main())
    assert bodies[0]["tools"][0]["function"]["name"] == "read_file"
    assert response.message.tool_calls[0].name == "read_file"  # type: ignore[index]

"""Provider.complete(body, input_format=...): OpenAI-shaped code calls any provider (issue 18)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import wiremap
from loopback import Reply, Seen, anthropic_body

KEY = "sk-ant-test-0123456789"
OPENAI_BODY: dict[str, Any] = {
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Paris?"},
    ],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}],
    "tool_choice": "required",
    "max_completion_tokens": 50,
    "stop": ["END"],
}


def _call(url: str, body: Any, **kwargs: Any) -> wiremap.Response:
    async def main() -> wiremap.Response:
        async with wiremap.Provider("anthropic_messages", model="claude-test", api_key=KEY, base_url=url) as p:
            return await p.complete(body, input_format="openai_chat", **kwargs)

    return asyncio.run(main())


def test_an_openai_body_goes_to_anthropic(serve: Any) -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: Seen) -> Reply:
        seen.append(request.json())
        return Reply(200, anthropic_body("Sunny."))

    server = serve(handler)
    response = _call(server.url, OPENAI_BODY)
    (sent,) = seen
    assert sent["model"] == "claude-test"  # the Provider's model
    assert sent["system"] == "Be brief."
    assert sent["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]}]
    assert sent["tools"][0]["name"] == "get_weather" and sent["tool_choice"] == {"type": "any"}
    assert sent["max_tokens"] == 50 and sent["stop_sequences"] == ["END"]
    assert response.message.content == "Sunny."
    # an argument given beside the body wins
    _call(server.url, OPENAI_BODY, config={"max_tokens": 7})
    assert seen[1]["max_tokens"] == 7 and "stop_sequences" not in seen[1]


def test_a_body_that_is_not_one_is_a_typed_error(serve: Any) -> None:
    server = serve(lambda request: Reply(200, anthropic_body("x")))
    with pytest.raises(wiremap.InvalidRequestError, match="a openai_chat request body"):
        _call(server.url, [{"role": "user", "content": "hi"}])
    with pytest.raises(wiremap.InvalidRequestError) as info:
        _call(server.url, {"model": "m", "messages": [{"role": "user", "content": 3}]})
    assert info.value.path == "messages[0].content"
    with pytest.raises(wiremap.UnknownFormatError, match="did you mean 'openai_chat'"):
        async def main() -> None:
            async with wiremap.Provider("anthropic_messages", model="c", api_key=KEY, base_url=server.url) as p:
                await p.complete(OPENAI_BODY, input_format="openai_chatt")

        asyncio.run(main())


def test_sync_and_stream_take_a_body_too(serve: Any) -> None:
    seen: list[dict[str, Any]] = []

    def handler(request: Seen) -> Reply:
        body = request.json()
        seen.append(body)
        if body.get("stream"):
            events = [
                ("message_start", {"type": "message_start", "message": {**anthropic_body(""), "content": [], "stop_reason": None}}),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Rain."}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 2}}),
                ("message_stop", {"type": "message_stop"}),
            ]
            data = "".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n" for name, payload in events)
            return Reply(200, data.encode(), content_type="text/event-stream")
        return Reply(200, anthropic_body("Sunny."))

    server = serve(handler)
    with wiremap.Provider("anthropic_messages", model="claude-test", api_key=KEY, base_url=server.url) as p:
        assert p.complete_sync(OPENAI_BODY, input_format="openai_chat").message.content == "Sunny."

    async def streamed() -> wiremap.Response | None:
        async with wiremap.Provider("anthropic_messages", model="claude-test", api_key=KEY, base_url=server.url) as p:
            stream = p.stream(OPENAI_BODY, input_format="openai_chat")
            async for _ in stream:
                pass
            return stream.response

    response = asyncio.run(streamed())
    assert response is not None and response.message.content == "Rain."
    assert [b["system"] for b in seen] == ["Be brief.", "Be brief."] and seen[1]["stream"] is True

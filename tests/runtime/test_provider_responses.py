"""Provider over real HTTP with the OpenAI Responses format (mappings/openai_responses.yaml):
POST /v1/responses with a bearer key, the converted body on the wire, the output items assembled
into one canonical message, a tool round, and the OpenAI error envelope mapped to its category."""

from __future__ import annotations

import asyncio
from typing import Any

import wiremap
from loopback import Reply, Seen

KEY = "sk-test-0123456789"


def _response(output: list[dict[str, Any]], status: str = "completed", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "resp_loop",
        "object": "response",
        "created_at": 1700000000,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "model": "gpt-test",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 9,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 3,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 12,
        },
    }
    body.update(extra)
    return body


def _text_item(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_loop",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def test_responses_text_over_http(serve: Any) -> None:
    def handler(seen: Seen) -> Reply:
        body = seen.json()
        return Reply(200, _response([_text_item("echo:" + body["input"][-1]["content"])]))

    server = serve(handler)
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]

    async def main() -> wiremap.Response:
        async with wiremap.Provider(
            "openai_responses", model="gpt-test", api_key=KEY, base_url=server.url
        ) as p:
            return await p.complete(messages, config={"max_tokens": 20})

    response = asyncio.run(main())
    assert response.message.content == "echo:Hi"
    assert response.finish_reason == "stop"
    assert response.usage.total_tokens == 12
    (seen,) = server.requests
    assert seen.method == "POST" and seen.path == "/v1/responses"
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.json() == {
        "model": "gpt-test",
        "instructions": "Be brief.",
        "input": [{"role": "user", "content": "Hi"}],
        "max_output_tokens": 20,
    }


def test_responses_tool_round_over_http(serve: Any) -> None:
    replies = [
        _response(
            [
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {
                    "type": "function_call",
                    "id": "fc_1",
                    "call_id": "call_1",
                    "name": "get_weather",
                    "arguments": '{"city":"Paris"}',
                    "status": "completed",
                },
            ]
        ),
        _response([_text_item("Sunny.")]),
    ]

    def handler(seen: Seen) -> Reply:
        return Reply(200, replies.pop(0))

    server = serve(handler)
    tools = [{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]

    async def main() -> tuple[wiremap.Response, wiremap.Response]:
        async with wiremap.Provider(
            "openai_responses", model="gpt-test", api_key=KEY, base_url=server.url
        ) as p:
            first = await p.complete(messages, tools=tools)
            call = first.message.tool_calls[0]
            history = [
                *messages,
                first.message.to_dict(),
                {"role": "tool", "tool_call_id": call.id, "content": "sunny"},
            ]
            return first, await p.complete(history, tools=tools)

    first, second = asyncio.run(main())
    assert first.finish_reason == "tool_calls"
    assert [c.name for c in first.message.tool_calls] == ["get_weather"]
    assert second.message.content == "Sunny."
    sent = server.requests[1].json()
    assert sent["input"] == [
        {"role": "user", "content": "Weather in Paris?"},
        {"type": "reasoning", "id": "rs_1", "summary": []},  # reasoning_items: resent verbatim
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
    ]


def test_responses_error_envelope_over_http(serve: Any) -> None:
    def handler(seen: Seen) -> Reply:
        return Reply(
            429,
            {"error": {"message": "Rate limit reached", "type": "requests", "param": None, "code": "rate_limit_exceeded"}},
            headers={"retry-after": "2"},
        )

    server = serve(handler)

    async def main() -> None:
        async with wiremap.Provider(
            "openai_responses", model="gpt-test", api_key=KEY, base_url=server.url
        ) as p:
            await p.complete([{"role": "user", "content": "Hi"}])

    try:
        asyncio.run(main())
    except wiremap.ProviderError as exc:
        assert exc.category == "provider_rate_limit"
        assert exc.retry_after == 2
        assert KEY not in str(exc)
    else:
        raise AssertionError("a 429 must raise")

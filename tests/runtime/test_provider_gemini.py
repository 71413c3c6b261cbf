"""Provider over real HTTP for Gemini generateContent: the model is a path segment, not a body field."""

from __future__ import annotations

import asyncio
from typing import Any

import wiremap
from loopback import Reply, Seen

KEY = "AIza-test-0123456789"


def _gemini_reply(seen: Seen) -> Reply:
    return Reply(
        200,
        {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": "pong"}]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4},
            "modelVersion": "gemini-2.5-flash",
        },
    )


def test_gemini_call_uses_model_path_and_key_header(serve: Any) -> None:
    server = serve(_gemini_reply)
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "ping"}]

    async def main() -> wiremap.Response:
        async with wiremap.Provider(
            "gemini_generate_content", model="gemini-2.5-flash", api_key=KEY, base_url=server.url
        ) as p:
            return await p.complete(messages, config={"temperature": 0.1})

    response = asyncio.run(main())
    assert response.message.content == "pong"
    assert response.finish_reason == "stop"
    (seen,) = server.requests
    assert seen.method == "POST"
    assert seen.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert seen.headers.get("x-goog-api-key") == KEY
    assert "authorization" not in seen.headers
    assert seen.query == {}  # the key travels in the header, never in the URL
    body = seen.json()
    assert "model" not in body
    expected = wiremap.get_format("gemini_generate_content").request_to_wire(
        {"model": "gemini-2.5-flash", "messages": messages, "config": {"temperature": 0.1}}
    )
    assert expected.pop("model") == "gemini-2.5-flash"
    assert body == expected == {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [{"role": "user", "parts": [{"text": "ping"}]}],
        "generationConfig": {"temperature": 0.1},
    }


def test_gemini_model_name_is_url_encoded(serve: Any) -> None:
    server = serve(_gemini_reply)

    async def main() -> wiremap.Response:
        async with wiremap.Provider(
            "gemini_generate_content", model="tuned/my model", api_key=KEY, base_url=server.url
        ) as p:
            return await p.complete([{"role": "user", "content": "ping"}])

    asyncio.run(main())
    (seen,) = server.requests
    assert seen.raw_path == "/v1beta/models/tuned%2Fmy%20model:generateContent"
    assert "model" not in seen.json()


def test_gemini_ready_probe_lists_models(serve: Any) -> None:
    def handler(seen: Seen) -> Reply:
        assert seen.method == "GET" and seen.path == "/v1beta/models"
        return Reply(200, {"models": [{"name": "models/gemini-2.5-flash"}, {"name": "models/gemini-2.5-pro"}]})

    server = serve(handler)

    async def main() -> None:
        async with wiremap.Provider(
            "gemini_generate_content", model="gemini-2.5-pro", api_key=KEY, base_url=server.url
        ) as p:
            await p.ready()

    asyncio.run(main())
    (seen,) = server.requests
    assert seen.query == {"pageSize": ["1000"]}
    assert seen.headers.get("x-goog-api-key") == KEY

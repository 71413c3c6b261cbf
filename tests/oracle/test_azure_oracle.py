"""azure_openai against the openai SDK's own Azure client (`openai.AzureOpenAI`, lib/azure.py).

The SDK and `wiremap.Provider` make the same call to one loopback server; what reaches the
server must agree: the URL path (the deployment bound into it) and the `api-version` query, the
`api-key` header (or the Entra ID bearer token), and the body (the SDK keeps `model` in the body
and Azure ignores it there; Provider takes it out, so the bodies are compared without it). The
answer the server gives, with Azure's content-filter results in it, is parsed by both: the SDK's
`ChatCompletion` keeps the extra keys, and so does the canonical record (carried), which writes
them back for Azure's wire.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import LoopbackServer, Reply, Seen  # noqa: E402

import wiremap  # noqa: E402

API_VERSION = wiremap.get_format("azure_openai").api_version
SAFE = {"hate": {"filtered": False, "severity": "safe"}, "violence": {"filtered": False, "severity": "safe"}}
ANSWER = {
    "id": "chatcmpl-o1", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o-2024-11-20",
    "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": SAFE}],
    "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None, "content_filter_results": SAFE,
                 "message": {"role": "assistant", "content": None, "refusal": None,
                             "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Oslo\"}"}}]}}],
    "usage": {"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39},
}
TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Oslo?"}]


@pytest.fixture
def server() -> Any:
    with LoopbackServer(lambda seen: Reply(200, ANSWER)) as s:
        yield s


def _without_model(seen: Seen) -> dict[str, Any]:
    body = dict(seen.json())
    body.pop("model", None)
    return body


def test_sdk_and_provider_send_the_same_request(server: Any) -> None:
    sdk = openai.AzureOpenAI(azure_endpoint=server.url, api_key="k-123", api_version=API_VERSION, max_retries=0)
    sdk_out = sdk.chat.completions.create(
        model="my deployment", messages=MESSAGES, tools=[TOOL], tool_choice="auto", max_tokens=64, temperature=0.3, seed=5
    )
    with wiremap.Provider("azure_openai", model="my deployment", api_key="k-123", base_url=server.url) as p:
        ours = p.complete_sync(
            MESSAGES,
            tools=[{"name": "get_weather", "description": "Weather", "parameters": TOOL["function"]["parameters"]}],
            tool_choice="auto",
            config={"max_tokens": 64, "temperature": 0.3, "seed": 5},
        )
    theirs, mine = server.requests
    assert mine.path == theirs.path == "/openai/deployments/my%20deployment/chat/completions"
    assert mine.query == theirs.query == {"api-version": [API_VERSION]}
    assert mine.headers["api-key"] == theirs.headers["api-key"] == "k-123"
    assert _without_model(mine) == _without_model(theirs)
    # the same answer, read by both
    assert sdk_out.choices[0].message.tool_calls[0].function.name == "get_weather"
    assert ours.message.tool_calls[0].arguments == {"city": "Oslo"} and ours.finish_reason == "tool_calls"
    assert sdk_out.model_dump()["prompt_filter_results"] == ANSWER["prompt_filter_results"]
    back = wiremap.get_format("azure_openai").response_to_wire(ours.to_dict())
    assert back["prompt_filter_results"] == ANSWER["prompt_filter_results"]
    assert back["choices"][0]["content_filter_results"] == SAFE


def test_sdk_and_provider_send_an_entra_token_alike(server: Any) -> None:
    token = "eyJ0eXAiOiJKV1QifQ.entra"
    sdk = openai.AzureOpenAI(azure_endpoint=server.url, azure_ad_token=token, api_version=API_VERSION, max_retries=0)
    sdk.chat.completions.create(model="d", messages=MESSAGES)
    with wiremap.Provider("azure_openai", model="d", bearer_token=token, base_url=server.url) as p:
        p.complete_sync(MESSAGES)
    theirs, mine = server.requests
    assert mine.headers["authorization"] == theirs.headers["authorization"] == f"Bearer {token}"
    assert "api-key" not in mine.headers and "api-key" not in theirs.headers
    assert mine.raw_path == theirs.raw_path


def test_sdk_and_provider_stream_alike(server: Any) -> None:
    """A streamed call is the non-streamed body plus the fields the stream table manages (`stream`,
    `stream_options.include_usage`), exactly as the SDK sends them."""
    request = wiremap.get_format("azure_openai").request_to_wire({"model": "d", "messages": MESSAGES})
    sdk = openai.AzureOpenAI(azure_endpoint=server.url, api_key="k", api_version=API_VERSION, max_retries=0)
    server.handler = lambda seen: Reply(200, "data: [DONE]\n\n", content_type="text/event-stream")
    list(sdk.chat.completions.create(model="d", messages=MESSAGES, stream=True, stream_options={"include_usage": True}))
    (theirs,) = server.requests
    # the streaming fields the table manages are the ones the SDK sends
    stream_fields = wiremap.get_format("azure_openai").stream["request"]
    assert {k: theirs.json()[k] for k in stream_fields} == stream_fields
    assert {k: v for k, v in theirs.json().items() if k not in stream_fields} == request

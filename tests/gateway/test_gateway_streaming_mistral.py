"""Mistral streaming through the gateway, driven by official SDKs, both directions:

- the `mistralai` SDK (`chat.stream()`, its CompletionEvent iterator; it has no accumulating
  helper, so the test accumulates the chunks) -> gateway (inbound mistral) -> a loopback upstream
  streaming Anthropic events: tool-call ids that do not fit Mistral's 9 letters/digits arrive
  rewritten, exactly as Mistral's request rules rewrite them;
- the `openai` SDK's chat stream helper -> gateway (inbound openai_chat) -> a loopback upstream
  streaming Mistral chunks: the tool name the request rules renamed comes back as the client's.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
mistral_sdk = pytest.importorskip("mistralai.client")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from recorded import ALL, Recorded  # noqa: E402
from test_gateway_sdks import TOOLS_OPENAI, Gateway, Upstream  # noqa: E402
from test_gateway_streaming import assembled, sse, text_of  # noqa: E402

import wiremap  # noqa: E402
from wiremap.gateway import create_app  # noqa: E402

ANTHROPIC_OK = [r for r in ALL if r.format == "anthropic_messages" and not r.error]
TOOLS_MISTRAL = [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                                                   "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


@pytest.fixture(scope="module")
def mistral_client(upstream: Upstream) -> Iterator[Any]:
    gw = Gateway(create_app("mistral", "anthropic_messages", upstream.server.url))
    yield mistral_sdk.Mistral(api_key="sk-mistral-client", server_url=gw.url, timeout_ms=20000)
    gw.stop()


@pytest.fixture(scope="module")
def openai_client(upstream: Upstream) -> Iterator[Any]:
    gw = Gateway(create_app("openai_chat", "mistral", upstream.server.url))
    yield openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client-key", max_retries=0, timeout=20)
    gw.stop()


def mistral_wire_id(caller_id: str) -> str:
    """The id Mistral's request rules give `caller_id` (what a client resending it must use)."""
    m = wiremap.WireMap()
    wiremap.get_format("mistral").request_to_wire(
        {"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [{"id": caller_id, "name": "f", "arguments": {}}]},
                                    {"role": "tool", "tool_call_id": caller_id, "content": "ok"}]}, wire_map=m)
    return m.ids.get(caller_id, caller_id)


@pytest.mark.parametrize("rec", ANTHROPIC_OK, ids=[r.name for r in ANTHROPIC_OK])
def test_mistral_sdk_stream_from_anthropic(mistral_client: Any, upstream: Upstream, rec: Recorded) -> None:
    upstream.replies.append(sse(rec))
    want = assembled(rec)
    text, calls, finish, usage = [], [], None, None
    for event in mistral_client.chat.stream(model="claude-sonnet-4-5", messages=[{"role": "user", "content": "Hi"}], tools=TOOLS_MISTRAL, max_tokens=64):
        chunk = event.data
        usage = chunk.usage or usage
        for choice in chunk.choices:
            if isinstance(choice.delta.content, str):
                text.append(choice.delta.content)
            for call in choice.delta.tool_calls or []:
                calls.append(call)
            finish = choice.finish_reason or finish
    sent = upstream.last.json()
    assert sent["stream"] is True and sent["max_tokens"] == 64
    msg = want["message"]
    assert "".join(text) == text_of(msg)
    got = [(c.id, c.function.name, c.function.arguments if isinstance(c.function.arguments, dict) else json.loads(c.function.arguments)) for c in calls]
    assert got == [(mistral_wire_id(c["id"]), c["name"], c["arguments"]) for c in msg.get("tool_calls") or []]
    assert all(len(c.id) == 9 and c.id.isalnum() for c in calls)
    assert finish == {"stop": "stop", "length": "length", "tool_calls": "tool_calls"}[want["finish_reason"]]
    u = want["usage"]
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (u["prompt_tokens"], u["completion_tokens"], u["total_tokens"])


def test_openai_sdk_from_mistral_gets_its_own_tool_name_back(openai_client: Any, upstream: Upstream) -> None:
    rec = next(r for r in ALL if r.id == "mistral:parallel_tool_calls")  # calls the renamed get_weather_T3RehTJ5
    upstream.replies.append(sse(rec))
    tools = [{**TOOLS_OPENAI[0], "function": {**TOOLS_OPENAI[0]["function"], "name": "get.weather"}}]
    with openai_client.chat.completions.stream(model="mistral-large-latest", messages=[{"role": "user", "content": "Rome and Oslo?"}], tools=tools,
                                               stream_options={"include_usage": True}) as stream:  # the usage chunk only when asked
        for _ev in stream:
            pass
        final = stream.get_final_completion()
    sent = upstream.last.json()
    assert sent["stream"] is True and "stream_options" not in sent
    assert sent["tools"][0]["function"]["name"] == "get_weather_T3RehTJ5"
    calls = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in final.choices[0].message.tool_calls]
    assert calls == [("Dq8zRk2Ws", "get.weather", {"city": "Rome"}), ("pDxlfVnZ9", "get.weather", {"city": "Oslo"})]
    assert final.choices[0].finish_reason == "tool_calls" and final.usage.total_tokens == 30


def test_mistral_sdk_sees_a_mid_stream_error(mistral_client: Any, upstream: Upstream) -> None:
    rec = next(r for r in ALL if r.format == "anthropic_messages" and r.name == "mid_stream_error")
    upstream.replies.append(sse(rec))
    text = []
    # Mistral's error object as a chunk is not a CompletionChunk: the SDK raises its validation error
    # (its own stream has no error event type); the text before it was delivered
    with pytest.raises(mistral_sdk.errors.ResponseValidationError) as info:
        for event in mistral_client.chat.stream(model="claude-sonnet-4-5", messages=[{"role": "user", "content": "Hi"}], max_tokens=64):
            for choice in event.data.choices:
                if isinstance(choice.delta.content, str):
                    text.append(choice.delta.content)
    assert "".join(text) == "Partial"
    assert "Overloaded" in (info.value.body or "")  # the error object it could not read

"""The gateway end to end on 127.0.0.1, driven by the official SDKs (clients nobody here wrote).

- the `openai` SDK -> gateway (inbound openai_chat) -> a loopback server playing Anthropic;
- the `anthropic` SDK -> gateway (inbound anthropic_messages) -> a loopback server playing OpenAI.

The gateway runs in uvicorn (the server `wiremap serve` uses) on an ephemeral port. Each test
checks both ends: what the upstream received (its own wire format, credentials forwarded) and
what the client SDK parsed (or which of its own exception classes it raised).
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
uvicorn = pytest.importorskip("uvicorn")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import LoopbackServer, Reply, Seen, refused_url  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402

PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": False}
TOOLS_OPENAI = [
    {"type": "function", "function": {"name": "get_weather", "description": "Weather for a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
]
TOOLS_ANTHROPIC = [{"name": "get_weather", "description": "Weather for a city", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]


class Upstream:
    """A loopback upstream whose next answers the test queues."""

    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.server = LoopbackServer(self._handle)

    def _handle(self, seen: Seen) -> Reply:
        return self.replies.pop(0) if self.replies else Reply(500, {"error": "no reply queued"})

    @property
    def last(self) -> Seen:
        return self.server.requests[-1]


class Gateway:
    def __init__(self, app: Any) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=lambda: asyncio.run(self.server.serve(sockets=[self.sock])), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the gateway did not start")
            time.sleep(0.01)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


@pytest.fixture(scope="module")
def anthropic_upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


@pytest.fixture(scope="module")
def openai_upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


@pytest.fixture(scope="module")
def openai_client(anthropic_upstream: Upstream) -> Iterator[Any]:
    gw = Gateway(create_app("openai_chat", "anthropic_messages", anthropic_upstream.server.url))
    yield openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client-key", max_retries=0, timeout=20)
    gw.stop()


@pytest.fixture(scope="module")
def anthropic_client(openai_upstream: Upstream) -> Iterator[Any]:
    gw = Gateway(create_app("anthropic_messages", "openai_chat", openai_upstream.server.url))
    yield anthropic.Anthropic(base_url=gw.url, api_key="sk-ant-client", max_retries=0, timeout=20)
    gw.stop()


def anthropic_message(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-5", "content": content,
        "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 6},
    }


def chat_completion(message: dict[str, Any], finish: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "gpt-4o",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18},
    }


# ============================================================ openai SDK -> gateway -> "Anthropic"


def test_openai_text(openai_client: Any, anthropic_upstream: Upstream) -> None:
    anthropic_upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "Hello!"}])))
    out = openai_client.chat.completions.create(
        model="claude-sonnet-5", messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}], max_completion_tokens=50
    )
    sent = anthropic_upstream.last
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-client-key" and "anthropic-version" in sent.headers
    assert sent.json() == {"model": "claude-sonnet-5", "system": "Be brief.", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}], "max_tokens": 50}
    assert out.choices[0].message.content == "Hello!" and out.choices[0].finish_reason == "stop"
    assert (out.usage.prompt_tokens, out.usage.completion_tokens, out.usage.total_tokens) == (12, 6, 18)


def test_openai_parallel_tool_calls_and_results(openai_client: Any, anthropic_upstream: Upstream) -> None:
    anthropic_upstream.replies.append(
        Reply(200, anthropic_message([
            {"type": "text", "text": "Checking both."},
            {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_b", "name": "get_weather", "input": {"city": "Oslo"}},
        ], stop="tool_use"))
    )
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris and Oslo?"}]
    first = openai_client.chat.completions.create(model="claude-sonnet-5", messages=messages, tools=TOOLS_OPENAI, tool_choice="auto")
    msg = first.choices[0].message
    assert first.choices[0].finish_reason == "tool_calls"
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in msg.tool_calls] == [
        ("toolu_a", "get_weather", {"city": "Paris"}), ("toolu_b", "get_weather", {"city": "Oslo"})
    ]
    sent = anthropic_upstream.last.json()
    assert sent["tools"] == TOOLS_ANTHROPIC and sent["tool_choice"] == {"type": "auto"}

    anthropic_upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "Mild in both."}])))
    messages += [msg.model_dump(exclude_none=True), {"role": "tool", "tool_call_id": "toolu_a", "content": "18C"}, {"role": "tool", "tool_call_id": "toolu_b", "content": "9C"}]
    second = openai_client.chat.completions.create(model="claude-sonnet-5", messages=messages, tools=TOOLS_OPENAI)
    assert second.choices[0].message.content == "Mild in both."
    turns = anthropic_upstream.last.json()["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "user"]
    assert [b["type"] for b in turns[1]["content"]] == ["text", "tool_use", "tool_use"]
    assert turns[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_a", "content": "18C"},
        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "9C"},
    ]


def test_openai_images(openai_client: Any, anthropic_upstream: Upstream) -> None:
    anthropic_upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "A dot."}])))
    raw = openai_client.chat.completions.with_raw_response.create(
        model="claude-sonnet-5",
        messages=[{"role": "user", "content": [
            {"type": "text", "text": "What are these?"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}", "detail": "high"}},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg"}},
        ]}],
    )
    assert raw.parse().choices[0].message.content == "A dot."
    content = anthropic_upstream.last.json()["messages"][0]["content"]
    assert content[1] == {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}
    assert content[2] == {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}}
    losses = json.loads(raw.headers["x-wiremap-losses"])
    # the detail hint has no Anthropic field; Anthropic requires max_tokens, so its default is added
    assert [(x["path"], x["kind"]) for x in losses] == [("messages[0].content[1].detail", "dropped"), ("config.max_tokens", "added")]


def test_openai_structured_output(openai_client: Any, anthropic_upstream: Upstream) -> None:
    anthropic_upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": '{"city": "Paris"}'}])))
    out = openai_client.chat.completions.create(
        model="claude-sonnet-5", messages=[{"role": "user", "content": "Pick a city"}],
        response_format={"type": "json_schema", "json_schema": {"name": "city", "schema": SCHEMA, "strict": True}},
    )
    assert json.loads(out.choices[0].message.content) == {"city": "Paris"}
    assert anthropic_upstream.last.json()["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}


def test_openai_thinking_is_reported_not_silently_lost(openai_client: Any, anthropic_upstream: Upstream) -> None:
    anthropic_upstream.replies.append(Reply(200, anthropic_message([
        {"type": "thinking", "thinking": "Paris is in France.", "signature": "sig-xyz"},
        {"type": "text", "text": "France."},
    ])))
    raw = openai_client.chat.completions.with_raw_response.create(model="claude-sonnet-5", messages=[{"role": "user", "content": "Where is Paris?"}])
    assert raw.parse().choices[0].message.content == "France."
    losses = json.loads(raw.headers["x-wiremap-losses"])
    thinking = [x for x in losses if x["direction"] == "response"]
    assert [(x["path"], x["kind"]) for x in thinking] == [("message.content[0]", "dropped")]
    assert "thinking" in thinking[0]["detail"]


ANTHROPIC_ERRORS = [
    (Reply(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}), "AuthenticationError", 401),
    (Reply(403, {"type": "error", "error": {"type": "permission_error", "message": "no access"}}), "AuthenticationError", 401),
    (Reply(404, {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-nope"}}), "NotFoundError", 404),
    (Reply(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}, headers={"retry-after": "7"}), "RateLimitError", 429),
    (Reply(400, {"type": "error", "error": {"type": "invalid_request_error", "message": "messages: bad"}}), "BadRequestError", 400),
    (Reply(400, {"type": "error", "error": {"type": "invalid_request_error", "message": "image media type not supported"}}), "BadRequestError", 400),
    (Reply(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}), "InternalServerError", 503),
    (Reply(500, "<html>boom</html>"), "InternalServerError", 503),
    (Reply(200, {"not": "a message"}), "InternalServerError", 502),
]


@pytest.mark.parametrize(("reply", "exc_name", "status"), ANTHROPIC_ERRORS, ids=[f"{e[0].status}-{e[1]}-{i}" for i, e in enumerate(ANTHROPIC_ERRORS)])
def test_openai_errors_arrive_as_the_sdks_own_exceptions(openai_client: Any, anthropic_upstream: Upstream, reply: Reply, exc_name: str, status: int) -> None:
    anthropic_upstream.replies.append(reply)
    with pytest.raises(getattr(openai, exc_name)) as info:
        openai_client.chat.completions.create(model="claude-sonnet-5", messages=[{"role": "user", "content": "Hi"}])
    assert info.value.status_code == status
    if reply.status == 429:
        assert info.value.response.headers["retry-after"] == "7"
    import wiremap

    # the body is a real OpenAI error object, read back as the upstream's category
    upstream_category = wiremap.get_format("anthropic_messages").error_from_wire(reply.status, reply.body, reply.headers).category if reply.status != 200 else "provider_invalid_response"
    assert wiremap.get_format("openai_chat").error_from_wire(status, info.value.body and {"error": info.value.body}, None).category in {upstream_category, "provider_unavailable"}


def test_openai_structured_output_invalid_and_unreachable_upstream(openai_client: Any, anthropic_upstream: Upstream) -> None:
    anthropic_upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "Paris, I think."}])))
    with pytest.raises(openai.InternalServerError) as info:
        openai_client.chat.completions.create(
            model="claude-sonnet-5", messages=[{"role": "user", "content": "Pick a city"}],
            response_format={"type": "json_schema", "json_schema": {"name": "city", "schema": SCHEMA}},
        )
    assert info.value.status_code == 502 and info.value.body["code"] == "structured_output_invalid"
    gw = Gateway(create_app("openai_chat", "anthropic_messages", refused_url()))
    try:
        client = openai.OpenAI(base_url=gw.url + "/v1", api_key="k", max_retries=0)
        with pytest.raises(openai.InternalServerError) as info2:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "Hi"}])
        assert info2.value.status_code == 503
        with pytest.raises(openai.BadRequestError) as info3:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}]}])
        assert "content" in str(info3.value)
    finally:
        gw.stop()


# ============================================================ anthropic SDK -> gateway -> "OpenAI"


def test_anthropic_text(anthropic_client: Any, openai_upstream: Upstream) -> None:
    openai_upstream.replies.append(Reply(200, chat_completion({"content": "Hello!"})))
    out = anthropic_client.messages.create(model="gpt-4o", max_tokens=64, system="Be brief.", messages=[{"role": "user", "content": "Hi"}])
    sent = openai_upstream.last
    assert sent.path == "/v1/chat/completions" and sent.headers["authorization"] == "Bearer sk-ant-client"
    assert sent.json() == {"model": "gpt-4o", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}], "max_completion_tokens": 64}
    assert [b.type for b in out.content] == ["text"] and out.content[0].text == "Hello!"
    assert out.stop_reason == "end_turn" and (out.usage.input_tokens, out.usage.output_tokens) == (12, 6)


def test_anthropic_parallel_tool_calls_and_results(anthropic_client: Any, openai_upstream: Upstream) -> None:
    openai_upstream.replies.append(Reply(200, chat_completion({"content": None, "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}},
        {"id": "call_b", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'}},
    ]}, finish="tool_calls")))
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris and Oslo?"}]
    first = anthropic_client.messages.create(model="gpt-4o", max_tokens=64, messages=messages, tools=TOOLS_ANTHROPIC, tool_choice={"type": "any"})
    assert first.stop_reason == "tool_use"
    assert [(b.id, b.name, b.input) for b in first.content if b.type == "tool_use"] == [("call_a", "get_weather", {"city": "Paris"}), ("call_b", "get_weather", {"city": "Oslo"})]
    sent = openai_upstream.last.json()
    assert sent["tools"] == TOOLS_OPENAI and sent["tool_choice"] == "required"

    openai_upstream.replies.append(Reply(200, chat_completion({"content": "Mild in both."})))
    messages += [
        {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in first.content]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "call_a", "content": "18C"},
            {"type": "tool_result", "tool_use_id": "call_b", "content": "9C"},
        ]},
    ]
    second = anthropic_client.messages.create(model="gpt-4o", max_tokens=64, messages=messages, tools=TOOLS_ANTHROPIC)
    assert second.content[0].text == "Mild in both."
    turns = openai_upstream.last.json()["messages"]
    assert [t["role"] for t in turns] == ["user", "assistant", "tool", "tool"]
    assert [c["id"] for c in turns[1]["tool_calls"]] == ["call_a", "call_b"]
    assert [(t["tool_call_id"], t["content"]) for t in turns[2:]] == [("call_a", "18C"), ("call_b", "9C")]


def test_anthropic_images_and_structured_output(anthropic_client: Any, openai_upstream: Upstream) -> None:
    openai_upstream.replies.append(Reply(200, chat_completion({"content": '{"city": "Oslo"}'})))
    out = anthropic_client.messages.create(
        model="gpt-4o", max_tokens=64,
        messages=[{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}},
            {"type": "text", "text": "Which city is this?"},
        ]}],
        extra_body={"output_config": {"format": {"type": "json_schema", "schema": SCHEMA}}},
    )
    assert json.loads(out.content[0].text) == {"city": "Oslo"}
    sent = openai_upstream.last.json()
    assert sent["messages"][0]["content"][0] == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG_B64}"}}
    assert sent["response_format"]["type"] == "json_schema" and sent["response_format"]["json_schema"]["schema"] == SCHEMA


def test_anthropic_signed_thinking_history_is_stripped_and_reported(anthropic_client: Any, openai_upstream: Upstream) -> None:
    openai_upstream.replies.append(Reply(200, chat_completion({"content": "Yes."})))
    raw = anthropic_client.messages.with_raw_response.create(
        model="gpt-4o", max_tokens=64,
        messages=[
            {"role": "user", "content": "Is Oslo in Norway?"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "It is.", "signature": "sig"}, {"type": "text", "text": "Let me check."}]},
            {"role": "user", "content": "And?"},
        ],
    )
    assert raw.parse().content[0].text == "Yes."
    assert openai_upstream.last.json()["messages"][1] == {"role": "assistant", "content": "Let me check."}
    losses = json.loads(raw.headers["x-wiremap-losses"])
    assert ("messages[1].content[0]", "dropped") in [(x["path"], x["kind"]) for x in losses]


OPENAI_ERRORS = [
    (Reply(401, {"error": {"message": "bad key", "type": "invalid_request_error", "code": "invalid_api_key"}}), "AuthenticationError", 401),
    (Reply(404, {"error": {"message": "The model `x` does not exist", "type": "invalid_request_error", "code": "model_not_found"}}), "NotFoundError", 404),
    (Reply(429, {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}, headers={"retry-after": "2"}), "RateLimitError", 429),
    (Reply(400, {"error": {"message": "Invalid 'messages'", "type": "invalid_request_error"}}), "BadRequestError", 400),
    (Reply(400, {"error": {"message": "Invalid image data", "type": "invalid_request_error"}}), "BadRequestError", 400),
    (Reply(503, {"error": {"message": "model not loaded yet", "type": "server_error"}}), "OverloadedError", 529),
    # an upstream 5xx is Anthropic's api_error 500, not overloaded_error 529 (issue 15 #12) ...
    (Reply(502, "bad gateway"), "InternalServerError", 500),
    # ... and an upstream that says it is overloaded (503) stays overloaded: 529
    (Reply(503, {"error": {"message": "The engine is currently overloaded, please try again later", "type": "server_error"}}), "OverloadedError", 529),
    (Reply(500, {"error": {"message": "The server had an error processing your request", "type": "server_error"}}), "InternalServerError", 500),
    (Reply(200, {"choices": "nope"}), "InternalServerError", 502),
]


@pytest.mark.parametrize(("reply", "exc_name", "status"), OPENAI_ERRORS, ids=[f"{e[0].status}-{e[1]}-{i}" for i, e in enumerate(OPENAI_ERRORS)])
def test_anthropic_errors_arrive_as_the_sdks_own_exceptions(anthropic_client: Any, openai_upstream: Upstream, reply: Reply, exc_name: str, status: int) -> None:
    openai_upstream.replies.append(reply)
    with pytest.raises(getattr(anthropic, exc_name)) as info:
        anthropic_client.messages.create(model="gpt-4o", max_tokens=8, messages=[{"role": "user", "content": "Hi"}])
    assert info.value.status_code == status
    assert info.value.body["type"] == "error" and info.value.body["error"]["message"]
    if reply.status == 429:
        assert info.value.response.headers["retry-after"] == "2"


def test_health_and_not_json(openai_upstream: Upstream) -> None:
    import httpx

    gw = Gateway(create_app("anthropic_messages", "openai_chat", openai_upstream.server.url))
    try:
        assert httpx.get(gw.url + "/healthz").json() == {"status": "ok", "inbound": "anthropic_messages", "upstream": "openai_chat"}
        r = httpx.post(gw.url + "/v1/messages", content=b"{nope", headers={"x-api-key": "sk-ant-client"})
        assert r.status_code == 400 and r.json()["error"]["type"] == "invalid_request_error"
    finally:
        gw.stop()
    # an inbound format without a stream table refuses `stream: true` in its own envelope
    # (streaming itself: test_gateway_streaming.py)
    gw = Gateway(create_app("openarmature.anthropic_messages", "openai_chat", openai_upstream.server.url))
    try:
        r = httpx.post(gw.url + "/v1/messages", json={"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}], "stream": True}, headers={"x-api-key": "sk-ant-client"})
        assert r.status_code == 400 and "stream" in r.json()["error"]["message"]
    finally:
        gw.stop()

"""Cohere v2 chat through the gateway on 127.0.0.1, driven by official SDKs, both directions:

- the `cohere` SDK (`ClientV2(base_url=gateway)`, `chat` and `chat_stream`) -> gateway (inbound
  cohere_chat) -> a loopback upstream playing Anthropic, non-streamed and streaming every recorded
  Anthropic stream;
- the `openai` SDK -> gateway (inbound openai_chat) -> a loopback upstream playing Cohere: what the
  upstream receives is Cohere's wire (POST /v2/chat, bearer key, p / k, REQUIRED), and Cohere's
  answers and SSE events come back as OpenAI's;
- the `cohere` SDK -> gateway -> a Cohere upstream: the same wire at both ends, so what no row reads
  (tool_plan, citations, documents) goes through as it came.

Each test checks both ends: what the upstream received and what the client SDK parsed (or which of
its own exception classes it raised).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
cohere = pytest.importorskip("cohere")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from loopback import Reply  # noqa: E402
from recorded import ALL, Recorded  # noqa: E402
from test_gateway_sdks import TOOLS_OPENAI, Gateway, Upstream, anthropic_message  # noqa: E402
from test_gateway_streaming import assembled, sse, text_of  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402

ANTHROPIC_OK = [r for r in ALL if r.format == "anthropic_messages" and not r.error]
TOOLS_COHERE = [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city",
                                                  "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


def _cohere(gw: Gateway) -> Any:
    return cohere.ClientV2(api_key="co-client-key", base_url=gw.url, timeout=20, max_retries=0)


@pytest.fixture(scope="module")
def cohere_to_anthropic(upstream: Upstream) -> Iterator[Any]:
    gw = Gateway(create_app("cohere_chat", "anthropic_messages", upstream.server.url))
    yield _cohere(gw)
    gw.stop()


@pytest.fixture(scope="module")
def openai_to_cohere(upstream: Upstream) -> Iterator[Any]:
    gw = Gateway(create_app("openai_chat", "cohere_chat", upstream.server.url))
    yield openai.OpenAI(base_url=gw.url + "/v1", api_key="co-upstream-key", max_retries=0, timeout=20)
    gw.stop()


@pytest.fixture(scope="module")
def cohere_to_cohere(upstream: Upstream) -> Iterator[Any]:
    gw = Gateway(create_app("cohere_chat", "cohere_chat", upstream.server.url))
    yield _cohere(gw)
    gw.stop()


def cohere_response(message: dict[str, Any], finish: str = "COMPLETE", usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": "c0ffee-1", "finish_reason": finish, "message": {"role": "assistant", **message},
            "usage": usage or {"billed_units": {"input_tokens": 9, "output_tokens": 4}, "tokens": {"input_tokens": 90, "output_tokens": 4}}}


# --- the cohere SDK as the client -------------------------------------------------------------


def test_cohere_sdk_text_and_tools(cohere_to_anthropic: Any, upstream: Upstream) -> None:
    upstream.replies.append(Reply(200, anthropic_message([
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}], stop="tool_use")))
    resp = cohere_to_anthropic.chat(
        model="claude-sonnet-4-5", messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}],
        tools=TOOLS_COHERE, tool_choice="REQUIRED", temperature=0.2, max_tokens=64, p=0.9, stop_sequences=["END"])
    sent = upstream.last.json()
    assert upstream.last.path == "/v1/messages"
    assert sent["system"] == "Be brief." and sent["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]}]
    assert sent["tool_choice"] == {"type": "any"} and sent["tools"][0]["name"] == "get_weather"
    assert sent["max_tokens"] == 64 and sent["stop_sequences"] == ["END"]
    # what the cohere SDK parsed
    assert resp.finish_reason == "TOOL_CALL"
    assert [c.text for c in resp.message.content] == ["Checking."]
    call = resp.message.tool_calls[0]
    assert call.id == "toolu_1" and call.function.name == "get_weather" and json.loads(call.function.arguments) == {"city": "Paris"}
    assert resp.usage.tokens.input_tokens == 12 and resp.usage.tokens.output_tokens == 6

    # the tool result goes back as Anthropic's tool_result
    upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "18C."}])))
    resp = cohere_to_anthropic.chat(model="claude-sonnet-4-5", tools=TOOLS_COHERE, messages=[
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "tool_plan": "Look it up.", "tool_calls": [{"id": "toolu_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "toolu_1", "content": [{"type": "text", "text": "18C"}]}])
    turns = upstream.last.json()["messages"]
    assert turns[1]["content"] == [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]
    assert turns[2]["content"][0]["type"] == "tool_result" and turns[2]["content"][0]["tool_use_id"] == "toolu_1"
    assert resp.finish_reason == "COMPLETE" and resp.message.content[0].text == "18C."


def test_cohere_sdk_error_classes(cohere_to_anthropic: Any, upstream: Upstream) -> None:
    """Upstream errors reach the Cohere client as its SDK's own exception classes (errors.emit):
    a 429 is TooManyRequestsError, a 401 UnauthorizedError."""
    upstream.replies.append(Reply(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}, headers={"retry-after": "1"}))
    with pytest.raises(cohere.errors.TooManyRequestsError):
        cohere_to_anthropic.chat(model="claude-sonnet-4-5", messages=[{"role": "user", "content": "Hi"}])
    upstream.replies.append(Reply(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}))
    with pytest.raises(cohere.errors.UnauthorizedError):
        cohere_to_anthropic.chat(model="claude-sonnet-4-5", messages=[{"role": "user", "content": "Hi"}])


@pytest.mark.parametrize("rec", ANTHROPIC_OK, ids=[r.name for r in ANTHROPIC_OK])
def test_cohere_sdk_stream_from_anthropic(cohere_to_anthropic: Any, upstream: Upstream, rec: Recorded) -> None:
    upstream.replies.append(sse(rec))
    want = assembled(rec)
    text: dict[int, str] = {}
    calls: dict[int, dict[str, str]] = {}
    finish, usage, types = None, None, []
    for event in cohere_to_anthropic.chat_stream(model="claude-sonnet-4-5", messages=[{"role": "user", "content": "Hi"}], tools=TOOLS_COHERE, max_tokens=64):
        types.append(event.type)
        if event.type == "content-delta" and event.delta.message.content.text is not None:
            text[event.index] = text.get(event.index, "") + event.delta.message.content.text
        elif event.type == "tool-call-start":
            tc = event.delta.message.tool_calls
            calls[event.index] = {"id": tc.id, "name": tc.function.name, "arguments": tc.function.arguments or ""}
        elif event.type == "tool-call-delta":
            calls[event.index]["arguments"] += event.delta.message.tool_calls.function.arguments
        elif event.type == "message-end":
            finish, usage = event.delta.finish_reason, event.delta.usage
    assert upstream.last.json()["stream"] is True
    assert types[0] == "message-start" and types[-1] == "message-end"
    assert "".join(text[k] for k in sorted(text)) == text_of(want["message"])
    want_calls = want["message"].get("tool_calls") or []
    assert [(c["id"], c["name"], json.loads(c["arguments"] or "{}")) for _, c in sorted(calls.items())] == [
        (c["id"], c["name"], c["arguments"]) for c in want_calls]
    assert finish == {"stop": "COMPLETE", "length": "MAX_TOKENS", "tool_calls": "TOOL_CALL"}[want["finish_reason"]]
    assert usage.tokens.input_tokens == want["usage"]["prompt_tokens"]
    assert usage.tokens.output_tokens == want["usage"]["completion_tokens"]


def test_cohere_to_cohere_keeps_what_no_row_reads(cohere_to_cohere: Any, upstream: Upstream) -> None:
    """The same wire at both ends: documents, tool_plan and citations go through as they came."""
    upstream.replies.append(Reply(200, cohere_response({
        "content": [{"type": "text", "text": "Ann wrote it."}],
        "citations": [{"start": 0, "end": 3, "text": "Ann", "sources": [{"type": "document", "id": "doc1", "document": {"author": "Ann"}}], "type": "TEXT_CONTENT"}]})))
    resp = cohere_to_cohere.chat(model="command-a-03-2025", messages=[
        {"role": "user", "content": "Who wrote it?"},
        {"role": "assistant", "tool_plan": "Read the document.", "content": [{"type": "text", "text": "Reading."}]},
        {"role": "user", "content": "And?"}], documents=[{"id": "doc1", "data": {"author": "Ann"}}], citation_options={"mode": "FAST"})
    sent = upstream.last
    assert sent.path == "/v2/chat" and sent.headers.get("authorization") == "Bearer co-client-key"
    body = sent.json()
    assert body["documents"] == [{"id": "doc1", "data": {"author": "Ann"}}] and body["citation_options"] == {"mode": "FAST"}
    assert body["messages"][1]["tool_plan"] == "Read the document."
    assert resp.message.citations[0].sources[0].id == "doc1"
    assert resp.usage.billed_units.input_tokens == 9 and resp.usage.tokens.input_tokens == 90


# --- Cohere as the upstream -------------------------------------------------------------------


def test_openai_sdk_to_cohere_upstream(openai_to_cohere: Any, upstream: Upstream) -> None:
    upstream.replies.append(Reply(200, cohere_response({
        "tool_plan": "I will look up the weather.",
        "tool_calls": [{"id": "get_weather_x", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
        finish="TOOL_CALL")))
    resp = openai_to_cohere.chat.completions.create(
        model="command-a-03-2025", messages=[{"role": "user", "content": "Weather in Paris?"}], tools=TOOLS_OPENAI,
        tool_choice="required", top_p=0.5, max_tokens=50)
    sent = upstream.last
    assert sent.path == "/v2/chat" and sent.headers.get("authorization") == "Bearer co-upstream-key"
    body = sent.json()
    assert body["tool_choice"] == "REQUIRED" and body["p"] == 0.5 and body["max_tokens"] == 50 and "top_p" not in body
    assert body["tools"][0]["function"]["name"] == "get_weather"
    assert resp.choices[0].finish_reason == "tool_calls"
    assert resp.choices[0].message.tool_calls[0].function.name == "get_weather"
    assert resp.usage.prompt_tokens == 90 and resp.usage.completion_tokens == 4

    # auto is the field left out; a forced single tool is refused before anything is sent
    upstream.replies.append(Reply(200, cohere_response({"content": [{"type": "text", "text": "Hi"}]})))
    openai_to_cohere.chat.completions.create(model="command-a-03-2025", messages=[{"role": "user", "content": "Hi"}], tools=TOOLS_OPENAI, tool_choice="auto")
    assert "tool_choice" not in upstream.last.json()
    before = len(upstream.server.requests)
    with pytest.raises(openai.BadRequestError):
        openai_to_cohere.chat.completions.create(model="command-a-03-2025", messages=[{"role": "user", "content": "Hi"}], tools=TOOLS_OPENAI,
                                                 tool_choice={"type": "function", "function": {"name": "get_weather"}})
    assert len(upstream.server.requests) == before


def test_openai_sdk_values_past_cohere_ranges_are_clamped_and_reported(openai_to_cohere: Any, upstream: Upstream) -> None:
    """Cohere's p is 0.01-0.99 and its penalties 0-1 (request.options `range:`): an OpenAI client's
    top_p 1.0 and frequency_penalty -0.5 reach Cohere as 0.99 and 0 -- a body Cohere takes --
    and the x-wiremap-losses header names each change (a direct Cohere request is refused instead)."""
    upstream.replies.append(Reply(200, cohere_response({"content": [{"type": "text", "text": "Hi"}]})))
    raw = openai_to_cohere.chat.completions.with_raw_response.create(
        model="command-a-03-2025", messages=[{"role": "user", "content": "Hi"}], top_p=1.0, frequency_penalty=-0.5, presence_penalty=0.5)
    body = upstream.last.json()
    assert body["p"] == 0.99 and body["frequency_penalty"] == 0 and body["presence_penalty"] == 0.5
    losses = raw.headers.get("x-wiremap-losses") or ""
    assert "config.top_p" in losses and "config.frequency_penalty" in losses and "config.presence_penalty" not in losses
    assert raw.parse().choices[0].message.content == "Hi"


COHERE_STREAM = (
    'event: message-start\ndata: {"id":"s1","type":"message-start","delta":{"message":{"role":"assistant","content":[],"tool_plan":"","tool_calls":[],"citations":[]}}}\n\n'
    'event: content-start\ndata: {"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}\n\n'
    'event: content-delta\ndata: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Sunny "}}}}\n\n'
    'event: content-delta\ndata: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"in Paris."}}}}\n\n'
    'event: content-end\ndata: {"type":"content-end","index":0}\n\n'
    'event: message-end\ndata: {"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"billed_units":{"input_tokens":3,"output_tokens":4},"tokens":{"input_tokens":30,"output_tokens":4}}}}\n\n'
)


def test_openai_sdk_stream_from_cohere_upstream(openai_to_cohere: Any, upstream: Upstream) -> None:
    upstream.replies.append(Reply(200, COHERE_STREAM.encode(), content_type="text/event-stream"))
    with openai_to_cohere.chat.completions.stream(model="command-a-03-2025", messages=[{"role": "user", "content": "Weather?"}],
                                                  stream_options={"include_usage": True}) as stream:
        final = stream.get_final_completion()
    assert upstream.last.json()["stream"] is True and upstream.last.path == "/v2/chat"
    assert final.choices[0].message.content == "Sunny in Paris."
    assert final.choices[0].finish_reason == "stop"
    assert final.usage.prompt_tokens == 30 and final.usage.completion_tokens == 4


def test_cohere_sdk_lists_anthropic_models(cohere_to_anthropic: Any, upstream: Upstream) -> None:
    """transport.models: GET /v1/models answered in Cohere's ListModelsResponse, from the upstream's list."""
    upstream.replies.append(Reply(200, {"data": [
        {"type": "model", "id": "claude-sonnet-5", "display_name": "Claude Sonnet 5", "created_at": "2026-02-01T00:00:00Z"},
        {"type": "model", "id": "claude-haiku-5", "display_name": "Claude Haiku 5", "created_at": "2026-01-01T12:00:00Z"}],
        "has_more": False, "first_id": "claude-sonnet-5", "last_id": "claude-haiku-5"}))
    listed = cohere_to_anthropic.models.list()
    assert upstream.last.path == "/v1/models"
    assert [(m.name, m.endpoints) for m in listed.models] == [("claude-sonnet-5", ["chat"]), ("claude-haiku-5", ["chat"])]


def test_openai_sdk_lists_cohere_models(openai_to_cohere: Any, upstream: Upstream) -> None:
    """transport.ready: the upstream's models are read by `name` from `models`."""
    upstream.replies.append(Reply(200, {"models": [{"name": "command-a-03-2025", "endpoints": ["chat", "generate"], "context_length": 256000}],
                                        "next_page_token": None}))
    models = list(openai_to_cohere.models.list())
    assert upstream.last.path == "/v1/models" and upstream.last.headers["authorization"] == "Bearer co-upstream-key"
    assert [m.id for m in models] == ["command-a-03-2025"]

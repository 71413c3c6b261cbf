"""The gateway end to end on 127.0.0.1, driven by Vercel AI SDK 6 (node), both directions:

- `@ai-sdk/openai` (`openai.chat(...)`: Chat Completions) -> gateway (inbound openai_chat) ->
  a loopback server playing Anthropic;
- `@ai-sdk/anthropic` -> gateway (inbound anthropic_messages) -> a loopback server playing OpenAI.

tests/gateway/vercel_ai.mjs makes four calls per provider (generateText, generateText with a
tool call, streamText, streamText with a tool call); each test checks what the JS caller got
(text, tool call, finish reason, usage) and what the upstream received in its own format.

The SDK is installed once per machine with npm into build/vercel-ai/ (gitignored) and reused.
AI SDK 7 needs node >= 22; AI SDK 6 (`ai@6`, providers @3) runs on node >= 18, and is what this
machine's node 20 can run. Without node/npm, or when the install fails, the tests skip and say
why.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

uvicorn = pytest.importorskip("uvicorn")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "runtime"))
sys.path.insert(0, str(HERE.parent / "stream"))
from loopback import Reply  # noqa: E402
from recorded import sse  # noqa: E402
from test_gateway_sdks import Gateway, Upstream, anthropic_message, chat_completion  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402

CACHE = HERE.parents[1] / "build" / "vercel-ai"
PACKAGES = {"ai": "^6", "@ai-sdk/openai": "^3", "@ai-sdk/anthropic": "^3", "zod": "^4"}
WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _install() -> Path:
    """build/vercel-ai with the SDK installed (once per machine; a lock keeps parallel runs apart)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Vercel AI SDK tests need node and npm on PATH")
    CACHE.mkdir(parents=True, exist_ok=True)
    manifest = json.dumps({"name": "wiremap-vercel-e2e", "private": True, "type": "module", "dependencies": PACKAGES}, indent=2)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = CACHE / "node_modules" / ".wiremap-installed"
        if not stamp.exists() or stamp.read_text() != manifest:
            (CACHE / "package.json").write_text(manifest)
            try:
                done = subprocess.run(
                    [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"],
                    cwd=CACHE, capture_output=True, text=True, timeout=600,
                )
            except subprocess.TimeoutExpired:
                pytest.skip("npm install of the Vercel AI SDK did not finish in 600 s")
            if done.returncode != 0:
                pytest.skip(f"npm install of the Vercel AI SDK failed: {done.stderr.strip()[-500:]}")
            stamp.write_text(manifest)
    # ES modules resolve imports next to the script, so it runs from the install folder
    shutil.copyfile(HERE / "vercel_ai.mjs", CACHE / "vercel_ai.mjs")
    return CACHE / "vercel_ai.mjs"


@pytest.fixture(scope="module")
def script() -> Path:
    return _install()


def run_node(script: Path, provider: str, base_url: str, api_key: str, model: str) -> dict[str, Any]:
    args = json.dumps({"provider": provider, "baseURL": base_url, "apiKey": api_key, "model": model})
    done = subprocess.run(["node", str(script), args], cwd=script.parent, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


# ------------------------------------------------------------------ the upstream's answers
# Anthropic "Streaming Messages" (https://docs.anthropic.com/en/docs/build-with-claude/streaming):
# message_start, content_block_start/delta/stop, message_delta (stop_reason, usage), message_stop.


def _anthropic_stream(blocks: list[list[dict[str, Any]]], stop: str) -> Reply:
    start = {"type": "message_start", "message": {
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-5", "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 1}}}
    events: list[Any] = [start, {"type": "ping"}]
    for block in blocks:
        events += block
    events += [
        {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 6}},
        {"type": "message_stop"},
    ]
    return Reply(200, sse(events, named=True), content_type="text/event-stream")


ANTHROPIC_TEXT_STREAM = _anthropic_stream([[
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Sunny "}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "in Paris."}},
    {"type": "content_block_stop", "index": 0},
]], "end_turn")

ANTHROPIC_TOOL_STREAM = _anthropic_stream([[
    {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_s", "name": "get_weather", "input": {}}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"city": '}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '"Paris"}'}},
    {"type": "content_block_stop", "index": 0},
]], "tool_use")


# OpenAI chat.completion.chunk (https://platform.openai.com/docs/api-reference/chat-streaming):
# with stream_options.include_usage, a last chunk with empty choices carries usage; then [DONE].


def _chunk(delta: dict[str, Any] | None, finish: str | None = None, usage: dict[str, int] | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1700000000, "model": "gpt-4o",
        "choices": [] if delta is None else [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        "usage": usage,
    }


def _openai_stream(deltas: list[dict[str, Any]], finish: str) -> Reply:
    events: list[Any] = [_chunk({"role": "assistant", "content": ""})]
    events += [_chunk(d) for d in deltas]
    events += [_chunk({}, finish), _chunk(None, usage={"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18}), "[DONE]"]
    return Reply(200, sse(events), content_type="text/event-stream")


OPENAI_TEXT_STREAM = _openai_stream([{"content": "Sunny "}, {"content": "in Paris."}], "stop")

OPENAI_TOOL_STREAM = _openai_stream([
    {"tool_calls": [{"index": 0, "id": "call_s", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]},
    {"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]},
    {"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]},
], "tool_calls")

USAGE = {"inputTokens": 12, "outputTokens": 6, "totalTokens": 18}
TOOL_CALL = {"toolName": "get_weather", "input": {"city": "Paris"}}


def _tool_calls(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: c[k] for k in ("toolName", "input")} for c in result["toolCalls"]]


# ------------------------------------------------------------------ @ai-sdk/openai -> "Anthropic"


def test_vercel_openai_provider_through_an_anthropic_upstream(script: Path, upstream: Upstream) -> None:
    upstream.replies[:] = [
        Reply(200, anthropic_message([{"type": "text", "text": "Sunny in Paris."}])),
        Reply(200, anthropic_message([{"type": "tool_use", "id": "toolu_g", "name": "get_weather", "input": {"city": "Paris"}}], stop="tool_use")),
        ANTHROPIC_TEXT_STREAM,
        ANTHROPIC_TOOL_STREAM,
    ]
    first = len(upstream.server.requests)
    gw = Gateway(create_app("openai_chat", "anthropic_messages", upstream.server.url))
    try:
        out = run_node(script, "openai", gw.url + "/v1", "sk-vercel-client", "claude-sonnet-5")
    finally:
        gw.stop()
    sent = upstream.server.requests[first:]
    assert [(s.path, s.json().get("stream", False)) for s in sent] == [
        ("/v1/messages", False), ("/v1/messages", False), ("/v1/messages", True), ("/v1/messages", True)
    ]
    assert all(s.headers["x-api-key"] == "sk-vercel-client" for s in sent)
    assert sent[0].json()["system"] == "Be brief." and sent[0].json()["max_tokens"] == 64
    tool_body = sent[1].json()
    assert tool_body["tools"] == [{"name": "get_weather", "description": "Weather for a city", "input_schema": WEATHER}]
    assert tool_body["tool_choice"] == {"type": "any"}  # OpenAI "required"

    gen = out["generate"]
    assert "error" not in gen, gen
    assert (gen["text"], gen["finishReason"], gen["usage"], gen["toolCalls"]) == ("Sunny in Paris.", "stop", USAGE, [])

    gen_tool = out["generateTool"]
    assert "error" not in gen_tool, gen_tool
    assert gen_tool["finishReason"] == "tool-calls" and gen_tool["usage"] == USAGE
    assert _tool_calls(gen_tool) == [TOOL_CALL] and gen_tool["toolCalls"][0]["toolCallId"] == "toolu_g"

    st = out["stream"]
    assert "error" not in st and st["errors"] == [], st
    assert st["deltas"] == ["Sunny ", "in Paris."]  # chunk by chunk, not one block at the end
    assert (st["text"], st["finishReason"], st["usage"]) == ("Sunny in Paris.", "stop", USAGE)

    st_tool = out["streamTool"]
    assert "error" not in st_tool and st_tool["errors"] == [], st_tool
    assert "tool-input-delta" in st_tool["parts"] and "tool-call" in st_tool["parts"]
    assert (st_tool["finishReason"], st_tool["usage"], _tool_calls(st_tool)) == ("tool-calls", USAGE, [TOOL_CALL])
    assert st_tool["toolCalls"][0]["toolCallId"] == "toolu_s"


# ------------------------------------------------------------------ @ai-sdk/anthropic -> "OpenAI"


def test_vercel_anthropic_provider_through_an_openai_upstream(script: Path, upstream: Upstream) -> None:
    upstream.replies[:] = [
        Reply(200, chat_completion({"content": "Sunny in Paris."})),
        Reply(200, chat_completion({"content": None, "tool_calls": [
            {"id": "call_g", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}
        ]}, finish="tool_calls")),
        OPENAI_TEXT_STREAM,
        OPENAI_TOOL_STREAM,
    ]
    first = len(upstream.server.requests)
    gw = Gateway(create_app("anthropic_messages", "openai_chat", upstream.server.url))
    try:
        out = run_node(script, "anthropic", gw.url + "/v1", "sk-ant-vercel", "gpt-4o")
    finally:
        gw.stop()
    sent = upstream.server.requests[first:]
    assert [(s.path, s.json().get("stream", False)) for s in sent] == [
        ("/v1/chat/completions", False), ("/v1/chat/completions", False), ("/v1/chat/completions", True), ("/v1/chat/completions", True)
    ]
    assert all(s.headers["authorization"] == "Bearer sk-ant-vercel" for s in sent)
    assert sent[0].json()["messages"][0] == {"role": "system", "content": "Be brief."}
    tool_body = sent[1].json()
    assert tool_body["tools"] == [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city", "parameters": WEATHER}}]
    assert tool_body["tool_choice"] == "required"  # Anthropic {"type": "any"}

    gen = out["generate"]
    assert "error" not in gen, gen
    assert (gen["text"], gen["finishReason"], gen["usage"], gen["toolCalls"]) == ("Sunny in Paris.", "stop", USAGE, [])

    gen_tool = out["generateTool"]
    assert "error" not in gen_tool, gen_tool
    assert gen_tool["finishReason"] == "tool-calls" and gen_tool["usage"] == USAGE
    assert _tool_calls(gen_tool) == [TOOL_CALL] and gen_tool["toolCalls"][0]["toolCallId"] == "call_g"

    st = out["stream"]
    assert "error" not in st and st["errors"] == [], st
    assert st["deltas"] == ["Sunny ", "in Paris."]
    assert (st["text"], st["finishReason"], st["usage"]) == ("Sunny in Paris.", "stop", USAGE)

    st_tool = out["streamTool"]
    assert "error" not in st_tool and st_tool["errors"] == [], st_tool
    assert "tool-input-delta" in st_tool["parts"] and "tool-call" in st_tool["parts"]
    assert (st_tool["finishReason"], st_tool["usage"], _tool_calls(st_tool)) == ("tool-calls", USAGE, [TOOL_CALL])
    assert st_tool["toolCalls"][0]["toolCallId"] == "call_s"

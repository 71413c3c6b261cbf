"""Streaming through the gateway, driven by the official SDKs' stream helpers, both directions:

- the `openai` SDK (`chat.completions.stream`, `create(stream=True)`) -> gateway (inbound
  openai_chat) -> a loopback upstream streaming Anthropic server-sent events;
- the `anthropic` SDK (`messages.stream`) -> gateway (inbound anthropic_messages) -> a loopback
  upstream streaming OpenAI chunks.

The final message each SDK accumulates must match what the upstream's stream assembles to.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx = pytest.importorskip("httpx")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from loopback import Reply  # noqa: E402
from recorded import ALL, Recorded  # noqa: E402
from test_gateway_sdks import TOOLS_ANTHROPIC, TOOLS_OPENAI, Gateway, Upstream  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402
from wiremap.runtime.stream import StreamAssembler, parse_stream  # noqa: E402


def assembled(rec: Recorded) -> dict[str, Any]:
    asm = StreamAssembler(rec.format)
    for ev in parse_stream(rec.body, rec.format):
        asm.add(ev)
    return asm.response().to_dict()


def sse(rec: Recorded) -> Reply:
    if rec.name == "dropped_connection":
        return Reply.truncated(rec.body + rec.body)
    return Reply(200, rec.body, content_type="text/event-stream")


def text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, list):
        return "".join(b["text"] for b in content if b["type"] == "text")
    return content or ""


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
def openai_gateway(anthropic_upstream: Upstream) -> Iterator[Gateway]:
    gw = Gateway(create_app("openai_chat", "anthropic_messages", anthropic_upstream.server.url))
    yield gw
    gw.stop()


@pytest.fixture(scope="module")
def anthropic_gateway(openai_upstream: Upstream) -> Iterator[Gateway]:
    gw = Gateway(create_app("anthropic_messages", "openai_chat", openai_upstream.server.url))
    yield gw
    gw.stop()


@pytest.fixture(scope="module")
def openai_client(openai_gateway: Gateway) -> Any:
    return openai.OpenAI(base_url=openai_gateway.url + "/v1", api_key="sk-client-key", max_retries=0, timeout=20)


@pytest.fixture(scope="module")
def anthropic_client(anthropic_gateway: Gateway) -> Any:
    return anthropic.Anthropic(base_url=anthropic_gateway.url, api_key="sk-ant-client", max_retries=0, timeout=20)


ANTHROPIC_OK = [r for r in ALL if r.format == "anthropic_messages" and not r.error]
OPENAI_OK = [r for r in ALL if r.format == "openai_chat" and not r.error]


@pytest.mark.parametrize("rec", ANTHROPIC_OK, ids=[r.name for r in ANTHROPIC_OK])
def test_openai_sdk_stream_helper(openai_client: Any, anthropic_upstream: Upstream, rec: Recorded) -> None:
    anthropic_upstream.replies.append(sse(rec))
    want = assembled(rec)
    with openai_client.chat.completions.stream(
        model="claude-sonnet-4-5", messages=[{"role": "user", "content": "Hi"}], tools=TOOLS_OPENAI, max_completion_tokens=64,
        stream_options={"include_usage": True},
    ) as stream:
        deltas: list[str] = []
        try:
            for ev in stream:
                if ev.type == "content.delta":
                    deltas.append(ev.delta)
            final = stream.get_final_completion()
        except openai.LengthFinishReasonError:  # the helper refuses to parse a cut answer; its snapshot is the final message
            final = stream.current_completion_snapshot
    sent = anthropic_upstream.last.json()
    assert sent["stream"] is True and "stream_options" not in sent and sent["tools"] == TOOLS_ANTHROPIC
    choice = final.choices[0]
    msg = want["message"]
    assert (choice.message.content or "") == text_of(msg)
    assert "".join(deltas) == text_of(msg)
    calls = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls or []]
    assert calls == [(c["id"], c["name"], c["arguments"]) for c in msg.get("tool_calls") or []]
    assert choice.finish_reason == {"stop": "stop", "length": "length", "tool_calls": "tool_calls"}[want["finish_reason"]]
    u = want["usage"]
    assert (final.usage.prompt_tokens, final.usage.completion_tokens, final.usage.total_tokens) == (u["prompt_tokens"], u["completion_tokens"], u["total_tokens"])


def test_openai_sdk_raw_iteration(openai_client: Any, anthropic_upstream: Upstream) -> None:
    """The documented loop without stream_options: every chunk has choices[0] (no usage chunk,
    as the OpenAI API sends none unless include_usage is asked for)."""
    rec = next(r for r in ANTHROPIC_OK if r.name == "text")
    anthropic_upstream.replies.append(sse(rec))
    chunks = list(openai_client.chat.completions.create(model="claude-sonnet-4-5", messages=[{"role": "user", "content": "Hi"}], stream=True))
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == "Héllo wörld 👋"
    assert chunks[0].id == "msg_01XF" and all(c.usage is None for c in chunks)


def test_openai_sdk_raw_iteration_with_include_usage(openai_client: Any, anthropic_upstream: Upstream) -> None:
    rec = next(r for r in ANTHROPIC_OK if r.name == "text")
    anthropic_upstream.replies.append(sse(rec))
    chunks = list(openai_client.chat.completions.create(model="claude-sonnet-4-5", messages=[{"role": "user", "content": "Hi"}],
                                                         stream=True, stream_options={"include_usage": True}))
    assert "".join(c.choices[0].delta.content or "" for c in chunks[:-1]) == "Héllo wörld 👋"
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens == 40


@pytest.mark.parametrize("rec", OPENAI_OK, ids=[r.name for r in OPENAI_OK])
def test_anthropic_sdk_stream_helper(anthropic_client: Any, openai_upstream: Upstream, rec: Recorded) -> None:
    openai_upstream.replies.append(sse(rec))
    want = assembled(rec)
    with anthropic_client.messages.stream(
        model="gpt-4o", max_tokens=64, messages=[{"role": "user", "content": "Hi"}], tools=TOOLS_ANTHROPIC,
    ) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    sent = openai_upstream.last.json()
    assert sent["stream"] is True and sent["stream_options"] == {"include_usage": True}
    msg = want["message"]
    assert text == text_of(msg)
    got_text = "".join(b.text for b in final.content if b.type == "text")
    assert got_text == text_of(msg)
    calls = [(b.id, b.name, b.input) for b in final.content if b.type == "tool_use"]
    assert calls == [(c["id"], c["name"], c["arguments"]) for c in msg.get("tool_calls") or []]
    thinking = [b.thinking for b in final.content if b.type == "thinking"]
    assert thinking == [b["text"] for b in (msg["content"] if isinstance(msg["content"], list) else []) if b["type"] == "thinking"]
    assert final.stop_reason == {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}[want["finish_reason"]]
    u = want["usage"]
    # Anthropic's input_tokens excludes cache reads and writes; canonical prompt_tokens includes them (docs/canonical.md Usage)
    cached, created = u.get("cached_tokens") or 0, u.get("cache_creation_tokens") or 0
    assert final.usage.input_tokens == (u["prompt_tokens"] or 0) - cached - created and final.usage.output_tokens == (u["completion_tokens"] or 0)
    assert (final.usage.cache_read_input_tokens or 0) == cached and (final.usage.cache_creation_input_tokens or 0) == created


@pytest.mark.parametrize("name", ["mid_stream_error", "dropped_connection"])
def test_openai_sdk_sees_mid_stream_errors(openai_client: Any, anthropic_upstream: Upstream, name: str) -> None:
    rec = next(r for r in ALL if r.format == "anthropic_messages" and r.name == name)
    anthropic_upstream.replies.append(sse(rec))
    seen = []
    with pytest.raises(openai.APIError):
        for chunk in openai_client.chat.completions.create(model="claude-sonnet-4-5", messages=[{"role": "user", "content": "Hi"}], stream=True):
            seen.append(chunk)
    assert "".join(c.choices[0].delta.content or "" for c in seen if c.choices) == "Partial"


@pytest.mark.parametrize("name", ["mid_stream_error", "malformed_json", "dropped_connection"])
def test_anthropic_sdk_sees_mid_stream_errors(anthropic_client: Any, openai_upstream: Upstream, name: str) -> None:
    rec = next(r for r in ALL if r.format == "openai_chat" and r.name == name)
    openai_upstream.replies.append(sse(rec))
    text = []
    with pytest.raises(anthropic.APIError):
        with anthropic_client.messages.stream(model="gpt-4o", max_tokens=64, messages=[{"role": "user", "content": "Hi"}]) as stream:
            for piece in stream.text_stream:
                text.append(piece)
    assert "".join(text).startswith("Partial")


def test_upstream_http_error_is_the_clients_own_error(openai_client: Any, anthropic_upstream: Upstream) -> None:
    anthropic_upstream.replies.append(Reply(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}, headers={"retry-after": "2"}))
    with pytest.raises(openai.RateLimitError):
        list(openai_client.chat.completions.create(model="claude-sonnet-4-5", messages=[{"role": "user", "content": "Hi"}], stream=True))


def test_losses_trailer(openai_gateway: Gateway, anthropic_upstream: Upstream) -> None:
    rec = next(r for r in ANTHROPIC_OK if r.name == "thinking_with_signatures")
    anthropic_upstream.replies.append(sse(rec))
    with httpx.stream(
        "POST", openai_gateway.url + "/v1/chat/completions", json={"model": "claude-sonnet-4-5", "stream": True, "messages": [{"role": "user", "content": "Hi"}]},
        headers={"authorization": "Bearer k"}, timeout=20,
    ) as resp:
        assert resp.headers["content-type"].startswith("text/event-stream")
        body = b"".join(resp.iter_raw())
    assert body.endswith(b"data: [DONE]\n\n")
    trailer = [line for line in body.decode().splitlines() if line.startswith(": wiremap-losses ")]
    assert len(trailer) == 1
    losses = json.loads(trailer[0][len(": wiremap-losses "):])
    # the signature and the redacted block have no place in an OpenAI stream
    assert {(x["path"], x["kind"]) for x in losses} >= {("message.content[0]", "dropped"), ("message.content[1]", "dropped")}
    assert b'"reasoning_content":"Let me solve "' in body

"""OpenRouter streaming through the gateway (its clients use the official `openai` SDK):

- the `openai` SDK's chat stream helper -> gateway (inbound openai_chat) -> a loopback upstream
  streaming OpenRouter chunks with `reasoning_details`; and the `anthropic` SDK the same way:
  the reasoning text arrives, the provider-bound entries do not leave OpenRouter;
- the `openai` SDK (raw chunks) -> gateway (inbound openrouter) -> an upstream streaming
  OpenRouter chunks: a passthrough, so the entries go back as OpenRouter streamed them, in order.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from recorded import ALL, Recorded  # noqa: E402
from test_gateway_sdks import TOOLS_ANTHROPIC, TOOLS_OPENAI, Gateway, Upstream  # noqa: E402
from test_gateway_streaming import assembled, sse, text_of  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402

OPENROUTER_OK = [r for r in ALL if r.format == "openrouter" and not r.error]


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


def client_for(inbound: str, up: Upstream) -> Iterator[Any]:
    gw = Gateway(create_app(inbound, "openrouter", up.server.url))
    if inbound == "anthropic_messages":
        yield anthropic.Anthropic(base_url=gw.url, api_key="sk-ant-client", max_retries=0, timeout=20)
    else:
        yield openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client-key", max_retries=0, timeout=20)
    gw.stop()


@pytest.fixture(scope="module")
def chat_client(upstream: Upstream) -> Iterator[Any]:
    yield from client_for("openai_chat", upstream)


@pytest.fixture(scope="module")
def messages_client(upstream: Upstream) -> Iterator[Any]:
    yield from client_for("anthropic_messages", upstream)


@pytest.fixture(scope="module")
def openrouter_client(upstream: Upstream) -> Iterator[Any]:
    yield from client_for("openrouter", upstream)


def thinking_texts(msg: dict[str, Any]) -> list[str]:
    return [b["text"] for b in (msg["content"] if isinstance(msg["content"], list) else []) if b["type"] == "thinking"]


@pytest.mark.parametrize("rec", OPENROUTER_OK, ids=[r.name for r in OPENROUTER_OK])
def test_openai_chat_helper_from_openrouter(chat_client: Any, upstream: Upstream, rec: Recorded) -> None:
    upstream.replies.append(sse(rec))
    want = assembled(rec)
    reasoning = []
    with chat_client.chat.completions.stream(model="anthropic/claude-sonnet-4.5", messages=[{"role": "user", "content": "Hi"}], tools=TOOLS_OPENAI,
                                             stream_options={"include_usage": True}) as stream:
        for ev in stream:
            if ev.type == "chunk" and ev.chunk.choices:
                extra = ev.chunk.choices[0].delta.model_extra or {}
                reasoning.append(extra.get("reasoning_content") or "")
        final = stream.get_final_completion()
    msg = want["message"]
    choice = final.choices[0]
    assert (choice.message.content or "") == text_of(msg)
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls or []] == \
        [(c["id"], c["name"], c["arguments"]) for c in msg.get("tool_calls") or []]
    assert "".join(reasoning) == "".join(thinking_texts(msg))  # the text is carried, as reasoning_content
    assert choice.finish_reason == want["finish_reason"]
    assert final.usage.total_tokens == want["usage"]["total_tokens"]


@pytest.mark.parametrize("rec", OPENROUTER_OK, ids=[r.name for r in OPENROUTER_OK])
def test_anthropic_helper_from_openrouter(messages_client: Any, upstream: Upstream, rec: Recorded) -> None:
    upstream.replies.append(sse(rec))
    want = assembled(rec)
    with messages_client.messages.stream(model="anthropic/claude-sonnet-4.5", max_tokens=64, messages=[{"role": "user", "content": "Hi"}], tools=TOOLS_ANTHROPIC) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    msg = want["message"]
    assert text == text_of(msg)
    thinking = [b for b in final.content if b.type == "thinking"]
    assert [b.thinking for b in thinking] == [t for t in thinking_texts(msg) if t]
    assert all(b.signature == "" for b in thinking)  # OpenRouter's entries are not Anthropic signatures
    assert not any(b.type == "redacted_thinking" for b in final.content)


def test_openrouter_client_gets_the_entries_back(openrouter_client: Any, upstream: Upstream) -> None:
    rec = next(r for r in OPENROUTER_OK if r.name == "reasoning_details_then_tool_calls")
    upstream.replies.append(sse(rec))
    chunks = list(openrouter_client.chat.completions.create(model="anthropic/claude-sonnet-4.5", messages=[{"role": "user", "content": "Hi"}], stream=True))
    # same format in and out is a passthrough (README, "Same format in and out"): the client gets
    # OpenRouter's own chunks, the entries in the pieces OpenRouter streamed, in order
    streamed = [json.loads(line[5:]) for line in rec.body.decode().splitlines() if line.startswith("data:") and line[5:].strip() != "[DONE]"]
    pieces = [d for c in streamed if c.get("choices") for d in c["choices"][0].get("delta", {}).get("reasoning_details") or []]
    details = [d for c in chunks if c.choices for d in (c.choices[0].delta.model_extra or {}).get("reasoning_details") or []]
    assert details == pieces and len(details) >= len((rec.equivalent or {})["choices"][0]["message"]["reasoning_details"])
    reasoning = "".join((c.choices[0].delta.model_extra or {}).get("reasoning") or "" for c in chunks if c.choices)
    assert reasoning == "Look up the weather."
    sent = upstream.last.json()
    assert sent["stream"] is True and "stream_options" not in sent  # the client's body, unchanged

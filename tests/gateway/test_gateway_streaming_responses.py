"""OpenAI Responses streaming through the gateway, driven by the official SDKs, both directions:

- the `openai` SDK's Responses stream helper (`responses.stream()`, `get_final_response()`) and
  raw `responses.create(stream=True)` -> gateway (inbound openai_responses) -> a loopback upstream
  streaming Anthropic server-sent events, and one streaming Responses events (same format);
- the `openai` SDK's chat stream helper and the `anthropic` SDK's `messages.stream()` -> gateway
  (inbound openai_chat / anthropic_messages) -> a loopback upstream streaming Responses events.

What each SDK accumulates must match what the upstream's stream assembles to.
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
from test_gateway_streaming import assembled, sse, text_of  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402

TOOLS_RESPONSES = [
    {"type": "function", "name": "get_weather", "description": "Weather for a city", "strict": False,
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
]
INPUT = [{"role": "user", "content": "Hi"}]
STATUS = {"stop": "completed", "tool_calls": "completed", "length": "incomplete", "content_filter": "incomplete", "error": "failed"}

ANTHROPIC_OK = [r for r in ALL if r.format == "anthropic_messages" and not r.error]
RESPONSES_OK = [r for r in ALL if r.format == "openai_responses" and not r.error]
RESPONSES_DONE = [r for r in RESPONSES_OK if r.name != "response_failed"]


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


def gateway(inbound: str, upstream_format: str, up: Upstream) -> Gateway:
    return Gateway(create_app(inbound, upstream_format, up.server.url))


@pytest.fixture(scope="module")
def responses_from_anthropic(upstream: Upstream) -> Iterator[Any]:
    gw = gateway("openai_responses", "anthropic_messages", upstream)
    yield openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client-key", max_retries=0, timeout=20)
    gw.stop()


@pytest.fixture(scope="module")
def responses_from_responses(upstream: Upstream) -> Iterator[Any]:
    gw = gateway("openai_responses", "openai_responses", upstream)
    yield openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client-key", max_retries=0, timeout=20)
    gw.stop()


@pytest.fixture(scope="module")
def chat_from_responses(upstream: Upstream) -> Iterator[Any]:
    gw = gateway("openai_chat", "openai_responses", upstream)
    yield openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client-key", max_retries=0, timeout=20)
    gw.stop()


@pytest.fixture(scope="module")
def messages_from_responses(upstream: Upstream) -> Iterator[Any]:
    gw = gateway("anthropic_messages", "openai_responses", upstream)
    yield anthropic.Anthropic(base_url=gw.url, api_key="sk-ant-client", max_retries=0, timeout=20)
    gw.stop()


def final_response(stream: Any, events: list[Any]) -> Any:
    """The helper's final Response; a response that ends incomplete is not `completed`, so the
    helper has none (get_final_response raises, as against the API): its closing event's is."""
    if events and events[-1].type == "response.incomplete":
        with pytest.raises(RuntimeError, match="response.completed"):
            stream.get_final_response()
        return events[-1].response
    return stream.get_final_response()


def final_calls(response: Any) -> list[tuple[str, str, Any]]:
    return [(o.call_id, o.name, json.loads(o.arguments)) for o in response.output if o.type == "function_call"]


def want_calls(msg: dict[str, Any]) -> list[tuple[str, str, Any]]:
    return [(c["id"], c["name"], c["arguments"]) for c in msg.get("tool_calls") or []]


def check_final(final: Any, want: dict[str, Any]) -> None:
    msg = want["message"]
    assert final.output_text == text_of(msg)
    assert final_calls(final) == want_calls(msg)
    assert final.status == STATUS[want["finish_reason"]]
    u = want["usage"]
    if u["prompt_tokens"] is not None:
        assert (final.usage.input_tokens, final.usage.output_tokens, final.usage.total_tokens) == (u["prompt_tokens"], u["completion_tokens"], u["total_tokens"])


# ------------------------------------------------------------------ the Responses SDK as the client


@pytest.mark.parametrize("rec", ANTHROPIC_OK, ids=[r.name for r in ANTHROPIC_OK])
def test_responses_stream_helper_from_anthropic(responses_from_anthropic: Any, upstream: Upstream, rec: Recorded) -> None:
    upstream.replies.append(sse(rec))
    want = assembled(rec)
    with responses_from_anthropic.responses.stream(model="claude-sonnet-4-5", input=INPUT, tools=TOOLS_RESPONSES, max_output_tokens=64) as stream:
        events = list(stream)
        final = final_response(stream, events)
    deltas = [ev.delta for ev in events if ev.type == "response.output_text.delta"]
    sent = upstream.last.json()
    assert sent["stream"] is True and sent["tools"] == [{**TOOLS_ANTHROPIC[0], "strict": False}] and sent["max_tokens"] == 64
    assert "".join(deltas) == text_of(want["message"])
    check_final(final, want)


@pytest.mark.parametrize("rec", RESPONSES_DONE, ids=[r.name for r in RESPONSES_DONE])
def test_responses_stream_helper_same_format(responses_from_responses: Any, upstream: Upstream, rec: Recorded) -> None:
    """Responses in, Responses out: reasoning items (their ids and encrypted content) survive."""
    upstream.replies.append(sse(rec))
    want = assembled(rec)
    with responses_from_responses.responses.stream(model="gpt-5", input=INPUT, tools=TOOLS_RESPONSES) as stream:
        events = list(stream)
        final = final_response(stream, events)
    sent = upstream.last.json()
    assert sent["stream"] is True and sent["tools"] == TOOLS_RESPONSES
    check_final(final, want)
    src_items = [i for i in (rec.equivalent or {}).get("output", []) if i["type"] == "reasoning"]
    got_items = [o.to_dict() for o in final.output if o.type == "reasoning"]
    assert got_items == src_items  # resendable as they came: id, summary, encrypted_content
    done = [e.item.to_dict() for e in events if e.type == "response.output_item.done" and e.item.type == "reasoning"]
    assert done == src_items


def test_responses_raw_iteration(responses_from_anthropic: Any, upstream: Upstream) -> None:
    rec = next(r for r in ANTHROPIC_OK if r.name == "parallel_tool_calls")
    upstream.replies.append(sse(rec))
    events = list(responses_from_anthropic.responses.create(model="claude-sonnet-4-5", input=INPUT, stream=True))
    types = [e.type for e in events]
    assert types[0] == "response.created" and types[-1] == "response.completed"
    assert [e.sequence_number for e in events] == list(range(len(events)))
    args = {e.output_index: e.arguments for e in events if e.type == "response.function_call_arguments.done"}
    assert [json.loads(a) for _i, a in sorted(args.items())] == [{"city": "Paris"}, {"city": "Oslo"}, {}]
    assert events[0].response.id == events[-1].response.id == "msg_01XF"


def test_responses_sdk_sees_a_mid_stream_error(responses_from_anthropic: Any, upstream: Upstream) -> None:
    rec = next(r for r in ALL if r.format == "anthropic_messages" and r.name == "mid_stream_error")
    upstream.replies.append(sse(rec))
    with responses_from_anthropic.responses.stream(model="claude-sonnet-4-5", input=INPUT) as stream:
        events = list(stream)
        with pytest.raises(RuntimeError, match="response.completed"):
            stream.get_final_response()
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == "Partial"
    assert events[-1].type == "error" and events[-1].message == "Overloaded"


def test_responses_upstream_http_error_is_the_clients_own(responses_from_anthropic: Any, upstream: Upstream) -> None:
    upstream.replies.append(Reply(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}, headers={"retry-after": "2"}))
    with pytest.raises(openai.RateLimitError):
        with responses_from_anthropic.responses.stream(model="claude-sonnet-4-5", input=INPUT) as stream:
            list(stream)


# ------------------------------------------------------------------ Responses as the upstream


@pytest.mark.parametrize("rec", RESPONSES_OK, ids=[r.name for r in RESPONSES_OK])
def test_chat_stream_helper_from_responses(chat_from_responses: Any, upstream: Upstream, rec: Recorded) -> None:
    upstream.replies.append(sse(rec))
    want = assembled(rec)
    with chat_from_responses.chat.completions.stream(
        model="gpt-5", messages=[{"role": "user", "content": "Hi"}], tools=TOOLS_OPENAI, stream_options={"include_usage": True},
    ) as stream:
        try:
            for _ev in stream:
                pass
            final = stream.get_final_completion()
        except openai.LengthFinishReasonError:  # the helper refuses to parse a cut answer; its snapshot is the final message
            final = stream.current_completion_snapshot
    sent = upstream.last.json()
    assert sent["stream"] is True and "stream_options" not in sent
    choice = final.choices[0]
    msg = want["message"]
    assert (choice.message.content or "") == text_of(msg)
    calls = [(c.id, c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls or []]
    assert calls == want_calls(msg)
    # chat has no `error` finish reason: a failed response arrives as stop (reported in the losses trailer)
    assert choice.finish_reason == {"stop": "stop", "length": "length", "tool_calls": "tool_calls", "error": "stop"}[want["finish_reason"]]
    u = want["usage"]
    if u["prompt_tokens"] is not None:
        assert (final.usage.prompt_tokens, final.usage.completion_tokens, final.usage.total_tokens) == (u["prompt_tokens"], u["completion_tokens"], u["total_tokens"])


@pytest.mark.parametrize("rec", RESPONSES_DONE, ids=[r.name for r in RESPONSES_DONE])
def test_anthropic_stream_helper_from_responses(messages_from_responses: Any, upstream: Upstream, rec: Recorded) -> None:
    upstream.replies.append(sse(rec))
    want = assembled(rec)
    with messages_from_responses.messages.stream(model="gpt-5", max_tokens=64, messages=[{"role": "user", "content": "Hi"}], tools=TOOLS_ANTHROPIC) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    msg = want["message"]
    assert text == text_of(msg)
    calls = [(b.id, b.name, b.input) for b in final.content if b.type == "tool_use"]
    assert calls == want_calls(msg)
    # OpenAI reasoning is provider-bound: its summary text is carried, its item (signature) is not
    thinking = [b.thinking for b in final.content if b.type == "thinking"]
    assert thinking == [b["text"] for b in (msg["content"] if isinstance(msg["content"], list) else []) if b["type"] == "thinking" and b["text"]]
    assert final.stop_reason == {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}[want["finish_reason"]]
    u = want["usage"]
    # Anthropic's input_tokens excludes cache reads and writes; canonical prompt_tokens includes them (docs/canonical.md Usage)
    cached, created = u.get("cached_tokens") or 0, u.get("cache_creation_tokens") or 0
    assert (final.usage.input_tokens, final.usage.output_tokens) == (u["prompt_tokens"] - cached - created, u["completion_tokens"])
    assert (final.usage.cache_read_input_tokens or 0) == cached and (final.usage.cache_creation_input_tokens or 0) == created


@pytest.mark.parametrize("name", ["mid_stream_error", "dropped_connection"])
def test_chat_sdk_sees_responses_mid_stream_errors(chat_from_responses: Any, upstream: Upstream, name: str) -> None:
    rec = next(r for r in ALL if r.format == "openai_responses" and r.name == name)
    upstream.replies.append(sse(rec))
    seen = []
    with pytest.raises(openai.APIError):
        for chunk in chat_from_responses.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "Hi"}], stream=True):
            seen.append(chunk)
    assert "".join(c.choices[0].delta.content or "" for c in seen if c.choices) == "Partial"

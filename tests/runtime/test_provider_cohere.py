"""The Provider speaking Cohere v2 chat to a loopback server: the transport row (POST /v2/chat,
bearer key, the key from CO_API_KEY or else COHERE_API_KEY as the cohere SDK reads it), the
ready() probe on GET /v1/models, a streamed answer assembled, and an error body typed."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from loopback import LoopbackServer, Reply, Seen  # noqa: E402
from recorded import COHERE  # noqa: E402

import wiremap  # noqa: E402
from wiremap.runtime.errors import RateLimitError  # noqa: E402

KEY = "co-" + "k" * 40
OTHER = "co-" + "o" * 40
BODY = {"id": "r1", "finish_reason": "COMPLETE", "message": {"role": "assistant", "content": [{"type": "text", "text": "Hi!"}]},
        "usage": {"billed_units": {"input_tokens": 2, "output_tokens": 2}, "tokens": {"input_tokens": 20, "output_tokens": 2}}}


class Server:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.server = LoopbackServer(self._handle)

    def _handle(self, seen: Seen) -> Reply:
        return self.replies.pop(0)


@pytest.fixture()
def server() -> Iterator[Server]:
    s = Server()
    with s.server:
        yield s


@pytest.fixture()
def no_keys(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    monkeypatch.delenv("CO_API_KEY", raising=False)
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    return monkeypatch


def test_the_key_from_cohere_api_key_when_co_api_key_is_unset(server: Server, no_keys: pytest.MonkeyPatch) -> None:
    no_keys.setenv("COHERE_API_KEY", KEY)
    server.replies.append(Reply(200, BODY))
    p = wiremap.Provider("cohere_chat", model="command-a-03-2025", base_url=server.server.url)
    response = p.complete_sync([{"role": "user", "content": "Hi"}], config={"top_p": 0.5})
    (seen,) = server.server.requests
    assert seen.method == "POST" and seen.path == "/v2/chat"
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.json() == {"model": "command-a-03-2025", "messages": [{"role": "user", "content": "Hi"}], "p": 0.5}
    assert response.message.content == "Hi!" and response.usage.prompt_tokens == 20


def test_co_api_key_comes_first(server: Server, no_keys: pytest.MonkeyPatch) -> None:
    no_keys.setenv("CO_API_KEY", KEY)
    no_keys.setenv("COHERE_API_KEY", OTHER)
    server.replies.append(Reply(200, BODY))
    wiremap.Provider("cohere_chat", model="m", base_url=server.server.url).complete_sync([{"role": "user", "content": "Hi"}])
    assert server.server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_no_key_names_both_variables(no_keys: pytest.MonkeyPatch) -> None:
    p = wiremap.Provider("cohere_chat", model="m", base_url="http://127.0.0.1:9")
    with pytest.raises(wiremap.ProviderError, match="CO_API_KEY or COHERE_API_KEY"):
        p.complete_sync([{"role": "user", "content": "Hi"}])


def test_ready_lists_models_by_name(server: Server) -> None:
    server.replies.append(Reply(200, {"models": [{"name": "command-a-03-2025", "endpoints": ["chat"]}], "next_page_token": None}))
    wiremap.Provider("cohere_chat", model="command-a-03-2025", api_key=KEY, base_url=server.server.url).ready_sync()
    assert server.server.requests[0].path == "/v1/models"


def test_a_stream_is_assembled(server: Server) -> None:
    rec = next(r for r in COHERE if r.name == "thinking_plan_tool_calls")
    server.replies.append(Reply(200, rec.body, content_type="text/event-stream"))
    p = wiremap.Provider("cohere_chat", model="command-a-reasoning-08-2025", api_key=KEY, base_url=server.server.url)
    stream = p.stream_sync([{"role": "user", "content": "Weather in Paris and Oslo?"}],
                           tools=[{"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}])
    kinds = [ev["type"] for ev in stream]
    assert server.server.requests[0].json()["stream"] is True
    assert kinds.count("tool_call_start") == 2 and "reasoning_delta" in kinds
    response: Any = stream.response
    assert [c.arguments for c in response.message.tool_calls] == [{"city": "Paris"}, {"city": "Oslo"}]
    assert response.finish_reason == "tool_calls" and response.usage.prompt_tokens == 215


def test_a_rate_limit_is_typed(server: Server) -> None:
    server.replies.append(Reply(429, {"message": "trial key limit"}, headers={"retry-after": "2"}))
    p = wiremap.Provider("cohere_chat", model="m", api_key=KEY, base_url=server.server.url, max_retries=0)
    with pytest.raises(RateLimitError) as caught:
        p.complete_sync([{"role": "user", "content": "Hi"}])
    assert "trial key limit" in caught.value.message and caught.value.retry_after == pytest.approx(2, abs=1)

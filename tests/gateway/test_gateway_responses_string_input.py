"""The official `openai` SDK's `client.responses.create(input="...")` (the string form of
`input`) through the gateway (inbound openai_responses) to loopback upstreams of other formats.

`ResponseCreateParams.input` is `Union[str, ResponseInputParam]`; the string is "a text input to
the model, equivalent to a text input with the `user` role" (mappings/openai_responses.yaml
`user.bare_string: read`, docs/wire-notes.md §13.2). Each test checks what the SDK put on the
wire (the string, not a list), what the upstream received in its own format, and what the SDK
parsed back.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
httpx = pytest.importorskip("httpx")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "stream"))
from loopback import Reply  # noqa: E402
from recorded import ALL  # noqa: E402
from test_gateway_sdks import Gateway, Upstream, anthropic_message, chat_completion  # noqa: E402
from test_gateway_streaming import assembled, sse, text_of  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402

#: upstream format -> (its reply, the body it must receive for instructions="Be brief." + input="Hello")
UPSTREAMS: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "anthropic_messages": (
        anthropic_message([{"type": "text", "text": "Hi there!"}]),
        {"model": "some-model", "system": "Be brief.", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}], "max_tokens": 4096},
    ),
    "openai_chat": (
        chat_completion({"content": "Hi there!"}),
        {"model": "some-model", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}]},
    ),
}


class Client:
    """An openai SDK client on a gateway, recording the request bodies the SDK sends."""

    def __init__(self, upstream_format: str, upstream: Upstream) -> None:
        self.gateway = Gateway(create_app("openai_responses", upstream_format, upstream.server.url))
        self.sent: list[Any] = []
        http = httpx.Client(event_hooks={"request": [self._record]}, timeout=20)
        self.sdk = openai.OpenAI(base_url=self.gateway.url + "/v1", api_key="sk-client-key", max_retries=0, http_client=http)

    def _record(self, request: Any) -> None:
        request.read()
        self.sent.append(json.loads(request.content))


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


@pytest.fixture(scope="module")
def clients(upstream: Upstream) -> Iterator[dict[str, Client]]:
    made = {fmt: Client(fmt, upstream) for fmt in UPSTREAMS}
    yield made
    for client in made.values():
        client.sdk.close()
        client.gateway.stop()


def test_string_input_is_one_user_turn(clients: dict[str, Client], upstream: Upstream) -> None:
    client = clients["anthropic_messages"]
    upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "Hi there!"}])))
    out = client.sdk.responses.create(model="claude-sonnet-4-5", input="Hello")
    assert client.sent[-1] == {"model": "claude-sonnet-4-5", "input": "Hello"}  # the SDK sent the string form
    assert upstream.last.path == "/v1/messages"
    assert upstream.last.json() == {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}], "max_tokens": 4096}
    assert upstream.last.headers["x-api-key"] == "sk-client-key"
    assert out.output_text == "Hi there!" and out.status == "completed"


@pytest.mark.parametrize("upstream_format", sorted(UPSTREAMS))
def test_string_input_after_instructions(clients: dict[str, Client], upstream: Upstream, upstream_format: str) -> None:
    client = clients[upstream_format]
    reply, expected = UPSTREAMS[upstream_format]
    upstream.replies.append(Reply(200, reply))
    out = client.sdk.responses.create(model="some-model", instructions="Be brief.", input="Hello")
    assert client.sent[-1] == {"model": "some-model", "instructions": "Be brief.", "input": "Hello"}
    assert upstream.last.json() == expected
    assert out.output_text == "Hi there!"
    assert (out.usage.input_tokens, out.usage.output_tokens, out.usage.total_tokens) == (12, 6, 18)


def test_streamed_string_input(clients: dict[str, Client], upstream: Upstream) -> None:
    client = clients["anthropic_messages"]
    rec = next(r for r in ALL if r.format == "anthropic_messages" and r.name == "text")
    upstream.replies.append(sse(rec))
    events = list(client.sdk.responses.create(model="claude-sonnet-4-5", input="Hello", stream=True))
    assert client.sent[-1] == {"model": "claude-sonnet-4-5", "input": "Hello", "stream": True}
    sent = upstream.last.json()
    assert sent["stream"] is True and sent["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hello"}]}]
    assert events[0].type == "response.created" and events[-1].type == "response.completed"
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert text == text_of(assembled(rec)["message"]) and text


def test_empty_string_input_is_the_clients_bad_request(clients: dict[str, Client], upstream: Upstream) -> None:
    client = clients["anthropic_messages"]
    before = len(upstream.server.requests)
    with pytest.raises(openai.BadRequestError) as info:
        client.sdk.responses.create(model="claude-sonnet-4-5", input="")
    assert client.sent[-1] == {"model": "claude-sonnet-4-5", "input": ""}
    assert info.value.status_code == 400
    message = info.value.body["message"]  # the SDK's error body is the envelope's `error` object
    assert message.startswith("input: ") and "non-empty string" in message, message
    assert len(upstream.server.requests) == before, "nothing reached the upstream"

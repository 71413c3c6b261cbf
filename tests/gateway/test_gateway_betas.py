"""Anthropic beta flags through the gateway, driven by the official anthropic SDK (issue 17).

Betas are the canonical `config.betas`; each Anthropic wire carries them its own way
(request.options `betas` of its table):

- first-party Messages and Vertex: the `anthropic-beta` request header, comma-separated
  (`client.beta.messages.create(betas=[...])`, `extra_headers={"anthropic-beta": ...}`);
- Bedrock InvokeModel: the body's `anthropic_beta` list (AnthropicBedrock copies the header there).

So an Anthropic client's header reaches a Bedrock upstream as the body list, an AnthropicBedrock
client's body list reaches an Anthropic upstream as the header, a Vertex client's header stays a
header, and an upstream with no betas row (OpenAI) names them in `x-wiremap-losses`."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

anthropic = pytest.importorskip("anthropic")
pytest.importorskip("uvicorn")
pytest.importorskip("botocore")  # AnthropicBedrock's stream decoder

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import Reply  # noqa: E402
from test_gateway_cloud_sdks import ANTHROPIC_EVENTS, ANTHROPIC_MESSAGE, MODEL_BEDROCK, MODEL_VERTEX, chunk  # noqa: E402
from test_gateway_sdks import Gateway, Upstream, chat_completion  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402

BETAS = ["context-1m-2025-08-07", "interleaved-thinking-2025-05-14"]
MESSAGES = [{"role": "user", "content": "Hi"}]


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


def gateway(inbound: str, outbound: str, up: Upstream) -> Gateway:
    return Gateway(create_app(inbound, outbound, up.server.url))


def anthropic_client(gw: Gateway) -> Any:
    return anthropic.Anthropic(base_url=gw.url, api_key="sk-ant-client", max_retries=0, timeout=20)


def bedrock_client(gw: Gateway) -> Any:
    return anthropic.AnthropicBedrock(base_url=gw.url, aws_region="us-east-1", api_key="ABSK-key", max_retries=0, timeout=20)


def vertex_client(gw: Gateway) -> Any:
    return anthropic.AnthropicVertex(base_url=gw.url + "/v1", region="us-east5", project_id="my-proj",
                                     access_token="ya29.client-token", max_retries=0, timeout=20)


@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_client_betas_reach_bedrock_in_the_body(upstream: Upstream, stream: bool) -> None:
    gw = gateway("anthropic_messages", "anthropic.bedrock", upstream)
    try:
        client = anthropic_client(gw)
        if stream:
            upstream.replies.append(Reply(200, b"".join(chunk(e) for e in ANTHROPIC_EVENTS), content_type="application/vnd.amazon.eventstream"))
            events = list(client.beta.messages.create(model=MODEL_BEDROCK, max_tokens=20, messages=MESSAGES, betas=BETAS, stream=True))
            assert "".join(e.delta.text for e in events if e.type == "content_block_delta") == "Hi there"
        else:
            upstream.replies.append(Reply(200, ANTHROPIC_MESSAGE))
            out = client.beta.messages.create(model=MODEL_BEDROCK, max_tokens=20, messages=MESSAGES, betas=BETAS)
            assert out.content[0].text == "Hi there"
        sent = upstream.last
        body = sent.json()
        assert body["anthropic_beta"] == BETAS
        assert body["anthropic_version"] == "bedrock-2023-05-31"
        assert "anthropic-beta" not in sent.headers  # Bedrock reads the body list
    finally:
        gw.stop()


def test_anthropic_client_beta_header_via_extra_headers(upstream: Upstream) -> None:
    gw = gateway("anthropic_messages", "anthropic.bedrock", upstream)
    try:
        upstream.replies.append(Reply(200, ANTHROPIC_MESSAGE))
        anthropic_client(gw).messages.create(
            model=MODEL_BEDROCK, max_tokens=20, messages=MESSAGES,
            extra_headers={"anthropic-beta": "context-1m-2025-08-07, token-efficient-tools-2025-02-19"},
        )
        assert upstream.last.json()["anthropic_beta"] == ["context-1m-2025-08-07", "token-efficient-tools-2025-02-19"]
    finally:
        gw.stop()


@pytest.mark.parametrize("stream", [False, True])
def test_bedrock_client_betas_reach_anthropic_as_the_header(upstream: Upstream, stream: bool) -> None:
    gw = gateway("anthropic.bedrock", "anthropic_messages", upstream)
    try:
        client = bedrock_client(gw)
        if stream:
            sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in ANTHROPIC_EVENTS)
            upstream.replies.append(Reply(200, sse, content_type="text/event-stream"))
            events = list(client.messages.create(model=MODEL_BEDROCK, max_tokens=20, messages=MESSAGES, stream=True,
                                                 extra_headers={"anthropic-beta": ",".join(BETAS)}))
            assert "".join(e.delta.text for e in events if e.type == "content_block_delta") == "Hi there"
        else:
            upstream.replies.append(Reply(200, ANTHROPIC_MESSAGE))
            out = client.beta.messages.create(model=MODEL_BEDROCK, max_tokens=20, messages=MESSAGES, betas=BETAS)
            assert out.content[0].text == "Hi there"
        sent = upstream.last
        assert sent.path == "/v1/messages"
        assert sent.headers["anthropic-beta"] == ",".join(BETAS)
        body = sent.json()
        assert "anthropic_beta" not in body and "anthropic_version" not in body
    finally:
        gw.stop()


def test_bedrock_client_betas_named_as_lost_for_openai(upstream: Upstream) -> None:
    gw = gateway("anthropic.bedrock", "openai_chat", upstream)
    try:
        upstream.replies.append(Reply(200, chat_completion({"content": "Hello!"})))
        raw = bedrock_client(gw).beta.messages.with_raw_response.create(model=MODEL_BEDROCK, max_tokens=20, messages=MESSAGES, betas=BETAS)
        losses = json.loads(raw.headers["x-wiremap-losses"])
        lost = [loss for loss in losses if loss["path"] == "config.betas"]
        assert len(lost) == 1 and lost[0]["kind"] == "dropped"
        assert all(beta in lost[0]["detail"] for beta in BETAS)
        assert "anthropic_beta" not in upstream.last.json()
    finally:
        gw.stop()


def test_anthropic_client_betas_named_as_lost_for_openai(upstream: Upstream) -> None:
    gw = gateway("anthropic_messages", "openai_chat", upstream)
    try:
        upstream.replies.append(Reply(200, chat_completion({"content": "Hello!"})))
        raw = anthropic_client(gw).beta.messages.with_raw_response.create(model="claude-x", max_tokens=20, messages=MESSAGES, betas=BETAS)
        lost = [loss for loss in json.loads(raw.headers["x-wiremap-losses"]) if loss["path"] == "config.betas"]
        assert len(lost) == 1 and "context-1m-2025-08-07" in lost[0]["detail"]
        assert "anthropic-beta" not in upstream.last.headers
    finally:
        gw.stop()


def test_vertex_client_betas_stay_a_header(upstream: Upstream) -> None:
    gw = gateway("anthropic.vertex", "anthropic_messages", upstream)
    try:
        upstream.replies.append(Reply(200, ANTHROPIC_MESSAGE))
        out = vertex_client(gw).beta.messages.create(model=MODEL_VERTEX, max_tokens=20, messages=MESSAGES, betas=BETAS)
        assert out.content[0].text == "Hi there"
        sent = upstream.last
        assert sent.headers["anthropic-beta"] == ",".join(BETAS)
        assert "anthropic_beta" not in sent.json()
    finally:
        gw.stop()


def test_anthropic_client_betas_reach_vertex_as_the_header(upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "proj-1")
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
    gw = gateway("anthropic_messages", "anthropic.vertex", upstream)
    try:
        upstream.replies.append(Reply(200, ANTHROPIC_MESSAGE))
        anthropic_client(gw).beta.messages.create(model=MODEL_VERTEX, max_tokens=20, messages=MESSAGES, betas=BETAS)
        sent = upstream.last
        assert sent.path.endswith(":rawPredict")
        assert sent.headers["anthropic-beta"] == ",".join(BETAS)
        assert "anthropic_beta" not in sent.json()
    finally:
        gw.stop()

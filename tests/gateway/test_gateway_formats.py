"""Every chat format can front the gateway, and every one can be its upstream (plain httpx
clients speaking each format's own wire, built by its own tables)."""

from __future__ import annotations

import re

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
import httpx  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import Reply  # noqa: E402
from test_gateway_sdks import Gateway, Upstream  # noqa: E402

import wiremap  # noqa: E402
from wiremap.gateway import create_app  # noqa: E402

CHAT = [k for k in wiremap.formats() if "." not in k and wiremap.get_format(k).kind == "chat" and wiremap.get_format(k).transport]
REQUEST = {"model": "some-model", "messages": [{"role": "user", "content": "Hi"}], "config": {"max_tokens": 16}}
ANSWER = {"message": {"role": "assistant", "content": "Hello back"}, "finish_reason": "stop", "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}, "raw": {}}


def _path(fmt: Any, model: str) -> str:
    # the path-bound field is the request's model field (`{model}`, Bedrock's `{modelId}`)
    return re.sub(r"\{[A-Za-z_]+\}", model, str(fmt.transport["endpoint"]["path"]), count=1)


def _auth(fmt: Any) -> dict[str, str]:
    auth = fmt.transport.get("auth") or {}
    if auth.get("scheme") == "header":
        return {auth["name"]: "client-key"}
    return {"authorization": "Bearer client-key"}


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


@pytest.mark.parametrize("inbound", CHAT)
def test_each_format_fronts_the_gateway(inbound: str, upstream: Upstream) -> None:
    fmt = wiremap.get_format(inbound)
    gw = Gateway(create_app(inbound, "anthropic_messages", upstream.server.url))
    try:
        upstream.replies.append(Reply(200, wiremap.get_format("anthropic_messages").response_to_wire(ANSWER)))
        body = fmt.request_to_wire(REQUEST)
        if "{model}" in str(fmt.transport["endpoint"]["path"]):
            body.pop("model", None)  # bound to the URL path, as its clients send it
        r = httpx.post(gw.url + _path(fmt, "some-model"), json=body, headers=_auth(fmt), timeout=20)
        assert r.status_code == 200, r.text
        out = fmt.response_from_wire(r.json())
        assert out.message.to_dict()["content"] in ("Hello back", [{"type": "text", "text": "Hello back"}])
        assert out.finish_reason == "stop"
        sent = upstream.last.json()
        assert sent["model"] == "some-model" and sent["messages"][0]["content"] == [{"type": "text", "text": "Hi"}]
        assert upstream.last.headers["x-api-key"] == "client-key"
    finally:
        gw.stop()


@pytest.mark.parametrize("target", CHAT)
def test_each_format_is_an_upstream(target: str, upstream: Upstream) -> None:
    fmt = wiremap.get_format(target)
    gw = Gateway(create_app("openai_chat", target, upstream.server.url))
    try:
        upstream.replies.append(Reply(200, fmt.response_to_wire(ANSWER)))
        r = httpx.post(gw.url + "/v1/chat/completions", json={"model": "some-model", "messages": [{"role": "user", "content": "Hi"}]}, headers={"authorization": "Bearer client-key"}, timeout=20)
        assert r.status_code == 200, r.text
        assert r.json()["choices"][0]["message"]["content"] == "Hello back"
        assert upstream.last.path == _path(fmt, "some-model").split("?")[0]
    finally:
        gw.stop()


def test_same_format_gateway_keeps_what_no_row_reads(upstream: Upstream) -> None:
    """Anthropic in, Anthropic upstream: cache_control, a server tool and its blocks and an
    unknown top-level field reach the upstream as the client sent them, and the upstream's own
    response fields reach the client (issue #14: the same format in and out is the identity)."""
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 1}],
        "metadata": {"user_id": "u-1"},
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "news?", "cache_control": {"type": "ephemeral"}}]},
            {"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "news"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                {"type": "text", "text": "Nothing new."},
            ]},
            {"role": "user", "content": "thanks"},
        ],
    }
    answer = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "ok", "citations": None}],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": 100,
                  "cache_creation_input_tokens": 0, "service_tier": "standard"},
    }
    gw = Gateway(create_app("anthropic_messages", "anthropic_messages", upstream.server.url))
    try:
        upstream.replies.append(Reply(200, answer))
        r = httpx.post(gw.url + "/v1/messages", json=body, headers={"x-api-key": "client-key"}, timeout=20)
        assert r.status_code == 200, r.text
        assert upstream.last.json() == body
        assert r.json() == answer
        assert "x-wiremap-losses" not in r.headers
    finally:
        gw.stop()

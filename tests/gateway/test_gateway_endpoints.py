"""The gateway's endpoints besides chat, and same-format passthrough (wiremap.gateway_endpoints).

Driven by the official `openai` and `anthropic` SDKs (and raw httpx where bytes matter) against
the gateway in uvicorn on 127.0.0.1 and a loopback upstream: the model list translated both
ways, /health and /ready, count_tokens passed through / translated / refused with 501, the 404
envelope of each inbound format, and passthrough that keeps the bytes (JSON and a stream).
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
from loopback import Reply, refused_url  # noqa: E402
from test_gateway_sdks import Gateway, Upstream  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402

ANTHROPIC_MODELS = {
    "data": [
        {"type": "model", "id": "claude-sonnet-5", "display_name": "Claude Sonnet 5", "created_at": "2026-02-01T00:00:00Z"},
        {"type": "model", "id": "claude-haiku-5", "display_name": "Claude Haiku 5", "created_at": "2026-01-01T12:00:00Z"},
    ],
    "has_more": False, "first_id": "claude-sonnet-5", "last_id": "claude-haiku-5",
}
OPENAI_MODELS = {
    "object": "list",
    "data": [
        {"id": "gpt-5", "object": "model", "created": 1767225600, "owned_by": "openai"},
        {"id": "gpt-5-mini", "object": "model", "created": 1767312000, "owned_by": "system"},
    ],
}


@pytest.fixture()
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


@pytest.fixture()
def serve() -> Iterator[Any]:
    """serve(inbound, upstream_format, url, **options) -> a running Gateway; all stopped at the end."""
    running: list[Gateway] = []

    def start(inbound: str, upstream_format: str, url: str, **options: Any) -> Gateway:
        gw = Gateway(create_app(inbound, upstream_format, url, **options))
        running.append(gw)
        return gw

    yield start
    for gw in running:
        gw.stop()


# ============================================================ GET /v1/models


def test_openai_sdk_lists_anthropic_models(serve: Any, upstream: Upstream) -> None:
    gw = serve("openai_chat", "anthropic_messages", upstream.server.url)
    client = openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client", max_retries=0, timeout=20)
    upstream.replies.append(Reply(200, ANTHROPIC_MODELS))
    models = list(client.models.list())
    sent = upstream.last
    assert (sent.method, sent.path, sent.query) == ("GET", "/v1/models", {"limit": ["1000"]})
    assert sent.headers["x-api-key"] == "sk-client" and "anthropic-version" in sent.headers
    assert [(m.id, m.object, m.created, m.owned_by) for m in models] == [
        ("claude-sonnet-5", "model", 1769904000, "anthropic"),
        ("claude-haiku-5", "model", 1767268800, "anthropic"),
    ]


def test_anthropic_sdk_lists_openai_models(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "openai_chat", upstream.server.url)
    client = anthropic.Anthropic(base_url=gw.url, api_key="sk-ant-client", max_retries=0, timeout=20)
    upstream.replies.append(Reply(200, OPENAI_MODELS))
    page = client.models.list()
    assert upstream.last.path == "/v1/models" and upstream.last.headers["authorization"] == "Bearer sk-ant-client"
    assert [(m.id, m.type, m.display_name, m.created_at.isoformat()) for m in page.data] == [
        ("gpt-5", "model", "gpt-5", "2026-01-01T00:00:00+00:00"),
        ("gpt-5-mini", "model", "gpt-5-mini", "2026-01-02T00:00:00+00:00"),
    ]
    assert (page.has_more, page.first_id, page.last_id) == (False, "gpt-5", "gpt-5-mini")


def test_gemini_inbound_lists_models_with_its_names(serve: Any, upstream: Upstream) -> None:
    gw = serve("gemini_generate_content", "openai_chat", upstream.server.url)
    upstream.replies.append(Reply(200, OPENAI_MODELS))
    answer = httpx.get(gw.url + "/v1beta/models", headers={"x-goog-api-key": "g-key"}, timeout=20)
    assert answer.status_code == 200
    assert [m["name"] for m in answer.json()["models"]] == ["models/gpt-5", "models/gpt-5-mini"]


def test_models_upstream_error_is_the_inbound_envelope(serve: Any, upstream: Upstream) -> None:
    gw = serve("openai_chat", "anthropic_messages", upstream.server.url)
    client = openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-bad", max_retries=0, timeout=20)
    upstream.replies.append(Reply(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}))
    with pytest.raises(openai.AuthenticationError) as caught:
        client.models.list()
    assert "invalid x-api-key" in str(caught.value)


def test_models_malformed_upstream_list_is_a_typed_error(serve: Any, upstream: Upstream) -> None:
    gw = serve("openai_chat", "anthropic_messages", upstream.server.url)
    client = openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client", max_retries=0, timeout=20)
    upstream.replies.append(Reply(200, {"models": []}))
    with pytest.raises(openai.APIStatusError) as caught:
        client.models.list()
    assert caught.value.status_code >= 500 and "'data'" in str(caught.value)


# ============================================================ /health, /ready


def test_health_answers_without_the_upstream(serve: Any) -> None:
    gw = serve("openai_chat", "anthropic_messages", refused_url())
    answer = httpx.get(gw.url + "/health", timeout=20)
    assert answer.status_code == 200 and answer.json() == {"status": "ok", "inbound": "openai_chat", "upstream": "anthropic_messages"}


def test_ready_lists_the_upstream_models(serve: Any, upstream: Upstream) -> None:
    gw = serve("openai_chat", "anthropic_messages", upstream.server.url, upstream_api_key="sk-gateway")
    upstream.replies.append(Reply(200, ANTHROPIC_MODELS))
    answer = httpx.get(gw.url + "/ready", timeout=20)
    assert answer.status_code == 200 and answer.json() == {"status": "ready", "upstream": "anthropic_messages", "models": 2}
    assert upstream.last.headers["x-api-key"] == "sk-gateway"

    upstream.replies.append(Reply(200, ANTHROPIC_MODELS))
    answer = httpx.get(gw.url + "/ready", params={"model": "claude-haiku-5"}, timeout=20)
    assert answer.status_code == 200 and answer.json()["model"] == "claude-haiku-5"

    upstream.replies.append(Reply(200, ANTHROPIC_MODELS))
    answer = httpx.get(gw.url + "/ready", params={"model": "claude-opus-9"}, timeout=20)
    assert answer.status_code == 503
    assert answer.json()["error"]["category"] == "provider_invalid_model" and "claude-opus-9" in answer.json()["error"]["message"]


def test_ready_fails_when_the_upstream_is_down(serve: Any) -> None:
    gw = serve("anthropic_messages", "openai_chat", refused_url(), upstream_api_key="sk-gateway")
    answer = httpx.get(gw.url + "/ready", timeout=20)
    assert answer.status_code == 503
    body = answer.json()
    assert body["status"] == "unavailable" and body["error"]["category"] == "provider_unavailable"
    assert "127.0.0.1" not in body["error"]["message"]  # transport detail stays in the log


def test_ready_fails_when_the_upstream_refuses_the_key(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "openai_chat", upstream.server.url)
    upstream.replies.append(Reply(401, {"error": {"message": "bad key", "type": "invalid_request_error", "code": "invalid_api_key"}}))
    answer = httpx.get(gw.url + "/ready", headers={"x-api-key": "sk-wrong"}, timeout=20)
    assert answer.status_code == 503 and answer.json()["error"]["category"] == "provider_authentication"


# ============================================================ count_tokens


def test_count_tokens_passthrough(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "anthropic_messages", upstream.server.url)
    client = anthropic.Anthropic(base_url=gw.url, api_key="sk-ant-client", max_retries=0, timeout=20)
    upstream.replies.append(Reply(200, b'{"input_tokens":  17}', content_type="application/json"))
    out = client.messages.count_tokens(model="claude-sonnet-5", messages=[{"role": "user", "content": "Hi"}], system="Be brief.")
    assert out.input_tokens == 17
    sent = upstream.last
    assert sent.path == "/v1/messages/count_tokens" and sent.headers["x-api-key"] == "sk-ant-client"
    assert sent.json() == {"model": "claude-sonnet-5", "messages": [{"role": "user", "content": "Hi"}], "system": "Be brief."}


def test_count_tokens_translated_to_the_upstream_counter(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "openai_responses", upstream.server.url)
    client = anthropic.Anthropic(base_url=gw.url, api_key="sk-ant-client", max_retries=0, timeout=20)
    upstream.replies.append(Reply(200, {"object": "response.input_tokens", "input_tokens": 42}))
    out = client.messages.count_tokens(model="gpt-5", messages=[{"role": "user", "content": "Hi"}], system="Be brief.")
    assert out.input_tokens == 42
    sent = upstream.last
    assert (sent.path, sent.headers["authorization"]) == ("/v1/responses/input_tokens", "Bearer sk-ant-client")
    assert sent.json() == {"model": "gpt-5", "instructions": "Be brief.", "input": [{"role": "user", "content": "Hi"}]}


def test_count_tokens_to_gemini_wraps_the_request(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "gemini_generate_content", upstream.server.url, model_map={"fast": "gemini-3-flash"})
    client = anthropic.Anthropic(base_url=gw.url, api_key="sk-ant-client", max_retries=0, timeout=20)
    upstream.replies.append(Reply(200, {"totalTokens": 9}))
    assert client.messages.count_tokens(model="fast", messages=[{"role": "user", "content": "Hi"}]).input_tokens == 9
    sent = upstream.last
    assert sent.path == "/v1beta/models/gemini-3-flash:countTokens" and sent.headers["x-goog-api-key"] == "sk-ant-client"
    assert sent.json() == {"generateContentRequest": {"model": "models/gemini-3-flash", "contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}}


def test_gemini_count_tokens_to_anthropic(serve: Any, upstream: Upstream) -> None:
    gw = serve("gemini_generate_content", "anthropic_messages", upstream.server.url)
    upstream.replies.append(Reply(200, {"input_tokens": 11}))
    answer = httpx.post(
        gw.url + "/v1beta/models/claude-sonnet-5:countTokens", headers={"x-goog-api-key": "g-key"}, timeout=20,
        json={"generateContentRequest": {"model": "models/claude-sonnet-5", "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
                                         "systemInstruction": {"parts": [{"text": "Be brief."}]}}},
    )
    assert answer.status_code == 200 and answer.json() == {"totalTokens": 11}
    assert upstream.last.path == "/v1/messages/count_tokens"
    assert upstream.last.json() == {"model": "claude-sonnet-5", "system": "Be brief.", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]}
    # the short form {contents} counts the same way
    upstream.replies.append(Reply(200, {"input_tokens": 3}))
    answer = httpx.post(gw.url + "/v1beta/models/claude-sonnet-5:countTokens", headers={"x-goog-api-key": "g-key"}, timeout=20,
                        json={"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]})
    assert answer.json() == {"totalTokens": 3}
    assert upstream.last.json()["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]


def test_count_tokens_without_an_upstream_counter_is_501(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "openai_chat", upstream.server.url)
    client = anthropic.Anthropic(base_url=gw.url, api_key="sk-ant-client", max_retries=0, timeout=20)
    with pytest.raises(anthropic.APIStatusError) as caught:
        client.messages.count_tokens(model="gpt-5", messages=[{"role": "user", "content": "Hi"}])
    assert caught.value.status_code == 501
    body = caught.value.response.json()
    assert body["type"] == "error" and "no token counter" in body["error"]["message"]
    assert upstream.server.requests == []


def test_count_tokens_bad_body_names_the_place(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "openai_responses", upstream.server.url)
    answer = httpx.post(gw.url + "/v1/messages/count_tokens", headers={"x-api-key": "k"}, json={"model": "gpt-5", "messages": "Hi"}, timeout=20)
    assert answer.status_code == 400 and answer.json()["type"] == "error"
    assert "messages" in answer.json()["error"]["message"]
    assert upstream.server.requests == []


# ============================================================ 404 in each inbound envelope


def test_openai_sdk_unknown_path_is_its_not_found(serve: Any) -> None:
    gw = serve("openai_chat", "anthropic_messages", refused_url())
    client = openai.OpenAI(base_url=gw.url + "/v1", api_key="k", max_retries=0, timeout=20)
    with pytest.raises(openai.NotFoundError) as caught:
        client.get("/embeddings", cast_to=object)
    body = caught.value.response.json()
    assert set(body) == {"error"} and "GET /v1/models" in body["error"]["message"]
    # OpenAI's own answer to an unknown path: invalid_request_error, no model_not_found code
    assert body["error"]["type"] == "invalid_request_error" and body["error"].get("code") is None


def test_anthropic_sdk_unknown_path_is_its_not_found(serve: Any) -> None:
    gw = serve("anthropic_messages", "openai_chat", refused_url())
    client = anthropic.Anthropic(base_url=gw.url, api_key="k", max_retries=0, timeout=20)
    with pytest.raises(anthropic.NotFoundError) as caught:
        client.get("/v1/files", cast_to=object)
    body = caught.value.response.json()
    assert body["type"] == "error" and body["error"]["type"] == "not_found_error"
    assert "POST /v1/messages/count_tokens" in body["error"]["message"]


def test_gemini_unknown_path_is_its_not_found(serve: Any) -> None:
    gw = serve("gemini_generate_content", "openai_chat", refused_url())
    answer = httpx.post(gw.url + "/v1beta/models/x:embedContent", json={}, timeout=20)
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == 404 and answer.json()["error"]["status"] == "NOT_FOUND"


def test_wrong_method_names_the_right_one(serve: Any) -> None:
    gw = serve("anthropic_messages", "openai_chat", refused_url())
    answer = httpx.post(gw.url + "/v1/models", json={}, timeout=20)
    assert answer.status_code == 405 and answer.headers["allow"] == "GET"


# ============================================================ same format: passthrough

ODD_REQUEST = '{ "messages" : [{"role":"user","content":"h\\u00e9llo ✓"}],\n  "model":"claude-sonnet-5", "max_tokens":  64, "metadata": {"user_id": "u1"}, "x_unknown": [1.50, 2e3] }'.encode()
ODD_ANSWER = ('{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-5","content":[{"type":"text","text":"Hi ✓"}],'
              '"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":2},  "new_field": 1.50}').encode()


def test_passthrough_json_keeps_the_bytes(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "anthropic_messages", upstream.server.url)
    upstream.replies.append(Reply(200, ODD_ANSWER, content_type="application/json", headers={"anthropic-ratelimit-requests-remaining": "99"}))
    answer = httpx.post(gw.url + "/v1/messages", content=ODD_REQUEST, timeout=20,
                        headers={"x-api-key": "sk-ant-client", "content-type": "application/json", "anthropic-beta": "some-beta-2026"})
    assert upstream.last.body == ODD_REQUEST
    assert upstream.last.headers["x-api-key"] == "sk-ant-client" and upstream.last.headers["anthropic-beta"] == "some-beta-2026"
    assert answer.status_code == 200 and answer.content == ODD_ANSWER
    assert answer.headers["content-type"] == "application/json"
    assert answer.headers["anthropic-ratelimit-requests-remaining"] == "99"
    assert answer.headers["x-wiremap-upstream"] == "anthropic_messages" and "x-wiremap-losses" not in answer.headers


def test_passthrough_upstream_error_keeps_status_and_bytes(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "anthropic_messages", upstream.server.url)
    error = b'{"type":"error","error":{"type":"rate_limit_error","message":"slow down"},"request_id":"req_up"}'
    upstream.replies.append(Reply(429, error, content_type="application/json", headers={"retry-after": "7"}))
    answer = httpx.post(gw.url + "/v1/messages", content=ODD_REQUEST, headers={"x-api-key": "k"}, timeout=20)
    assert (answer.status_code, answer.content, answer.headers["retry-after"]) == (429, error, "7")


def test_passthrough_renames_only_the_model_bytes(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "anthropic_messages", upstream.server.url, model_map={"claude-sonnet-5": "claude-sonnet-5-20260201"})
    upstream.replies.append(Reply(200, ODD_ANSWER, content_type="application/json"))
    httpx.post(gw.url + "/v1/messages", content=ODD_REQUEST, headers={"x-api-key": "k"}, timeout=20)
    assert upstream.last.body == ODD_REQUEST.replace(b'"model":"claude-sonnet-5"', b'"model":"claude-sonnet-5-20260201"')


def test_passthrough_with_the_anthropic_sdk(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "anthropic_messages", upstream.server.url)
    client = anthropic.Anthropic(base_url=gw.url, api_key="sk-ant-client", max_retries=0, timeout=20)
    upstream.replies.append(Reply(200, ODD_ANSWER, content_type="application/json"))
    raw = client.messages.with_raw_response.create(model="claude-sonnet-5", max_tokens=64, messages=[{"role": "user", "content": "Hi"}])
    assert raw.http_response.content == ODD_ANSWER and raw.parse().content[0].text == "Hi ✓"
    upstream.replies.append(Reply(200, ANTHROPIC_MODELS))
    assert [m.id for m in client.models.list(limit=5).data] == ["claude-sonnet-5", "claude-haiku-5"]
    assert (upstream.last.path, upstream.last.query) == ("/v1/models", {"limit": ["5"]})  # the client's query, not a translation's


def test_passthrough_stream_keeps_the_bytes(serve: Any, upstream: Upstream) -> None:
    gw = serve("openai_chat", "openai_chat", upstream.server.url)
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-5", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-5", "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}], "x_vendor": {"k": 1}},
    ]
    sse = ": keep-alive\n\n" + "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    upstream.replies.append(Reply(200, sse.encode(), content_type="text/event-stream"))
    request = b'{"model":"gpt-5","stream":true,"messages":[{"role":"user","content":"Hi"}], "stream_options": {"include_usage": true}}'
    with httpx.stream("POST", gw.url + "/v1/chat/completions", content=request, headers={"authorization": "Bearer sk-client"}, timeout=20) as answer:
        got = b"".join(answer.iter_raw())
        assert answer.headers["content-type"].startswith("text/event-stream")
    assert got == sse.encode() and upstream.last.body == request

    upstream.replies.append(Reply(200, sse.encode(), content_type="text/event-stream"))
    client = openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client", max_retries=0, timeout=20)
    text = "".join(c.choices[0].delta.content or "" for c in client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "Hi"}], stream=True))
    assert text == "Hello"


def test_passthrough_gemini_stream_path_and_key(serve: Any, upstream: Upstream) -> None:
    gw = serve("gemini_generate_content", "gemini_generate_content", upstream.server.url, model_map={"flash": "gemini-3-flash"})
    sse = b'data: {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}, "finishReason": "STOP"}]}\r\n\r\n'
    upstream.replies.append(Reply(200, sse, content_type="text/event-stream"))
    body = b'{"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}'
    answer = httpx.post(gw.url + "/v1beta/models/flash:streamGenerateContent?alt=sse&key=g-key", content=body, timeout=20)
    assert answer.status_code == 200 and answer.content == sse
    sent = upstream.last
    assert sent.path == "/v1beta/models/gemini-3-flash:streamGenerateContent" and sent.query == {"alt": ["sse"]}
    assert sent.headers["x-goog-api-key"] == "g-key" and sent.body == body


def test_passthrough_strict_validates_before_forwarding(serve: Any, upstream: Upstream) -> None:
    gw = serve("openai_chat", "openai_chat", upstream.server.url, strict=True)
    client = openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client", max_retries=0, timeout=20)
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": ""}])
    assert "messages[0].content" in str(caught.value)
    assert upstream.server.requests == []


def test_passthrough_transport_failure_is_the_inbound_envelope(serve: Any) -> None:
    gw = serve("openai_chat", "openai_chat", refused_url())
    client = openai.OpenAI(base_url=gw.url + "/v1", api_key="sk-client", max_retries=0, timeout=20)
    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "Hi"}])
    assert caught.value.status_code >= 500 and "could not be reached" in str(caught.value)
    assert "x-request-id" in caught.value.response.headers


def test_passthrough_still_needs_a_key(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "anthropic_messages", upstream.server.url)
    answer = httpx.post(gw.url + "/v1/messages", content=ODD_REQUEST, timeout=20)
    assert answer.status_code == 401 and answer.json()["error"]["type"] == "authentication_error"
    assert upstream.server.requests == []


def test_passthrough_body_limit(serve: Any, upstream: Upstream) -> None:
    gw = serve("anthropic_messages", "anthropic_messages", upstream.server.url, max_body=64)
    answer = httpx.post(gw.url + "/v1/messages", content=ODD_REQUEST, headers={"x-api-key": "k"}, timeout=20)
    assert answer.status_code == 413 and answer.json()["type"] == "error"
    assert upstream.server.requests == []


# ============================================================ Gemini's stream path, translated


def test_gemini_stream_path_translated(serve: Any, upstream: Upstream) -> None:
    gw = serve("gemini_generate_content", "openai_chat", upstream.server.url)
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-5", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-5", "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}]},
    ]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    upstream.replies.append(Reply(200, sse.encode(), content_type="text/event-stream"))
    answer = httpx.post(gw.url + "/v1beta/models/gpt-5:streamGenerateContent?alt=sse", headers={"x-goog-api-key": "g-key"}, timeout=20,
                        json={"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]})
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/event-stream")
    assert upstream.last.json()["stream"] is True
    events = [json.loads(line[5:]) for line in answer.text.splitlines() if line.startswith("data:")]
    text = "".join(p.get("text", "") for e in events for c in e.get("candidates", []) for p in c.get("content", {}).get("parts", []))
    assert text == "Hello"

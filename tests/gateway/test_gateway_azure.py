"""Azure OpenAI through the gateway, driven by the openai SDK's own Azure client (the oracle).

- `AzureOpenAI` -> gateway (inbound azure_openai: `/openai/deployments/{deployment}/chat/completions
  ?api-version=`, `api-key` header) -> a loopback upstream in another format, streamed and not;
- the plain `OpenAI` client on the v1 route (inbound azure_openai_v1);
- `OpenAI` -> gateway -> a loopback server playing Azure (upstream azure_openai): the deployment
  and api-version in the URL, the key in `api-key`, Azure's content-filter 400 raised as the SDK's
  `BadRequestError`;
- Azure in and out: the content-filter results Azure adds reach the client (carried, not dropped),
  through passthrough and through the deployments -> v1 translation alike;
- `client.responses.create` on Azure's v1 Responses route (azure_openai_responses), both ways.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
pytest.importorskip("uvicorn")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import Reply  # noqa: E402
from test_gateway_sdks import Gateway, Upstream, anthropic_message, chat_completion  # noqa: E402

import wiremap  # noqa: E402
from wiremap.gateway import create_app  # noqa: E402

API_VERSION = "2024-10-21"
SAFE = {"hate": {"filtered": False, "severity": "safe"}, "self_harm": {"filtered": False, "severity": "safe"}, "sexual": {"filtered": False, "severity": "safe"}, "violence": {"filtered": False, "severity": "safe"}}
FILTERED = {
    "error": {
        "message": "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
        "type": None,
        "param": "prompt",
        "code": "content_filter",
        "status": 400,
        "innererror": {"code": "ResponsibleAIPolicyViolation", "content_filter_result": {**SAFE, "hate": {"filtered": True, "severity": "medium"}}},
    }
}


def azure_completion(text: str, finish: str = "stop") -> dict[str, Any]:
    body = chat_completion({"content": text, "refusal": None}, finish)
    body["prompt_filter_results"] = [{"prompt_index": 0, "content_filter_results": SAFE}]
    body["choices"][0]["content_filter_results"] = SAFE
    return body


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


def azure_client(gw: Gateway, **kw: Any) -> Any:
    return openai.AzureOpenAI(azure_endpoint=gw.url, api_key="azure-client-key", api_version=API_VERSION, max_retries=0, timeout=20, **kw)


# ============================================================ AzureOpenAI -> gateway -> another format


def test_azure_client_non_streamed(upstream: Upstream) -> None:
    gw = Gateway(create_app("azure_openai", "anthropic_messages", upstream.server.url))
    try:
        upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "Ahoy!"}])))
        out = azure_client(gw).chat.completions.create(
            model="my-deployment", messages=[{"role": "system", "content": "Talk like a pirate."}, {"role": "user", "content": "Hi"}], max_tokens=40
        )
        sent = upstream.last
        assert sent.path == "/v1/messages" and sent.headers["x-api-key"] == "azure-client-key"
        assert sent.json() == {"model": "my-deployment", "system": "Talk like a pirate.", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}], "max_tokens": 40}
        assert out.choices[0].message.content == "Ahoy!" and out.choices[0].finish_reason == "stop"
        assert (out.usage.prompt_tokens, out.usage.completion_tokens) == (12, 6)
    finally:
        gw.stop()


def test_azure_client_streamed(upstream: Upstream) -> None:
    chunks = [
        {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Ahoy"}, "finish_reason": None}]},
        {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "delta": {"content": " matey"}, "finish_reason": None}]},
        {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}},
    ]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    gw = Gateway(create_app("azure_openai", "openai_chat", upstream.server.url))
    try:
        upstream.replies.append(Reply(200, sse, content_type="text/event-stream"))
        stream = azure_client(gw).chat.completions.create(
            model="my-deployment", messages=[{"role": "user", "content": "Hi"}], stream=True, stream_options={"include_usage": True}
        )
        got = list(stream)
        text = "".join(c.choices[0].delta.content or "" for c in got if c.choices)
        assert text == "Ahoy matey"
        assert [c.choices[0].finish_reason for c in got if c.choices and c.choices[0].finish_reason] == ["stop"]
        assert got[-1].usage is not None and got[-1].usage.total_tokens == 7
        sent = upstream.last
        assert sent.path == "/v1/chat/completions" and sent.json()["stream"] is True
        assert sent.json()["model"] == "my-deployment"
    finally:
        gw.stop()


def test_v1_route_with_the_plain_openai_client(upstream: Upstream) -> None:
    gw = Gateway(create_app("azure_openai_v1", "anthropic_messages", upstream.server.url))
    try:
        upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "Hello"}])))
        client = openai.OpenAI(base_url=gw.url + "/openai/v1/", api_key="azure-client-key", max_retries=0, timeout=20)
        out = client.chat.completions.create(model="my-deployment", messages=[{"role": "user", "content": "Hi"}], max_completion_tokens=30)
        assert out.choices[0].message.content == "Hello"
        sent = upstream.last
        assert sent.headers["x-api-key"] == "azure-client-key"  # the OpenAI client sends the key as a bearer token
        assert sent.json()["model"] == "my-deployment" and sent.json()["max_tokens"] == 30
    finally:
        gw.stop()


# ============================================================ OpenAI -> gateway -> "Azure"


def test_azure_upstream_gets_its_url_and_key(upstream: Upstream) -> None:
    gw = Gateway(create_app("openai_chat", "azure_openai", upstream.server.url))
    try:
        upstream.replies.append(Reply(200, azure_completion("Hi there")))
        client = openai.OpenAI(base_url=gw.url + "/v1", api_key="azure-key", max_retries=0, timeout=20)
        out = client.chat.completions.create(model="my-deployment", messages=[{"role": "user", "content": "Hi"}], max_completion_tokens=20)
        sent = upstream.last
        assert sent.raw_path == f"/openai/deployments/my-deployment/chat/completions?api-version={API_VERSION}"
        assert sent.headers["api-key"] == "azure-key" and "authorization" not in sent.headers
        assert sent.json() == {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 20}
        assert out.choices[0].message.content == "Hi there"
    finally:
        gw.stop()


def test_azure_content_filter_raises_bad_request(upstream: Upstream) -> None:
    gw = Gateway(create_app("openai_chat", "azure_openai", upstream.server.url))
    try:
        upstream.replies.append(Reply(400, FILTERED))
        client = openai.OpenAI(base_url=gw.url + "/v1", api_key="azure-key", max_retries=0, timeout=20)
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(model="my-deployment", messages=[{"role": "user", "content": "something filtered"}])
        assert info.value.status_code == 400
        assert "content management policy" in info.value.message
    finally:
        gw.stop()


# ============================================================ Azure in and out: Azure's own data reaches the client


def test_passthrough_keeps_content_filter_results_and_error(upstream: Upstream) -> None:
    gw = Gateway(create_app("azure_openai", "azure_openai", upstream.server.url))
    try:
        client = azure_client(gw)
        upstream.replies.append(Reply(200, azure_completion("Fine.")))
        out = client.chat.completions.create(model="my-deployment", messages=[{"role": "user", "content": "Hi"}])
        sent = upstream.last
        assert sent.raw_path == f"/openai/deployments/my-deployment/chat/completions?api-version={API_VERSION}"
        assert sent.headers["api-key"] == "azure-client-key"
        dumped = out.model_dump()
        assert dumped["prompt_filter_results"] == [{"prompt_index": 0, "content_filter_results": SAFE}]
        assert dumped["choices"][0]["content_filter_results"] == SAFE

        upstream.replies.append(Reply(400, FILTERED))
        with pytest.raises(openai.BadRequestError) as info:
            client.chat.completions.create(model="my-deployment", messages=[{"role": "user", "content": "x"}])
        assert info.value.code == "content_filter"
        assert info.value.body["innererror"]["code"] == "ResponsibleAIPolicyViolation"
    finally:
        gw.stop()


def test_deployments_to_v1_carries_the_filter_results(upstream: Upstream) -> None:
    """Two Azure formats share the provider and the wire: the filter verdicts are carried
    across the translation; the content-filter 400 is still the SDK's BadRequestError."""
    gw = Gateway(create_app("azure_openai", "azure_openai_v1", upstream.server.url))
    try:
        client = azure_client(gw)
        upstream.replies.append(Reply(200, azure_completion("Fine.")))
        out = client.chat.completions.create(model="my-deployment", messages=[{"role": "user", "content": "Hi"}], max_tokens=20)
        sent = upstream.last
        assert sent.path == "/openai/v1/chat/completions"
        assert sent.json() == {"model": "my-deployment", "messages": [{"role": "user", "content": "Hi"}], "max_completion_tokens": 20}
        dumped = out.model_dump()
        assert dumped["prompt_filter_results"] == [{"prompt_index": 0, "content_filter_results": SAFE}]
        assert dumped["choices"][0]["content_filter_results"] == SAFE

        upstream.replies.append(Reply(400, FILTERED))
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model="my-deployment", messages=[{"role": "user", "content": "x"}])
    finally:
        gw.stop()


# ============================================================ the endpoint from the environment, errors in Azure's envelope


def test_upstream_endpoint_from_the_environment(upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """No --upstream-url: the gateway reaches Azure at AZURE_OPENAI_ENDPOINT, translated and passed through alike."""
    monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", upstream.server.url + "/")
    for inbound in ("openai_chat", "azure_openai"):
        gw = Gateway(create_app(inbound, "azure_openai"))
        try:
            upstream.replies.append(Reply(200, azure_completion("From env.")))
            if inbound == "openai_chat":
                client = openai.OpenAI(base_url=gw.url + "/v1", api_key="azure-key", max_retries=0, timeout=20)
            else:
                client = azure_client(gw)
            out = client.chat.completions.create(model="dep-1", messages=[{"role": "user", "content": "Hi"}])
            assert out.choices[0].message.content == "From env."
            assert upstream.last.raw_path == f"/openai/deployments/dep-1/chat/completions?api-version={API_VERSION}"
        finally:
            gw.stop()


def test_unknown_model_is_deployment_not_found_for_azure_clients(upstream: Upstream) -> None:
    """An upstream's unknown model reaches an Azure client as Azure says it: 404 DeploymentNotFound
    (errors.emit), the SDK's NotFoundError."""
    gw = Gateway(create_app("azure_openai", "anthropic_messages", upstream.server.url))
    try:
        upstream.replies.append(Reply(404, {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-nope"}}))
        with pytest.raises(openai.NotFoundError) as info:
            azure_client(gw).chat.completions.create(model="claude-nope", messages=[{"role": "user", "content": "Hi"}])
        assert info.value.code == "DeploymentNotFound"
    finally:
        gw.stop()


def test_no_azure_endpoint_is_refused_at_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    with pytest.raises(ValueError, match="no upstream URL for azure_openai: pass upstream_url .* or set AZURE_OPENAI_ENDPOINT"):
        create_app("openai_chat", "azure_openai")


# ============================================================ the Responses API on Azure's v1 route


def test_responses_on_the_v1_route(upstream: Upstream) -> None:
    """`client.responses.create` against the gateway's Azure Responses route, and Azure as the
    upstream of an OpenAI Responses client (the v1 path and the api-key header)."""
    gw = Gateway(create_app("azure_openai_responses", "anthropic_messages", upstream.server.url))
    try:
        upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "A test."}])))
        client = openai.OpenAI(base_url=gw.url + "/openai/v1/", api_key="azure-client-key", max_retries=0, timeout=20)
        out = client.responses.create(model="my-gpt-4.1-nano", input="This is a test.", max_output_tokens=50)
        assert out.output_text == "A test." and out.status == "completed"
        assert upstream.last.json()["model"] == "my-gpt-4.1-nano" and upstream.last.headers["x-api-key"] == "azure-client-key"
    finally:
        gw.stop()
    gw = Gateway(create_app("openai_responses", "azure_openai_responses", upstream.server.url))
    try:
        answer = {"message": {"role": "assistant", "content": "From Azure."}, "finish_reason": "stop", "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}, "raw": {}}
        upstream.replies.append(Reply(200, wiremap.get_format("azure_openai_responses").response_to_wire(answer)))
        client = openai.OpenAI(base_url=gw.url + "/v1", api_key="azure-key", max_retries=0, timeout=20)
        out = client.responses.create(model="my-deployment", input="Hi")
        assert out.output_text == "From Azure."
        assert upstream.last.raw_path == "/openai/v1/responses" and upstream.last.headers["api-key"] == "azure-key"
        upstream.replies.append(Reply(400, FILTERED))
        with pytest.raises(openai.BadRequestError):
            client.responses.create(model="my-deployment", input="x")
    finally:
        gw.stop()


# ============================================================ Microsoft Entra ID tokens (auth.bearer_tokens)

TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.entra-id-token"


def test_entra_id_token_reaches_azure_as_a_bearer_token(upstream: Upstream) -> None:
    """AzureOpenAI(azure_ad_token=...) sends `Authorization: Bearer`; an Azure upstream gets it
    as a bearer token (never in `api-key`), passed through and translated (deployments -> v1)."""
    for target in ("azure_openai", "azure_openai_v1"):
        gw = Gateway(create_app("azure_openai", target, upstream.server.url))
        try:
            client = openai.AzureOpenAI(azure_endpoint=gw.url, azure_ad_token=TOKEN, api_version=API_VERSION, max_retries=0, timeout=20)
            upstream.replies.append(Reply(200, azure_completion("Signed in.")))
            out = client.chat.completions.create(model="dep-1", messages=[{"role": "user", "content": "Hi"}])
            assert out.choices[0].message.content == "Signed in."
            sent = upstream.last
            assert sent.headers["authorization"] == f"Bearer {TOKEN}", target
            assert "api-key" not in sent.headers, target
        finally:
            gw.stop()


def test_bearer_credentials_elsewhere_keep_the_upstream_scheme(upstream: Upstream) -> None:
    """A token from an Azure client to a non-Azure upstream goes in that upstream's key scheme, and
    an OpenAI client's bearer key to Azure goes in `api-key` (openai_chat's bearer is its key)."""
    gw = Gateway(create_app("azure_openai", "anthropic_messages", upstream.server.url))
    try:
        client = openai.AzureOpenAI(azure_endpoint=gw.url, azure_ad_token=TOKEN, api_version=API_VERSION, max_retries=0, timeout=20)
        upstream.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "ok"}])))
        client.chat.completions.create(model="dep-1", messages=[{"role": "user", "content": "Hi"}], max_tokens=5)
        assert upstream.last.headers["x-api-key"] == TOKEN and "authorization" not in upstream.last.headers
    finally:
        gw.stop()
    gw = Gateway(create_app("openai_chat", "azure_openai", upstream.server.url))
    try:
        upstream.replies.append(Reply(200, azure_completion("ok")))
        openai.OpenAI(base_url=gw.url + "/v1", api_key="azure-key", max_retries=0, timeout=20).chat.completions.create(
            model="dep-1", messages=[{"role": "user", "content": "Hi"}]
        )
        assert upstream.last.headers["api-key"] == "azure-key" and "authorization" not in upstream.last.headers
    finally:
        gw.stop()


# ============================================================ streamed filter results: named where they cannot go


def _azure_filter_stream() -> str:
    chunks = [
        {"choices": [], "created": 0, "id": "", "model": "", "object": "", "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": SAFE}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Fine."}, "content_filter_results": SAFE, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "delta": {}, "content_filter_results": {}, "finish_reason": "stop"}]},
    ]
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def _trailer(gw: Gateway, path: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[bytes, list[dict[str, Any]]]:
    import httpx

    with httpx.stream("POST", gw.url + path, json=body, headers=headers, timeout=20) as resp:
        out = b"".join(resp.iter_raw())
    lines = [line for line in out.decode().splitlines() if line.startswith(": wiremap-losses ")]
    return out, (json.loads(lines[0][len(": wiremap-losses "):]) if lines else [])


def test_streamed_filter_results_are_named_lost_for_another_wire(upstream: Upstream) -> None:
    """An Anthropic client of an Azure upstream: the per-chunk filter verdicts have no place in
    its stream, and the trailer names them at their Azure paths (they were dropped silently)."""
    gw = Gateway(create_app("anthropic_messages", "azure_openai", upstream.server.url))
    try:
        upstream.replies.append(Reply(200, _azure_filter_stream(), content_type="text/event-stream"))
        out, losses = _trailer(gw, "/v1/messages", {"model": "my-deployment", "max_tokens": 20, "stream": True, "messages": [{"role": "user", "content": "Hi"}]},
                               {"x-api-key": "k", "anthropic-version": "2023-06-01"})
        assert b"Fine." in out
        paths = {loss["path"] for loss in losses}
        assert {"prompt_filter_results", "choices[0].content_filter_results"} <= paths
    finally:
        gw.stop()


def test_streamed_filter_results_are_no_loss_between_azure_routes(upstream: Upstream) -> None:
    """The deployments route and the v1 route share Azure's wire: nothing new is reported."""
    gw = Gateway(create_app("azure_openai", "azure_openai_v1", upstream.server.url))
    try:
        upstream.replies.append(Reply(200, _azure_filter_stream(), content_type="text/event-stream"))
        _out, losses = _trailer(gw, f"/openai/deployments/my-deployment/chat/completions?api-version={API_VERSION}",
                                {"stream": True, "messages": [{"role": "user", "content": "Hi"}]}, {"api-key": "k"})
        assert not [loss for loss in losses if "filter_results" in loss["path"]]
    finally:
        gw.stop()


# ============================================================ readiness and the model list


@pytest.mark.parametrize("key", ["azure_openai", "azure_openai_v1", "azure_openai_responses"])
def test_provider_ready_says_why_azure_has_no_probe_and_sends_nothing(key: str) -> None:
    """Azure's data plane lists base and fine-tuned models (GET /openai/models, /openai/v1/models),
    not the deployments a request names; the deployment list is the management plane's. So
    ready() cannot check a deployment: it says so (transport.ready_unavailable), sending nothing,
    rather than probing a list where a working deployment may not appear."""
    import asyncio

    import httpx

    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={"object": "list", "data": []})

    async def go() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            p = wiremap.Provider(key, model="my-deployment", api_key="k", base_url="https://res.openai.azure.com", http_client=client)
            await p.ready()

    with pytest.raises(NotImplementedError) as info:
        asyncio.run(go())
    assert f"ready() is not available for {key}" in str(info.value)
    assert "deployment" in str(info.value) and "management plane" in str(info.value)
    assert sent == []
    assert (wiremap.get_format(key).transport or {}).get("ready") is None


def test_gateway_ready_and_models_name_the_reason(upstream: Upstream) -> None:
    """wiremap serve with an Azure upstream: /ready (with and without ?model=) answers 503 with
    the reason, and an OpenAI client's GET /v1/models gets an error, not another resource's list."""
    httpx = pytest.importorskip("httpx")
    gw = Gateway(create_app("openai_chat", "azure_openai_v1", upstream.server.url))
    try:
        before = len(upstream.server.requests)
        for path in ("/ready", "/ready?model=my-deployment"):
            got = httpx.get(gw.url + path, headers={"authorization": "Bearer azure-key"}, timeout=20)
            assert got.status_code == 503, got.text
            assert got.json()["status"] == "unavailable" and "management plane" in got.json()["error"]["message"]
        client = openai.OpenAI(base_url=gw.url + "/v1", api_key="azure-key", max_retries=0, timeout=20)
        with pytest.raises(openai.APIStatusError) as info:
            client.models.list()
        assert info.value.status_code == 501 and "management plane" in str(info.value)
        assert len(upstream.server.requests) == before  # nothing reached the upstream
    finally:
        gw.stop()

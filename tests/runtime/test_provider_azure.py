"""`Provider` against Azure OpenAI's two endpoints (mappings/azure_openai.yaml, azure_openai_v1.yaml):
the resource's endpoint from AZURE_OPENAI_ENDPOINT (`transport.base_url_env`), the deployment bound
into the path with the table's api-version, the `api-key` header, an Entra ID token in its place,
and the content-filter 400 as the invalid request it is, with Azure's verdict kept on the error."""

from __future__ import annotations

import json
from typing import Any

import pytest

import wiremap
from loopback import Reply, Seen, openai_body

KEY = "azure-test-key-0123456789"
HI = [{"role": "user", "content": "Hi"}]
FILTERED = {
    "error": {
        "message": "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
        "type": None,
        "param": "prompt",
        "code": "content_filter",
        "status": 400,
        "innererror": {
            "code": "ResponsibleAIPolicyViolation",
            "content_filter_result": {"hate": {"filtered": True, "severity": "medium"}, "violence": {"filtered": False, "severity": "safe"}},
        },
    }
}


def _azure_answer(seen: Seen) -> Reply:
    body = openai_body("echo:Hi", id="chatcmpl-az")
    body["prompt_filter_results"] = [{"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}}}]
    body["choices"][0]["content_filter_results"] = {"hate": {"filtered": False, "severity": "safe"}}
    return Reply(200, body)


@pytest.fixture
def azure_env(monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    return monkeypatch


def test_deployment_path_api_version_and_api_key_header(serve: Any, azure_env: Any) -> None:
    server = serve(_azure_answer)
    azure_env.setenv("AZURE_OPENAI_ENDPOINT", server.url + "/")  # as the portal writes it
    azure_env.setenv("AZURE_OPENAI_API_KEY", KEY)
    with wiremap.Provider("azure_openai", model="my-gpt 4o") as p:
        response = p.complete_sync(HI, config={"max_tokens": 16})
    assert response.message.content == "echo:Hi"
    (seen,) = server.requests
    assert seen.raw_path == "/openai/deployments/my-gpt%204o/chat/completions?api-version=2024-10-21"
    assert seen.headers["api-key"] == KEY and "authorization" not in seen.headers
    # the deployment is the URL's: the body the converter wrote, without its path-bound model
    assert seen.json() == {"messages": HI, "max_tokens": 16}
    # Azure's content-filter verdicts are carried for Azure's wire, not dropped
    assert response.to_dict()["carried"]["origin"] == "azure_openai/openai_chat"
    back = wiremap.get_format("azure_openai").response_to_wire(response.to_dict())
    assert back["prompt_filter_results"][0]["content_filter_results"]["hate"] == {"filtered": False, "severity": "safe"}
    assert back["choices"][0]["content_filter_results"] == {"hate": {"filtered": False, "severity": "safe"}}


def test_v1_route_keeps_the_deployment_in_the_body(serve: Any, azure_env: Any) -> None:
    server = serve(_azure_answer)
    azure_env.setenv("AZURE_OPENAI_ENDPOINT", server.url)
    with wiremap.Provider("azure_openai_v1", model="my-o4-mini", api_key=KEY) as p:
        p.complete_sync(HI, config={"max_tokens": 16, "reasoning_effort": "low"})
    (seen,) = server.requests
    assert seen.raw_path == "/openai/v1/chat/completions"
    assert seen.json() == {"model": "my-o4-mini", "messages": HI, "max_completion_tokens": 16, "reasoning_effort": "low"}
    assert seen.headers["api-key"] == KEY


def test_base_url_argument_wins_over_the_environment(serve: Any, azure_env: Any) -> None:
    server = serve(_azure_answer)
    azure_env.setenv("AZURE_OPENAI_ENDPOINT", "http://127.0.0.1:9/unused")
    with wiremap.Provider("azure_openai", model="d", api_key=KEY, base_url=server.url) as p:
        p.complete_sync(HI)
    assert server.requests[0].path == "/openai/deployments/d/chat/completions"


def test_no_endpoint_anywhere_names_the_variable(azure_env: Any) -> None:
    with pytest.raises(ValueError, match="pass base_url= or set AZURE_OPENAI_ENDPOINT"):
        wiremap.Provider("azure_openai", model="d", api_key=KEY)


def test_an_entra_id_token_replaces_the_key(serve: Any, azure_env: Any) -> None:
    """api: a Microsoft Entra ID token goes as `Authorization: Bearer`, no `api-key`
    (`auth.bearer_tokens`), and is kept out of errors like a key."""
    token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.entra-token-value"
    server = serve(lambda seen: _azure_answer(seen) if len(server.requests) == 1 else Reply(401, {"error": {"code": "401", "message": f"token {token} is expired"}}))
    azure_env.setenv("AZURE_OPENAI_API_KEY", KEY)  # not used: the token replaces the key
    with wiremap.Provider("azure_openai", model="d", bearer_token=token, base_url=server.url) as p:
        p.complete_sync(HI)
        with pytest.raises(wiremap.AuthenticationError) as info:
            p.complete_sync(HI)
        assert token not in str(info.value) and token not in repr(p)
    seen = server.requests[0]
    assert seen.headers["authorization"] == f"Bearer {token}"
    assert "api-key" not in seen.headers


def test_a_bearer_token_needs_a_format_that_takes_one(azure_env: Any) -> None:
    with pytest.raises(ValueError, match="takes no bearer token"):
        wiremap.Provider("anthropic_messages", model="c", bearer_token="tok")
    with pytest.raises(ValueError, match="not both"):
        wiremap.Provider("azure_openai", model="d", base_url="https://r.openai.azure.com", api_key=KEY, bearer_token="tok")


def test_content_filter_400_is_an_invalid_request_with_azure_verdict(serve: Any, azure_env: Any) -> None:
    server = serve(lambda seen: Reply(400, FILTERED))
    with wiremap.Provider("azure_openai", model="d", api_key=KEY, base_url=server.url, max_retries=2) as p:
        with pytest.raises(wiremap.InvalidRequestError) as info:
            p.complete_sync(HI)
    err = info.value
    assert err.category == "provider_invalid_request" and not err.transient
    assert err.status == 400 and "content management policy" in str(err)
    assert err.body["error"]["innererror"]["code"] == "ResponsibleAIPolicyViolation"
    assert len(server.requests) == 1  # not retried: the prompt must change


def test_prompt_filter_chunk_does_not_blank_the_streamed_id(serve: Any, azure_env: Any) -> None:
    """api: a stream opens with a prompt-filter chunk whose id and model are empty; the assembled
    response keeps the completion's own."""
    chunks = [
        {"choices": [], "created": 0, "id": "", "model": "", "object": "", "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}]},
        {"choices": [{"delta": {"role": "assistant", "content": "Hel"}, "finish_reason": None, "index": 0, "content_filter_results": {}}], "created": 5, "id": "chatcmpl-S", "model": "gpt-4o", "object": "chat.completion.chunk"},
        {"choices": [{"delta": {"content": "lo"}, "finish_reason": "stop", "index": 0, "content_filter_results": {}}], "created": 5, "id": "chatcmpl-S", "model": "gpt-4o", "object": "chat.completion.chunk"},
    ]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    server = serve(lambda seen: Reply(200, sse, content_type="text/event-stream"))
    with wiremap.Provider("azure_openai", model="d", api_key=KEY, base_url=server.url) as p:
        response = p.complete_sync(HI, stream=True)
    assert response.message.content == "Hello" and response.finish_reason == "stop"
    assert response.raw["id"] == "chatcmpl-S" and response.raw["model"] == "gpt-4o"
    seen = server.requests[0]
    assert seen.json()["stream"] is True and seen.query == {"api-version": ["2024-10-21"]}

"""The long-tail OpenAI-compatible providers (issue 17) reached where their docs say.

Each format's `transport` row is what a `Provider` uses with no `base_url=`: the URL it posts to,
the model list `ready()` probes, how the key is sent and which environment variable holds it.
The expected values below are copied from each provider's documentation (the mapping's header
names the page), not from the tables; then one call per format goes over HTTP to a loopback server
standing in for the provider, at the same path under the same base path.
"""

from __future__ import annotations

import asyncio
import urllib.parse
from typing import Any

import pytest

import wiremap
from loopback import Reply, openai_body
from wiremap.runtime.http_support import join_url

KEY = "sk-test-0123456789"

#: key -> (chat completions URL, model list URL, auth scheme, key variable), per the provider's docs
DOCUMENTED = {
    "fireworks": ("https://api.fireworks.ai/inference/v1/chat/completions", "https://api.fireworks.ai/inference/v1/models", "bearer", "FIREWORKS_API_KEY"),
    "cerebras": ("https://api.cerebras.ai/v1/chat/completions", "https://api.cerebras.ai/v1/models", "bearer", "CEREBRAS_API_KEY"),
    "deepinfra": ("https://api.deepinfra.com/v1/openai/chat/completions", "https://api.deepinfra.com/v1/openai/models", "bearer", "DEEPINFRA_TOKEN"),
    "sambanova": ("https://api.sambanova.ai/v1/chat/completions", "https://api.sambanova.ai/v1/models", "bearer", "SAMBANOVA_API_KEY"),
    "nebius": ("https://api.tokenfactory.nebius.com/v1/chat/completions", "https://api.tokenfactory.nebius.com/v1/models", "bearer", "NEBIUS_API_KEY"),
    "novita": ("https://api.novita.ai/openai/v1/chat/completions", "https://api.novita.ai/openai/v1/models", "bearer", "NOVITA_API_KEY"),
    "nvidia_nim": ("https://integrate.api.nvidia.com/v1/chat/completions", "https://integrate.api.nvidia.com/v1/models", "bearer", "NVIDIA_API_KEY"),
    "huggingface": ("https://router.huggingface.co/v1/chat/completions", "https://router.huggingface.co/v1/models", "bearer", "HF_TOKEN"),
    "lmstudio": ("http://localhost:1234/v1/chat/completions", "http://localhost:1234/v1/models", "none", None),
    "llamacpp": ("http://localhost:8080/v1/chat/completions", "http://localhost:8080/v1/models", "bearer", "LLAMA_API_KEY"),
}


@pytest.mark.parametrize("key", sorted(DOCUMENTED))
def test_transport_is_the_documented_one(key: str) -> None:
    chat_url, models_url, scheme, env = DOCUMENTED[key]
    t = wiremap.get_format(key).transport
    assert t["endpoint"]["method"] == "POST"
    assert join_url(t["base_url"], t["endpoint"]["path"]) == chat_url
    assert t["ready"]["method"] == "GET" and join_url(t["base_url"], t["ready"]["path"]) == models_url
    assert t["ready"]["list"] == "data" and t["ready"]["id"] == "id"
    # a gateway answering this provider's clients serves its model list where they look for it
    assert t["models"]["path"] == urllib.parse.urlsplit(models_url).path.removeprefix(urllib.parse.urlsplit(t["base_url"]).path)
    assert t["auth"]["scheme"] == scheme
    assert t.get("api_key_env") == env


@pytest.mark.parametrize("key", sorted(DOCUMENTED))
def test_a_call_and_a_ready_probe_go_where_the_docs_say(serve: Any, key: str) -> None:
    chat_url, models_url, scheme, _ = DOCUMENTED[key]
    base_path = urllib.parse.urlsplit(wiremap.get_format(key).transport["base_url"]).path

    def handler(seen: Any) -> Reply:
        if seen.method == "GET":
            return Reply(200, {"object": "list", "data": [{"id": "m", "object": "model"}]})
        return Reply(200, openai_body("Hi."))

    server = serve(handler)
    api_key = KEY if scheme == "bearer" else ""
    with wiremap.Provider(key, model="m", api_key=api_key, base_url=server.url + base_path) as p:
        response = p.complete_sync([{"role": "user", "content": "Hello"}])

        async def ready() -> None:
            await p.ready()

        asyncio.run(ready())
    assert response.message.content == "Hi."
    post, probe = server.requests
    assert (post.method, post.path) == ("POST", urllib.parse.urlsplit(chat_url).path)
    assert (probe.method, probe.path) == ("GET", urllib.parse.urlsplit(models_url).path)
    for seen in (post, probe):
        if scheme == "bearer":
            assert seen.headers["authorization"] == f"Bearer {KEY}"
        else:
            assert "authorization" not in seen.headers  # a keyless local server

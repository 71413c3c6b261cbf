"""Vertex AI hosts (issue 17): `transport.base_url_by` picks the origin by the location's value.

The oracles: the anthropic SDK's AnthropicVertex (anthropic/lib/vertex/_client.py: region
`global` -> https://aiplatform.googleapis.com/v1, `us` / `eu` ->
https://aiplatform.{us,eu}.rep.googleapis.com/v1, any other -> https://{region}-aiplatform.googleapis.com/v1)
and Google's "Deployments and endpoints" page (the global endpoint omits the location from the
host). Each case sends one request through Provider to an in-process transport that records the
URL; nothing leaves the machine."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

import wiremap
from wiremap.runtime.http_support import table_base_url

CLAUDE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [{"type": "text", "text": "pong"}],
          "stop_reason": "end_turn", "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
GEMINI = {"candidates": [{"content": {"role": "model", "parts": [{"text": "pong"}]}, "finishReason": "STOP"}],
          "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}

HOSTS = [
    ("global", "https://aiplatform.googleapis.com"),
    ("us", "https://aiplatform.us.rep.googleapis.com"),
    ("eu", "https://aiplatform.eu.rep.googleapis.com"),
    ("us-east5", "https://us-east5-aiplatform.googleapis.com"),
    ("europe-west4", "https://europe-west4-aiplatform.googleapis.com"),
]


def _sent_url(fmt: str, model: str, params: dict[str, str], answer: dict[str, Any], **kw: Any) -> str:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answer)

    async def go() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            async with wiremap.Provider(fmt, model=model, api_key="ya29.token-1234567890", params=params, http_client=client, **kw) as p:
                out = await p.complete([{"role": "user", "content": "ping"}], config={"max_tokens": 8})
                assert out.finish_reason == "stop"

    asyncio.run(go())
    assert len(seen) == 1
    return str(seen[0].url)


@pytest.mark.parametrize("region, host", HOSTS)
def test_anthropic_vertex_host_for_each_region(region: str, host: str) -> None:
    url = _sent_url("anthropic.vertex", "claude-sonnet-4-5@20250929", {"project": "proj", "region": region}, CLAUDE)
    assert url == f"{host}/v1/projects/proj/locations/{region}/publishers/anthropic/models/claude-sonnet-4-5%4020250929:rawPredict"  # the model is one quoted path segment


@pytest.mark.parametrize("location, host", HOSTS)
def test_gemini_vertex_host_for_each_location(location: str, host: str) -> None:
    url = _sent_url("gemini.vertex", "gemini-2.5-flash", {"project": "proj", "location": location}, GEMINI)
    assert url == f"{host}/v1/projects/proj/locations/{location}/publishers/google/models/gemini-2.5-flash:generateContent"


def test_the_location_from_the_environment_picks_the_host_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "global")
    assert wiremap.Provider("gemini.vertex", model="m", api_key="t" * 20).base_url == "https://aiplatform.googleapis.com"
    monkeypatch.setenv("CLOUD_ML_REGION", "eu")
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "proj")
    assert wiremap.Provider("anthropic.vertex", model="m", api_key="t" * 20).base_url == "https://aiplatform.eu.rep.googleapis.com"


def test_a_callers_base_url_still_wins() -> None:
    url = _sent_url("gemini.vertex", "gemini-2.5-flash", {"project": "proj", "location": "global"}, GEMINI, base_url="http://127.0.0.1:9")
    assert url == "http://127.0.0.1:9/v1/projects/proj/locations/global/publishers/google/models/gemini-2.5-flash:generateContent"


def test_the_row_is_data_in_the_generated_table() -> None:
    transport = wiremap.get_format("gemini.vertex").transport
    assert transport is not None and transport["base_url_by"] == {"location": {
        "global": "https://aiplatform.googleapis.com", "us": "https://aiplatform.us.rep.googleapis.com", "eu": "https://aiplatform.eu.rep.googleapis.com"}}
    # without a fill (the params unknown) the table's own base_url is what it gives
    assert table_base_url(transport) == "https://{location}-aiplatform.googleapis.com"
    assert json.dumps(wiremap.get_format("anthropic.vertex").transport["base_url_by"])  # type: ignore[index]


def test_the_gateway_builds_the_same_upstream_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """wiremap serve's raw upstream calls (wiremap/gateway_endpoints.py) pick the host the same way."""
    from types import SimpleNamespace

    from wiremap.gateway_endpoints import _upstream_url

    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    path = "/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent"
    for location, host in HOSTS:
        monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", location)
        cfg = SimpleNamespace(upstream=wiremap.get_format("gemini.vertex"), upstream_url=None)
        url = _upstream_url(None, path, "gemini-2.5-flash", lane=cfg)
        assert url == f"{host}/v1/projects/proj/locations/{location}/publishers/google/models/gemini-2.5-flash:generateContent"
    cfg = SimpleNamespace(upstream=wiremap.get_format("gemini.vertex"), upstream_url="http://127.0.0.1:9")
    assert _upstream_url(None, path, "m", lane=cfg).startswith("http://127.0.0.1:9/v1/projects/proj/locations/")

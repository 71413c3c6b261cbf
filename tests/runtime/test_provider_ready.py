"""`Provider.ready()` (OpenArmature §5) against the mapping's `transport.ready` probe."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

import wiremap
from loopback import Reply, Seen, refused_url, variant_format

KEY = "sk-test-0123456789"


def _ready(url: str, key: str = "openai_chat", model: str = "test-model", fmt: Any = None) -> None:
    async def main() -> None:
        async with wiremap.Provider(fmt or key, model=model, api_key=KEY, base_url=url) as p:
            await p.ready()

    asyncio.run(main())


def _models(*entries: dict[str, Any]) -> Reply:
    return Reply(200, {"object": "list", "data": list(entries)})


@pytest.mark.parametrize(
    "key,entry",
    [
        ("openai_chat", {"id": "test-model", "object": "model", "status": "loaded"}),
        ("openai_chat", {"id": "test-model", "object": "model"}),  # hosted APIs: no status
        ("anthropic_messages", {"id": "test-model", "type": "model", "display_name": "Test"}),
        ("openai_chat", {"id": "models/test-model"}),  # prefixed ids (models/<model>)
    ],
)
def test_ready_succeeds_when_the_model_is_listed_and_serving(
    serve: Any, key: str, entry: dict[str, Any]
) -> None:
    server = serve(lambda seen: _models({"id": "other"}, entry))
    _ready(server.url, key)
    (seen,) = server.requests
    assert (seen.method, seen.path, seen.body) == ("GET", "/v1/models", b"")
    assert "content-type" not in seen.headers
    if key == "openai_chat":
        assert seen.headers["authorization"] == f"Bearer {KEY}"
    else:
        assert seen.headers["x-api-key"] == KEY
        assert seen.headers["anthropic-version"]


@pytest.mark.parametrize("status", ["not_loaded", "loading", "unloaded"])
def test_listed_but_not_loaded(serve: Any, status: str) -> None:
    server = serve(lambda seen: _models({"id": "test-model", "status": status}))
    with pytest.raises(wiremap.ModelNotLoadedError) as info:
        _ready(server.url)
    assert info.value.transient and status in str(info.value)


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages"])
def test_model_not_listed_is_invalid_model(serve: Any, key: str) -> None:
    server = serve(lambda seen: _models({"id": "gpt-4o-mini"}, {"id": "gpt-3.5-turbo"}))
    with pytest.raises(wiremap.InvalidModelError) as info:
        _ready(server.url, key)
    assert not info.value.transient
    assert "gpt-4o-mini" in str(info.value)  # says what is there


@pytest.mark.parametrize(
    "key,reply,category",
    [
        (
            "openai_chat",
            Reply(401, {"error": {"message": "Invalid API key"}}),
            "provider_authentication",
        ),
        (
            "anthropic_messages",
            Reply(
                401,
                {
                    "type": "error",
                    "error": {"type": "authentication_error", "message": "invalid x-api-key"},
                },
            ),
            "provider_authentication",
        ),
        ("openai_chat", Reply(500, {"error": {"message": "boom"}}), "provider_unavailable"),
        (
            "anthropic_messages",
            Reply(
                529,
                {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            ),
            "provider_unavailable",
        ),
        (
            "openai_chat",
            Reply(429, {"error": {"message": "slow"}}, headers={"Retry-After": "4"}),
            "provider_rate_limit",
        ),
        (
            "openai_chat",
            Reply(200, "<html>sign in</html>", content_type="text/html"),
            "provider_invalid_response",
        ),
        (
            "openai_chat",
            Reply(200, {"object": "list", "data": {"id": "x"}}),
            "provider_invalid_response",
        ),
        ("anthropic_messages", Reply(200, {"models": []}), "provider_invalid_response"),
        ("openai_chat", Reply.close(), "provider_unavailable"),
    ],
)
def test_probe_failures(serve: Any, key: str, reply: Reply, category: str) -> None:
    server = serve(lambda seen: reply)
    with pytest.raises(wiremap.ProviderError) as info:
        _ready(server.url, key)
    assert info.value.category == category, repr(info.value)
    if reply.status >= 400:
        assert isinstance(info.value.__cause__, httpx.HTTPStatusError)
    if category == "provider_rate_limit":
        assert info.value.retry_after == 4.0


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages"])
def test_network_failure_is_unavailable(key: str) -> None:
    with pytest.raises(wiremap.UnavailableError) as info:
        _ready(refused_url(), key)
    assert isinstance(info.value.__cause__, httpx.ConnectError)


def test_ready_timeout_is_unavailable(serve: Any) -> None:
    server = serve(lambda seen: Reply.hang())

    async def main() -> None:
        async with wiremap.Provider(
            "openai_chat", model="m", api_key=KEY, base_url=server.url, timeout=0.2
        ) as p:
            await p.ready()

    with pytest.raises(wiremap.UnavailableError) as info:
        asyncio.run(main())
    assert isinstance(info.value.__cause__, httpx.ReadTimeout)


def test_probe_path_list_and_state_come_from_the_table(serve: Any) -> None:
    def handler(seen: Seen) -> Reply:
        assert seen.path == "/health/m%2F1"
        return Reply(200, {"result": {"models": [{"name": "m/1", "state": "warming"}]}})

    fmt = variant_format(
        "openai_chat",
        ready={
            "method": "GET",
            "path": "/health/{model}",
            "list": "result.models",
            "id": "name",
            "state": {"field": "state", "not_loaded": ["warming"]},
        },
    )
    server = serve(handler)
    with pytest.raises(wiremap.ModelNotLoadedError):
        _ready(server.url, fmt=fmt, model="m/1")


def test_format_without_a_probe(serve: Any) -> None:
    server = serve(lambda seen: _models())
    fmt = variant_format("openai_chat", ready=None)
    with pytest.raises(NotImplementedError, match="no ready\\(\\) probe"):
        _ready(server.url, fmt=fmt)
    assert server.requests == []


def test_ready_sync(serve: Any) -> None:
    server = serve(lambda seen: _models({"id": "test-model"}))
    with wiremap.Provider("openai_chat", model="test-model", api_key=KEY, base_url=server.url) as p:
        p.ready_sync()
        p.ready_sync()
    assert len(server.requests) == 2


def test_complete_never_calls_ready(serve: Any) -> None:
    from loopback import openai_body

    server = serve(lambda seen: Reply(200, openai_body()))
    with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url) as p:
        p.complete_sync([{"role": "user", "content": "Hi"}])
    assert [s.path for s in server.requests] == ["/v1/chat/completions"]


def test_ready_reads_a_bare_model_array(serve: Any) -> None:
    """together: GET /v1/models answers a bare JSON array (no `list` in the probe)."""
    listed = [{"id": "other", "object": "model"}, {"id": "meta-llama/Llama-3.3-70B", "object": "model"}]
    server = serve(lambda seen: Reply(200, listed))
    _ready(server.url, "together", model="meta-llama/Llama-3.3-70B")
    (seen,) = server.requests
    assert (seen.method, seen.path) == ("GET", "/v1/models")
    with pytest.raises(wiremap.InvalidModelError, match="other"):
        _ready(server.url, "together", model="absent")


def test_ready_with_a_list_path_refuses_a_bare_array(serve: Any) -> None:
    """A probe that names `list` expects an object: a bare array is an invalid response, not a crash."""
    server = serve(lambda seen: Reply(200, [{"id": "test-model"}]))
    with pytest.raises(wiremap.InvalidResponseError, match="array, not a JSON object"):
        _ready(server.url, "openai_chat")

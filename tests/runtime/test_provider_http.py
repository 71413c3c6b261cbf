"""Provider over real HTTP: what goes on the wire, what comes back, the client's life cycle."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

import wiremap
from loopback import LoopbackServer, Reply, Seen, anthropic_body, openai_body, variant_format

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-test-0123456789"
HI = [{"role": "user", "content": "Hi"}]


def _echo(seen: Seen) -> Reply:
    """Answer in the format the path names, echoing the last user text."""
    body = seen.json() if seen.body else {}
    last = body.get("messages", [{}])[-1].get("content")
    if isinstance(last, list):
        last = last[0].get("text")
    if seen.path.endswith("/messages"):
        return Reply(200, anthropic_body(f"echo:{last}", id=f"msg-{last}"))
    return Reply(200, openai_body(f"echo:{last}", id=f"chatcmpl-{last}"))


def test_import_wiremap_does_not_import_httpx_or_opentelemetry() -> None:
    code = "import sys, wiremap; print(sorted(m for m in ('httpx', 'opentelemetry') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_provider_is_public() -> None:
    assert wiremap.Provider is wiremap.runtime.provider.Provider
    assert "Provider" in wiremap.__all__


def test_openai_request_on_the_wire(serve: Any) -> None:
    server = serve(_echo)
    request = {
        "model": "gpt-test",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
        "tools": [
            {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            }
        ],
        "tool_choice": "auto",
        "config": {"temperature": 0.2, "max_tokens": 50, "extras": {"logprobs": True}},
    }

    async def main() -> wiremap.Response:
        async with wiremap.Provider(
            "openai_chat", model="gpt-test", api_key=KEY, base_url=server.url
        ) as p:
            return await p.complete(
                request["messages"],
                tools=request["tools"],
                config=request["config"],
                tool_choice="auto",
            )

    response = asyncio.run(main())
    assert response.message.content == "echo:Hi"
    assert response.raw["id"] == "chatcmpl-Hi"
    (seen,) = server.requests
    assert seen.method == "POST" and seen.path == "/v1/chat/completions"
    assert seen.json() == wiremap.get_format("openai_chat").request_to_wire(request)
    assert seen.headers["authorization"] == f"Bearer {KEY}"
    assert seen.headers["user-agent"] == f"wiremap/{wiremap.__version__}"
    assert seen.headers["content-type"] == "application/json"
    assert "x-api-key" not in seen.headers and not seen.query


def test_anthropic_request_on_the_wire(serve: Any) -> None:
    server = serve(_echo)

    async def main() -> wiremap.Response:
        async with wiremap.Provider(
            "anthropic_messages",
            model="claude-test",
            api_key=KEY,
            base_url=server.url,
            headers={"anthropic-beta": "feature-x"},
        ) as p:
            return await p.complete(HI, config={"max_tokens": 32})

    response = asyncio.run(main())
    assert response.to_dict()["message"] == {"role": "assistant", "content": "echo:Hi"}
    assert response.usage.prompt_tokens == 11 and response.finish_reason == "stop"
    (seen,) = server.requests
    assert seen.path == "/v1/messages"
    assert seen.headers["x-api-key"] == KEY
    assert (
        seen.headers["anthropic-version"]
        == wiremap.get_format("anthropic_messages").transport["headers"]["anthropic-version"]
    )
    assert seen.headers["anthropic-beta"] == "feature-x"
    assert "authorization" not in seen.headers
    assert seen.json() == wiremap.get_format("anthropic_messages").request_to_wire(
        {"model": "claude-test", "messages": HI, "config": {"max_tokens": 32}}
    )


def _own_format_echo(fmt: wiremap.Format, path_fields: dict[str, str]) -> Any:
    """A server that answers in `fmt`'s own wire shape: the request read back by the format's own
    table (the path-bound fields, such as Gemini's `{model}`, put back from the URL), its last
    user text echoed in the format's own response body."""

    def reply(seen: Seen) -> Reply:
        body = dict(seen.json())
        body.update(path_fields)
        request = fmt.request_from_wire(body)
        last = request.messages[-1].content
        text = last if isinstance(last, str) else "".join(getattr(p, "text", "") or "" for p in last)
        wire = fmt.response_to_wire(
            {
                "message": {"role": "assistant", "content": f"echo:{text}"},
                "finish_reason": "stop",
                "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
            }
        )
        return Reply(200, wire)

    return reply


@pytest.mark.parametrize("key", [k for k in wiremap.formats() if wiremap.get_format(k).kind == "chat"])
def test_every_chat_format_completes_over_http(serve: Any, key: str) -> None:
    """The same call and the same Response shape, whatever the chat format: the request goes to
    the format's path (its path-bound model and transport params filled in), is read back by
    the format's own table, and the answer in the format's own shape comes back as one Response.
    (The embeddings and images formats: test_provider_embeddings.py, test_provider_kinds.py.)"""
    fmt = wiremap.get_format(key)
    transport = fmt.transport or {}
    path, _, query = transport["endpoint"]["path"].partition("?")
    params = {name: f"{name}-1" for name in transport.get("params") or {}}
    bound = [n for n in re.findall(r"\{([^{}]*)\}", path) if n not in params]
    server = serve(_own_format_echo(fmt, {name: "m-1" for name in bound}))

    async def main() -> wiremap.Response:
        async with wiremap.Provider(key, model="m-1", api_key=KEY, base_url=server.url, params=params or None) as p:
            return await p.complete(HI, config={"max_tokens": 16})

    response = asyncio.run(main())
    assert response.message.content == "echo:Hi"
    assert response.finish_reason == "stop"
    assert response.usage.prompt_tokens == 3 and response.usage.completion_tokens == 2
    expected = path.replace("{model}", "m-1").replace("{modelId}", "m-1")
    for name, value in params.items():
        expected = expected.replace("{" + name + "}", value)
    (seen,) = server.requests
    assert seen.path == expected
    assert seen.query == urllib.parse.parse_qs(query)


def test_user_headers_override_table_headers(serve: Any) -> None:
    server = serve(_echo)
    p = wiremap.Provider(
        "anthropic_messages",
        model="c",
        api_key=KEY,
        base_url=server.url,
        headers={"Anthropic-Version": "2023-06-01", "User-Agent": "mine/1"},
    )
    p.complete_sync(HI)
    p.close()
    headers = server.requests[0].headers
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["user-agent"] == "mine/1"


def test_query_auth_and_model_in_path(serve: Any) -> None:
    server = serve(_echo)
    fmt = variant_format(
        "openai_chat",
        auth={"scheme": "query", "name": "key"},
        endpoint={"method": "POST", "path": "/v1beta/models/{model}:generate"},
    )

    async def main() -> None:
        async with wiremap.Provider(
            fmt, model="org/model a", api_key=KEY, base_url=server.url + "/api?tenant=t1"
        ) as p:
            await p.complete(HI)

    asyncio.run(main())
    (seen,) = server.requests
    assert seen.raw_path.split("?")[0] == "/api/v1beta/models/org%2Fmodel%20a:generate"
    assert seen.query == {"tenant": ["t1"], "key": [KEY]}
    assert "authorization" not in seen.headers and "x-api-key" not in seen.headers


def test_no_auth_scheme_sends_no_credentials(serve: Any) -> None:
    server = serve(_echo)
    fmt = variant_format("openai_chat", auth={"scheme": "none"}, api_key_env=None)
    with wiremap.Provider(fmt, model="m", base_url=server.url) as p:
        p.complete_sync(HI)
    assert "authorization" not in server.requests[0].headers


def test_base_url_ending_in_the_path_prefix_is_not_repeated(serve: Any) -> None:
    server = serve(_echo)
    with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url + "/v1/") as p:
        p.complete_sync(HI)
    assert server.requests[0].path == "/v1/chat/completions"


def test_api_key_from_the_environment(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server = serve(_echo)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-from-env-42")
    with wiremap.Provider("anthropic_messages", model="c", base_url=server.url) as p:
        p.complete_sync(HI)
    assert server.requests[0].headers["x-api-key"] == "sk-from-env-42"


def test_empty_api_key_means_no_credentials(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    server = serve(_echo)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-42")
    with wiremap.Provider("openai_chat", model="m", api_key="", base_url=server.url) as p:
        p.complete_sync(HI)
    assert "authorization" not in server.requests[0].headers


def test_missing_api_key_is_an_authentication_error_before_sending(
    serve: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = serve(_echo)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    p = wiremap.Provider("openai_chat", model="m", base_url=server.url)
    with pytest.raises(wiremap.AuthenticationError, match="OPENAI_API_KEY"):
        p.complete_sync(HI)
    with pytest.raises(wiremap.AuthenticationError):
        p.ready_sync()
    p.close()
    assert server.requests == []


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages"])
@pytest.mark.parametrize(
    "kwargs,category",
    [
        ({"messages": [{"role": "user", "content": 5}]}, "provider_invalid_request"),
        ({"messages": []}, "provider_invalid_request"),
        ({"messages": [{"role": "tool", "tool_call_id": "c1", "content": "x"}]}, "provider_invalid_request"),
        ({"messages": HI, "tool_choice": "required"}, "provider_invalid_request"),
        ({"messages": HI, "config": {"temperature": float("nan")}}, "provider_invalid_request"),
        ({"messages": "Hi"}, "provider_invalid_request"),
        (
            {
                "messages": HI,
                "structured_output": "no_such_mode",
                "response_schema": {"type": "object"},
            },
            "provider_invalid_request",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "audio",
                                "source": {"type": "url", "url": "https://x/a.flac"},
                                "media_type": "audio/flac",
                            }
                        ],
                    }
                ]
            },
            "provider_unsupported_content_block",
        ),
    ],
)
def test_pre_send_errors_propagate_and_nothing_is_sent(
    serve: Any, key: str, kwargs: dict[str, Any], category: str
) -> None:
    server = serve(_echo)
    kwargs = dict(kwargs)
    messages = kwargs.pop("messages")

    async def main() -> None:
        async with wiremap.Provider(key, model="m", api_key=KEY, base_url=server.url) as p:
            await p.complete(messages, **kwargs)

    with pytest.raises(wiremap.ProviderError) as info:
        asyncio.run(main())
    assert info.value.category == category, repr(info.value)
    assert server.requests == []


def test_typed_records_are_accepted(serve: Any) -> None:
    server = serve(_echo)
    with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url) as p:
        r = p.complete_sync(
            [wiremap.UserMessage(content="Hi")],
            tools=[wiremap.Tool(name="f", parameters={"type": "object"})],
            config=wiremap.Config(max_tokens=5),
            tool_choice=wiremap.ForcedTool(name="f"),
        )
    assert r.message.content == "echo:Hi"
    body = server.requests[0].json()
    assert body["tool_choice"] == {"type": "function", "function": {"name": "f"}}
    assert body["max_completion_tokens"] == 5


def test_complete_sync_reuses_one_client_and_connection(serve: Any) -> None:
    server = serve(_echo)
    with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url) as p:
        for i in range(5):
            assert (
                p.complete_sync([{"role": "user", "content": f"n{i}"}]).message.content
                == f"echo:n{i}"
            )
        assert len(p._clients) == 1
    assert len(server.requests) == 5


def test_complete_sync_from_several_threads(serve: Any) -> None:
    server = serve(lambda seen: Reply(200, _echo(seen).body, delay=0.05))
    with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url) as p:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            results = list(
                pool.map(
                    lambda i: p.complete_sync([{"role": "user", "content": f"t{i}"}]), range(16)
                )
            )
    assert [r.message.content for r in results] == [f"echo:t{i}" for i in range(16)]
    assert server.max_in_flight > 1


def test_complete_sync_inside_a_running_loop_is_refused(serve: Any) -> None:
    server = serve(_echo)
    p = wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url)

    async def main() -> None:
        with pytest.raises(RuntimeError, match="running event loop"):
            p.complete_sync(HI)
        with pytest.raises(RuntimeError, match="running event loop"):
            p.ready_sync()

    asyncio.run(main())
    assert server.requests == []


def test_one_provider_across_event_loops(serve: Any) -> None:
    """asyncio.run twice, and complete_sync beside: each loop gets its own client."""
    server = serve(_echo)
    p = wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url)

    async def once(text: str) -> str:
        r = await p.complete([{"role": "user", "content": text}])
        await p.aclose()
        return str(r.message.content)

    assert asyncio.run(once("a")) == "echo:a"
    assert asyncio.run(once("b")) == "echo:b"
    assert p.complete_sync([{"role": "user", "content": "c"}]).message.content == "echo:c"
    p.close()
    assert (
        p.complete_sync([{"role": "user", "content": "d"}]).message.content == "echo:d"
    )  # reopened
    p.close()


def test_async_context_manager_closes_the_client(serve: Any) -> None:
    server = serve(_echo)

    async def main() -> Any:
        async with wiremap.Provider(
            "openai_chat", model="m", api_key=KEY, base_url=server.url
        ) as p:
            await p.complete(HI)
            client = p._client()
        return client

    client = asyncio.run(main())
    assert client.is_closed


def test_constructor_checks() -> None:
    with pytest.raises(wiremap.UnknownFormatError):
        wiremap.Provider("no_such_format", model="m")
    with pytest.raises(ValueError, match="model"):
        wiremap.Provider("openai_chat", model="")
    with pytest.raises(ValueError, match="http"):
        wiremap.Provider("openai_chat", model="m", base_url="ftp://example.com")
    with pytest.raises(ValueError, match="structured_output"):
        wiremap.Provider("openai_chat", model="m", structured_output="tool_coercion")
    p = wiremap.Provider("openai_chat", model="gpt-4o", api_key=KEY)
    assert p.base_url == "https://api.openai.com"
    assert (
        repr(p)
        == "<wiremap.Provider 'openai_chat' model='gpt-4o' base_url='https://api.openai.com'>"
    )


def test_provider_structured_output_default_and_call_override(serve: Any) -> None:
    server = serve(lambda seen: Reply(200, openai_body('{"a": 1}')))
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    with wiremap.Provider(
        "openai_chat",
        model="m",
        api_key=KEY,
        base_url=server.url,
        structured_output="prompt_fallback",
    ) as p:
        assert p.complete_sync(HI, response_schema=schema).parsed == {"a": 1}
        assert p.complete_sync(HI, response_schema=schema, structured_output="native").parsed == {
            "a": 1
        }
    first, second = (s.json() for s in server.requests)
    assert "response_format" not in first and first["messages"][0]["role"] == "system"
    assert "response_format" in second and second["messages"][0]["role"] == "user"


def test_no_lock_between_calls_of_one_loop(serve: Any) -> None:
    """A slow call does not hold up a fast one on the same Provider."""

    def handler(seen: Seen) -> Reply:
        slow = seen.json()["messages"][-1]["content"] == "slow"
        return Reply(200, _echo(seen).body, delay=0.6 if slow else 0.0)

    server = serve(handler)
    order: list[str] = []

    async def call(p: wiremap.Provider, text: str) -> None:
        await p.complete([{"role": "user", "content": text}])
        order.append(text)

    async def main() -> None:
        async with wiremap.Provider(
            "openai_chat", model="m", api_key=KEY, base_url=server.url
        ) as p:
            slow = asyncio.create_task(call(p, "slow"))
            await asyncio.sleep(0.1)
            await call(p, "fast")
            await slow

    asyncio.run(main())
    assert order == ["fast", "slow"]


def test_response_json_key_order_is_the_mappings(serve: Any) -> None:
    """The body goes out in the mapping's order (not re-sorted), compact, UTF-8."""
    server = serve(_echo)
    with wiremap.Provider("openai_chat", model="m", api_key=KEY, base_url=server.url) as p:
        p.complete_sync(
            [{"role": "user", "content": "héllo"}], config={"max_tokens": 5, "temperature": 0.5}
        )
    raw = server.requests[0].body
    wire = wiremap.get_format("openai_chat").request_to_wire(
        {
            "model": "m",
            "messages": [{"role": "user", "content": "héllo"}],
            "config": {"max_tokens": 5, "temperature": 0.5},
        }
    )
    assert raw == json.dumps(wire, ensure_ascii=False, separators=(",", ":")).encode()
    assert os.linesep not in raw.decode()

"""200 concurrent complete() calls against one Provider: all answered, none crossed, overlapped.

The server sleeps 0.2 s per request and echoes a marker from each request into its response.
Overlap is asserted structurally (the server saw many requests in flight at once); the wall
time only has a loose bound (far below 200 x 0.2 s = 40 s serialised).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

import wiremap
from loopback import Reply, Seen, anthropic_body, openai_body

CALLS = 200
DELAY = 0.2


def _marker(seen: Seen) -> str:
    content = seen.json()["messages"][-1]["content"]
    return content if isinstance(content, str) else content[0]["text"]


def _handler(key: str):  # type: ignore[no-untyped-def]
    def handle(seen: Seen) -> Reply:
        marker = _marker(seen)
        if key == "openai_chat":
            body = openai_body(f"echo:{marker}", id=f"id-{marker}")
        else:
            body = anthropic_body(f"echo:{marker}", id=f"id-{marker}")
        return Reply(200, body, delay=DELAY)

    return handle


@pytest.mark.parametrize("key", ["openai_chat", "anthropic_messages"])
def test_200_concurrent_calls(serve: Any, key: str) -> None:
    server = serve(_handler(key))

    async def main() -> list[wiremap.Response]:
        async with wiremap.Provider(
            key, model="m", api_key="sk-test-0123456789", base_url=server.url, timeout=30
        ) as p:
            return await asyncio.gather(
                *(p.complete([{"role": "user", "content": f"marker-{i}"}]) for i in range(CALLS))
            )

    started = time.perf_counter()
    responses = asyncio.run(main())
    elapsed = time.perf_counter() - started

    assert len(responses) == CALLS
    for i, response in enumerate(responses):  # none crossed: each answer is its own request's
        assert response.message.content == f"echo:marker-{i}", (i, response.message.content)
        assert response.raw["id"] == f"id-marker-{i}"
    assert len(server.requests) == CALLS
    assert sorted(_marker(s) for s in server.requests) == sorted(
        f"marker-{i}" for i in range(CALLS)
    )
    # overlapped: the server was serving many of them at the same time
    assert server.max_in_flight > 1
    assert server.max_in_flight >= CALLS // 4, server.max_in_flight
    assert elapsed < CALLS * DELAY / 4, elapsed  # loose: serialised would be 40 s

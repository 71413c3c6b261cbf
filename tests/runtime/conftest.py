"""Fixtures for the Provider tests: a loopback HTTP server per test, started by the test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Callable

import pytest

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

from loopback import Handler, LoopbackServer  # noqa: E402


@pytest.fixture
def serve() -> Iterator[Callable[[Handler], LoopbackServer]]:
    """`serve(handler)` starts a LoopbackServer on 127.0.0.1; every one stops at teardown, and a
    handler that raised fails the test."""
    servers: list[LoopbackServer] = []

    def start(handler: Handler) -> LoopbackServer:
        server = LoopbackServer(handler).__enter__()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
    errors = [e for s in servers for e in s.errors]
    assert not errors, "the test server's handler raised:\n" + "\n".join(errors)

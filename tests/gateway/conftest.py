"""The gateway tests talk to it through the official SDKs, whose clients keep a kept-alive
connection open until they are closed. A test that ends without closing its client leaves that
socket to the garbage collector, which warns (`ResourceWarning: unclosed <socket ...>`) in
whatever test happens to run then. Every httpx client a test makes is closed when it ends."""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any

import httpx
import pytest


@pytest.fixture(autouse=True)
def close_http_clients(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    made: weakref.WeakSet[httpx.Client] = weakref.WeakSet()
    init = httpx.Client.__init__

    def tracked(self: httpx.Client, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        made.add(self)

    monkeypatch.setattr(httpx.Client, "__init__", tracked)
    yield
    for client in list(made):
        if not client.is_closed:
            client.close()

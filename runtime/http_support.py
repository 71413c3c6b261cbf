"""What the Provider, its streams and the gateway share about HTTP: URLs, TLS, a loop thread.

A leaf module (no other runtime module is imported here): `provider`, `provider_stream` and
`wiremap.gateway` import from it, so none of them imports another's private helpers.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import threading
import urllib.parse
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

__all__ = ["LoopThread", "default_ssl_context", "join_url", "table_base_url", "without_userinfo"]

T = TypeVar("T")

_ssl_lock = threading.Lock()
_default_ssl: ssl.SSLContext | None = None


def default_ssl_context() -> ssl.SSLContext:
    """One certificate store for every Provider (loading it costs ~0.1 s per client)."""
    global _default_ssl
    with _ssl_lock:
        if _default_ssl is None:
            import httpx

            _default_ssl = httpx.create_ssl_context()
        return _default_ssl


def table_base_url(transport: Any, fill: Any = None) -> str | None:
    """The base URL a format's transport table gives: the variable its `base_url_env` names
    when set and non-empty (a per-resource origin: Azure's AZURE_OPENAI_ENDPOINT), else its
    `base_url`, else None. A caller's own base URL (`base_url=`, `--upstream-url`) wins over both.
    `{param}` placeholders (`transport.params`: a region, a project) are left for the caller to
    fill (runtime/cloud_auth.py transport_params). With that `fill`, a `base_url_by` row picks
    the origin its param's value names instead of `base_url` (Vertex AI's `global`)."""
    if not transport:
        return None
    env = transport.get("base_url_env")
    if isinstance(env, str) and env:
        value = os.environ.get(env)
        if value:
            return value
    base = transport.get("base_url")
    by = transport.get("base_url_by")
    if fill is not None and isinstance(by, dict):
        for name, origins in by.items():
            placeholder = "{" + str(name) + "}"
            value = fill(placeholder)
            if value != placeholder and value in origins:
                return str(origins[value])
    return base if isinstance(base, str) and base else None


def join_url(base_url: str, path: str) -> str:
    """`base_url` + `path`, keeping the base URL's query; `.../v1` + `/v1/x` is `.../v1/x`."""
    split = urllib.parse.urlsplit(base_url)
    base_path = split.path.rstrip("/")
    if not path.startswith("/"):
        path = "/" + path
    if base_path:
        last = base_path.rsplit("/", 1)[-1]
        first = path.split("/", 2)[1]
        if last and last == first:
            path = path[len(first) + 1 :]
    return urllib.parse.urlunsplit((split.scheme, split.netloc, base_path + path, split.query, ""))


def without_userinfo(url: str) -> str:
    """`url` without `user:password@` (what error messages and logs may show)."""
    split = urllib.parse.urlsplit(url)
    if "@" not in split.netloc:
        return url
    netloc = split.netloc.rsplit("@", 1)[1]
    return urllib.parse.urlunsplit((split.scheme, netloc, split.path, split.query, split.fragment))


class LoopThread:
    """A private event loop on a daemon thread: `complete_sync` runs there, so its client and
    connection pool live across calls and several threads can call it at once."""

    __slots__ = ("loop", "thread")

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="wiremap-provider-sync", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()  # an interrupted caller (KeyboardInterrupt) cancels the call
            raise

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


def key_env_names(transport: Mapping[str, Any] | None) -> list[str]:
    """The environment variables a format's key is read from, in order: `transport.api_key_env`,
    then `api_key_env_also` (the other names the provider's SDK reads: Cohere's COHERE_API_KEY)."""
    transport = transport or {}
    first = transport.get("api_key_env")
    names = [first] if isinstance(first, str) and first else []
    names += [n for n in transport.get("api_key_env_also") or () if isinstance(n, str) and n]
    return names


def key_from_env(transport: Mapping[str, Any] | None) -> str | None:
    """The key from the first of `key_env_names` that is set and not empty; else the first that is
    set (an empty key, refused or sent as before), else None."""
    values = [os.environ.get(name) for name in key_env_names(transport)]
    return next((v for v in values if v), next((v for v in values if v is not None), None))

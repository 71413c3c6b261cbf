"""The translating gateway: clients speak one format, the upstream another (`wiremap serve`).

    app = create_app(inbound="openai_chat", upstream="anthropic_messages",
                     upstream_url="https://api.anthropic.com")
    # uvicorn wiremap.gateway:app_from_env --factory   (what `wiremap serve` runs)

An ASGI application (Starlette). It accepts POST on the inbound format's endpoint path (the
mapping's `transport.endpoint`), reads the body with the inbound format's tables, calls the
upstream through `wiremap.Provider` (so the upstream's transport table, auth, error mapping and
tracing apply; `complete()` for chat formats, `embed()` for embeddings formats: inbound and
upstream are of one kind, `wiremap.gateway_config.SERVED_KINDS`), and answers with the inbound
format's `response_to_wire`, or with its own error envelope and status (`error_to_wire`) so the
client's official SDK raises its own exception class. It holds no state between requests beyond a cache of upstream connections, so it scales
by running more workers behind any load balancer.

Credentials: with `upstream_api_key` (or the env variable the upstream's table names, when
`forward_client_key=False`) the gateway uses its own key; by default it forwards the key the
client sent in the inbound format's auth header to the upstream.

What did not survive the two hops is reported in the `x-wiremap-losses` response header
(JSON: `[{"direction", "path", "kind", "detail"}]`, `direction` is `request` or `response`); `strict=True` refuses a
request that would lose anything, naming the loss, with the inbound format's 400.

A request with `stream: true` is answered with the inbound format's server-sent events
(`wiremap.gateway_stream`): the upstream is called streaming (or, when its mapping cannot
stream, atomically and re-emitted as one stream) and every upstream chunk is translated and
written as it arrives. Request-side losses are in the `x-wiremap-losses` header; response-side
ones, known only at the end, are written as a last SSE comment `: wiremap-losses [...]` before
the stream's end marker (SSE clients ignore comments).

Several upstreams (`create_app(config_file=...)`, `wiremap serve --config`): routes by model,
fallbacks, retries and an extras policy per upstream, each upstream a `GatewayConfig` of its own
(`wiremap.gateway_config`). Every request gets an access-log line and counts in `GET /metrics`
(`wiremap.gateway_metrics`).

Hardening (issue 15):
- Credentials: in forwarding mode a request without a key is answered 401 in the inbound
  envelope; the gateway never lets `Provider` fall back to an environment key it was not told
  to use. A key that cannot travel in an HTTP header (non-ASCII) is 401 too. Gemini clients may
  send their key as `?key=`; query strings never reach uvicorn's access log.
- Load: at most `max_in_flight` requests per upstream at once (one shared httpx client over
  the gateway's keep-alive connections, wiremap.gateway_transport); past it the gateway sheds at once with the inbound format's
  429 and `retry-after`, answered in front of Starlette (`_FastPath`, with `GET /healthz`).
  Upstream calls run on the serving loop, in the request's own task (one event loop: a second
  loop on a thread of its own cost two cross-thread wake-ups per request and GIL contention,
  bench/NOTES.md); WIREMAP_GATEWAY_UPSTREAM_LOOP=thread runs them on a loop thread as before.
- Bodies: larger than `max_body` bytes -> 413 before parsing; a body that does not arrive within
  `body_timeout` seconds (a Content-Length larger than the body) -> 408; bodies above
  `offload_bytes` are parsed and translated on a worker thread, so other clients stay served.
- Time: `timeout` is each upstream call's total deadline (and its connect/read timeout); a
  client that disconnects cancels its upstream call.
- Failures: a transport failure (connect, timeout, reset) reaches the client as a generic
  upstream error (category, status, request id); the detail, userinfo redacted, goes to the
  `wiremap.gateway` log. Every answer carries `x-request-id`. Unknown paths and wrong methods
  are 404/405 in the inbound envelope.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import re
from collections import OrderedDict
from collections.abc import Awaitable, Mapping
from typing import Any

from wiremap.runtime.errors import (
    AuthenticationError,
    InvalidRequestError,
    InvalidResponseError,
    ProviderError,
    RateLimitError,
)
from wiremap.runtime.format import Format
from wiremap.runtime.provider import Provider
from wiremap.runtime.canonical import NotGiven, Request
from wiremap.runtime.format import translator
from wiremap.runtime.translate import Loss, TranslationLossError, fit_ranges, proven_losses, request_losses, response_losses, unique_tool_call_ids
from wiremap.runtime.wire import options_from_headers

from .gateway_common import BearerToken, BodyTimeout, BodyTooLarge, ClientGone, loss_header, sends_as_bearer
from .gateway_config import GatewayConfig, apply_extras_policy, through_hops
from .gateway_metrics import CONTENT_TYPE, Metrics, access_record, observed
from .gateway_endpoints import allowed_method, bind_path, endpoint_routes, forward, not_found
from .gateway_json import loads as json_loads
from .gateway_stream import stream_response, strip_stream_fields

__all__ = ["create_app", "app_from_env", "GatewayConfig"]

_PROVIDER_CACHE = 64
CONFIG_ENV = "WIREMAP_GATEWAY_CONFIG"
UPSTREAM_LOOP_ENV = "WIREMAP_GATEWAY_UPSTREAM_LOOP"
GC_ENV = "WIREMAP_GATEWAY_GC"  # `wiremap serve`: "tuned" (the default) or "default" (Python's own GC settings)
# the cyclic GC's first threshold in a `wiremap serve` worker (Python's default is 700); see tune_gc
GC_THRESHOLD = 20_000
_SENDABLE_KEY = re.compile(r"[\x21-\x7e]+")
_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")

_log = logging.getLogger("wiremap.gateway")


def _redact_userinfo(text: str) -> str:
    """`scheme://user:password@host` -> `scheme://[REDACTED]@host`, anywhere in `text`."""
    return _USERINFO.sub(r"\1[REDACTED]@", text)


class _AccessLogQuery(logging.Filter):
    """uvicorn's access log line without the query string (a Gemini `?key=` is a credential)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str) and "?" in args[2]:
            record.args = (*args[:2], args[2].split("?", 1)[0] + "?[REDACTED]", *args[3:])
        return True


def _quiet_access_log_queries() -> None:
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, _AccessLogQuery) for f in logger.filters):
        logger.addFilter(_AccessLogQuery())


def _key_place(fmt: Format) -> str:
    auth = (fmt.transport or {}).get("auth") or {}
    if auth.get("scheme") == "header":
        return f"the {auth.get('name') or 'x-api-key'} header"
    return "the Authorization header (Bearer)"


def _client_key(fmt: Format, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
    """The key the client sent: where the inbound table says, else as a bearer token (the
    anthropic 2.x SDK sends `Authorization: Bearer` although the API documents `x-api-key`),
    else, for Google's formats, the `?key=` query parameter the Gemini REST API documents.
    A key that cannot be sent on in an HTTP header is `AuthenticationError`."""
    auth = (fmt.transport or {}).get("auth") or {}
    scheme = auth.get("scheme")
    key = None
    if scheme == "header":
        key = headers.get(str(auth.get("name") or "x-api-key").lower())
    elif scheme == "query":
        key = query.get(str(auth.get("name") or "key"))
    if not key:
        value = headers.get("authorization", "")
        key = value[7:].strip() if value[:7].lower() == "bearer " else None
        if key and auth.get("bearer_tokens") is True and _SENDABLE_KEY.fullmatch(key):
            return BearerToken(key)  # a token in the key's place (Azure's Entra ID), forwarded as one
    if not key and fmt.provider == "google":
        key = query.get("key")
    if key and not _SENDABLE_KEY.fullmatch(key):
        raise AuthenticationError(f"the API key in {_key_place(fmt)} holds characters an API key cannot have (only visible ASCII)")
    return key or None


def _extras_policy(lane: GatewayConfig) -> bool:
    """Whether `lane` has an extras policy that can change a same-format body."""
    return lane.keep_extras is False or (lane.keep_extras is None and bool(lane.allowed_extras))


def _extras_to_drop(canonical: Mapping[str, Any], inbound: Format, lane: GatewayConfig) -> tuple[list[str], list[Loss]]:
    """The top-level fields of a same-format body that `lane`'s extras policy cuts out
    (`keep_extras: false`: every field the inbound tables do not model; `allowed_extras`: those
    it does not name), and a `dropped` loss for each."""
    if not _extras_policy(lane):
        return [], []
    carried = canonical.get("carried")
    ops = carried.get("ops") if isinstance(carried, dict) else None
    names = [op["path"][0] for op in ops or () if isinstance(op, dict) and len(op.get("path") or ()) == 1 and isinstance(op["path"][0], str)]
    allowed = () if lane.keep_extras is False else lane.allowed_extras
    why = "keep_extras: false" if lane.keep_extras is False else "not in its allowed_extras"
    drop = [name for name in names if name not in allowed]
    where = lane.name or lane.upstream.key
    return drop, [Loss(name, "dropped", f"{inbound.key} field {name!r} is not forwarded to {where} ({why})") for name in drop]


def _asked_encoding(canonical: Mapping[str, Any], inbound: Format) -> str | None:
    """The vector encoding an embeddings client asked for (canonical `config.encoding_format`):
    the answer is written in it where the inbound format takes it (OpenAI's and Cohere's base64:
    openai-node asks for base64 by default and decodes the answer as base64 without looking), and
    the loss report names it where it cannot be (a quantized type, from float vectors)."""
    if inbound.kind != "embeddings":
        return None
    config = canonical.get("config")
    asked = config.get("encoding_format") if isinstance(config, Mapping) else None
    return asked if isinstance(asked, str) else None


def _is_transport(exc: BaseException) -> bool:
    """An error of the connection to the upstream (not an answer the upstream gave): its chain
    holds an httpx transport/decoding error or a timeout."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [exc]
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, TimeoutError):
            return True
        module = type(current).__module__ or ""
        if module.startswith(("httpx", "httpcore")) and type(current).__name__ != "HTTPStatusError":
            return True
        stack += [current.__cause__, current.__context__]
    return False


_ids = random.Random()  # seeded from os.urandom once: request ids need to be unique, not secret
os.register_at_fork(after_in_child=_ids.seed)  # a forked worker (gunicorn --preload) gets its own sequence


def _request_id() -> str:
    """`req_` and 16 hex digits (os.urandom per request was a tenth of the gateway's CPU)."""
    return f"req_{_ids.getrandbits(64):016x}"


def tune_gc() -> None:
    """The cyclic garbage collector set for a gateway worker (`wiremap serve`, at start-up):
    what is loaded by then (the formats, the server, the app) is frozen out of every
    collection (`gc.freeze()`), and a collection runs once 20 000 more objects are alive
    instead of 700. A request's objects are freed by reference counting (the request and
    stream paths leave no reference cycles; tests/test_gateway_gc.py checks it), so a
    collection finds almost nothing; with Python's settings it ran every few requests, walking
    the objects of every request in flight (and every module's at each full collection): a
    tenth of the gateway's CPU on streams and pauses of 1-40 ms, which every request in flight
    waits out (bench/NOTES.md). `WIREMAP_GATEWAY_GC=default` keeps Python's settings."""
    import gc

    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, 10, 10)


class _UpstreamLoop:
    """The gateway's upstream event loop on a daemon thread: uvloop's loop when uvloop is
    installed (the `gateway-fast` extra; uvicorn then picks it for the serving loop too),
    else asyncio's."""

    __slots__ = ("loop", "thread")

    def __init__(self) -> None:
        import threading

        from importlib import import_module

        try:
            uvloop = import_module("uvloop")  # optional (gateway-fast); not a typing dependency
        except ImportError:
            self.loop: asyncio.AbstractEventLoop = asyncio.new_event_loop()
        else:
            self.loop = uvloop.new_event_loop()
        self.thread = threading.Thread(target=self._run, name="wiremap-gateway-upstream", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class _Slot:
    """One of the gateway's in-flight upstream slots; released once, whoever releases it."""

    __slots__ = ("_gateway", "_held")

    def __init__(self, gateway: "_Gateway") -> None:
        self._gateway = gateway
        self._held = True

    def release(self) -> None:
        if self._held:
            self._held = False
            self._gateway.in_flight -= 1


async def _disconnected(receive: Any) -> None:
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return


class _Gateway:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self._providers: OrderedDict[tuple[str, str, str, bool], Provider] = OrderedDict()
        self._client: Any = None
        self._loop_thread: Any = None
        self.in_flight = 0
        # one event loop by default; "thread": upstream calls on a loop thread of their own
        self._threaded = os.environ.get(UPSTREAM_LOOP_ENV, "").strip().lower() == "thread"
        self.metrics = Metrics()
        self.sleep: Any = asyncio.sleep  # between retries; tests replace it
        self.tunes_gc = False  # app_from_env (`wiremap serve`): tune_gc() at start-up

    def upstream(self, coro: Any) -> Any:
        """`coro` (an upstream call) as an awaitable of its result. By default it runs right here,
        on the serving loop, in the awaiting task: one event loop, no cross-thread hand-over.
        With WIREMAP_GATEWAY_UPSTREAM_LOOP=thread it runs on an event loop of its own (a
        thread), as the gateway did before: the upstream I/O then never waits behind the
        serving loop's other work, at the price of two wake-ups across threads per request and
        both threads contending for the GIL (bench/NOTES.md). Cancelling the awaitable cancels
        the call either way."""
        if not self._threaded:
            return coro
        if self._loop_thread is None:
            self._loop_thread = _UpstreamLoop()
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop_thread.loop))

    def pump(self, events: Any) -> "_Pump":
        """`events` (an async generator) driven by a task of its own (on the upstream loop when
        there is one), its events handed to this loop in batches (`_Pump.batch`)."""
        if not self._threaded:
            return _Pump(events, None)
        if self._loop_thread is None:
            self._loop_thread = _UpstreamLoop()
        return _Pump(events, self._loop_thread.loop)

    def http_client(self) -> Any:
        """One httpx client for every Provider of this upstream, over the gateway's own
        keep-alive connections (`_upstream_transport`). It keeps no cookies: the client is
        shared by every caller of the gateway, so a `set-cookie` of one answer must not travel
        with another caller's request."""
        if self._client is None or self._client.is_closed:
            import http.cookiejar

            import httpx

            transport = _upstream_transport(self.config.max_in_flight)
            from .gateway_transport import LeanClient, LeanTransport

            # over the gateway's own transport, the lean client: straight to it (gateway_transport)
            client_class = LeanClient if isinstance(transport, LeanTransport) else httpx.AsyncClient
            self._client = client_class(
                timeout=httpx.Timeout(self.config.timeout),
                transport=transport,
                follow_redirects=False,
                cookies=http.cookiejar.CookieJar(policy=http.cookiejar.DefaultCookiePolicy(allowed_domains=[])),
            )
        return self._client

    def provider(self, model: str, key: str, lane: GatewayConfig | None = None) -> Provider:
        lane = lane or self.config  # one upstream of a config file's routes, or the only one
        bearer = sends_as_bearer(key, (lane.upstream.transport or {}).get("auth"))
        cache_key = (lane.name or "", model, key, bearer)
        p = self._providers.get(cache_key)
        if p is None:
            # `key` is always explicit here ("" = none): Provider never reads the environment,
            # except where no key means the table's auth fallback (SigV4, Google credentials).
            # A client's bearer token for an upstream that takes one goes as a bearer token.
            fallback = not key and bool(((lane.upstream.transport or {}).get("auth") or {}).get("fallback"))
            p = Provider(
                lane.upstream, model=model, api_key=None if (bearer or fallback) else key, base_url=lane.upstream_url,
                timeout=self.config.timeout, deadline=lane.timeout or float("inf"),
                http_client=self.http_client(), bearer_token=str(key) if bearer else None,
            )
            self._providers[cache_key] = p
            while len(self._providers) > _PROVIDER_CACHE:
                self._providers.popitem(last=False)  # the shared client stays open
        else:
            self._providers.move_to_end(cache_key)
        return p

    def acquire(self) -> _Slot:
        if self.in_flight >= self.config.max_in_flight:
            raise RateLimitError(
                f"the gateway is serving its limit of {self.config.max_in_flight} concurrent upstream requests; retry shortly",
                retry_after=1.0,
            )
        self.in_flight += 1
        return _Slot(self)

    def public(self, exc: BaseException, rid: str) -> BaseException:
        """What a client may see of an error: a transport failure becomes a generic upstream
        error (category, request id), its detail logged here with userinfo redacted; any other
        message loses the upstream URL's userinfo."""
        if isinstance(exc, ProviderError) and _is_transport(exc):
            _log.warning("request %s: upstream %s: %s", rid, exc.category, _redact_userinfo(str(exc)))
            status = f", HTTP {exc.status}" if exc.status else ""
            generic = type(exc)(
                f"the upstream could not be reached or did not answer in time ({exc.category}{status}); request id {rid}",
                retry_after=exc.retry_after,
            )
            return generic
        if isinstance(exc, ProviderError):
            text = str(exc)
            clean = _redact_userinfo(text)
            if clean != text:
                exc.args = (clean,)
                exc.message = _redact_userinfo(exc.message)
        return exc

    def error(self, exc: BaseException, rid: str | None = None, status: int | None = None, headers: Mapping[str, str] | None = None) -> Any:
        from starlette.responses import JSONResponse

        if rid is not None:
            exc = self.public(exc, rid)
        access_record().failed(exc)
        if self.config.inbound.error_to_wire is None:  # pragma: no cover - a pre-error_to_wire module
            return JSONResponse({"error": {"message": str(exc)}}, status_code=status or 500)
        wire_status, body, wire_headers = self.config.inbound.error_to_wire(exc)
        out = {k: v for k, v in wire_headers.items() if k.lower() != "content-type"}
        if isinstance(exc, TranslationLossError):
            out["x-wiremap-losses"] = loss_header(exc.losses)
        if rid is not None:
            out["x-request-id"] = rid
        out.update(headers or {})
        return JSONResponse(body, status_code=status or wire_status, headers=out)

    async def read_body(self, request: Any) -> bytes:
        cfg = self.config
        length = request.headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                raise InvalidRequestError(f"Content-Length {length!r} is not a byte count")
            if int(length) > cfg.max_body:
                raise BodyTooLarge(int(length), cfg.max_body)
        parts: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(cfg.body_timeout):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > cfg.max_body:
                        raise BodyTooLarge(size, cfg.max_body)
                    parts.append(chunk)
        except TimeoutError:
            raise BodyTimeout(cfg.body_timeout, size) from None
        return b"".join(parts)

    def prepare(self, raw: bytes, path_params: Mapping[str, str]) -> tuple[dict[str, Any], str, list[Loss], bool, Any]:
        """The body read and translated: (canonical request dict, upstream model, losses,
        streaming, the client's body). Pure CPU work: large bodies run it on a worker thread."""
        plain, streaming, client_body, read_from = self.read(raw, path_params)
        plain, model, losses = self.translate(plain, self.config, body=read_from)
        return plain, model, losses, streaming, client_body

    def read(self, raw: bytes, path_params: Mapping[str, str]) -> tuple[dict[str, Any], bool, Any, dict[str, Any]]:
        """The body read with the inbound tables: (canonical request dict, streaming, the
        client's body, the body the canonical request was read from: what a fused translator
        takes, `translate`)."""
        cfg = self.config
        try:
            body = json_loads(raw)  # orjson when installed, the same value (wiremap.gateway_json)
        except ValueError as exc:
            raise InvalidRequestError(f"the request body is not JSON: {exc}") from None
        if not isinstance(body, dict):
            raise InvalidRequestError("the request body must be a JSON object")
        body = bind_path(cfg.inbound, body, path_params)  # the URL's model (any field name)
        flag = body.get("stream")
        if flag is not None and not isinstance(flag, bool):
            raise InvalidRequestError(f"`stream` must be a boolean (true or false), got {json.dumps(flag)[:40]}", path="stream")
        streaming = flag is True or path_params.get("wiremap.stream") == "1"  # or the format's stream path (Gemini)
        if streaming and cfg.inbound.kind != "chat":
            raise InvalidRequestError(f"{cfg.inbound.key} is a format of kind {cfg.inbound.kind}: its answers are not streamed", path="stream")
        client_body = body  # what the client asked of the stream (the usage chunk) is the emitter's input
        if streaming:  # served by wiremap.gateway_stream (the inbound stream table's fields are the mode, not extras)
            body = strip_stream_fields(cfg.inbound, body)
        canonical = cfg.inbound.request_from_wire(body)
        plain = canonical.to_dict()
        plain.pop("stream", None)
        return plain, streaming, client_body, body

    def translate(self, plain: dict[str, Any], lane: GatewayConfig, upstream_model: str | None = None, body: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], str, list[Loss]]:
        """The canonical request for one upstream (`lane`): (request dict, upstream model,
        losses). `plain` itself is not changed: a fallback translates it again.

        `body`: the inbound body `plain` was read from, exactly (no header options added). Where
        a fused translator for the pair proves that the body loses nothing but a default the
        upstream adds and the top-level wire data the inbound carries for its own provider
        (`translate.proven_losses`, as `translate_request` uses it; `"stream": false`), its
        exact report is the loss report, and the upstream body is not written, read back and
        compared a second time here (`request_losses`: a sixth of the gateway's CPU per
        request, bench/NOTES.md)."""
        cfg = lane
        plain = dict(plain)
        if isinstance(plain.get("config"), dict):
            plain["config"] = dict(plain["config"])
        model = upstream_model or cfg.model_map.get(plain["model"], plain["model"])
        renamed_model = model != plain["model"]
        plain["model"] = model
        plain, losses = apply_extras_policy(plain, cfg.inbound, lane)
        if body is not None and not renamed_model and not losses:
            forwards = getattr(cfg, "keep_extras", None) or getattr(cfg, "allowed_extras", None)
            proven = proven_losses(translator(cfg.inbound, cfg.upstream), body, carried=not forwards)
            if proven is not None:
                losses = proven[1]
                if cfg.strict and losses:
                    raise TranslationLossError(losses, cfg.inbound.key, cfg.upstream.key)
                return plain, model, losses
        unique, renamed = unique_tool_call_ids(Request.from_dict(plain)) if getattr(cfg.upstream.module, "UNIQUE_CALL_IDS", False) else (None, [])
        if unique is not None and renamed:
            plain = unique.to_dict()
            losses += renamed
        plain, clamped = fit_ranges(plain, cfg.upstream)  # a value past the upstream's range: clamped, and said so
        losses += clamped
        _wire, more = request_losses(plain, cfg.upstream)
        losses += more
        if cfg.strict and losses:
            raise TranslationLossError(losses, cfg.inbound.key, cfg.upstream.key)
        return plain, model, losses

    def key_for(self, request: Any, lane: GatewayConfig | None = None) -> str:
        """The upstream key for this request, always explicit ("" = none)."""
        cfg = lane or self.config
        if not cfg.forward_client_key:
            return cfg.upstream_api_key or ""
        # the query parsed only when there is one (Starlette parses it on every access)
        key = _client_key(cfg.inbound, request.headers, request.query_params if request.scope.get("query_string") else {})
        if key is None:
            if cfg.upstream_needs_key:
                raise AuthenticationError(f"no API key: send yours in {_key_place(cfg.inbound)}")
            return ""
        return key

    async def until_disconnect(self, request: Any, call: Awaitable[Any]) -> Any:
        """`call`'s result, unless the client disconnects first: then the call is cancelled.

        The call runs in this task (no extra task, no extra scheduling hop on the way back);
        a watcher task cancels this one when `http.disconnect` arrives."""
        me = asyncio.current_task()
        assert me is not None
        gone = False

        async def watch() -> None:
            nonlocal gone
            await _disconnected(request.receive)
            gone = True
            me.cancel()

        watcher = asyncio.ensure_future(watch())
        try:
            return await call
        except asyncio.CancelledError:
            if gone:
                me.uncancel()
                raise ClientGone from None
            raise
        finally:
            if not watcher.done():
                watcher.cancel()

    @observed  # the access-log line and metrics (wiremap.gateway_metrics)
    async def handle(self, request: Any) -> Any:
        from starlette.responses import JSONResponse, Response

        cfg = self.config
        rid = _request_id()
        record = access_record()  # the access-log line and the metrics of this request
        record.request_id = rid
        slot: _Slot | None = None
        try:
            # with a config file's routes the key depends on the upstream the model routes to
            key = self.key_for(request) if cfg.routing is None else None
            raw = await self.read_body(request)
            slot = self.acquire()
            if getattr(cfg, "routing", None) is None and cfg.inbound.key == cfg.upstream.key and not _extras_policy(cfg):
                owned, slot = slot, None  # same format in and out: the bytes go through (wiremap.gateway_endpoints)
                record.use(cfg.name or cfg.upstream.key, cfg.upstream.key)
                return await forward(self, request, raw, rid, owned, key=key or "")
            params = dict(request.path_params)
            offload = len(raw) > cfg.offload_bytes
            read_from: dict[str, Any] | None
            if offload:
                import anyio.to_thread

                canonical, streaming, client_body, read_from = await anyio.to_thread.run_sync(self.read, raw, params)
            else:
                canonical, streaming, client_body, read_from = self.read(raw, params)
            record.model, record.stream = canonical["model"], streaming
            # options the client's format sends as request headers (request.options `header:`:
            # an Anthropic client's `anthropic-beta`) join the canonical request: each upstream
            # gets them its own way (a Bedrock body's anthropic_beta) or names them as a loss
            from_headers = options_from_headers(cfg.inbound.module, request.headers)
            if from_headers:
                config = dict(canonical.get("config") or {})
                for name, value in from_headers.items():
                    config.setdefault(name, value)
                canonical["config"] = config
                read_from = None  # the canonical request holds more than the body
            hops = cfg.routing.hops(canonical["model"]) if cfg.routing is not None else [(cfg, None)]
            translated: dict[tuple[int, str | None], tuple[dict[str, Any], str, list[Loss]]] = {}

            async def call(lane: GatewayConfig, upstream_model: str | None) -> tuple[Any, list[Loss], Provider | None]:
                """One attempt at one upstream (wiremap.gateway_config.through_hops retries
                it and falls back to the route's next upstream). An upstream of the inbound
                format gets the client's bytes (provider None: the result is the answer)."""
                nonlocal slot
                owned = slot if slot is not None else self.acquire()  # a failed passthrough released its own
                slot = None
                if lane.upstream.key == cfg.inbound.key:
                    target = upstream_model or lane.model_map.get(canonical["model"], canonical["model"])
                    record.upstream_model = target
                    renames = {name: target for name in (canonical["model"], params.get("model")) if name is not None and name != target}
                    drop, dropped = _extras_to_drop(canonical, cfg.inbound, lane)
                    if lane.strict and dropped:
                        owned.release()
                        raise TranslationLossError(dropped, cfg.inbound.key, lane.upstream.key)
                    answer = await forward(
                        self, request, raw, rid, owned, key=key if key is not None else self.key_for(request, lane),
                        lane=lane, model_map=renames, drop=drop, losses=dropped, raise_errors=True,
                    )
                    return answer, dropped, None
                slot = owned
                done = translated.get((id(lane), upstream_model))
                if done is None:
                    if offload:
                        done = await anyio.to_thread.run_sync(self.translate, canonical, lane, upstream_model, read_from)
                    else:
                        done = self.translate(canonical, lane, upstream_model, read_from)
                    translated[(id(lane), upstream_model)] = done
                plain, model, losses = done
                record.upstream_model = model
                provider = self.provider(model, key if key is not None else self.key_for(request, lane), lane)
                if lane.upstream.kind == "embeddings":  # the embeddings call (Provider.embed), answered whole
                    embedded = await self.until_disconnect(request, self.upstream(provider.embed(plain["messages"], config=plain.get("config"))))
                    if isinstance(embedded.model, NotGiven):
                        # an answer that names no model (Cohere's, Gemini's) is the model it was
                        # asked of: the formats whose answer requires one (OpenAI, Mistral) get it
                        embedded.model = model
                    return embedded, losses, provider
                if streaming:
                    return await stream_response(self, provider, plain, list(losses), request, rid, slot, client_body=client_body, record=record), losses, provider
                result = await self.until_disconnect(request, self.upstream(provider.complete(
                    plain["messages"],
                    tools=plain.get("tools"),
                    config=plain.get("config"),
                    response_schema=plain.get("response_schema"),
                    tool_choice=plain.get("tool_choice"),
                    carried=plain.get("carried"),  # written back only where the upstream speaks its wire
                )))
                return result, losses, provider

            result, sent_losses, provider = await through_hops(hops, call, record, self.sleep)
            if provider is None:  # passed through (wiremap.gateway_endpoints.forward)
                return result
            if streaming:
                slot = None  # the response releases it when the stream ends
                return result
            record.usage(result.usage)
            out, back = response_losses(result, cfg.inbound, encoding_format=_asked_encoding(canonical, cfg.inbound), source=provider.format)
            losses = sent_losses + back
            responses = len(back)
            record.losses = len(losses)
        except ClientGone:
            return Response(status_code=499)
        except BodyTooLarge as exc:
            return self.error(InvalidRequestError(str(exc)), rid, status=413)
        except BodyTimeout as exc:
            return self.error(InvalidRequestError(str(exc)), rid, status=408)
        except ProviderError as exc:
            answer = getattr(exc, "wiremap_answer", None)
            if answer is not None:  # a same-format upstream's error: its answer as it came
                record.failed(exc)
                return answer
            return self.error(exc, rid)
        except RecursionError:
            return self.error(InvalidRequestError("the request is nested too deeply"), rid)
        except Exception as exc:  # a gateway bug must still answer in the client's format
            _log.exception("request %s: gateway error", rid)
            return self.error(InvalidResponseError(f"gateway error: {type(exc).__name__}; request id {rid}"), rid)
        finally:
            if slot is not None:
                slot.release()
        headers = {"x-wiremap-upstream": provider.format.key, "x-request-id": rid}
        if losses:
            headers["x-wiremap-losses"] = loss_header(losses, responses)
        return JSONResponse(out, headers=headers)

    async def close(self) -> None:
        self._providers.clear()  # they share the client; nothing of their own to close
        thread, self._loop_thread = self._loop_thread, None
        if self._client is not None:
            client, self._client = self._client, None
            if thread is not None:
                await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(client.aclose(), thread.loop))
            else:
                await client.aclose()
        if thread is not None:
            await asyncio.to_thread(thread.stop)


class _Pump:
    """An async generator run to its end by a task of its own, its events handed to the serving
    loop as they come; `batch()` takes every event that has arrived, so a burst of upstream
    events costs the serving loop one turn (and the client one write), not one per event. At
    most `LIMIT` events wait for a slow client; then the upstream is read no further until it
    catches up. The task runs on the serving loop itself (`upstream_loop` None, the default) or
    on the gateway's upstream loop thread (WIREMAP_GATEWAY_UPSTREAM_LOOP=thread)."""

    LIMIT = 256

    def __init__(self, events: Any, upstream_loop: asyncio.AbstractEventLoop | None) -> None:
        import collections

        self._events = events
        self._main = asyncio.get_running_loop()
        self._uloop = upstream_loop
        self._buf: collections.deque[Any] = collections.deque()
        self._wake = asyncio.Event()  # serving loop
        self._room = asyncio.Event()  # the producer's loop
        self._produced = 0  # written by the producer only
        self._consumed = 0  # written on the serving loop only
        self._done = False
        self._error: BaseException | None = None
        self._future: Any
        if upstream_loop is None:
            self._future = self._main.create_task(self._run())
        else:
            self._future = asyncio.run_coroutine_threadsafe(self._run(), upstream_loop)

    def _to_main(self, fn: Any, arg: Any) -> None:
        if self._uloop is None:
            fn(arg)
        else:
            self._main.call_soon_threadsafe(fn, arg)

    async def _run(self) -> None:  # the producer: on the serving loop, or the upstream loop
        error: BaseException | None = None
        try:
            async for ev in self._events:
                self._produced += 1
                self._to_main(self._put, ev)
                self._room.clear()
                if self._produced - self._consumed > self.LIMIT:
                    await self._room.wait()
        except BaseException as exc:  # handed over, raised by batch()
            error = exc
            if not isinstance(exc, Exception):
                raise
        finally:
            self._to_main(self._finish, error)
            await self._events.aclose()

    def _put(self, ev: Any) -> None:
        self._buf.append(ev)
        self._wake.set()

    def _finish(self, error: BaseException | None) -> None:
        self._done = True
        self._error = error
        self._wake.set()

    async def batch(self) -> list[Any]:
        """The events that arrived (waiting for at least one); [] at the end; the stream's
        error once the events before it are taken."""
        while not self._buf and not self._done:
            self._wake.clear()
            if self._buf or self._done:
                break
            await self._wake.wait()
        if self._buf:
            items = list(self._buf)
            self._buf.clear()
            self._consumed += len(items)
            if self._uloop is None:
                self._room.set()
            else:
                self._uloop.call_soon_threadsafe(self._room.set)
            return items
        error, self._error = self._error, None
        if error is not None and isinstance(error, Exception):
            raise error
        return []

    def ended(self) -> bool:
        """Whether the stream has ended without an error and every event was taken."""
        return self._done and not self._buf and self._error is None

    def close(self) -> None:
        """Stop reading the upstream (the producer task is cancelled and closes the stream)."""
        if not self._future.done():
            self._future.cancel()



# connections per pool: httpcore's pool re-checks every connection of the pool (a getpeername
# and a poll() each) when a request starts and when it ends; 8 was a third of the gateway's
# CPU at saturation behind a 20 ms upstream, 2 keeps that small (bench/NOTES.md)
_SHARD = 2


def _upstream_transport(connections: int) -> Any:
    """The upstream client's transport: wiremap.gateway_transport's keep-alive connections
    (httpcore's pool was a third of the gateway's CPU at saturation, bench/NOTES.md), or, with
    WIREMAP_GATEWAY_TRANSPORT=httpcore in the environment, httpcore's pools (`_sharded_transport`)."""
    if os.environ.get("WIREMAP_GATEWAY_TRANSPORT", "").strip().lower() == "httpcore":
        return _sharded_transport(connections)
    from wiremap.runtime.http_support import default_ssl_context

    from .gateway_transport import LeanTransport

    return LeanTransport(ssl_context=default_ssl_context(), max_idle=connections)


def _sharded_transport(connections: int) -> Any:
    """An httpx transport over ceil(connections / _SHARD) httpcore pools of at most _SHARD connections each; each
    request goes to the least busy pool. httpcore re-scans every connection of a pool (several
    times, with a poll() per idle connection) whenever a request starts or ends: with one pool
    of hundreds of connections that bookkeeping was most of the gateway's CPU under load."""
    import httpx

    from wiremap.runtime.http_support import default_ssl_context

    class Release(httpx.AsyncByteStream):
        def __init__(self, inner: Any, done: Any) -> None:
            self._inner, self._done = inner, done

        async def __aiter__(self) -> Any:
            async for chunk in self._inner:
                yield chunk

        async def aclose(self) -> None:
            try:
                await self._inner.aclose()
            finally:
                done, self._done = self._done, None
                if done is not None:
                    done()

    class Sharded(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            n = max(1, -(-connections // _SHARD))
            size = -(-connections // n)
            limits = httpx.Limits(max_connections=size, max_keepalive_connections=size, keepalive_expiry=30.0)
            verify = default_ssl_context()
            self.pools = [httpx.AsyncHTTPTransport(limits=limits, verify=verify) for _ in range(n)]
            self.busy = [0] * n

        async def handle_async_request(self, request: Any) -> Any:
            busy = self.busy
            i = busy.index(min(busy))
            busy[i] += 1

            def done() -> None:
                busy[i] -= 1

            try:
                response = await self.pools[i].handle_async_request(request)
            except BaseException:
                done()
                raise
            return httpx.Response(
                status_code=response.status_code, headers=response.headers,
                stream=Release(response.stream, done), extensions=response.extensions,
            )

        async def aclose(self) -> None:
            for pool in self.pools:
                await pool.aclose()

    return Sharded()


def create_app(
    inbound: str | None = None,
    upstream: str | None = None,
    upstream_url: str | None = None,
    *,
    config_file: str | os.PathLike[str] | None = None,
    **options: Any,
) -> Any:
    """The Starlette app for one inbound -> upstream pair (options: see `GatewayConfig`), or
    for the upstreams and routes of a configuration file (`config_file`, wiremap.gateway_config;
    `options` are then the server-wide ones: timeout, max_in_flight, max_body, ...)."""
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    if config_file is not None:
        if inbound is not None or upstream is not None or upstream_url is not None:
            raise ValueError("give either a config file or inbound/upstream/upstream_url, not both")
        from .gateway_config import build_routing, load_gateway_file

        config, _routing = build_routing(load_gateway_file(config_file), **options)
    else:
        if inbound is None or upstream is None:
            raise ValueError("create_app needs inbound and upstream formats, or config_file")
        config = GatewayConfig(inbound, upstream, upstream_url, **options)
    gateway = _Gateway(config)
    _quiet_access_log_queries()

    async def health(_request: Any) -> Any:
        return JSONResponse({"status": "ok", "inbound": config.inbound.key, "upstream": config.upstream.key})

    async def no_route(request: Any, exc: Any) -> Any:
        status = getattr(exc, "status_code", 404)
        if status == 405:
            allowed = "GET" if request.url.path in ("/healthz", "/metrics") else allowed_method(config.inbound, request.url.path)
            message = f"{request.method} is not allowed on {request.url.path}; use {allowed}"
            return gateway.error(InvalidRequestError(message), status=405, headers={"allow": allowed})
        if status == 404:
            return gateway.error(not_found(config.inbound, request.url.path), status=404)
        return gateway.error(InvalidRequestError(str(getattr(exc, "detail", "") or "bad request")), status=status)

    @asynccontextmanager
    async def lifespan(_app: Any) -> Any:
        if gateway.tunes_gc:
            if config.upstream.key != config.inbound.key and config.upstream.kind == config.inbound.kind:
                translator(config.inbound, config.upstream)  # its fused module loaded now, and frozen with the rest
            tune_gc()
        yield
        await gateway.close()

    async def metrics(_request: Any) -> Any:
        from starlette.responses import Response

        return Response(gateway.metrics.render(), media_type=None, headers={"content-type": CONTENT_TYPE})

    app = Starlette(
        routes=[
            Route(config.path, gateway.handle, methods=["POST"]),
            Route("/healthz", health, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),  # wiremap.gateway_metrics
            *endpoint_routes(gateway),  # /health, /ready, models, count_tokens, a stream path (wiremap.gateway_endpoints)
        ],
        lifespan=lifespan,
        exception_handlers={404: no_route, 405: no_route},
    )
    app.state.gateway = gateway
    return _FastPath(app, gateway)


class _FastPath:
    """In front of Starlette: a request past the in-flight limit, and `GET /healthz`, are
    answered straight from the ASGI scope with bytes made once. Under a flood of requests the
    gateway must shed, each shed costs as little as the HTTP server allows, so that the
    requests it admitted (and health checks) still get their turn on the event loop."""

    def __init__(self, app: Any, gateway: _Gateway) -> None:
        self.app = app
        self.state = app.state
        self.gateway = gateway
        cfg = gateway.config
        shed = RateLimitError(
            f"the gateway is serving its limit of {cfg.max_in_flight} concurrent upstream requests; retry shortly",
            retry_after=1.0,
        )
        if cfg.inbound.error_to_wire is not None:
            status, body, headers = cfg.inbound.error_to_wire(shed)
        else:  # pragma: no cover - a pre-error_to_wire module
            status, body, headers = 429, {"error": {"message": shed.message}}, {"retry-after": "1"}
        raw = json.dumps(body, separators=(",", ":")).encode()
        names = {k.lower() for k in headers}
        self.shed_status = status
        self.shed_headers = [(k.lower().encode(), str(v).encode()) for k, v in headers.items() if k.lower() != "content-type"]
        self.shed_headers += [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
        if "retry-after" not in names:
            self.shed_headers.append((b"retry-after", b"1"))
        self.shed_body = raw
        health = json.dumps({"status": "ok", "inbound": cfg.inbound.key, "upstream": cfg.upstream.key}, separators=(", ", ": ")).encode()
        self.health_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(health)).encode())]
        self.health_body = health
        # the inbound endpoint (a path without parameters) is called straight from here: the
        # route Starlette would pick (the first, POST on cfg.path) without its middleware stack,
        # router and endpoint wrapper on every request (a tenth of the gateway's CPU per request,
        # bench/NOTES.md); any other request goes through Starlette as before
        self.direct_path = cfg.path if "{" not in cfg.path else None
        from starlette.requests import Request as StarletteRequest

        self.request_class = StarletteRequest

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            method, path = scope["method"], scope["path"]
            if method == "GET" and path == "/healthz":
                await send({"type": "http.response.start", "status": 200, "headers": self.health_headers})
                await send({"type": "http.response.body", "body": self.health_body})
                return
            gw = self.gateway
            if method == "POST" and gw.in_flight >= gw.config.max_in_flight:
                gw.metrics.shed(gw.config.inbound.key, self.shed_status)
                rid = _request_id().encode()
                await send({"type": "http.response.start", "status": self.shed_status, "headers": [*self.shed_headers, (b"x-request-id", rid)]})
                await send({"type": "http.response.body", "body": self.shed_body})
                return
            if method == "POST" and path == self.direct_path and not scope.get("root_path"):
                scope["app"] = self.app  # what Starlette sets (request.app)
                scope["path_params"] = {}
                request = self.request_class(scope, receive, send)
                response = await gw.handle(request)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def app_from_env() -> Any:
    """The app described by $WIREMAP_GATEWAY_CONFIG (JSON), for `uvicorn --factory` workers."""
    text = os.environ.get(CONFIG_ENV)
    if not text:
        raise RuntimeError(f"${CONFIG_ENV} is not set (run the gateway with `wiremap serve`)")
    data = json.loads(text)
    if data.pop("access_log", False):
        from .gateway_metrics import enable_access_log

        enable_access_log()
    tuned = os.environ.get(GC_ENV, "tuned").strip().lower() != "default"
    if data.get("config_file"):  # the file is read again in each worker; keys from its environment
        return _tuned(create_app(**data), tuned)
    key_env = data.pop("upstream_api_key_env", None)
    if key_env:
        key = os.environ.get(key_env)
        if not key:
            raise ValueError(f"--upstream-api-key-env {key_env}: the environment variable {key_env} is not set")
        data["upstream_api_key"] = key
        data["forward_client_key"] = False
    return _tuned(create_app(data.pop("inbound"), data.pop("upstream"), data.pop("upstream_url", None), **data), tuned)


def _tuned(app: Any, tuned: bool) -> Any:
    app.gateway.tunes_gc = tuned  # the worker's process is the gateway's own: tune_gc() at start-up
    return app

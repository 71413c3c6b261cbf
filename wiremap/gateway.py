"""The translating gateway: clients speak one format, the upstream another (`wiremap serve`).

    app = create_app(inbound="openai_chat", upstream="anthropic_messages",
                     upstream_url="https://api.anthropic.com")
    # uvicorn wiremap.gateway:app_from_env --factory   (what `wiremap serve` runs)

An ASGI application (Starlette). It accepts POST on the inbound format's endpoint path (the
mapping's `transport.endpoint`), reads the body with the inbound format's tables, calls the
upstream through `wiremap.Provider` (so the upstream's transport table, auth, error mapping and
tracing apply), and answers with the inbound format's `response_to_wire`, or with its own error
envelope and status (`error_to_wire`) so the client's official SDK raises its own exception
class. It holds no state between requests beyond a cache of upstream connections, so it scales
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
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from wiremap.runtime.errors import InvalidRequestError, InvalidResponseError, ProviderError
from wiremap.runtime.format import Format, get_format
from wiremap.runtime.provider import Provider
from wiremap.runtime.canonical import Request
from wiremap.runtime.translate import Loss, TranslationLossError, request_losses, response_losses, unique_tool_call_ids

from .gateway_stream import stream_response, strip_stream_fields

__all__ = ["create_app", "app_from_env", "GatewayConfig"]

_MAX_LOSS_HEADER = 6000
_PROVIDER_CACHE = 64
CONFIG_ENV = "WIREMAP_GATEWAY_CONFIG"


class GatewayConfig:
    """What a gateway translates between, and how it reaches the upstream."""

    def __init__(
        self,
        inbound: str,
        upstream: str,
        upstream_url: str | None = None,
        *,
        upstream_api_key: str | None = None,
        forward_client_key: bool = True,
        model_map: Mapping[str, str] | None = None,
        strict: bool = False,
        timeout: float | None = 600.0,
    ) -> None:
        self.inbound: Format = get_format(inbound)
        self.upstream: Format = get_format(upstream)
        for fmt in (self.inbound, self.upstream):  # the gateway answers chat calls (Provider.complete)
            if fmt.kind != "chat":
                raise ValueError(f"format {fmt.key!r} is kind {fmt.kind}; the gateway serves chat formats only")
        self.upstream_url = upstream_url
        self.upstream_api_key = upstream_api_key
        self.forward_client_key = forward_client_key
        self.model_map = dict(model_map or {})
        self.strict = strict
        self.timeout = timeout
        endpoint = (self.inbound.transport or {}).get("endpoint") or self.inbound.endpoint
        if not endpoint or not endpoint.get("path"):
            raise ValueError(f"inbound format {inbound!r} declares no endpoint (mapping `transport:`)")
        self.path: str = str(endpoint["path"])

    def to_json(self) -> str:
        return json.dumps(
            {
                "inbound": self.inbound.key, "upstream": self.upstream.key, "upstream_url": self.upstream_url,
                "forward_client_key": self.forward_client_key, "model_map": self.model_map,
                "strict": self.strict, "timeout": self.timeout,
            }
        )


def _client_key(fmt: Format, headers: Mapping[str, str], query: Mapping[str, str]) -> str | None:
    """The key the client sent: where the inbound table says, else as a bearer token (the
    anthropic 2.x SDK sends `Authorization: Bearer` although the API documents `x-api-key`)."""
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
    return key or None


def _loss_header(losses: list[Loss], responses: int = 0) -> str:
    """JSON for `x-wiremap-losses`; the last `responses` losses are of the response direction."""
    cut = len(losses) - responses
    items = [{"direction": "request" if i < cut else "response", **loss.to_dict()} for i, loss in enumerate(losses)]
    text = json.dumps(items, ensure_ascii=True, separators=(",", ":"))
    while len(text) > _MAX_LOSS_HEADER and items:
        items = items[: len(items) // 2]
        text = json.dumps([*items, {"path": "", "kind": "truncated", "detail": f"{len(losses) - len(items)} more"}], ensure_ascii=True, separators=(",", ":"))
    return text


class _Gateway:
    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self._providers: OrderedDict[tuple[str, str | None], Provider] = OrderedDict()

    def provider(self, model: str, key: str | None) -> Provider:
        cache_key = (model, key)
        p = self._providers.get(cache_key)
        if p is None:
            p = Provider(self.config.upstream, model=model, api_key=key, base_url=self.config.upstream_url, timeout=self.config.timeout)
            self._providers[cache_key] = p
            while len(self._providers) > _PROVIDER_CACHE:
                _key, old = self._providers.popitem(last=False)
                import asyncio

                asyncio.ensure_future(old.aclose())
        else:
            self._providers.move_to_end(cache_key)
        return p

    def error(self, exc: BaseException) -> Any:
        from starlette.responses import JSONResponse

        if self.config.inbound.error_to_wire is None:  # pragma: no cover - a pre-error_to_wire module
            return JSONResponse({"error": {"message": str(exc)}}, status_code=500)
        status, body, headers = self.config.inbound.error_to_wire(exc)
        headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
        if isinstance(exc, TranslationLossError):
            headers["x-wiremap-losses"] = _loss_header(exc.losses)
        return JSONResponse(body, status_code=status, headers=headers)

    async def handle(self, request: Any) -> Any:
        from starlette.responses import JSONResponse

        cfg = self.config
        try:
            raw = await request.body()
            try:
                body = json.loads(raw)
            except ValueError as exc:
                raise InvalidRequestError(f"the request body is not JSON: {exc}") from None
            if not isinstance(body, dict):
                raise InvalidRequestError("the request body must be a JSON object")
            if "model" in request.path_params and "model" not in body:
                body = {**body, "model": request.path_params["model"]}
            streaming = body.get("stream") is True
            client_body = body  # what the client asked of the stream (the usage chunk) is the emitter's input
            if streaming:  # served by wiremap.gateway_stream (the inbound stream table's fields are the mode, not extras)
                body = strip_stream_fields(cfg.inbound, body)
            canonical = cfg.inbound.request_from_wire(body)
            plain = canonical.to_dict()
            plain.pop("stream", None)
            model = cfg.model_map.get(plain["model"], plain["model"])
            plain["model"] = model
            extras = (plain.get("config") or {}).get("extras")
            losses: list[Loss] = []
            if extras and cfg.inbound.provider != cfg.upstream.provider:
                losses += [Loss(f"config.extras.{k}", "dropped", f"{cfg.inbound.key} field {k!r} is not forwarded to {cfg.upstream.key}") for k in sorted(extras)]
                del plain["config"]["extras"]
                if not plain["config"]:
                    del plain["config"]
            unique, renamed = unique_tool_call_ids(Request.from_dict(plain))
            if renamed:
                plain = unique.to_dict()
                losses += renamed
            _wire, more = request_losses(plain, cfg.upstream)
            losses += more
            if cfg.strict and losses:
                raise TranslationLossError(losses, cfg.inbound.key, cfg.upstream.key)
            key = cfg.upstream_api_key
            if key is None and cfg.forward_client_key:
                key = _client_key(cfg.inbound, request.headers, request.query_params)
            provider = self.provider(model, key)
            if streaming:
                return await stream_response(self, provider, plain, losses, request=client_body)
            response = await provider.complete(
                plain["messages"],
                tools=plain.get("tools"),
                config=plain.get("config"),
                response_schema=plain.get("response_schema"),
                tool_choice=plain.get("tool_choice"),
            )
            out, back = response_losses(response, cfg.inbound)
            losses += back
            responses = len(back)
        except ProviderError as exc:
            return self.error(exc)
        except RecursionError:
            return self.error(InvalidRequestError("the request is nested too deeply"))
        except Exception as exc:  # a gateway bug must still answer in the client's format
            return self.error(InvalidResponseError(f"gateway error: {type(exc).__name__}"))
        headers = {"x-wiremap-upstream": cfg.upstream.key}
        if losses:
            headers["x-wiremap-losses"] = _loss_header(losses, responses)
        return JSONResponse(out, headers=headers)

    async def close(self) -> None:
        for p in list(self._providers.values()):
            await p.aclose()
        self._providers.clear()


def create_app(
    inbound: str,
    upstream: str,
    upstream_url: str | None = None,
    **options: Any,
) -> Any:
    """The Starlette app for one inbound -> upstream pair (options: see `GatewayConfig`)."""
    from contextlib import asynccontextmanager

    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    config = GatewayConfig(inbound, upstream, upstream_url, **options)
    gateway = _Gateway(config)

    async def health(_request: Any) -> Any:
        return JSONResponse({"status": "ok", "inbound": config.inbound.key, "upstream": config.upstream.key})

    @asynccontextmanager
    async def lifespan(_app: Any) -> Any:
        yield
        await gateway.close()

    app = Starlette(
        routes=[Route(config.path, gateway.handle, methods=["POST"]), Route("/healthz", health, methods=["GET"])],
        lifespan=lifespan,
    )
    app.state.gateway = gateway
    return app


def app_from_env() -> Any:
    """The app described by $WIREMAP_GATEWAY_CONFIG (JSON), for `uvicorn --factory` workers."""
    text = os.environ.get(CONFIG_ENV)
    if not text:
        raise RuntimeError(f"${CONFIG_ENV} is not set (run the gateway with `wiremap serve`)")
    data = json.loads(text)
    key_env = data.pop("upstream_api_key_env", None)
    if key_env:
        data["upstream_api_key"] = os.environ.get(key_env)
        data["forward_client_key"] = False
    return create_app(data.pop("inbound"), data.pop("upstream"), data.pop("upstream_url", None), **data)

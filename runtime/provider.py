"""`Provider`: a generated converter made into a working client (OpenArmature §5-§7 over HTTP).

    from wiremap import Provider

    p = Provider("anthropic_messages", model="claude-x", api_key=...)   # base_url optional
    await p.ready()                                     # §5 pre-flight probe
    r = await p.complete(messages, tools=None, config=None, response_schema=None, tool_choice=None)
    r = p.complete_sync(messages)                       # the same, for code without an event loop
    r = await p.complete(messages, stream=True)         # streamed on the wire, the same Response
    async for event in p.stream(messages): ...          # canonical stream events (provider_stream.py)
    for event in p.stream_sync(messages): ...           # the same, for code without an event loop
    r = await p.complete(messages, response_schema=Person)   # a pydantic model: r.parsed is a Person
    r = await p.complete(messages, retry=RetryPolicy(max_retries=3))   # retries (runtime/retry.py)
    await p.aclose()                                    # or `async with Provider(...) as p:`

Everything about the wire comes from the format: the body from `request_to_wire`, the result
from `response_from_wire`, HTTP errors from `error_from_wire`, and the endpoint, auth scheme,
fixed headers, API-key variable and ready() probe from the mapping's `transport:` table
(`Format.transport`). This module only moves bytes:

- `complete()` builds the canonical request `{model, messages, tools?, tool_choice?, config?,
  response_schema?}` (None = absent), converts it before any I/O (pre-send errors propagate
  unchanged, nothing is sent), POSTs the JSON body to `base_url + endpoint.path`; a `{field}` in
  the path is a path-bound request field: its value is taken out of the body and put,
  URL-encoded, into the path (Gemini's `/v1beta/models/{model}:generateContent`) with the auth the table names (`bearer`: `Authorization: Bearer KEY`;
  `header`: that header; `query`: `?name=KEY`; `none`), the table's fixed headers,
  `User-Agent: wiremap/<version>`, then the caller's `headers` (which win). The table's
  `params` fill the other placeholders of the base URL and path (Vertex AI's
  `{project}`/`{location}`: `params=`, else the variable the table names, else its default; one
  without a value is `InvalidRequestError` before anything is sent), its `body` fields are set on
  every body (Bedrock's `anthropic_version`), and without a key its `auth.fallback` signs each
  request with AWS SigV4 (botocore, `wiremap[aws]`) or sends a Google OAuth token from the
  application-default credentials (google-auth, `wiremap[google]`), runtime/cloud_auth.py.
- One `httpx.AsyncClient` per Provider (per event loop), created on first use and reused; no
  lock: concurrent `complete()` calls go to the wire concurrently (connection pool of up to 1000
  connections unless `limits=` says otherwise). `http_client=` hands in a client to share
  between Providers (the gateway's one pool per upstream); `aclose()` leaves it open.
- Time: `timeout` bounds each connect, read, write and pool wait; `deadline` bounds the whole
  call (sending, every byte of the answer, a whole stream), so a server that trickles bytes or
  sends only keep-alive comments cannot hold a call forever. The default deadline is twice a
  numeric `timeout`. Either ends the call with `ProviderTimeoutError` (an `UnavailableError`).
- Errors (every one a `ProviderError` with its §7 category; the cause is kept as `__cause__`):
  a non-2xx status is `error_from_wire(status, body, headers)` raised from an
  `httpx.HTTPStatusError`; a transport failure (connect error, any timeout, reset, the server
  closing the connection or cutting the body short) is `UnavailableError` raised from the httpx
  exception; a 2xx body that is not JSON or not a JSON object is `InvalidResponseError`, and so
  is a 3xx (redirects are not followed: the key must not travel to another host); a body of the
  wrong shape and structured output that fails are the converter's own errors.
- Retries: none by default (`max_retries=0`): one attempt, errors propagate with `transient`
  and `retry_after` (OpenArmature §5 "does NOT retry by default"; a gateway's clients, and the
  official SDKs behind them, retry on their own -- retrying here too multiplies the attempts).
  `max_retries=N` retries like the openai/anthropic SDKs (their default is 2): transient errors
  only (429, 5xx and 529 overloaded, timeouts, connection failures, a model still loading),
  exponential backoff with jitter, the server's Retry-After / retry-after-ms honoured (a wait
  longer than `RetryPolicy.max_retry_after` is not made: the error propagates); every other
  error propagates at once; after the last attempt the last error propagates. `retry=` takes a
  `RetryPolicy` or the OpenArmature §7.1 record (`RetryConfig`: `max_attempts`, `classifier`,
  `backoff`, `on_retry`, `per_attempt_override`, `reask`), for the Provider or for one call.
  The call's `deadline` bounds the attempts and the waits together; a wait that would outlast
  it is not started. complete(), complete_sync(), embed() and generate_image() retry whole
  attempts (complete() gives each attempt its own span); stream() and stream_sync() retry only
  until the first event is delivered. No tool loop (§5).
- `ready()` follows the table's `ready:` probe: GET the model list, find the bound model by its
  `id` (an exact match, or an id ending in `/<model>` as in `models/<model>`); absent ->
  `InvalidModelError`; present but its `state.field` is one of `state.not_loaded` ->
  `ModelNotLoadedError`; HTTP errors via `error_from_wire`, transport failures ->
  `UnavailableError`. A format whose mapping declares no probe raises `NotImplementedError`
  (a capability the format lacks, not a state of the provider: no §7 category fits, and
  returning would claim a readiness nobody checked).
- Structured output: `response_schema` goes to both converters with the structured-output mode
  (the mapping's default, the Provider's `structured_output=`, or the call's); the caller's
  messages are never mutated (the prompt fallback works on a copy). A pydantic v2 model class
  is accepted too: its `model_json_schema()` is sent and `Response.parsed` is an instance
  (`model_validate`; a refusal is `StructuredOutputInvalidError`). pydantic is imported only
  when such a class is given (`pip install wiremap[pydantic]`).
- Credentials: the API key is used in the request only. It is not in `repr(provider)`, in log
  lines, in span attributes or in any exception message; error bodies and headers a server
  echoes back are redacted, and every httpx exception in an error's chain (`__cause__`,
  `__context__`, streamed or not) carries a copy of the request without credentials (no
  headers, no query key, no userinfo). A key that cannot be sent in a header (non-ASCII, control
  characters) is refused with `AuthenticationError` before anything is sent.
- API key: `api_key=` or the environment variable the table names (`OPENAI_API_KEY`, ...).
  Neither set: `AuthenticationError` before anything is sent. `api_key=""` sends no credentials
  (keyless local servers). `bearer_token=` instead, for a format whose auth takes a token in the
  key's place (`auth.bearer_tokens`: an Azure Microsoft Entra ID token): sent as
  `Authorization: Bearer`, guarded like the key.
- `base_url=` replaces the table's (the variable its `base_url_env` names when that is set, else
  its `base_url`: Azure's per-resource `AZURE_OPENAI_ENDPOINT`); a base URL ending in the endpoint path's first segment
  (`http://localhost:8000/v1` with `/v1/chat/completions`) does not repeat it.
- Tracing: when `opentelemetry-api` is installed, every `complete()` and every `stream()` emits a
  `chat {model}` span with the GenAI semantic-convention attributes (`wiremap.runtime.tracing`); a
  stream's span ends when the stream ends or fails.
- Kinds: `complete()` serves chat formats (`Format.kind == "chat"`). An `embeddings` format is
  called with `embed(inputs, config=None)` -> `EmbeddingsResponse` (span `embeddings {model}`), an
  `images` format with `generate_image(prompt, config=None)` -> `ImagesResponse` (span
  `generate_content {model}`); each has a `_sync` twin. `inputs` / `prompt` is a string, a list of
  strings (embeddings: one vector each) or canonical messages, converted by the mapping's own
  extraction strategy. Calling the method of another kind is `InvalidRequestError`, before any I/O.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import math
import re
import ssl
import sys
import threading
import time
import urllib.parse
import weakref
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, TypeVar

from .canonical import EmbeddingsResponse, ImagesResponse, Response
from .errors import (
    AuthenticationError,
    InvalidModelError,
    InvalidRequestError,
    InvalidResponseError,
    ModelNotLoadedError,
    ProviderError,
    ProviderTimeoutError,
    StructuredOutputInvalidError,
    UnavailableError,
)
from .cloud_auth import aws_sigv4_headers, google_token, transport_params
from .format import Format, get_format
from .http_support import (
    LoopThread,
    default_ssl_context,
    join_url,
    key_env_names,
    key_from_env,
    table_base_url,
    without_userinfo,
)
from .retry import RetryConfig, RetryPlan, RetryPolicy, call_with_retries, retry_plan
from .structured import output_text, parsed_model
from .wire_rules import WireMap, fit_tool_names, restore_response
from .wire import merge_option_headers, option_headers
from .provider_stream import ResponseStream
from .tracing import ChatSpan, wiremap_version

if TYPE_CHECKING:  # httpx is imported on first use: `import wiremap` stays light
    import httpx

__all__ = ["Provider"]


DEFAULT_TIMEOUT: Final = 600.0  # like the official SDKs: long non-streamed generations take minutes
DEFAULT_MAX_CONNECTIONS: Final = 1000
_REDACTED: Final = "[REDACTED]"
_MIN_SECRET_LEN: Final = 4  # shorter "keys" would redact ordinary text
_BODY_SNIPPET: Final = 2000
_SENDABLE_KEY: Final = re.compile(r"[\x21-\x7e]+")  # visible ASCII: what an HTTP header carries as is
# Attributes of errors (ours, the converters' WireShapeError, json's JSONDecodeError) that may
# quote what a server sent.
_SCRUBBED_ATTRIBUTES: Final = (
    "message",
    "path",
    "body",
    "output_content",
    "error_message",
    "provider_type",
    "doc",
    "msg",
)

_log = logging.getLogger("wiremap.provider")

T = TypeVar("T")


# Log lines of the HTTP stack quote URLs (a query-scheme key) and response headers (a server
# echoing credentials): a filter on those loggers redacts the keys of the live Providers.
_HTTP_LOGGERS: Final = (
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "wiremap.provider",
)
_live: "weakref.WeakSet[Provider]" = weakref.WeakSet()
_live_lock = threading.Lock()  # never held while logging (the filter takes it)
_log_filter_installed = False


class _RedactCredentials(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        with _live_lock:
            secrets = [p._api_key for p in _live]
        if not secrets:
            return True
        try:
            text = record.getMessage()
        except Exception:  # pragma: no cover - a broken record is the logging module's to report
            return True
        if any(secret in text for secret in secrets):
            for secret in secrets:
                text = text.replace(secret, _REDACTED)
            record.msg, record.args = text, None
        return True


def _watch_credentials(provider: "Provider") -> None:
    global _log_filter_installed
    with _live_lock:
        _live.add(provider)
        install = not _log_filter_installed
        _log_filter_installed = True
    if install:
        redact = _RedactCredentials()
        for name in _HTTP_LOGGERS:
            logging.getLogger(name).addFilter(redact)


def _plain(value: Any) -> Any:
    """A typed canonical record as its dict form; anything else unchanged."""
    to_dict = getattr(value, "to_dict", None)
    return to_dict() if callable(to_dict) else value


def _plain_items(value: Any) -> Any:
    """A new list of plain items (the caller's list is never touched); non-sequences unchanged
    so the converter reports them."""
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _redact(value: Any, secret: str) -> Any:
    """`value` with every occurrence of `secret` replaced, recursively (a copy when changed)."""
    if isinstance(value, str):
        return value.replace(secret, _REDACTED) if secret in value else value
    if isinstance(value, (bytes, bytearray)):
        raw = secret.encode("utf-8")
        return bytes(value).replace(raw, _REDACTED.encode()) if raw in value else value
    if isinstance(value, dict):
        return {_redact(k, secret): _redact(v, secret) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact(v, secret) for v in value]
    if isinstance(value, tuple):
        return tuple(_redact(v, secret) for v in value)
    return value


def _task_messages(value: Any) -> list[Any]:
    """`embed()` / `generate_image()` input as canonical messages: a string is one user turn, a
    list of strings one user turn of text blocks, anything else is taken as messages."""
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    items = list(value) if isinstance(value, Sequence) else value
    if isinstance(items, list) and items and all(isinstance(item, str) for item in items):
        return [{"role": "user", "content": [{"type": "text", "text": item} for item in items]}]
    plain: list[Any] = _plain_items(value)
    return plain


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    return type(value).__name__


def _id_matches(value: Any, model: str) -> bool:
    return isinstance(value, str) and (value == model or value.endswith("/" + model))


class Provider:
    """A client for one model behind one wire format (see the module docstring).

    `format` is a registered key (`wiremap.formats()`) or a `Format` (`wiremap.load_format`).
    `params` gives the values of the table's `transport.params` (`{"project": ..., "location": ...}`
    for Vertex AI, `{"region": ...}` for Bedrock), over their environment variables.
    `timeout` is seconds (or an `httpx.Timeout`, or None for none) for connecting, each read,
    each write and waiting for a pooled connection. `deadline` is seconds for a whole call
    (default: twice a numeric `timeout`, none otherwise; `math.inf` for none).
    `http_client` is an `httpx.AsyncClient` to send with instead of the Provider's own (shared,
    never closed by the Provider; `timeout`, `limits` and `verify` are then the client's). `headers` are added to every request and
    override the table's. `structured_output` sets this Provider's structured-output mode
    (one of `format.structured_output_modes`); a call's `structured_output=` overrides it.
    `limits` (an `httpx.Limits`) sizes the connection pool; `verify` is httpx's TLS setting
    (True: the system/certifi store, shared by all Providers). `tracer_provider` is the
    OpenTelemetry tracer provider for spans (default: the global one).
    """

    __slots__ = (
        "format",
        "model",
        "base_url",
        "structured_output",
        "_api_key",
        "_missing_key",
        "_url",
        "_path",
        "_path_params",
        "_fill",
        "_missing_param",
        "_body_fields",
        "_fallback",
        "_token",
        "_method",
        "_params",
        "_headers",
        "_probe_headers",
        "_ready",
        "_timeout",
        "_deadline",
        "_shared_client",
        "_limits",
        "_verify",
        "_tracer_provider",
        "_server",
        "_clients",
        "_sync",
        "_sync_lock",
        "_retry",
        "_sleep",
        "__weakref__",
    )

    def __init__(
        self,
        format: str | Format,
        *,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
        headers: Mapping[str, str] | None = None,
        structured_output: str | None = None,
        limits: httpx.Limits | None = None,
        verify: bool | str | ssl.SSLContext = True,
        tracer_provider: Any = None,
        deadline: float | None = None,
        http_client: httpx.AsyncClient | None = None,
        max_retries: int = 0,
        retry: RetryPolicy | RetryConfig | Mapping[str, Any] | None = None,
        bearer_token: str | None = None,
        params: Mapping[str, str] | None = None,
    ) -> None:
        fmt = format if isinstance(format, Format) else get_format(format)
        if not isinstance(model, str) or not model:
            raise ValueError("model must be a non-empty string")
        if structured_output is not None and structured_output not in fmt.structured_output_modes:
            raise ValueError(
                f"structured_output {structured_output!r} is not available in {fmt.key}; "
                f"expected one of: {', '.join(fmt.structured_output_modes)}"
            )
        transport: Mapping[str, Any] = fmt.transport or {}
        endpoint = transport.get("endpoint") or fmt.endpoint
        if not endpoint or not endpoint.get("path"):
            raise ValueError(f"format {fmt.key!r} declares no endpoint (mapping `transport:`)")
        # transport.params: placeholders of the base URL and paths that are no request field
        # (Vertex AI's project and location), from params=, else the environment, else a default;
        # a `base_url_by` row picks another origin for some of their values
        self._fill, self._missing_param = transport_params(fmt, params)
        base = base_url if base_url is not None else table_base_url(transport, self._fill)
        if not isinstance(base, str) or not base:
            env = transport.get("base_url_env")
            raise ValueError(
                f"format {fmt.key!r} declares no base_url; pass base_url= or set {env}"
                if env
                else f"format {fmt.key!r} declares no base_url; pass base_url="
            )
        base = self._fill(base)
        split = urllib.parse.urlsplit(base)
        if split.scheme not in ("http", "https") or not split.hostname:
            raise ValueError(f"base_url must be an http(s) URL, got {without_userinfo(base)!r}")

        self.format = fmt
        self.model = model
        self.base_url = base.rstrip("/")
        self.structured_output = structured_output
        self._method = str(endpoint.get("method", "POST")).upper()
        self._path = self._fill(str(endpoint["path"]))
        self._url = self._path_url(self._path)
        # transport.body: fixed body fields (the protocol version where it travels in the body)
        self._body_fields: dict[str, str] = dict(transport.get("body") or {})
        # `{field}` placeholders in the endpoint path are path-bound request fields (Gemini's
        # `{model}`): taken out of the converter's body and put into the URL on each call.
        self._path_params = tuple(n for n in re.findall(r"\{([^{}]*)\}", self._path) if n not in (transport.get("params") or {}))
        self._ready: Mapping[str, Any] | None = transport.get("ready") or None
        self._timeout = timeout
        if deadline is None and isinstance(timeout, (int, float)) and not isinstance(timeout, bool):
            deadline = 2.0 * timeout  # the per-operation timeouts fire first on a silent server
        if deadline is not None and (
            not isinstance(deadline, (int, float)) or isinstance(deadline, bool) or not deadline > 0
        ):
            raise ValueError(f"deadline must be a positive number of seconds, got {deadline!r}")
        self._deadline = None if deadline is None or math.isinf(deadline) else float(deadline)
        if not isinstance(max_retries, int) or isinstance(max_retries, bool) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0, got {max_retries!r}")
        if retry is not None and max_retries:
            raise ValueError("pass max_retries= or retry=, not both (retry= says how many itself)")
        if retry is None and max_retries:
            retry = RetryPolicy(max_retries=max_retries)
        self._retry: RetryPlan | None = None if retry is None else retry_plan(retry)
        self._sleep: Any = asyncio.sleep  # the wait between attempts (tests count it instead)
        self._shared_client = http_client
        self._limits = limits
        self._verify = verify
        self._tracer_provider = tracer_provider
        self._server = (split.hostname, split.port or (443 if split.scheme == "https" else 80))

        key_env = " or ".join(key_env_names(transport)) or None
        key = api_key
        auth: Mapping[str, Any] = transport.get("auth") or {"scheme": "none"}
        scheme = auth.get("scheme", "none")
        if scheme not in ("bearer", "header", "query", "none"):
            raise ValueError(f"format {fmt.key!r}: unknown auth scheme {scheme!r}")
        if bearer_token is not None:
            # a token in the key's place (`auth.bearer_tokens`: Azure's Entra ID), a credential
            # like the key: sent as `Authorization: Bearer`, kept out of errors and logs
            if api_key is not None:
                raise ValueError("pass api_key= or bearer_token=, not both")
            if scheme != "bearer" and auth.get("bearer_tokens") is not True:
                raise ValueError(f"format {fmt.key!r} takes no bearer token (its auth is {scheme}); pass api_key=")
            key, scheme = bearer_token, "bearer"
        if key is None:
            key = key_from_env(transport)
        # a key that cannot be an HTTP header value (non-ASCII, control characters) is refused
        # before anything is sent, as a missing one is: never a UnicodeEncodeError from httpx
        unsendable = bool(key) and not _SENDABLE_KEY.fullmatch(key or "")
        self._api_key = "" if unsendable else (key or "")
        # auth.fallback: without a key, sign with AWS SigV4 or take a Google OAuth token
        fallback = auth.get("fallback")
        self._fallback: Mapping[str, Any] | None = fallback if key is None and isinstance(fallback, Mapping) else None
        self._token: Any = None
        if len(self._api_key) >= _MIN_SECRET_LEN:
            _watch_credentials(self)
        self._missing_key = (
            f"no API key for {fmt.key}: pass api_key= or set {key_env}"
            if key is None and scheme != "none" and self._fallback is None
            else (
                f"the API key for {fmt.key} contains a character that cannot be sent in an HTTP "
                "header (only visible ASCII characters are allowed)"
                if unsendable
                else None
            )
        )

        merged: dict[str, tuple[str, str]] = {}  # lower-case name -> (name, value)

        def put(name: str, value: str) -> None:
            if not isinstance(name, str) or not isinstance(value, str):
                raise TypeError(f"header {name!r}: names and values must be strings")
            merged[name.lower()] = (name, value)

        for name, value in (transport.get("headers") or {}).items():
            put(name, str(value))
        put("User-Agent", f"wiremap/{wiremap_version()}")
        put("Accept", "application/json")
        self._params: dict[str, str] = {}
        if self._api_key:
            if scheme == "bearer":
                put("Authorization", f"Bearer {self._api_key}")
            elif scheme == "header":
                put(str(auth.get("name") or "x-api-key"), self._api_key)
            elif scheme == "query":
                self._params[str(auth.get("name") or "key")] = self._api_key
        for name, value in (headers or {}).items():
            put(name, value)
        self._probe_headers = {name: value for name, value in merged.values()}
        if "content-type" not in merged:
            put("Content-Type", "application/json")
        self._headers = {name: value for name, value in merged.values()}

        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx.AsyncClient] = (
            weakref.WeakKeyDictionary()
        )
        self._sync: LoopThread | None = None
        self._sync_lock = threading.Lock()

    # -----------------------------------------------------------------------------------------
    # public API

    def __repr__(self) -> str:
        text = (
            f"<wiremap.Provider {self.format.key!r} model={self.model!r} "
            f"base_url={without_userinfo(self.base_url)!r}>"
        )
        return str(self._redact(text))

    async def complete(
        self,
        messages: Sequence[Any],
        tools: Sequence[Any] | None = None,
        config: Any = None,
        response_schema: dict[str, Any] | type[Any] | None = None,
        tool_choice: Any = None,
        *,
        structured_output: str | None = None,
        wire_map: WireMap | None = None,
        stream: bool = False,
        carried: Any = None,
        input_format: str | None = None,
        retry: RetryPolicy | RetryConfig | Mapping[str, Any] | None = None,
    ) -> Response:
        """One completion call (OpenArmature §5): a canonical `Response`, or a `ProviderError`.

        `response_schema`: a JSON Schema (a dict), or a pydantic v2 model class: its
        `model_json_schema()` is sent and `Response.parsed` is an instance of it (a value that
        does not validate is `StructuredOutputInvalidError`, as for a dict schema);
        `response.parsed_as(Model)` gives it to a type checker as a `Model`.

        `retry`: this call's retries, overriding the Provider's (`max_retries=` / `retry=`): a
        `RetryPolicy`, or the OpenArmature §7.1 record (`RetryConfig`, or a mapping of its
        fields: `max_attempts`, `classifier`, `backoff`, `on_retry`, `per_attempt_override`,
        `reask`). Only transient errors are retried (plus `structured_output_invalid` when the
        record has a `reask` builder); the Provider's `deadline` bounds all attempts and waits
        together. Each attempt has its own span.

        `input_format`: `messages` is then a request body of that format (`complete(body,
        input_format="openai_chat")`, whatever this Provider's format): its messages, tools,
        tool_choice, config, response schema and carried data are used, each unless given here
        too; the Provider's own `model` is sent.

        `carried`: wire data read with the request (`Request.carried`, runtime/carry.py), which
        this format writes back where it was read from its own wire (a gateway passes it on).

        For a format with `wire_rules` (Mistral's 9-character tool-call ids, ...), pass a fresh
        `wire_map=WireMap()` to read what was rewritten (`wire_map.changes`); without one the
        call uses a private map. Either way the response carries the caller's ids and names.
        The same holds for a tool name the format's declared rule refuses (`TOOL_NAME_RULE`:
        an MCP `files.read` for OpenAI): it is sent renamed and comes back as given.

        `stream=True` consumes the streamed wire response (`stream()`) and returns the same
        assembled `Response`; a format without a `stream:` table raises `InvalidRequestError`
        before anything is sent."""
        self._require_kind("chat", "complete")
        if input_format is not None:
            messages, tools, config, response_schema, tool_choice, carried = _from_body(
                messages, input_format, tools, config, response_schema, tool_choice, carried
            )
        model_class, schema = _schema_model(response_schema)
        plan = self._plan(retry)
        request = self._request(messages, tools, config, schema, tool_choice, carried)
        mode = structured_output if structured_output is not None else self.structured_output

        async def attempt(request: dict[str, Any], index: int, reason: str | None) -> Response:
            span = ChatSpan(
                self._tracer_provider,
                provider=self.format.provider,
                model=self.model,
                config=request.get("config"),
                structured=schema is not None,
                server_address=self._server[0],
                server_port=self._server[1],
            )
            with span:
                if plan is not None:
                    span.attempt(index, reason)
                try:
                    if stream:
                        response = await ResponseStream(self, request, schema, mode, wire_map).collect()
                    else:
                        response = await self._complete(request, schema, mode, wire_map)
                    if model_class is not None:
                        response = parsed_model(response, model_class, schema)
                except ProviderError as exc:
                    self._scrub(exc)
                    raise
                span.response(response)
                return response

        if plan is None or plan.max_attempts == 1:
            return await attempt(request, 0, None)
        return await self._complete_with_retries(
            plan, attempt, request, tools, config, schema, tool_choice, carried
        )

    async def _complete_with_retries(
        self,
        plan: RetryPlan,
        attempt: Any,
        request: dict[str, Any],
        tools: Any,
        config: Any,
        schema: Any,
        tool_choice: Any,
        carried: Any,
    ) -> Response:
        """OpenArmature §7.1's loop: attempt 0 sends `request`; a retry sends the working
        transcript (the caller's messages plus every reask pair so far) with the config of the
        override schedule; the call's deadline bounds the attempts and the waits."""
        transcript: list[Any] = list(request["messages"])  # the caller's list is never touched
        reasons: list[str | None] = [None]

        async def run(index: int) -> Response:
            if index == 0:
                current = request
            else:
                current = self._request(
                    transcript, tools, plan.config_for(index, config), schema, tool_choice, carried
                )
            response: Response = await attempt(current, index, reasons[index])
            return response

        def before_retry(retry: int, error: BaseException, delay: float) -> None:
            if plan.reask is not None and isinstance(error, StructuredOutputInvalidError):
                # §7.1 reask: the model's own output, then exactly what the caller's builder says
                transcript.append({"role": "assistant", "content": output_text(error.output_content)})
                correction = plan.reask(error.output_content, error.error_message)
                transcript.append({"role": "user", "content": _plain_items(correction)})
                reasons.append("reask")
            else:
                reasons.append("transient")
            _log.debug("retry %d of %s after %s; waiting %.3fs", retry, self.format.key, type(error).__name__, delay)

        response: Response = await self._retrying(plan, run, before_retry)
        return response

    async def _retrying(
        self,
        plan: RetryPlan,
        run: Callable[[int], Awaitable[T]],
        on_retry: Callable[[int, BaseException, float], None] | None = None,
    ) -> T:
        """`call_with_retries` bounded by the call's deadline: attempts and waits together; a
        wait that would outlast it is not started (the last error propagates instead)."""
        deadline = self._deadline
        until = None if deadline is None else asyncio.get_running_loop().time() + deadline
        attempts = 0

        async def counted(index: int) -> T:
            nonlocal attempts
            attempts = index + 1
            return await run(index)

        try:
            async with asyncio.timeout_at(until):
                return await call_with_retries(plan, counted, sleep=self._sleep, on_retry=on_retry, until=until)
        except TimeoutError as exc:
            raise ProviderTimeoutError(
                f"timed out: no complete answer within the call's {deadline:g} s deadline "
                f"({attempts} attempt{'' if attempts == 1 else 's'} made)"
            ) from exc

    def _plan(self, retry: RetryPolicy | RetryConfig | Mapping[str, Any] | None) -> RetryPlan | None:
        """The call's retries: its own `retry=`, else the Provider's (None: one attempt)."""
        return self._retry if retry is None else retry_plan(retry)

    def stream(
        self,
        messages: Sequence[Any],
        tools: Sequence[Any] | None = None,
        config: Any = None,
        response_schema: dict[str, Any] | type[Any] | None = None,
        tool_choice: Any = None,
        *,
        structured_output: str | None = None,
        wire_map: WireMap | None = None,
        carried: Any = None,
        input_format: str | None = None,
        retry: RetryPolicy | RetryConfig | Mapping[str, Any] | None = None,
    ) -> ResponseStream:
        """A streamed completion: `async for event in p.stream(...)` yields canonical stream
        events as they arrive (wiremap.runtime.stream); `.response` then holds the assembled
        `Response`. Pre-send errors (validation, a format that cannot stream) raise here.
        For a format with `wire_rules`, tool calls carry the caller's ids and names; the call's
        map is `.wire_map` (or the `wire_map=` given). `input_format`, `response_schema`: as for
        `complete()`. Retries (`retry=`, or the Provider's) resend the same request, and only
        while no event has been delivered: an error after the first event propagates."""
        span: ChatSpan | None = None
        try:
            if input_format is not None:
                messages, tools, config, response_schema, tool_choice, carried = _from_body(
                    messages, input_format, tools, config, response_schema, tool_choice, carried
                )
            model_class, schema = _schema_model(response_schema)
            plan = self._plan(retry)
            if plan is not None and (plan.reask is not None or plan.overrides):
                raise InvalidRequestError(
                    "stream() retries resend the same request: a retry record's reask and "
                    "per_attempt_override apply to complete() only",
                    path="retry",
                )
            request = self._request(messages, tools, config, schema, tool_choice, carried)
            mode = structured_output if structured_output is not None else self.structured_output
            span = ChatSpan(
                self._tracer_provider,
                provider=self.format.provider,
                model=self.model,
                config=request.get("config"),
                structured=schema is not None,
                server_address=self._server[0],
                server_port=self._server[1],
            )
            return ResponseStream(self, request, schema, mode, wire_map, span, plan=plan, model=model_class)
        except ProviderError as exc:
            self._scrub(exc)
            if span is not None:  # a pre-send error is a finished call too, as for complete()
                span.start().finish(exc)
            raise

    def _request(
        self,
        messages: Sequence[Any],
        tools: Any,
        config: Any,
        response_schema: Any,
        tool_choice: Any,
        carried: Any = None,
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self.model, "messages": _plain_items(messages)}
        if tools is not None:
            request["tools"] = _plain_items(tools)
        if tool_choice is not None:
            request["tool_choice"] = _plain(tool_choice)
        if config is not None:
            request["config"] = _plain(config)
        if response_schema is not None:
            request["response_schema"] = response_schema
        if carried is not None:
            request["carried"] = carried.to_dict() if hasattr(carried, "to_dict") else carried
        return request

    def complete_sync(
        self,
        messages: Sequence[Any],
        tools: Sequence[Any] | None = None,
        config: Any = None,
        response_schema: dict[str, Any] | type[Any] | None = None,
        tool_choice: Any = None,
        *,
        structured_output: str | None = None,
        wire_map: WireMap | None = None,
        stream: bool = False,
        carried: Any = None,
        input_format: str | None = None,
        retry: RetryPolicy | RetryConfig | Mapping[str, Any] | None = None,
    ) -> Response:
        """`complete()` for code without an event loop (runs on this Provider's private loop).

        Inside a running event loop it raises RuntimeError: `await complete()` there instead.
        """
        self._no_running_loop("complete_sync")
        coro = self.complete(
            messages,
            tools,
            config,
            response_schema,
            tool_choice,
            structured_output=structured_output,
            wire_map=wire_map,
            stream=stream,
            carried=carried,
            input_format=input_format,
            retry=retry,
        )
        return self._runner().run(coro)

    def stream_sync(
        self,
        messages: Sequence[Any],
        tools: Sequence[Any] | None = None,
        config: Any = None,
        response_schema: Any = None,
        tool_choice: Any = None,
        *,
        structured_output: str | None = None,
        wire_map: WireMap | None = None,
        carried: Any = None,
        input_format: str | None = None,
        retry: RetryPolicy | RetryConfig | Mapping[str, Any] | None = None,
    ) -> SyncResponseStream:
        """`stream()` for code without an event loop: a plain iterator of the same canonical
        events (`for event in p.stream_sync(...)`), run on this Provider's private loop.

        Pre-send errors raise here. The connection is closed when the iteration ends, when the
        iterator is closed (`close()`, or leaving `with p.stream_sync(...) as events:`) or when
        it is garbage-collected; `.response` holds the assembled `Response` once it is exhausted.
        Inside a running event loop it raises RuntimeError: use `stream()` there instead.
        """
        self._no_running_loop("stream_sync")
        stream = self.stream(
            messages,
            tools,
            config,
            response_schema,
            tool_choice,
            structured_output=structured_output,
            wire_map=wire_map,
            carried=carried,
            input_format=input_format,
            retry=retry,
        )
        return SyncResponseStream(stream, self._runner())

    async def embed(self, inputs: str | Sequence[Any], config: Any = None) -> EmbeddingsResponse:
        """One embeddings call (a format of kind `embeddings`): a canonical `EmbeddingsResponse`.

        `inputs`: a string (one vector), a list of strings (one vector each, in order) or
        canonical messages (the mapping's extraction strategy reads them).
        """
        self._require_kind("embeddings", "embed")
        result: EmbeddingsResponse = await self._task("embeddings", _task_messages(inputs), config)
        return result

    def embed_sync(self, inputs: str | Sequence[Any], config: Any = None) -> EmbeddingsResponse:
        """`embed()` for code without an event loop."""
        self._no_running_loop("embed_sync")
        return self._runner().run(self.embed(inputs, config))

    async def generate_image(self, prompt: str | Sequence[Any], config: Any = None) -> ImagesResponse:
        """One image-generation call (a format of kind `images`): a canonical `ImagesResponse`.

        `prompt`: a string, or canonical messages (the mapping's strategy takes the prompt from
        them). Image parameters (size, quality, n...) go in `config["extras"]`.
        """
        self._require_kind("images", "generate_image")
        result: ImagesResponse = await self._task("generate_content", _task_messages(prompt), config)
        return result

    def generate_image_sync(self, prompt: str | Sequence[Any], config: Any = None) -> ImagesResponse:
        """`generate_image()` for code without an event loop."""
        self._no_running_loop("generate_image_sync")
        return self._runner().run(self.generate_image(prompt, config))

    def _require_kind(self, kind: str, method: str) -> None:
        if self.format.kind != kind:
            calls = {"chat": "complete()", "embeddings": "embed()", "images": "generate_image()"}
            raise InvalidRequestError(
                f"{method}() serves formats of kind {kind}; format {self.format.key!r} is kind "
                f"{self.format.kind}: call {calls.get(self.format.kind, 'its own method')}"
            )

    async def _task(self, operation: str, messages: list[Any], config: Any) -> Any:
        request: dict[str, Any] = {"model": self.model, "messages": messages}
        if config is not None:
            request["config"] = _plain(config)
        span = ChatSpan(
            self._tracer_provider,
            provider=self.format.provider,
            model=self.model,
            config=request.get("config"),
            structured=False,
            server_address=self._server[0],
            server_port=self._server[1],
            operation=operation,
        )
        with span:
            try:
                plan = self._retry
                if plan is not None and plan.max_attempts > 1:
                    result = await self._retrying(plan, lambda index: self._exchange(request, {}))
                else:
                    result = await self._exchange(request, {})
            except ProviderError as exc:
                self._scrub(exc)
                raise
            span.response(result)
            return result

    async def ready(self) -> None:
        """The §5 pre-flight probe: returns when the bound model is listed and serving."""
        probe = self._ready
        if not probe:
            # the table may say why its API has none (transport.ready_unavailable): nothing is sent
            why = (self.format.transport or {}).get("ready_unavailable")
            raise NotImplementedError(
                f"ready() is not available for {self.format.key}: {why}"
                if why
                else f"format {self.format.key!r} declares no ready() probe (mapping `transport.ready`)"
            )
        try:
            await self._ready_probe(probe)
        except ProviderError as exc:
            self._scrub(exc)
            raise

    def ready_sync(self) -> None:
        """`ready()` for code without an event loop."""
        self._no_running_loop("ready_sync")
        self._runner().run(self.ready())

    async def aclose(self) -> None:
        """Close the HTTP client(s); the Provider can still be used (a new client is made)."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:  # pragma: no cover - aclose is awaited, so a loop runs
            loop = None
        client = self._clients.pop(loop) if loop is not None and loop in self._clients else None
        if client is not None and client is not self._shared_client:
            await client.aclose()
        runner = self._take_runner()
        if runner is not None:
            await asyncio.to_thread(self._stop_runner, runner)
        self._clients.clear()  # clients of other loops: their loops own the sockets

    def close(self) -> None:
        """Close the client `complete_sync` uses (and forget the others)."""
        runner = self._take_runner()
        if runner is not None:
            self._stop_runner(runner)
        self._clients.clear()

    async def __aenter__(self) -> "Provider":
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __enter__(self) -> "Provider":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -----------------------------------------------------------------------------------------
    # the call

    async def _complete(
        self,
        request: dict[str, Any],
        response_schema: dict[str, Any] | None,
        mode: str | None,
        wire_map: WireMap | None = None,
    ) -> Response:
        kwargs: dict[str, Any] = {}
        if response_schema is not None:
            kwargs["response_schema"] = response_schema
        if mode is not None:
            kwargs["structured_output"] = mode
        if self.format.wire_rules is not None:
            kwargs["wire_map"] = wire_map if wire_map is not None else WireMap()
        rule = self._name_rule
        if rule is not None:
            # the format's declared tool-name rule (request.tools.name): a name it refuses (an MCP
            # `files.read` for OpenAI) is sent renamed and comes back as the caller's
            names = wire_map if wire_map is not None else WireMap()
            request = fit_tool_names(request, rule, names, self.format.key)
            response: Response = await self._exchange(request, kwargs)
            return restore_response(response, names)
        response = await self._exchange(request, kwargs)
        return response

    @property
    def _name_rule(self) -> dict[str, Any] | None:
        """TOOL_NAME_RULE of a format without wire_rules (whose own pass renames names)."""
        if self.format.wire_rules is not None:
            return None
        rule: dict[str, Any] | None = getattr(self.format.module, "TOOL_NAME_RULE", None)
        return rule

    async def _exchange(self, request: dict[str, Any], kwargs: dict[str, Any]) -> Any:
        """request_to_wire, the HTTP exchange, response_from_wire (the format's result type)."""
        fmt = self.format
        mode = kwargs.get("structured_output")
        # A format with wire rules carries the call's WireMap (made by _complete) from the request
        # to its response: the id/name rewrites, nothing shared between concurrent calls.
        rules: dict[str, Any] = {"wire_map": kwargs["wire_map"]} if "wire_map" in kwargs else {}
        wire = (
            fmt.request_to_wire(request, **rules)
            if mode is None
            else fmt.request_to_wire(request, structured_output=mode, **rules)
        )
        url = self._url
        if self._body_fields:
            wire = {**self._body_fields, **wire, **self._body_fields}
        if self._path_params:
            wire = dict(wire)
            path = self._path
            for name in self._path_params:
                value = wire.pop(name, None)
                if not isinstance(value, str) or not value:
                    value = self.model
                path = path.replace("{" + name + "}", urllib.parse.quote(value, safe=""))
            url = join_url(self.base_url, path)
        try:
            content = json.dumps(
                wire, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            ).encode()
        except (TypeError, ValueError) as exc:
            raise InvalidRequestError(f"the request body is not JSON-encodable: {exc}") from exc
        # options the table sends as request headers (request.options `header:`: Anthropic betas)
        status, body = await self._send(self._method, url, content, option_headers(fmt.module, request))
        obj = self._json_object(status, body, "response")
        return fmt.response_from_wire(obj, **kwargs)

    async def _ready_probe(self, probe: Mapping[str, Any]) -> None:
        url = self._path_url(str(probe.get("path", "/")))
        status, body = await self._send(str(probe.get("method", "GET")).upper(), url, None)
        list_key = probe.get("list")
        # Without `list` the body itself is the model array (Together answers a bare array).
        listing: Any = self._json_object(status, body, "ready() probe response", bool(list_key))
        if list_key:
            for part in str(list_key).split("."):
                listing = listing.get(part) if isinstance(listing, dict) else None
        if not isinstance(listing, list):
            raise InvalidResponseError(
                f"ready() probe: expected a model list at {list_key or '(root)'!r}, "
                f"got {_kind(listing)}",
                path=str(list_key) if list_key else None,
                status=status,
            )
        id_key = str(probe.get("id") or "id")
        entry = next(
            (
                item
                for item in listing
                if isinstance(item, dict) and _id_matches(item.get(id_key), self.model)
            ),
            None,
        )
        if entry is None:
            known = [item.get(id_key) for item in listing if isinstance(item, dict)]
            shown = ", ".join(str(k) for k in known[:20]) + (", ..." if len(known) > 20 else "")
            raise InvalidModelError(
                f"model {self.model!r} is not in the provider's model list "
                f"({len(known)} listed: {shown or 'none'})",
                status=status,
            )
        state = probe.get("state")
        if isinstance(state, Mapping) and state.get("field"):
            value = entry.get(str(state["field"]))
            if value in (state.get("not_loaded") or ()):
                raise ModelNotLoadedError(
                    f"model {self.model!r} is listed but not loaded ({state['field']}={value!r})",
                    status=status,
                )

    async def _send(self, method: str, url: str, content: bytes | None, extra: Mapping[str, str] | None = None) -> tuple[int, bytes]:
        """One HTTP exchange: (status, body) for a 2xx, else the mapped error is raised.
        `extra`: the call's option headers (runtime/wire.py option_headers)."""
        if self._missing_key is not None:
            raise AuthenticationError(self._missing_key)
        if self._missing_param is not None:
            raise InvalidRequestError(self._missing_param)
        import httpx

        client = self._client()
        headers = self._headers if content is not None else self._probe_headers
        if extra:
            headers = merge_option_headers(headers, extra)
        if self._fallback is not None:
            headers = await self._signed(method, url, headers, content)
        started = time.perf_counter()
        shown = without_userinfo(url)
        deadline = self._deadline
        try:
            async with asyncio.timeout(deadline):
                resp = await client.request(
                    method, url, content=content, headers=headers, params=self._query(url, False)
                )
        except httpx.HTTPError as exc:
            elapsed = time.perf_counter() - started
            safe = self._safe_request(method, url)
            exc.request = safe  # the cause keeps no credentials (headers, query key)
            self._scrub(exc)
            reason = self._redact(str(exc)) or "no detail"
            _log.debug("%s %s failed after %.3fs: %s", method, shown, elapsed, type(exc).__name__)
            if isinstance(exc, httpx.LocalProtocolError):
                raise InvalidRequestError(
                    f"{method} {shown}: the request cannot be sent: {reason}"
                ) from exc
            if isinstance(exc, httpx.DecodingError):
                raise InvalidResponseError(
                    f"{method} {shown}: the response cannot be decoded: {reason}"
                ) from exc
            cls: type[UnavailableError] = UnavailableError
            if isinstance(exc, httpx.TimeoutException):
                what, cls = "timed out", ProviderTimeoutError
            elif isinstance(exc, httpx.RemoteProtocolError):
                what = "connection closed by the server"
            elif isinstance(exc, httpx.ConnectError):
                what = "cannot connect"
            else:
                what = "transport failure"
            raise cls(f"{method} {shown}: {what} ({type(exc).__name__}: {reason})") from exc
        except TimeoutError as exc:  # the call's total deadline (asyncio.timeout)
            raise ProviderTimeoutError(
                f"{method} {shown}: timed out (no complete answer within the call's {deadline:g} s deadline)"
            ) from exc
        body = resp.content
        status = resp.status_code
        _log.debug("%s %s -> %d in %.3fs", method, shown, status, time.perf_counter() - started)
        if 200 <= status < 300:
            return status, body
        raise self._http_error(method, url, resp, body)

    def _http_error(
        self, method: str, url: str, resp: httpx.Response, body: bytes
    ) -> ProviderError:
        import httpx

        text = self._redact(body.decode("utf-8", "replace"))
        headers = {name: self._redact(value) for name, value in resp.headers.items()}
        safe_request = self._safe_request(method, url)
        safe_response = httpx.Response(
            resp.status_code, headers=headers, content=text.encode("utf-8"), request=safe_request
        )
        cause = httpx.HTTPStatusError(
            f"HTTP {resp.status_code} {resp.reason_phrase} from {method} {without_userinfo(url)}",
            request=safe_request,
            response=safe_response,
        )
        err: ProviderError
        if 300 <= resp.status_code < 400:
            # redirects are not followed (a key must not travel to another host): the upstream
            # answered, but not with an answer -- an invalid response, not the caller's mistake
            err = InvalidResponseError(
                f"HTTP {resp.status_code} {resp.reason_phrase}: the provider answered with a "
                "redirect, which is not followed (check base_url)",
                status=resp.status_code,
            )
        else:
            err = self.format.error_from_wire(resp.status_code, text, headers)
        err.__cause__ = cause
        return err

    def _json_object(
        self, status: int, body: bytes, what: str, object_only: bool = True
    ) -> dict[str, Any]:
        try:
            value = json.loads(body)
        except (ValueError, RecursionError) as exc:
            snippet = self._redact(body[:_BODY_SNIPPET].decode("utf-8", "replace"))
            raise InvalidResponseError(
                f"HTTP {status} {what} is not JSON: {exc}", status=status, body=snippet
            ) from exc
        if not object_only and type(value) is list:
            return value  # type: ignore[return-value]  # the caller checks the shape
        if type(value) is not dict:
            raise InvalidResponseError(
                f"HTTP {status} {what} is {_kind(value)}, not a JSON object",
                status=status,
                body=self._redact(value),
            )
        return value

    # -----------------------------------------------------------------------------------------
    # plumbing

    async def _signed(self, method: str, url: str, headers: Mapping[str, str], content: bytes | None) -> dict[str, str]:
        """The headers of one request authenticated by the table's `auth.fallback` (no key given):
        AWS Signature Version 4 over the request (botocore's signer, the `aws` extra), or a Google
        OAuth access token from the application-default credentials (google-auth, the `google`
        extra), refreshed when it expires. Credentials that cannot be found are an
        AuthenticationError naming what was looked for."""
        fallback = self._fallback
        assert fallback is not None
        out = dict(headers)
        if "aws_sigv4" in fallback:
            spec = fallback["aws_sigv4"]
            region = self._fill("{" + str(spec["region"]) + "}")
            out.update(await asyncio.to_thread(aws_sigv4_headers, method, url, out, content, str(spec["service"]), region))
            return out
        if "google_adc" in fallback:
            self._token, token = await asyncio.to_thread(google_token, self._token, list(fallback["google_adc"]["scopes"]))
            out["Authorization"] = f"Bearer {token}"
            return out
        raise AuthenticationError(f"{self.format.key}: unknown auth fallback {sorted(fallback)!r}")  # pragma: no cover - the schema refuses it

    def _path_url(self, path: str) -> str:
        return join_url(
            self.base_url, path.replace("{model}", urllib.parse.quote(self.model, safe=""))
        )

    def _client(self) -> httpx.AsyncClient:
        if self._shared_client is not None:
            return self._shared_client
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None or client.is_closed:
            import httpx

            limits = self._limits or httpx.Limits(
                max_connections=DEFAULT_MAX_CONNECTIONS, max_keepalive_connections=100
            )
            verify = default_ssl_context() if self._verify is True else self._verify
            client = httpx.AsyncClient(
                timeout=self._timeout, limits=limits, verify=verify, follow_redirects=False
            )
            self._clients[loop] = client
        return client

    def _safe_request(self, method: str, url: str) -> httpx.Request:
        """The request as errors may show it: no headers, the query key redacted."""
        import httpx

        return httpx.Request(method, without_userinfo(url), params=self._query(url, True))

    def _safe_url(self, url: str) -> str:
        """`url` without userinfo, its query-scheme key (and any copy of the key) redacted."""
        split = urllib.parse.urlsplit(without_userinfo(url))
        query = urllib.parse.parse_qsl(split.query, keep_blank_values=True)
        if self._params:
            query = [(k, _REDACTED if k in self._params else v) for k, v in query]
        text = urllib.parse.urlunsplit(
            (split.scheme, split.netloc, split.path, urllib.parse.urlencode(query), "")
        )
        return str(self._redact(text))

    def _query(self, url: str, redacted: bool) -> tuple[tuple[str, str], ...] | None:
        """The URL's own query plus the query-scheme key (httpx `params=` replaces the query)."""
        if not self._params:
            return None
        query = urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query, keep_blank_values=True)
        return (
            *query,
            *((name, _REDACTED if redacted else key) for name, key in self._params.items()),
        )

    def _redact(self, value: Any) -> Any:
        key = self._api_key
        if len(key) < _MIN_SECRET_LEN:
            return value
        return _redact(value, key)

    def _scrub(self, err: BaseException) -> None:
        """Remove the API key from everything an error and the errors it wraps carry (a server
        may echo the credentials back into a body, a header or a field the converter quotes),
        and replace every httpx request in the chain (its headers hold the key, its URL the
        query key or userinfo) with a copy that has neither."""
        key = self._api_key
        seen: set[int] = set()
        stack: list[BaseException | None] = [err]
        while stack:
            current = stack.pop()
            if current is None or id(current) in seen:
                continue
            seen.add(id(current))
            self._scrub_request(current)
            stack += [current.__cause__, current.__context__]
            if len(key) < _MIN_SECRET_LEN:
                continue
            for attr in _SCRUBBED_ATTRIBUTES:
                value = getattr(current, attr, None)
                if value is not None:
                    try:
                        setattr(current, attr, self._redact(value))
                    except AttributeError:  # a read-only property
                        pass
            current.args = tuple(self._redact(arg) for arg in current.args)

    def _scrub_request(self, exc: BaseException) -> None:
        """An httpx exception's request (and its response's) without credentials."""
        if not hasattr(exc, "_request"):  # not an httpx exception
            return
        import httpx

        holders: list[Any] = [exc]
        response = getattr(exc, "response", None) if hasattr(exc, "_request") else None
        if response is not None:
            holders.append(response)
        for holder in holders:
            request = getattr(holder, "_request", None)
            if not isinstance(request, httpx.Request):
                continue
            try:
                safe = httpx.Request(str(request.method), self._safe_url(str(request.url)))
            except Exception:  # pragma: no cover - an unparsable URL: drop the request instead
                safe = None
            try:
                holder._request = safe
            except AttributeError:  # pragma: no cover - a read-only attribute
                pass

    @staticmethod
    def _no_running_loop(name: str) -> None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        raise RuntimeError(
            f"Provider.{name}() cannot be called from a running event loop; "
            f"await the async method instead"
        )

    def _runner(self) -> LoopThread:
        runner = self._sync
        if runner is None:
            with self._sync_lock:
                runner = self._sync
                if runner is None:
                    runner = self._sync = LoopThread()
        return runner

    def _take_runner(self) -> LoopThread | None:
        with self._sync_lock:
            runner, self._sync = self._sync, None
        return runner

    def _stop_runner(self, runner: LoopThread) -> None:
        client = self._clients.pop(runner.loop, None)
        if client is not None:
            asyncio.run_coroutine_threadsafe(client.aclose(), runner.loop).result()
        runner.stop()


def _from_body(
    body: Any, input_format: str, tools: Any, config: Any, response_schema: Any, tool_choice: Any, carried: Any
) -> tuple[Any, Any, Any, Any, Any, Any]:
    """`complete(body, input_format=...)`: the parts of a request body of another format, read by
    that format's tables; an argument given beside the body wins over the body's."""
    from .format import get_format

    if not isinstance(body, Mapping):
        raise InvalidRequestError(
            f"with input_format, the first argument is a {input_format} request body (a JSON object), got {_kind(body)}",
            path="",
        )
    request = get_format(input_format).request_from_wire(body)
    d = request.to_dict()
    return (
        d["messages"],
        tools if tools is not None else d.get("tools"),
        config if config is not None else d.get("config"),
        response_schema if response_schema is not None else d.get("response_schema"),
        tool_choice if tool_choice is not None else d.get("tool_choice"),
        carried if carried is not None else request.carried,
    )


def _schema_model(response_schema: Any) -> tuple[type[Any] | None, Any]:
    """(the pydantic model class, the JSON Schema to send) of a `response_schema`: a pydantic v2
    model class gives its `model_json_schema()` (key order kept); anything else is sent as is
    (and checked by the converter). pydantic is imported only when the value looks like one of
    its models, so a plain dict schema never imports it."""
    if not isinstance(response_schema, type):
        return None, response_schema
    pydantic: Any = sys.modules.get("pydantic")
    if pydantic is None and not (
        hasattr(response_schema, "model_json_schema") and hasattr(response_schema, "model_validate")
    ):
        return None, response_schema
    if pydantic is None:
        try:
            pydantic = importlib.import_module("pydantic")
        except ImportError:
            return None, response_schema
    if not issubclass(response_schema, pydantic.BaseModel):
        raise InvalidRequestError(
            f"response_schema must be a JSON Schema (a dict) or a pydantic model class, "
            f"got the class {response_schema.__qualname__}",
            path="response_schema",
        )
    model: Any = response_schema
    return response_schema, model.model_json_schema()


async def _closed(events: Any) -> None:
    await events.aclose()


async def _next_event(events: Any) -> Any:
    """The next event of an async iterator, as a coroutine (what the loop thread runs)."""
    return await events.__anext__()


class SyncResponseStream:
    """`Provider.stream_sync()`: the events of a `ResponseStream`, each fetched on the
    Provider's private event loop; a context manager and an iterator."""

    __slots__ = ("_stream", "_runner", "_events", "_closed", "__weakref__")

    def __init__(self, stream: ResponseStream, runner: LoopThread) -> None:
        self._stream = stream
        self._runner = runner
        self._events: Any = None
        self._closed = False

    @property
    def response(self) -> Response | None:
        """The assembled Response, once the stream is exhausted."""
        return self._stream.response

    @property
    def wire_map(self) -> Any:
        return self._stream.wire_map

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return self

    def __next__(self) -> dict[str, Any]:
        if self._closed:
            raise StopIteration
        if self._events is None:
            self._events = self._stream.__aiter__()
        try:
            event: dict[str, Any] = self._runner.run(_next_event(self._events))
        except StopAsyncIteration:
            self._closed = True
            raise StopIteration from None
        except BaseException:
            self._closed = True  # the stream ended with its error (its connection is closed)
            raise
        return event

    def close(self) -> None:
        """Stop reading: the connection is closed; later iteration yields nothing."""
        if self._closed:
            return
        self._closed = True
        events, self._events = self._events, None
        if events is None:
            return
        if threading.current_thread() is self._runner.thread:
            # collected on the loop's own thread: it cannot wait for itself
            self._runner.loop.create_task(_closed(events))
            return
        if self._runner.loop.is_closed():
            return
        self._runner.run(_closed(events))

    def __enter__(self) -> "SyncResponseStream":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown: the loop may be gone
            pass

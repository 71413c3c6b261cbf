"""The gateway's endpoints besides chat, and same-format passthrough (issue 18).

- `GET /health`: liveness (the process answers). `GET /ready`: the upstream's model list can be
  fetched with the key this request would use (`?model=<id>`: `Provider.ready()` for that
  model: listed, and loaded where the upstream reports it). 200 `{"status": "ready", ...}`,
  else 503 `{"status": "unavailable", "error": {category, message}}`.
- `GET <models path>` (the inbound mapping's `transport.models.path`): the upstream's model list
  (fetched with its `transport.ready` row), each model read with the upstream's
  `transport.models.model` template and written with the inbound one, in the inbound page.
- `POST <count_tokens path>` (the inbound mapping's `transport.count_tokens`): passed through
  when both ends speak the same format; translated to the upstream's own counter where its
  mapping has a `count_tokens` row; otherwise 501 in the inbound error envelope.
- Same format in and out (`passthrough`): the client's body goes to the upstream unchanged, and
  the upstream's status, body and content type come back unchanged (a stream chunk by chunk).
  The one change: a `model_map` entry for the body's top-level `model` rewrites that value's
  bytes only (or the path segment, for a format whose model is in the URL). `strict` validates
  the body with the format's reader before it is forwarded. The key policy, body limits,
  in-flight limit and the error envelope for transport failures apply as to any request.
  A config file's route (or fallback) to an upstream of the inbound format passes through the
  same way (`forward(lane=...)`), its `upstream_model` renaming the model's bytes; that
  upstream's extras policy, when it has one, cuts the fields it drops out of the bytes
  (`drop_fields`). The access record gets the model, and the usage once the answer is sent
  (`UsageTap` for a stream).
"""

from __future__ import annotations

import datetime
import json
import re
import secrets
import time
import urllib.parse
from collections.abc import AsyncIterator, Collection, Mapping
from typing import Any

from wiremap.runtime.errors import (
    InvalidModelError,
    InvalidRequestError,
    InvalidResponseError,
    ProviderError,
    UnavailableError,
)
from wiremap.runtime.format import Format
from wiremap.runtime.http_support import table_base_url

from .gateway_common import BodyTimeout, BodyTooLarge, ClientGone, loss_header, sends_as_bearer

__all__ = ["bind_path", "endpoint_routes", "forward", "drop_fields", "body_model", "UsageTap", "served_paths", "allowed_method", "not_found", "fill", "read"]

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
# Client headers a same-format upstream reads as request options (API version, beta features).
_FORWARDED_HEADERS = ("anthropic-version", "anthropic-beta", "openai-beta")
# Upstream answer headers worth the client's while besides content-type.
_ANSWER_HEADERS = re.compile(r"^(retry-after|retry-after-ms|.*ratelimit.*)$")


# ------------------------------------------------------------------------------------------
# the transport templates (mappings/README.md `transport.models`, `transport.count_tokens`)


def fill(template: Any, values: Mapping[str, Any]) -> Any:
    """`template` with its placeholders replaced from `values` (a whole `"{name}"` takes the
    value as it is; an interpolated one its string form)."""
    if isinstance(template, dict):
        return {k: fill(v, values) for k, v in template.items()}
    if isinstance(template, list):
        return [fill(v, values) for v in template]
    if isinstance(template, str):
        names = _PLACEHOLDER.findall(template)
        if not names:
            return template
        if template == "{" + names[0] + "}":
            return values.get(names[0])
        return _PLACEHOLDER.sub(lambda m: "" if values.get(m.group(1)) is None else str(values[m.group(1)]), template)
    return template


def read(template: Any, value: Any) -> dict[str, Any]:
    """The placeholders' values found in `value` where `template` places them (absent where
    `value` has nothing there or an interpolated string does not match)."""
    out: dict[str, Any] = {}
    _read(template, value, out)
    return out


def _read(template: Any, value: Any, out: dict[str, Any]) -> None:
    if isinstance(template, dict):
        if isinstance(value, dict):
            for k, t in template.items():
                if k in value:
                    _read(t, value[k], out)
    elif isinstance(template, str):
        names = _PLACEHOLDER.findall(template)
        if not names:
            return
        name = names[0]
        if template == "{" + name + "}":
            out[name] = value
            return
        head, _, tail = template.partition("{" + name + "}")
        if isinstance(value, str) and value.startswith(head) and value.endswith(tail) and len(value) >= len(head) + len(tail):
            out[name] = value[len(head) : len(value) - len(tail)]


def bind_path(fmt: Format, body: dict[str, Any], path_params: Mapping[str, str]) -> dict[str, Any]:
    """The client's body as `fmt`'s tables read it: each path-bound request field (`{model}`,
    Bedrock's `{modelId}`) taken from the URL where the body lacks it. Transport params in the path
    (Vertex AI's project and location) are not request fields; the transport's fixed body fields
    (`transport.body`, Bedrock's `anthropic_version`) are left out by `request_from_wire` itself."""
    transport = fmt.transport or {}
    params = transport.get("params") or {}
    out = body
    for name, value in path_params.items():
        if name in params or name.startswith("wiremap.") or name in out:
            continue
        out = {**out, name: value}
    return out


def _row(fmt: Format, name: str) -> dict[str, Any] | None:
    row = (fmt.transport or {}).get(name)
    return row if isinstance(row, dict) else None


def served_paths(fmt: Format) -> list[tuple[str, str]]:
    """(method, path) of every endpoint a gateway with inbound `fmt` serves, chat first."""
    transport = fmt.transport or {}
    endpoint = transport.get("endpoint") or fmt.endpoint or {}
    out = [("POST", str(endpoint.get("path")).split("?", 1)[0])]  # a query (`?api-version=`) is not the route
    stream_path = _stream_path(fmt)
    if stream_path:
        out.append(("POST", stream_path))
    models = _row(fmt, "models")
    if models:
        out.append(("GET", str(models["path"])))
    counter = _row(fmt, "count_tokens")
    if counter:
        out.append((str(counter["method"]), str(counter["path"])))
    return out + [("GET", "/health"), ("GET", "/ready"), ("GET", "/healthz")]


def allowed_method(fmt: Format, path: str) -> str:
    """The method a gateway with inbound `fmt` serves on `path` (for a 405's `allow`)."""
    methods = sorted({m for m, template in served_paths(fmt) if _template_regex(template).match(path)})
    return ", ".join(methods) or "POST"


def not_found(fmt: Format, path: str) -> ProviderError:
    """The error for a path the gateway does not serve: a 404 in `fmt`'s envelope (the category
    every format writes as its own 404). An invalid request its table writes as a 404 when the
    upstream said 404 (OpenAI: `invalid_request_error`, no code), else the not-found category
    (Anthropic `not_found_error`, Gemini `NOT_FOUND`). Its message lists what is served."""
    served = ", ".join(f"{m} {p}" for m, p in served_paths(fmt))
    message = f"no such path {path}: this gateway ({fmt.key}) serves {served}"
    request = InvalidRequestError(message, status=404)
    if fmt.error_to_wire(request)[0] == 404:
        return request
    return InvalidModelError(message, status=404)


def _stream_path(fmt: Format) -> str | None:
    """The streaming call's own path (without its query) where the format has one (Gemini)."""
    endpoint = (fmt.stream or {}).get("endpoint") or {}
    path = endpoint.get("path") if isinstance(endpoint, dict) else None
    return str(path).split("?", 1)[0] if path else None


# ------------------------------------------------------------------------------------------
# raw HTTP to the upstream (auth and fixed headers from its transport table)


def _upstream_url(gateway: Any, path: str, model: str | None, query: list[tuple[str, str]] | None = None, lane: Any = None) -> str:
    cfg = lane or gateway.config  # lane: one upstream of a config file's routes
    transport = cfg.upstream.transport or {}
    base = str(cfg.upstream_url or table_base_url(transport) or "").rstrip("/")
    if transport.get("params"):  # the base URL's and path's transport params (Vertex AI's project and location)
        from wiremap.runtime.cloud_auth import transport_params

        fill, missing = transport_params(cfg.upstream, None)
        if missing is not None:
            raise InvalidRequestError(missing)
        if not cfg.upstream_url:  # a base_url_by row: another origin for some param values
            base = str(table_base_url(transport, fill) or "").rstrip("/")
        base, path = fill(base), fill(path)
    if model is not None:
        path = path.replace("{model}", urllib.parse.quote(model, safe=""))
    url = base + path
    if query:
        url += ("&" if "?" in url else "?") + urllib.parse.urlencode(query)
    return url


def _upstream_headers(gateway: Any, key: str, client_headers: Mapping[str, str] | None = None, lane: Any = None) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Headers and query parameters that authenticate to the upstream (its table's scheme)."""
    cfg = lane or gateway.config
    transport = cfg.upstream.transport or {}
    headers = {str(k): str(v) for k, v in (transport.get("headers") or {}).items()}
    headers["accept"] = "application/json"
    for name in _FORWARDED_HEADERS:
        value = (client_headers or {}).get(name)
        if value:
            headers[name] = value  # the client's API version/betas: the upstream speaks its format
    query: list[tuple[str, str]] = []
    auth = transport.get("auth") or {}
    scheme = auth.get("scheme", "none")
    if key and sends_as_bearer(key, auth):
        headers["authorization"] = f"Bearer {key}"  # a client's token where the upstream takes one (Entra ID)
    elif key:
        if scheme == "bearer":
            headers["authorization"] = f"Bearer {key}"
        elif scheme == "header":
            headers[str(auth.get("name") or "x-api-key")] = key
        elif scheme == "query":
            query.append((str(auth.get("name") or "key"), key))
    return headers, query


async def _exchange(gateway: Any, method: str, url: str, headers: Mapping[str, str], content: bytes | None) -> tuple[int, dict[str, str], bytes]:
    """One whole exchange (`gateway.upstream`): (status, headers, body). Transport failures are
    UnavailableError (the gateway's envelope makes them generic)."""

    async def call() -> tuple[int, dict[str, str], bytes]:
        try:
            resp = await gateway.http_client().request(method, url, headers=dict(headers), content=content)
        except Exception as exc:
            raise UnavailableError(f"{method} upstream: {type(exc).__name__}") from exc
        return resp.status_code, dict(resp.headers), resp.content

    result: tuple[int, dict[str, str], bytes] = await gateway.upstream(call())
    return result


def _json(status: int, body: bytes, what: str) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        raise InvalidResponseError(f"the upstream's {what} (HTTP {status}) is not JSON", status=status) from None


def _raise_for(gateway: Any, status: int, headers: Mapping[str, str], body: bytes) -> None:
    if not 200 <= status < 300:
        raise gateway.config.upstream.error_from_wire(status, body.decode("utf-8", "replace"), dict(headers))


# ------------------------------------------------------------------------------------------
# models


def _created(entry: Mapping[str, Any]) -> int | None:
    """Unix seconds from `created` (a number) or `created_at` (RFC 3339)."""
    created = entry.get("created")
    if isinstance(created, (int, float)) and not isinstance(created, bool):
        return int(created)
    text = entry.get("created_at")
    if isinstance(text, str):
        try:
            return int(datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp())
        except ValueError:
            return None
    return None


async def upstream_models(gateway: Any, key: str) -> list[dict[str, Any]]:
    """The upstream's models as `{id, created, owned_by, display_name}` (None where unknown),
    in the upstream's order, from one request to its `transport.ready` list endpoint."""
    upstream: Format = gateway.config.upstream
    probe = _row(upstream, "ready")
    if probe is None:
        why = (upstream.transport or {}).get("ready_unavailable")  # the table says why its API has none
        raise UnavailableError(f"the upstream format {upstream.key} has no model list: {why}" if why
                               else f"the upstream format {upstream.key} declares no model list (mapping `transport.ready`)", status=501)
    headers, query = _upstream_headers(gateway, key)
    status, answer_headers, body = await _exchange(gateway, str(probe.get("method") or "GET"), _upstream_url(gateway, str(probe["path"]), None, query), headers, None)
    _raise_for(gateway, status, answer_headers, body)
    listing: Any = _json(status, body, "model list")
    for part in str(probe.get("list") or "").split("."):
        if part:
            listing = listing.get(part) if isinstance(listing, dict) else None
    if not isinstance(listing, list):
        raise InvalidResponseError(f"the upstream's model list has no array at {probe.get('list') or '(root)'!r}", status=status)
    row = _row(upstream, "models")
    id_key = str(probe.get("id") or "id")
    out: list[dict[str, Any]] = []
    for item in listing:
        if not isinstance(item, dict):
            continue
        found = read(row["model"], item) if row else {}
        model_id = found.get("id")
        if not isinstance(model_id, str) or not model_id:
            model_id = item.get(id_key)
        if not isinstance(model_id, str) or not model_id:
            continue
        display = found.get("display_name")
        owner = found.get("owned_by")
        out.append({
            "id": model_id,
            "created": _created(found),
            "owned_by": owner if isinstance(owner, str) else None,
            "display_name": display if isinstance(display, str) else None,
        })
    return out


def models_page(gateway: Any, models: list[dict[str, Any]]) -> Any:
    """The models written with the inbound `transport.models` templates. Unknown values: the id
    for a display name, the upstream's provider for an owner, 0 (the epoch) for a date."""
    cfg = gateway.config
    row = _row(cfg.inbound, "models")
    assert row is not None
    entries = []
    for m in models:
        created = m["created"] if m["created"] is not None else 0
        values = {
            "id": m["id"],
            "created": created,
            "created_at": datetime.datetime.fromtimestamp(created, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "owned_by": m["owned_by"] or cfg.upstream.provider,
            "display_name": m["display_name"] or m["id"],
        }
        entries.append(fill(row["model"], values))
    first = models[0]["id"] if models else None
    last = models[-1]["id"] if models else None
    return fill(row["page"], {"models": entries, "first_id": first, "last_id": last})


# ------------------------------------------------------------------------------------------
# count_tokens


def count_request(gateway: Any, body: dict[str, Any], path_params: Mapping[str, str]) -> tuple[str, bytes]:
    """The inbound count_tokens body as the upstream counter's (model, body bytes)."""
    cfg = gateway.config
    inbound_row = _row(cfg.inbound, "count_tokens")
    upstream_row = _row(cfg.upstream, "count_tokens")
    assert inbound_row is not None and upstream_row is not None
    chat = read(inbound_row.get("request", "{request}"), body).get("request")
    if not isinstance(chat, dict):
        chat = body  # Gemini's short form `{contents}` is a chat body already
    chat = dict(chat)
    if "model" in path_params and not chat.get("model"):
        chat["model"] = path_params["model"]
    model_head, _, model_tail = str(inbound_row.get("model", "{model}")).partition("{model}")
    model = chat.get("model")
    if isinstance(model, str) and model.startswith(model_head) and model.endswith(model_tail) and (model_head or model_tail):
        chat["model"] = model[len(model_head) : len(model) - len(model_tail)]
    canonical = cfg.inbound.request_from_wire(chat).to_dict()
    canonical.pop("stream", None)
    model = cfg.model_map.get(canonical["model"], canonical["model"])
    canonical["model"] = model
    canonical.pop("carried", None)  # the counter takes a subset; nothing to write back
    rules: dict[str, Any] = {}
    if cfg.upstream.wire_rules is not None:
        from wiremap.runtime.wire_rules import WireMap

        rules["wire_map"] = WireMap()
    wire = cfg.upstream.request_to_wire(canonical, **rules)
    keep = set(upstream_row["fields"])
    wire = {k: v for k, v in wire.items() if k in keep}
    if "model" in keep:
        wire["model"] = fill(upstream_row.get("model", "{model}"), {"model": model})
    out = fill(upstream_row.get("request", "{request}"), {"request": wire})
    return model, json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode()


# ------------------------------------------------------------------------------------------
# passthrough


def _top_level_span(text: str, key: str) -> tuple[int, int] | None:
    """Where the value of the top-level `key` of the JSON object `text` is: (start, end)."""
    decoder = json.JSONDecoder()
    ws = re.compile(r"[ \t\n\r]*")
    i = ws.match(text, 0).end()  # type: ignore[union-attr]
    if text[i : i + 1] != "{":
        return None
    i = ws.match(text, i + 1).end()  # type: ignore[union-attr]
    if text[i : i + 1] == "}":
        return None
    while True:
        name, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        i = ws.match(text, i).end()  # type: ignore[union-attr]
        if text[i : i + 1] != ":":
            return None
        start = ws.match(text, i + 1).end()  # type: ignore[union-attr]
        _value, end = decoder.raw_decode(text, start)
        if name == key:
            return start, end
        i = ws.match(text, end).end()  # type: ignore[union-attr]
        if text[i : i + 1] != ",":
            return None
        i = ws.match(text, i + 1).end()  # type: ignore[union-attr]


def rename_model(raw: bytes, model_map: Mapping[str, str]) -> bytes:
    """`raw` with its top-level `model` value replaced by its `model_map` target; every other
    byte unchanged. A body that is not a JSON object (or has no mapped model) is returned as is."""
    if not model_map:
        return raw
    try:
        text = raw.decode("utf-8")
        span = _top_level_span(text, "model")
    except (UnicodeDecodeError, ValueError):
        return raw  # the upstream judges a malformed body, as it would without the gateway
    if span is None:
        return raw
    current = json.loads(text[span[0] : span[1]])
    if not isinstance(current, str) or current not in model_map:
        return raw
    return (text[: span[0]] + json.dumps(model_map[current], ensure_ascii=False) + text[span[1] :]).encode("utf-8")


def _template_regex(path: str) -> re.Pattern[str]:
    return re.compile("".join("[^/]+" if part.startswith("{") else re.escape(part) for part in re.split(r"(\{[^{}]*\})", path)) + "$")


def route_template(fmt: Format, path: str, method: str = "POST") -> str | None:
    """The served path template (`/v1beta/models/{model}:generateContent`) that `path` matches."""
    for m, template in served_paths(fmt):
        if m == method and _template_regex(template).match(path):
            return template
    return None


def _top_level_members(text: str) -> list[tuple[str, int, int]] | None:
    """The members of the JSON object `text`: (name, where the name's quote is, where the value
    ends), in order; None when `text` is not a JSON object."""
    decoder = json.JSONDecoder()
    ws = re.compile(r"[ \t\n\r]*")
    i = ws.match(text, 0).end()  # type: ignore[union-attr]
    if text[i : i + 1] != "{":
        return None
    i = ws.match(text, i + 1).end()  # type: ignore[union-attr]
    out: list[tuple[str, int, int]] = []
    if text[i : i + 1] == "}":
        return out
    while True:
        if text[i : i + 1] != '"':
            return None
        name, j = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        j = ws.match(text, j).end()  # type: ignore[union-attr]
        if text[j : j + 1] != ":":
            return None
        _value, end = decoder.raw_decode(text, ws.match(text, j + 1).end())  # type: ignore[union-attr]
        out.append((name, i, end))
        j = ws.match(text, end).end()  # type: ignore[union-attr]
        if text[j : j + 1] == "}":
            return out
        if text[j : j + 1] != ",":
            return None
        i = ws.match(text, j + 1).end()  # type: ignore[union-attr]


def drop_fields(raw: bytes, names: Collection[str]) -> bytes:
    """`raw` without its top-level members named in `names`, each cut out with the separator
    after it (the last one: with the separator before it); every other byte unchanged. A body
    that is not a JSON object is returned as is."""
    if not names:
        return raw
    try:
        text = raw.decode("utf-8")
        members = _top_level_members(text)
    except (UnicodeDecodeError, ValueError):
        return raw
    if not members or not any(name in names for name, _s, _e in members):
        return raw
    cuts: list[tuple[int, int]] = []
    for i, (name, start, end) in enumerate(members):
        if name not in names:
            continue
        if i + 1 < len(members):
            cuts.append((start, members[i + 1][1]))
        else:
            cuts.append((members[i - 1][2] if i else start, end))
    out: list[str] = []
    at = 0
    for start, end in sorted(cuts):
        if start > at:
            out.append(text[at:start])
        at = max(at, end)
    out.append(text[at:])
    return "".join(out).encode("utf-8")


def body_model(raw: bytes) -> str | None:
    """The top-level `model` string of a JSON body (None when there is none)."""
    try:
        text = raw.decode("utf-8")
        span = _top_level_span(text, "model")
        value = json.loads(text[span[0] : span[1]]) if span is not None else None
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, str) else None


def _answer_usage(fmt: Format, body: bytes) -> Any:
    """The usage of a JSON answer read with `fmt`'s response reader (None when unreadable)."""
    try:
        data = json.loads(body)
        if isinstance(data, list) and data:  # a stream delivered as one JSON array (Gemini without alt=sse)
            data = data[-1]
        return fmt.response_from_wire(data).usage if isinstance(data, dict) else None
    except Exception:  # noqa: BLE001 - the client has its answer; the log just lacks the tokens
        return None


def _then_class(base: Any) -> Any:
    class Then(base):  # type: ignore[misc]
        """A response that calls `after()` once it has been sent (or the client left)."""

        def __init__(self, *args: Any, after: Any = None, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._after = after

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            try:
                await super().__call__(scope, receive, send)
            finally:
                after, self._after = self._after, None
                if after is not None:
                    after()

    return Then


_THEN: dict[str, Any] = {}


def _then(kind: str) -> Any:
    """Response ("json") or StreamingResponse ("stream") with an `after=` callback."""
    if kind not in _THEN:
        from starlette.responses import Response, StreamingResponse

        _THEN["json"], _THEN["stream"] = _then_class(Response), _then_class(StreamingResponse)
    return _THEN[kind]


_MAX_PENDING = 1 << 20
_MARKS = (b"\n\n", b"\r\r", b"\n\r\n")  # an event ends with a blank line (\n\n, \r\r, \r\n\r\n)


def _event_at(data: bytes, at: int, end: int) -> bytes:
    """The complete server-sent event of data[:end] that holds position `at`."""
    starts = [i + len(m) for m in _MARKS if (i := data.rfind(m, 0, at)) >= 0]
    stops = [i + len(m) for m in _MARKS if (i := data.find(m, at, end)) >= 0]
    return data[max(starts, default=0) : min(stops, default=end)]


class UsageTap:
    """The usage of a stream passing through, read after its last byte. While the stream passes,
    each chunk is cut at its last event boundary and two complete server-sent events that
    mention `usage` (`usageMetadata`) are kept, the first and the latest (Anthropic reports
    input tokens in its first event and output tokens in a later one; OpenAI and Gemini repeat
    the totals): a few substring searches per chunk. `usage()` runs the format's stream parser
    over those two events only."""

    def __init__(self, fmt: Format) -> None:
        self.format = fmt
        self._pending = b""
        self._first: bytes | None = None
        self._last: bytes | None = None

    def feed(self, chunk: bytes) -> None:
        data = self._pending + chunk if self._pending else chunk
        end = max((i + len(m) for m in _MARKS if (i := data.rfind(m)) >= 0), default=-1)
        if end < 0:
            self._pending = data if len(data) <= _MAX_PENDING else b""  # not server-sent events
            return
        self._pending = data[end:]
        at = data.rfind(b"usage", 0, end)
        if at < 0:
            return
        event = _event_at(data, at, end)
        if self._first is None:
            self._first = _event_at(data, data.find(b"usage", 0, end), end)
            if self._first == event:
                return
        self._last = event

    def usage(self) -> Any:
        """The usage the kept events report (a canonical usage dict), or None."""
        from wiremap.runtime.stream import StreamParser

        found = None
        parser = StreamParser(self.format)
        tail = self._pending + b"\n\n" if b"usage" in self._pending else None  # no blank line at the end
        for event in (self._first, self._last, tail):
            for ev in parser.feed(event) if event else ():
                if ev["type"] == "usage":
                    found = ev["usage"]
        return found


async def forward(
    gateway: Any, request: Any, raw: bytes, rid: str, slot: Any, path: str | None = None, method: str = "POST", key: str = "",
    *, lane: Any = None, model_map: Mapping[str, str] | None = None, drop: Collection[str] = (), losses: list[Any] | None = None,
    raise_errors: bool = False,
) -> Any:
    """`raw` sent to the upstream's `path` (by default the path template the client called; same
    format: the model segment renamed by `model_map`), the upstream's answer returned as it came:
    status, content type and body, a stream chunk by chunk. Takes over `slot`: released when the
    answer ends (or at once on an error).

    `lane`: the upstream of a config file's route (default: the gateway's own); `model_map`:
    the renames to apply (default: the lane's); `drop`: top-level fields its extras policy cuts
    out (named in `losses`, sent in `x-wiremap-losses`); `raise_errors`: an upstream error status
    is raised as the upstream's ProviderError (so that a route may retry or fall back), carrying
    the answer as it came in `wiremap_answer`. The request's access record gets the model, and,
    once the answer's last byte is sent, the usage the upstream reported (its response reader;
    a stream's chunks fed to its stream parser as they pass) and the error category."""
    from starlette.responses import Response

    from .gateway_metrics import current_record

    cfg = lane or gateway.config
    renames = cfg.model_map if model_map is None else model_map
    record = current_record() if method == "POST" else None
    pump: Any = None
    try:
        if path is None:
            path = route_template(cfg.inbound, request.url.path, method) or request.url.path
        params = dict(request.path_params)
        model = params.get("model")
        if model is not None:
            model = renames.get(model, model)
        if cfg.strict and method == "POST":
            _validate(cfg.inbound, raw, params)
        body = drop_fields(rename_model(raw, renames), drop) if method == "POST" else None
        headers, query = _upstream_headers(gateway, key, request.headers, lane=cfg)
        if body is not None:
            headers["content-type"] = request.headers.get("content-type") or "application/json"
            headers["accept"] = request.headers.get("accept") or "application/json"
        # the client's query goes on (`alt=sse`, paging), never its credential (`key`: re-added
        # in the upstream's own scheme)
        client_query = [(k, v) for k, v in request.query_params.multi_items() if k != "key"]
        url = _upstream_url(gateway, path, model, client_query + query, lane=cfg)

        async def exchange() -> AsyncIterator[Any]:
            client = gateway.http_client()
            try:
                resp = await client.send(client.build_request(method, url, headers=headers, content=body), stream=True)
            except Exception as exc:
                raise UnavailableError(f"{method} upstream: {type(exc).__name__}") from exc
            try:
                yield (resp.status_code, dict(resp.headers))
                try:
                    async for chunk in resp.aiter_bytes():
                        yield chunk
                except Exception as exc:
                    raise UnavailableError(f"{method} upstream: the answer broke off ({type(exc).__name__})") from exc
            finally:
                await resp.aclose()

        pump = gateway.pump(exchange())
        first = await gateway.until_disconnect(request, pump.batch())
        if not first:
            raise UnavailableError("the upstream closed the connection without an answer")
        status, answer_headers = first[0]
        chunks: list[bytes] = list(first[1:])
        out_headers = {k: v for k, v in answer_headers.items() if _ANSWER_HEADERS.match(k.lower())}
        out_headers.update({"x-wiremap-upstream": cfg.upstream.key, "x-request-id": rid})
        if losses:
            out_headers["x-wiremap-losses"] = loss_header(losses)
        content_type = answer_headers.get("content-type")
        failed = not 200 <= status < 300
        if failed or not (content_type or "").startswith("text/event-stream"):
            while True:
                batch = await gateway.until_disconnect(request, pump.batch())
                if not batch:
                    break
                chunks += batch
            pump.close()
            slot.release()
            answer = b"".join(chunks)
            if failed and raise_errors:
                error = cfg.upstream.error_from_wire(status, answer.decode("utf-8", "replace"), answer_headers)
                error.wiremap_answer = Response(answer, status_code=status, headers=out_headers, media_type=content_type)
                raise error
            if record is None:
                return Response(answer, status_code=status, headers=out_headers, media_type=content_type)
            record.deferred = True  # finished once the answer is sent

            def settle() -> None:
                record.ended = time.perf_counter()
                _settle(record, cfg, raw, params, renames, status, answer, answer_headers)

            return _then("json")(answer, status_code=status, headers=out_headers, media_type=content_type, after=settle)
    except BaseException:
        if pump is not None:
            pump.close()
        slot.release()
        raise

    stream_pump, stream_slot = pump, slot
    pump = slot = None
    # after each chunk went to the client: what the upstream's usage needs (UsageTap)
    tap = UsageTap(cfg.upstream) if record is not None and cfg.upstream.stream else None

    async def relay() -> AsyncIterator[bytes]:
        try:
            for chunk in chunks:
                yield chunk
                if tap is not None:
                    tap.feed(chunk)
            while True:
                batch = await stream_pump.batch()
                if not batch:
                    return
                for chunk in batch:
                    yield chunk
                    if tap is not None:
                        tap.feed(chunk)
        except ProviderError as exc:
            if record is not None:
                record.failed(exc)
            return  # a stream that broke off ends here, without its end marker, as upstream's did
        finally:
            stream_pump.close()
            stream_slot.release()

    if record is None:
        return _then("stream")(relay(), status_code=status, headers=out_headers, media_type=content_type)
    record.deferred = True  # finished after the stream's last byte
    record.stream = True

    def settle_stream() -> None:
        record.ended = time.perf_counter()
        if tap is not None:
            try:
                record.usage(tap.usage())
            except Exception:  # noqa: BLE001 - the client has its bytes; the log just lacks the tokens
                pass
        _settle(record, cfg, raw, params, renames, status, None, answer_headers)

    return _then("stream")(relay(), status_code=status, headers=out_headers, media_type=content_type, after=settle_stream)


def _settle(record: Any, cfg: Any, raw: bytes, params: Mapping[str, str], renames: Mapping[str, str], status: int, answer: bytes | None, headers: Mapping[str, str]) -> None:
    """A passthrough's access record completed after its answer was sent: the model (where the
    request's handling did not read it), the usage or the error category, then written."""
    if record.model is None:
        model = params.get("model") or body_model(raw)
        record.model = model
        record.upstream_model = renames.get(model, model) if model is not None else None
    if not 200 <= status < 300 and answer is not None:
        try:
            record.failed(cfg.upstream.error_from_wire(status, answer.decode("utf-8", "replace"), dict(headers)))
        except Exception:  # noqa: BLE001 - the category then follows from the status
            pass
    elif answer is not None:
        record.usage(_answer_usage(cfg.upstream, answer))
    record.finish(status)


def _validate(fmt: Format, raw: bytes, params: Mapping[str, str]) -> None:
    """The body read with the format's own reader and checked as any canonical request is
    (strict mode): a malformed request is refused here, naming its path, before it is sent."""
    try:
        body = json.loads(raw)
    except ValueError as exc:
        raise InvalidRequestError(f"the request body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise InvalidRequestError("the request body must be a JSON object")
    if "model" in params and "model" not in body:
        body = {**body, "model": params["model"]}
    from .gateway_stream import strip_stream_fields

    if body.get("stream") is True and fmt.stream:
        body = strip_stream_fields(fmt, body)
    from wiremap.runtime.validate import validate_request

    validate_request(fmt.request_from_wire(body))


# ------------------------------------------------------------------------------------------
# the routes


def endpoint_routes(gateway: Any) -> list[Any]:
    """The Starlette routes of this module for `gateway` (a `wiremap.gateway._Gateway`)."""
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    cfg = gateway.config
    passthrough = cfg.inbound.key == cfg.upstream.key

    async def health(_request: Any) -> Any:
        return JSONResponse({"status": "ok", "inbound": cfg.inbound.key, "upstream": cfg.upstream.key})

    async def ready(request: Any) -> Any:
        rid = "req_" + secrets.token_hex(8)
        model = request.query_params.get("model")
        try:
            key = gateway.key_for(request)
            if model:
                provider = gateway.provider(cfg.model_map.get(model, model), key)
                await gateway.upstream(provider.ready())
                detail: dict[str, Any] = {"model": provider.model}
            else:
                detail = {"models": len(await upstream_models(gateway, key))}
        except (ProviderError, NotImplementedError) as exc:
            exc = gateway.public(exc, rid)
            category = getattr(exc, "category", "provider_unavailable")
            return JSONResponse(
                {"status": "unavailable", "upstream": cfg.upstream.key, "error": {"category": category, "message": str(exc)}},
                status_code=503, headers={"x-request-id": rid},
            )
        return JSONResponse({"status": "ready", "upstream": cfg.upstream.key, **detail}, headers={"x-request-id": rid})

    def failure(exc: BaseException, rid: str) -> Any:
        """The answer for an error of these endpoints: the inbound envelope, as for chat."""
        from starlette.responses import Response

        if isinstance(exc, ClientGone):
            return Response(status_code=499)
        if isinstance(exc, BodyTooLarge):
            return gateway.error(InvalidRequestError(str(exc)), rid, status=413)
        if isinstance(exc, BodyTimeout):
            return gateway.error(InvalidRequestError(str(exc)), rid, status=408)
        if isinstance(exc, ProviderError):
            return gateway.error(exc, rid, status=501 if exc.status == 501 else None)
        import logging

        logging.getLogger("wiremap.gateway").exception("request %s: gateway error", rid)
        return gateway.error(InvalidResponseError(f"gateway error: {type(exc).__name__}; request id {rid}"), rid)

    async def models(request: Any) -> Any:
        rid = "req_" + secrets.token_hex(8)
        try:
            key = gateway.key_for(request)
            if passthrough:
                row = _row(cfg.upstream, "models")
                assert row is not None
                return await forward(gateway, request, b"", rid, gateway.acquire(), str(row["path"]), method="GET", key=key)
            page = models_page(gateway, await gateway.until_disconnect(request, upstream_models(gateway, key)))
        except Exception as exc:
            return failure(exc, rid)
        return JSONResponse(page, headers={"x-wiremap-upstream": cfg.upstream.key, "x-request-id": rid})

    async def count_tokens(request: Any) -> Any:
        rid = "req_" + secrets.token_hex(8)
        slot = None
        try:
            key = gateway.key_for(request)
            raw = await gateway.read_body(request)
            upstream_row = _row(cfg.upstream, "count_tokens")
            if passthrough and upstream_row is not None:
                return await forward(gateway, request, raw, rid, gateway.acquire(), str(upstream_row["path"]), key=key)
            if upstream_row is None:
                return gateway.error(
                    InvalidRequestError(f"token counting is not available: the upstream ({cfg.upstream.key}) has no token counter"),
                    rid, status=501,
                )
            try:
                body = json.loads(raw)
            except ValueError as exc:
                raise InvalidRequestError(f"the request body is not JSON: {exc}") from None
            if not isinstance(body, dict):
                raise InvalidRequestError("the request body must be a JSON object")
            model, content = count_request(gateway, body, request.path_params)
            slot = gateway.acquire()
            headers, query = _upstream_headers(gateway, key, None)
            headers["content-type"] = "application/json"
            url = _upstream_url(gateway, str(upstream_row["path"]), model, query)
            status, answer_headers, answer = await gateway.until_disconnect(
                request, _exchange(gateway, str(upstream_row["method"]), url, headers, content)
            )
            _raise_for(gateway, status, answer_headers, answer)
            count = read(upstream_row["answer"], _json(status, answer, "token count")).get("count")
            if isinstance(count, bool) or not isinstance(count, int):
                raise InvalidResponseError(f"the upstream's token count answer has no integer count (got {type(count).__name__})", status=status)
            inbound_row = _row(cfg.inbound, "count_tokens")
            assert inbound_row is not None
            out = fill(inbound_row["answer"], {"count": count})
        except Exception as exc:
            return failure(exc, rid)
        finally:
            if slot is not None:
                slot.release()
        return JSONResponse(out, headers={"x-wiremap-upstream": cfg.upstream.key, "x-request-id": rid})

    async def stream_call(request: Any) -> Any:
        """The format's own streaming path (Gemini `:streamGenerateContent`): the chat call,
        answered as a stream whatever the body says."""
        request.scope["path_params"] = {**request.path_params, "wiremap.stream": "1"}
        return await gateway.handle(request)

    routes = [Route("/health", health, methods=["GET"]), Route("/ready", ready, methods=["GET"])]
    stream_path = _stream_path(cfg.inbound)
    if stream_path:
        routes.append(Route(stream_path, stream_call, methods=["POST"]))
    models_row = _row(cfg.inbound, "models")
    if models_row is not None:
        routes.append(Route(str(models_row["path"]), models, methods=["GET"]))
    counter = _row(cfg.inbound, "count_tokens")
    if counter is not None:
        routes.append(Route(str(counter["path"]), count_tokens, methods=[str(counter["method"])]))
    return routes

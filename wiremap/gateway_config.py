"""The gateway's configuration file: several named upstreams, routes by model, fallbacks, retries
and a per-upstream extras policy (`wiremap serve --config gateway.yaml`).

    inbound: openai_chat                  # the format clients speak
    upstreams:
      anthropic:
        format: anthropic_messages
        base_url: https://api.anthropic.com
        api_key_env: ANTHROPIC_API_KEY    # the gateway's own key; absent: the client's key is forwarded
        allowed_extras: [top_k]           # extra top-level fields forwarded; the others are dropped
        retries: {max_retries: 2, initial_delay: 0.5, max_delay: 8}
      openai:
        format: openai_chat
        api_key_env: OPENAI_API_KEY
    routes:
      - {model: "claude-*", upstream: anthropic, fallbacks: [{upstream: openai, upstream_model: gpt-4o}]}
    default: {upstream: openai}

The file is YAML (.yaml, .yml), TOML (.toml) or JSON (.json), read and checked whole at start-up:
an unknown key, a wrong type, an unknown upstream or format fails with `GatewayConfigError`
naming the file, the line (YAML) and the key path (`routes[2].upstream: unknown upstream 'x'
(did you mean 'y'?)`). Keys come from the environment only: a key that would hold a secret
(`api_key`, `token`, `password`, ...) is refused, and so is a base_url with credentials in it.

Routing: the client's model is matched against `routes` in order (`model` is an exact name or an
fnmatch pattern, `claude-*`); the first match wins, else `default`, else the request is answered
with the inbound format's "invalid model" error. A route names its upstream and the ordered
`fallbacks`: when an upstream fails with a transient error (rate limit, unavailable / overloaded
529, model not loaded, timeout or connection failure) after its own retries, the request is
translated for the next upstream's format and sent there; any other error goes to the client at
once. A streamed request falls back only before its first byte was sent to the client.

The extras policy (LiteLLM's `drop_params` / `allowed_openai_params`,
https://docs.litellm.ai/docs/completion/drop_params): the top-level fields of the
client's body that the inbound tables do not model ("extras") reach an upstream of the same wire
unchanged. For an upstream of another wire, `keep_extras: true` forwards them all, an
`allowed_extras` list forwards those it names, and the rest are dropped and named in the
`x-wiremap-losses` header; `keep_extras: false` drops them for every upstream. An upstream of
the inbound format gets the client's bytes (passthrough); its policy, when it has one, wins:
the fields it drops are cut out of those bytes (wiremap.gateway_endpoints.drop_fields).
"""

from __future__ import annotations

import difflib
import fnmatch
import json
import logging
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from wiremap.runtime.canonical import Request
from wiremap.runtime.errors import InvalidModelError, ProviderError
from wiremap.runtime.format import Format, UnknownFormatError, get_format
from wiremap.runtime.http_support import key_env_names, key_from_env, table_base_url
from wiremap.runtime.retry import RetryPolicy, call_with_retries
from wiremap.runtime.translate import Loss, forward_carried_fields

from .gateway_metrics import AccessRecord

T = TypeVar("T")
_log = logging.getLogger("wiremap.gateway")

__all__ = [
    "GatewayConfigError",
    "GatewayFile",
    "UpstreamSpec",
    "RouteSpec",
    "Hop",
    "Routing",
    "load_gateway_file",
    "build_routing",
    "apply_extras_policy",
    "through_hops",
    "GatewayConfig",
]

DEFAULT_MAX_BODY = 32 * 1024 * 1024
SERVED_KINDS = ("chat", "embeddings")  # the kinds of format the gateway translates (one kind per gateway)
DEFAULT_MAX_IN_FLIGHT = 128
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_OFFLOAD_BYTES = 256 * 1024


def _positive(name: str, value: Any, kind: type = float) -> Any:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return kind(value)


class GatewayConfig:
    """What a gateway translates between, and how it reaches the upstream.

    `timeout` (seconds, None for none) is each upstream call's total deadline and its connect /
    read / pool timeout. `max_in_flight` bounds concurrent upstream requests (and sizes the
    connection pool); past it the gateway answers 429 with `retry-after`. `max_body` bounds the
    request body (413); `body_timeout` is how long a body may take to arrive (408);
    `offload_bytes` is the body size above which parsing and translation run on a worker thread.
    """

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
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        max_body: int = DEFAULT_MAX_BODY,
        body_timeout: float = DEFAULT_BODY_TIMEOUT,
        offload_bytes: int = DEFAULT_OFFLOAD_BYTES,
        keep_extras: bool | None = None,
        allowed_extras: Iterable[str] = (),
        retry: RetryPolicy | None = None,
        name: str | None = None,
        routing: Routing | None = None,
    ) -> None:
        # keep_extras / allowed_extras: the extras policy (wiremap.gateway_config); retry: this
        # upstream's retries (none by default); name: the upstream's name in a config file;
        # routing: the config file's routes, whose upstreams are GatewayConfigs of their own
        self.keep_extras = keep_extras
        self.allowed_extras = tuple(allowed_extras)
        self.retry = retry
        self.name = name
        self.routing = routing
        self.inbound: Format = get_format(inbound)
        self.upstream: Format = get_format(upstream)
        for fmt in (self.inbound, self.upstream):  # chat calls (Provider.complete), embeddings (Provider.embed)
            if fmt.kind not in SERVED_KINDS:
                raise ValueError(f"format {fmt.key!r} is kind {fmt.kind}; the gateway serves {' and '.join(SERVED_KINDS)} formats only")
        if self.upstream.kind != self.inbound.kind:
            raise ValueError(
                f"upstream format {self.upstream.key!r} is kind {self.upstream.kind} and inbound format "
                f"{self.inbound.key!r} kind {self.inbound.kind}: the gateway translates between formats of one kind"
            )
        self.upstream_url = upstream_url
        if upstream_url is None and table_base_url(self.upstream.transport) is None:
            # a per-resource origin (Azure) the environment does not give: refused at start, not
            # at the first request
            env = (self.upstream.transport or {}).get("base_url_env")
            raise ValueError(f"no upstream URL for {self.upstream.key}: pass upstream_url (--upstream-url)" + (f" or set {env}" if env else ""))
        self.forward_client_key = forward_client_key and upstream_api_key is None
        up_auth = (self.upstream.transport or {}).get("auth") or {}
        # a table whose auth has a fallback (SigV4, Google credentials) authenticates without a key
        self.upstream_needs_key = up_auth.get("scheme", "none") != "none" and not up_auth.get("fallback")
        if upstream_api_key is None and not forward_client_key:
            # the operator asked for the gateway's own key without naming it: the variable the
            # upstream's table names, read once here (never per request, never as a fallback)
            env = " or ".join(key_env_names(self.upstream.transport)) or None
            upstream_api_key = key_from_env(self.upstream.transport)
            if not upstream_api_key and self.upstream_needs_key:
                raise ValueError(f"no upstream API key: set {env or 'the key'} or pass upstream_api_key")
        self.upstream_api_key = upstream_api_key
        self.model_map = dict(model_map or {})
        self.strict = strict
        self.timeout = None if timeout is None else _positive("timeout", timeout)
        self.max_in_flight = _positive("max_in_flight", max_in_flight, int)
        self.max_body = _positive("max_body", max_body, int)
        self.body_timeout = _positive("body_timeout", body_timeout)
        if isinstance(offload_bytes, bool) or not isinstance(offload_bytes, int) or offload_bytes < 0:
            raise ValueError(f"offload_bytes must be a non-negative integer, got {offload_bytes!r}")
        self.offload_bytes = offload_bytes
        endpoint = (self.inbound.transport or {}).get("endpoint") or self.inbound.endpoint
        if not endpoint or not endpoint.get("path"):
            raise ValueError(f"inbound format {inbound!r} declares no endpoint (mapping `transport:`)")
        # the route is the path without its query (Azure's `?api-version=`: clients send their own)
        self.path: str = str(endpoint["path"]).split("?", 1)[0]

    def to_json(self) -> str:
        return json.dumps(
            {
                "inbound": self.inbound.key, "upstream": self.upstream.key, "upstream_url": self.upstream_url,
                "forward_client_key": self.forward_client_key, "model_map": self.model_map,
                "strict": self.strict, "timeout": self.timeout, "max_in_flight": self.max_in_flight,
                "max_body": self.max_body, "body_timeout": self.body_timeout, "offload_bytes": self.offload_bytes,
            }
        )

_TOP_KEYS = ("inbound", "upstreams", "routes", "default", "strict")
_UPSTREAM_KEYS = ("format", "base_url", "api_key_env", "keep_extras", "allowed_extras", "timeout", "retries", "model_map")
_RETRY_KEYS = ("max_retries", "initial_delay", "max_delay", "multiplier", "jitter", "max_retry_after")
_ROUTE_KEYS = ("model", "upstream", "upstream_model", "fallbacks")
_DEFAULT_KEYS = ("upstream", "upstream_model", "fallbacks")
_HOP_KEYS = ("upstream", "upstream_model")
# a key by one of these names would hold a credential: keys come from the environment only
_SECRET_NAME = re.compile(r"(?i)(^|[_-])(api[_-]?key|key|token|secret|password|passwd|authorization|bearer|credentials?)$")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_USERINFO = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*@")
# retries when an upstream's `retries` table is absent: as the official openai and anthropic
# SDKs do (max_retries 2, exponential backoff with jitter, retry-after honoured)
DEFAULT_RETRIES = RetryPolicy()


class GatewayConfigError(ValueError):
    """A gateway configuration file that cannot be used: `file`, `line` (YAML, when known),
    `path` (the key path, `routes[2].upstream`) and `message`."""

    def __init__(self, file: str, path: str, message: str, line: int | None = None) -> None:
        self.file = file
        self.path = path
        self.line = line
        self.message = message
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {path}: {message}" if path else f"{where}: {message}")


@dataclass(frozen=True)
class UpstreamSpec:
    """One `upstreams.<name>` entry as written (no key: `api_key_env` names where it is)."""

    name: str
    format: str
    base_url: str | None = None
    api_key_env: str | None = None
    keep_extras: bool | None = None
    allowed_extras: tuple[str, ...] = ()
    timeout: float | None = None
    retries: RetryPolicy = DEFAULT_RETRIES
    model_map: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hop:
    """One upstream of a route, in the order tried: its name and the model to send it (None:
    the client's model through the upstream's `model_map`)."""

    upstream: str
    upstream_model: str | None = None


@dataclass(frozen=True)
class RouteSpec:
    """`model` (an exact name or an fnmatch pattern; `*` for the default route) and its hops:
    the upstream first, then the fallbacks in order."""

    model: str
    hops: tuple[Hop, ...]

    def matches(self, model: str) -> bool:
        if any(c in self.model for c in "*?["):
            return fnmatch.fnmatchcase(model, self.model)
        return model == self.model


@dataclass(frozen=True)
class GatewayFile:
    """A checked configuration file: everything but the keys, which stay in the environment."""

    file: str
    inbound: str
    upstreams: Mapping[str, UpstreamSpec]
    routes: tuple[RouteSpec, ...]
    default: RouteSpec | None
    strict: bool = False
    lines: Mapping[str, int] = field(default_factory=dict, repr=False, compare=False)

    def error(self, path: str, message: str) -> GatewayConfigError:
        return GatewayConfigError(self.file, path, message, self.lines.get(path))


# ------------------------------------------------------------------------------ reading


def _read(path: Path) -> tuple[Any, dict[str, int]]:
    """The file's data and, for YAML, the line of each key path."""
    name = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GatewayConfigError(name, "", f"cannot read the file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise GatewayConfigError(name, "", "the file is not UTF-8 text") from None
    suffix = path.suffix.lower()
    if suffix == ".toml":
        import tomllib

        try:
            return tomllib.loads(text), {}
        except tomllib.TOMLDecodeError as exc:
            raise GatewayConfigError(name, "", f"not valid TOML: {exc}") from None
    if suffix == ".json":
        try:
            return json.loads(text), {}
        except ValueError as exc:
            raise GatewayConfigError(name, "", f"not valid JSON: {exc}") from None
    if suffix not in (".yaml", ".yml"):
        raise GatewayConfigError(name, "", f"unknown file type {suffix or '(none)'!r}; expected .yaml, .yml, .toml or .json")
    try:
        import yaml
    except ImportError:  # pragma: no cover - the gateway extra installs it
        raise GatewayConfigError(name, "", "reading YAML needs PyYAML: pip install 'wiremap[gateway]'") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise GatewayConfigError(name, "", f"not valid YAML: {getattr(exc, 'problem', None) or exc}", line) from None
    lines: dict[str, int] = {}
    if node is not None:
        _yaml_lines(node, "", lines)
    return data, lines


def _yaml_lines(node: Any, path: str, out: dict[str, int]) -> None:
    import yaml

    out.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = f"{path}.{key.value}" if path else str(key.value)
            out[sub] = key.start_mark.line + 1
            _yaml_lines(value, sub, out)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _yaml_lines(item, f"{path}[{i}]", out)


class _Checker:
    def __init__(self, file: str, lines: Mapping[str, int]) -> None:
        self.file = file
        self.lines = lines

    def fail(self, path: str, message: str) -> GatewayConfigError:
        line = self.lines.get(path)
        return GatewayConfigError(self.file, path, message, line)

    def mapping(self, value: Any, path: str, allowed: Sequence[str]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(path, f"expected a mapping with keys {', '.join(allowed)}; got {_kind(value)}")
        for key in value:
            sub = f"{path}.{key}" if path else str(key)
            if not isinstance(key, str):
                raise self.fail(path, f"key {key!r} is not a string")
            if _SECRET_NAME.search(key):
                # never echo the value: it may be the secret itself
                raise self.fail(sub, "a key may not be written in the file; name the environment variable that holds it with api_key_env")
            if key not in allowed:
                close = difflib.get_close_matches(key, allowed, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise self.fail(sub, f"unknown key{hint}; expected one of: {', '.join(allowed)}")
        return value

    def text(self, value: Any, path: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(path, f"expected a non-empty string; got {_kind(value)}")
        return value

    def flag(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"expected true or false; got {_kind(value)}")
        return value

    def seconds(self, value: Any, path: str, *, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (value > 0 if positive else value >= 0) or value != value or value == float("inf"):
            raise self.fail(path, f"expected a {'positive' if positive else 'non-negative'} number of seconds; got {_kind(value)}")
        return float(value)


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _served_format(check: _Checker, key: Any, path: str, *, inbound: bool = False, kind: str | None = None) -> str:
    """A format the gateway serves (`SERVED_KINDS`); `kind`: the inbound format's, which every
    upstream must share."""
    name = check.text(key, path)
    try:
        fmt = get_format(name)
    except UnknownFormatError as exc:
        raise check.fail(path, str(exc.args[0])) from None
    if fmt.kind not in SERVED_KINDS:
        raise check.fail(path, f"format {name!r} is kind {fmt.kind}; the gateway serves {' and '.join(SERVED_KINDS)} formats only")
    if kind is not None and fmt.kind != kind:
        raise check.fail(path, f"format {name!r} is kind {fmt.kind}; the inbound format is kind {kind}: every upstream must be of the inbound's kind")
    if inbound and not ((fmt.transport or {}).get("endpoint") or fmt.endpoint or {}).get("path"):
        raise check.fail(path, f"format {name!r} declares no endpoint (mapping `transport:`) to serve")
    return name


def _upstream(check: _Checker, name: str, value: Any, kind: str | None = None) -> UpstreamSpec:
    path = f"upstreams.{name}"
    raw = check.mapping(value, path, _UPSTREAM_KEYS)
    if "format" not in raw:
        raise check.fail(path, "missing key 'format' (the upstream's wire format, e.g. anthropic_messages)")
    fmt = _served_format(check, raw["format"], f"{path}.format", kind=kind)
    base_url = None
    if raw.get("base_url") is not None:
        base_url = check.text(raw["base_url"], f"{path}.base_url")
        if not base_url.startswith(("http://", "https://")):
            raise check.fail(f"{path}.base_url", "expected an http:// or https:// URL")
        if _USERINFO.match(base_url) or "?" in base_url:
            # userinfo, or a query (Gemini's ?key=): where a URL would carry a credential
            raise check.fail(f"{path}.base_url", "credentials in the URL are not allowed (no user:password@, no query); put the key in an environment variable named by api_key_env")
    env = None
    if raw.get("api_key_env") is not None:
        env = raw["api_key_env"]
        if not isinstance(env, str) or not _ENV_NAME.fullmatch(env):
            # the value is not repeated: a key pasted here by mistake stays out of the logs
            raise check.fail(f"{path}.api_key_env", "expected the NAME of an environment variable (letters, digits, _), not a key")
    keep = None if raw.get("keep_extras") is None else check.flag(raw["keep_extras"], f"{path}.keep_extras")
    allowed: tuple[str, ...] = ()
    if raw.get("allowed_extras") is not None:
        items = raw["allowed_extras"]
        if not isinstance(items, list):
            raise check.fail(f"{path}.allowed_extras", f"expected a list of field names; got {_kind(items)}")
        allowed = tuple(check.text(item, f"{path}.allowed_extras[{i}]") for i, item in enumerate(items))
        if keep is False and allowed:
            raise check.fail(f"{path}.allowed_extras", "keep_extras: false drops every extra field; remove one of the two")
    timeout = None if raw.get("timeout") is None else check.seconds(raw["timeout"], f"{path}.timeout", positive=True)
    retries = DEFAULT_RETRIES
    if raw.get("retries") is not None:
        r = check.mapping(raw["retries"], f"{path}.retries", _RETRY_KEYS)
        knobs: dict[str, Any] = {}
        for key, v in r.items():
            where = f"{path}.retries.{key}"
            if key == "max_retries":
                if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                    raise check.fail(where, f"expected an integer >= 0; got {_kind(v)}")
                knobs[key] = v
            elif key in ("multiplier", "jitter"):
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise check.fail(where, f"expected a number; got {_kind(v)}")
                knobs[key] = float(v)
            else:
                knobs[key] = check.seconds(v, where)
        try:
            retries = RetryPolicy(**knobs)
        except ValueError as exc:
            raise check.fail(f"{path}.retries", str(exc).replace("RetryPolicy.", "")) from None
    model_map: dict[str, str] = {}
    if raw.get("model_map") is not None:
        mm = raw["model_map"]
        if not isinstance(mm, Mapping):
            raise check.fail(f"{path}.model_map", f"expected a mapping of client model -> upstream model; got {_kind(mm)}")
        for k, v in mm.items():
            model_map[check.text(k, f"{path}.model_map")] = check.text(v, f"{path}.model_map.{k}")
    return UpstreamSpec(name, fmt, base_url, env, keep, allowed, timeout, retries, model_map)


def _hops(check: _Checker, raw: Mapping[str, Any], path: str, names: Sequence[str]) -> tuple[Hop, ...]:
    def upstream(value: Any, where: str) -> str:
        name = check.text(value, where)
        if name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise check.fail(where, f"unknown upstream {name!r}{hint}; the file declares: {', '.join(names)}")
        return name

    if "upstream" not in raw:
        raise check.fail(path, "missing key 'upstream' (the name of an entry of `upstreams`)")
    model = None if raw.get("upstream_model") is None else check.text(raw["upstream_model"], f"{path}.upstream_model")
    hops = [Hop(upstream(raw["upstream"], f"{path}.upstream"), model)]
    fallbacks = raw.get("fallbacks")
    if fallbacks is not None:
        if not isinstance(fallbacks, list):
            raise check.fail(f"{path}.fallbacks", f"expected a list of upstream names (or {{upstream, upstream_model}}); got {_kind(fallbacks)}")
        for i, item in enumerate(fallbacks):
            where = f"{path}.fallbacks[{i}]"
            if isinstance(item, Mapping):
                entry = check.mapping(item, where, _HOP_KEYS)
                if "upstream" not in entry:
                    raise check.fail(where, "missing key 'upstream'")
                hop_model = None if entry.get("upstream_model") is None else check.text(entry["upstream_model"], f"{where}.upstream_model")
                hop = Hop(upstream(entry["upstream"], f"{where}.upstream"), hop_model)
            else:
                hop = Hop(upstream(item, where))
            if any(h.upstream == hop.upstream and h.upstream_model == hop.upstream_model for h in hops):
                raise check.fail(where, f"upstream {hop.upstream!r} is already in this route")
            hops.append(hop)
    return tuple(hops)


def load_gateway_file(path: str | os.PathLike[str]) -> GatewayFile:
    """The file read and checked whole; `GatewayConfigError` names the first problem."""
    p = Path(path)
    data, lines = _read(p)
    check = _Checker(str(p), lines)
    top = check.mapping(data if data is not None else {}, "", _TOP_KEYS)
    if "inbound" not in top:
        raise check.fail("", "missing key 'inbound' (the format clients speak, e.g. openai_chat)")
    inbound = _served_format(check, top["inbound"], "inbound", inbound=True)
    ups = top.get("upstreams")
    if not isinstance(ups, Mapping) or not ups:
        raise check.fail("upstreams", f"expected a mapping of upstream name -> {{format, base_url, api_key_env, ...}}; got {_kind(ups)}")
    upstreams = {}
    for name, value in ups.items():
        if not isinstance(name, str) or not name:
            raise check.fail("upstreams", f"upstream name {name!r} is not a non-empty string")
        upstreams[name] = _upstream(check, name, value, get_format(inbound).kind)
    names = list(upstreams)
    routes: list[RouteSpec] = []
    raw_routes = top.get("routes")
    if raw_routes is not None:
        if not isinstance(raw_routes, list):
            raise check.fail("routes", f"expected a list of {{model, upstream, fallbacks}}; got {_kind(raw_routes)}")
        for i, item in enumerate(raw_routes):
            where = f"routes[{i}]"
            raw = check.mapping(item, where, _ROUTE_KEYS)
            if "model" not in raw:
                raise check.fail(where, "missing key 'model' (a model name or a pattern such as claude-*)")
            routes.append(RouteSpec(check.text(raw["model"], f"{where}.model"), _hops(check, raw, where, names)))
    default = None
    if top.get("default") is not None:
        default = RouteSpec("*", _hops(check, check.mapping(top["default"], "default", _DEFAULT_KEYS), "default", names))
    if not routes and default is None:
        raise check.fail("", "no route: give `routes` (by model) or a `default` upstream, or both")
    strict = False if top.get("strict") is None else check.flag(top["strict"], "strict")
    return GatewayFile(str(p), inbound, upstreams, tuple(routes), default, strict, lines)


# ------------------------------------------------------------------------------ serving


class Routing:
    """The routes of a loaded file over one `GatewayConfig` per upstream (`lanes`, keys read
    from the environment at start-up)."""

    def __init__(self, file: GatewayFile, lanes: Mapping[str, GatewayConfig]) -> None:
        self.file = file
        self.lanes = dict(lanes)

    def route(self, model: str) -> RouteSpec:
        """The first route whose `model` matches, else the default; `InvalidModelError` else."""
        for route in self.file.routes:
            if route.matches(model):
                return route
        if self.file.default is not None:
            return self.file.default
        served = ", ".join(r.model for r in self.file.routes)
        raise InvalidModelError(f"no route for model {model!r}: this gateway serves {served}", path="model")

    def hops(self, model: str) -> list[tuple[GatewayConfig, str | None]]:
        """The upstreams to try for `model`, in order: (lane, model to send or None)."""
        return [(self.lanes[h.upstream], h.upstream_model) for h in self.route(model).hops]


def build_routing(file: GatewayFile, **options: Any) -> tuple[GatewayConfig, Routing]:
    """One `GatewayConfig` per upstream (`options`: the server-wide settings such as
    `max_in_flight`, `max_body`, `timeout`), and the gateway's own config: that of the default
    route's first upstream (or the first route's), holding the routing. A key variable that is
    not set fails here, naming it."""
    lanes: dict[str, GatewayConfig] = {}
    for name, spec in file.upstreams.items():
        key = None
        if spec.api_key_env is not None:
            key = os.environ.get(spec.api_key_env)
            if not key:
                raise file.error(f"upstreams.{name}.api_key_env", f"the environment variable {spec.api_key_env} is not set")
        lane_options = dict(options)
        if spec.timeout is not None:
            lane_options["timeout"] = spec.timeout
        try:
            lane = GatewayConfig(
                file.inbound, spec.format, spec.base_url, upstream_api_key=key, forward_client_key=key is None,
                model_map=spec.model_map, strict=file.strict, keep_extras=spec.keep_extras,
                allowed_extras=spec.allowed_extras, retry=spec.retries, name=name, **lane_options,
            )
        except ValueError as exc:
            raise file.error(f"upstreams.{name}", str(exc)) from None
        lanes[name] = lane
    first = (file.default or file.routes[0]).hops[0].upstream
    routing = Routing(file, lanes)
    main = GatewayConfig(
        file.inbound, file.upstreams[first].format, file.upstreams[first].base_url,
        upstream_api_key=lanes[first].upstream_api_key, forward_client_key=lanes[first].forward_client_key,
        strict=file.strict, name=first, routing=routing, **options,
    )
    return main, routing


# ------------------------------------------------------------------------------ extras policy


def apply_extras_policy(plain: dict[str, Any], inbound: Format, lane: GatewayConfig) -> tuple[dict[str, Any], list[Loss]]:
    """The canonical request (a plain dict, changed in place) with the extra fields `lane`'s
    policy lets through, and a `dropped` loss for each one it does not.

    Extras are the client's top-level fields the inbound tables do not model (carried for the
    inbound wire) and `config.extras`. An upstream of the inbound's own provider gets them by
    default; another gets none unless `keep_extras: true` (all) or `allowed_extras` (those
    named). Carried fields bound for the same wire are never touched here: they go back verbatim."""
    upstream = lane.upstream
    keep = getattr(lane, "keep_extras", None)
    allowed: tuple[str, ...] = tuple(getattr(lane, "allowed_extras", ()) or ())
    if (keep or allowed) and plain.get("carried") is not None:
        # the client's unmodelled top-level fields become config.extras for another wire
        moved = forward_carried_fields(Request.from_dict(plain), upstream).to_dict()
        plain.clear()
        plain.update(moved)
    config = plain.get("config")
    extras = config.get("extras") if isinstance(config, dict) else None
    if not extras or not isinstance(config, dict):
        return plain, []
    if keep is True:
        return plain, []
    if keep is None and not allowed and inbound.provider == upstream.provider:
        return plain, []  # the behaviour of a single-upstream gateway: extras stay on their provider
    why = " (not in its allowed_extras)" if allowed else ""
    losses = [
        Loss(f"config.extras.{k}", "dropped", f"{inbound.key} field {k!r} is not forwarded to {upstream.key}{why}")
        for k in sorted(extras)
        if k not in allowed
    ]
    kept = {k: v for k, v in extras.items() if k in allowed}
    config = dict(config)
    if kept:
        config["extras"] = kept
    else:
        del config["extras"]
    if config:
        plain["config"] = config
    else:
        plain.pop("config", None)
    return plain, losses


# ------------------------------------------------------------------------------ fallbacks

_NO_RETRY = RetryPolicy(max_retries=0)


async def through_hops(
    hops: Sequence[tuple[GatewayConfig, str | None]],
    call: Callable[[GatewayConfig, str | None], Awaitable[T]],
    record: AccessRecord,
    sleep: Callable[[float], Awaitable[Any]],
) -> T:
    """`call(lane, upstream_model)` for the first hop, retried by its lane's `RetryPolicy`
    (transient errors only, `retry_after` honoured up to its `max_retry_after`); when it still
    fails with a transient error, the next hop, and so on. A non-transient error, or the last
    hop's error, propagates (OpenArmature §7.1: call-level retry; the fallback is the gateway's)."""
    for i, (lane, model) in enumerate(hops):
        record.use(lane.name or lane.upstream.key, lane.upstream.key, model)
        policy = lane.retry or _NO_RETRY

        async def attempt(_index: int, lane: GatewayConfig = lane, model: str | None = model) -> T:
            return await call(lane, model)

        try:
            return await call_with_retries(policy, attempt, sleep=sleep, on_retry=lambda *_: record.retried())
        except ProviderError as exc:
            if not exc.transient or i + 1 == len(hops):
                raise
            record.fell_back()
            _log.warning(
                "request %s: upstream %s failed (%s%s); trying %s",
                record.request_id or "-", record.upstream, exc.category,
                f", HTTP {exc.status}" if exc.status else "", hops[i + 1][0].name,
            )
    raise AssertionError("unreachable: a route has at least one upstream")  # pragma: no cover

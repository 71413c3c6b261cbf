"""The gateway's observability: one structured access-log line per request, and `GET /metrics`.

Access log: logger `wiremap.gateway.access`, level INFO, one JSON object per request (the
record's message; `wiremap serve` prints it on stderr unless `--no-access-log`):

    {"time": "2026-11-26T15:04:05.123Z", "request_id": "req_...", "method": "POST", "path": "/v1/chat/completions",
     "inbound": "openai_chat", "upstream": "anthropic", "upstream_format": "anthropic_messages",
     "model": "claude-sonnet-5", "upstream_model": "claude-sonnet-5", "stream": false, "status": 200,
     "category": null, "latency_ms": 412.3, "input_tokens": 12, "output_tokens": 6, "cached_tokens": 0,
     "losses": 1, "retries": 0, "fallback": false, "tried": ["anthropic"]}

`category` is the error category of a failed request (`provider_rate_limit`, ...; a client that
left before its answer: status 499, `client_disconnected`); `tried` lists
the upstreams called, in order; a stream's line is written when the stream ends. The line holds
no key, no header and no message content.

Metrics: Prometheus text exposition format 0.0.4, written here (no client library). Counters are
per worker process (each uvicorn worker keeps its own; scrape each, or run one worker per port):

    wiremap_requests_total{inbound, upstream, status}
    wiremap_errors_total{category}
    wiremap_request_duration_seconds{upstream}   (histogram)
    wiremap_tokens_total{kind}                    kind: input | output | cached
    wiremap_upstream_retries_total{upstream}
    wiremap_fallbacks_total{upstream}             the upstream that failed over to the next

Requests the gateway sheds at its in-flight limit (answered 429 before they are read) are counted
(`upstream=""`, status 429) but get no access-log line: under a flood, logging each would cost
what shedding saves.
"""

from __future__ import annotations

import contextvars
import json
import logging
import math
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

__all__ = ["AccessRecord", "Metrics", "access_record", "current_record", "enable_access_log", "CONTENT_TYPE"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
ACCESS_LOGGER = "wiremap.gateway.access"
# seconds: an LLM call takes from tens of milliseconds (errors, cache hits) to minutes
BUCKETS: tuple[float, ...] = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, math.inf)

_access = logging.getLogger(ACCESS_LOGGER)
_current: contextvars.ContextVar[AccessRecord | None] = contextvars.ContextVar("wiremap_access_record", default=None)


class AccessRecord:
    """What the access-log line and the metrics say of one request; `finish()` writes both,
    once. Filled in by the gateway as the request goes."""

    def __init__(self, metrics: Metrics | None, request_id: str, inbound: str, method: str = "", path: str = "") -> None:
        self.metrics = metrics
        self.request_id = request_id
        self.method = method
        self.path = path
        self.inbound = inbound
        self.upstream = ""
        self.upstream_format = ""
        self.model: str | None = None
        self.upstream_model: str | None = None
        self.stream = False
        self.status = 0
        self.category: str | None = None
        self.input_tokens: int | None = None
        self.output_tokens: int | None = None
        self.cached_tokens: int | None = None
        self.losses = 0
        self.retries = 0
        self.tried: list[str] = []
        self.deferred = False  # a stream: its response finishes the record when it ends
        self.started = time.perf_counter()
        self.ended: float | None = None  # set where the answer's last byte went before finish()
        self._done = False

    def use(self, name: str, fmt: str, upstream_model: str | None = None) -> None:
        """The upstream called now (the first one, or a fallback)."""
        self.upstream, self.upstream_format = name, fmt
        self.upstream_model = upstream_model
        self.tried.append(name)

    def retried(self) -> None:
        self.retries += 1
        if self.metrics is not None:
            self.metrics.inc("wiremap_upstream_retries_total", (("upstream", self.upstream),))

    def fell_back(self) -> None:
        if self.metrics is not None:
            self.metrics.inc("wiremap_fallbacks_total", (("upstream", self.upstream),))

    def failed(self, exc: BaseException) -> None:
        category = getattr(exc, "category", None)
        self.category = category if isinstance(category, str) else "provider_invalid_response"

    def usage(self, usage: Any) -> None:
        """Tokens from a canonical `Usage` (or its dict), whatever the upstream reported."""
        if usage is None:
            return
        for attr, name in (("input_tokens", "prompt_tokens"), ("output_tokens", "completion_tokens"), ("cached_tokens", "cached_tokens")):
            value = usage.get(name) if isinstance(usage, dict) else getattr(usage, name, None)
            if isinstance(value, int) and not isinstance(value, bool):
                setattr(self, attr, value)

    def line(self) -> dict[str, Any]:
        now = time.time()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
        return {
            "time": stamp, "request_id": self.request_id, "method": self.method, "path": self.path,
            "inbound": self.inbound, "upstream": self.upstream or None, "upstream_format": self.upstream_format or None,
            "model": self.model, "upstream_model": self.upstream_model, "stream": self.stream, "status": self.status,
            "category": self.category, "latency_ms": round(self.latency() * 1000, 1),
            "input_tokens": self.input_tokens, "output_tokens": self.output_tokens, "cached_tokens": self.cached_tokens,
            "losses": self.losses, "retries": self.retries, "fallback": len(self.tried) > 1, "tried": list(self.tried),
        }

    def latency(self) -> float:
        """Seconds from the request's arrival to its answer's last byte (`ended`), or to now."""
        return (self.ended if self.ended is not None else time.perf_counter()) - self.started

    def finish(self, status: int | None = None) -> None:
        if self._done:
            return
        self._done = True
        if self.ended is None:
            self.ended = time.perf_counter()
        if status is not None:
            self.status = status
        if self.category is None and self.status >= 400:
            self.category = _category_of_status(self.status)
        if self.metrics is not None:
            self.metrics.observe(self)
        if _access.isEnabledFor(logging.INFO):
            _access.info(json.dumps(self.line(), ensure_ascii=True, separators=(", ", ": ")))


def _category_of_status(status: int) -> str:
    """For answers the gateway gave without a ProviderError (a client that left: 499)."""
    return {499: "client_disconnected", 413: "provider_invalid_request", 408: "provider_invalid_request"}.get(status, "provider_error")


def current_record() -> AccessRecord | None:
    return _current.get()


def access_record() -> AccessRecord:
    """The record of the request being handled (a detached one outside the access wrapper)."""
    record = _current.get()
    return record if record is not None else AccessRecord(None, "", "")


class Metrics:
    """Counters and a histogram in memory, rendered in the Prometheus text format. Updated
    on the serving event loop only (one thread), so no lock."""

    _HELP = {
        "wiremap_requests_total": ("counter", "Requests answered, by inbound format, upstream name and HTTP status."),
        "wiremap_errors_total": ("counter", "Requests answered with an error, by error category."),
        "wiremap_request_duration_seconds": ("histogram", "Time from the request's arrival to the end of its answer (a stream's last byte)."),
        "wiremap_tokens_total": ("counter", "Tokens the upstreams reported, by kind (input, output, cached input)."),
        "wiremap_upstream_retries_total": ("counter", "Upstream calls retried after a transient error, by upstream."),
        "wiremap_fallbacks_total": ("counter", "Requests passed to the next upstream of their route, by the upstream that failed."),
    }

    def __init__(self) -> None:
        self.counters: dict[str, dict[tuple[tuple[str, str], ...], float]] = {
            name: {} for name, (kind, _) in self._HELP.items() if kind == "counter"
        }
        # labels -> [count per bucket (cumulative at render), sum, count]
        self.histogram: dict[tuple[tuple[str, str], ...], tuple[list[int], list[float]]] = {}

    def inc(self, name: str, labels: tuple[tuple[str, str], ...], by: float = 1.0) -> None:
        series = self.counters[name]
        series[labels] = series.get(labels, 0.0) + by

    def observe(self, record: AccessRecord) -> None:
        self.inc("wiremap_requests_total", (("inbound", record.inbound), ("upstream", record.upstream), ("status", str(record.status))))
        if record.category is not None:
            self.inc("wiremap_errors_total", (("category", record.category),))
        for kind, value in (("input", record.input_tokens), ("output", record.output_tokens), ("cached", record.cached_tokens)):
            if value:
                self.inc("wiremap_tokens_total", (("kind", kind),), value)
        self.duration(record.upstream, record.latency())

    def duration(self, upstream: str, seconds: float) -> None:
        counts, total = self.histogram.setdefault((("upstream", upstream),), ([0] * len(BUCKETS), [0.0, 0.0]))
        for i, bound in enumerate(BUCKETS):
            if seconds <= bound:
                counts[i] += 1
                break
        total[0] += seconds
        total[1] += 1

    def shed(self, inbound: str, status: int) -> None:
        """A request answered at the in-flight limit, before it was read."""
        self.inc("wiremap_requests_total", (("inbound", inbound), ("upstream", ""), ("status", str(status))))
        self.inc("wiremap_errors_total", (("category", "provider_rate_limit"),))

    def render(self) -> str:
        out: list[str] = []
        for name, (kind, text) in self._HELP.items():
            out.append(f"# HELP {name} {text}")
            out.append(f"# TYPE {name} {kind}")
            if kind == "counter":
                for labels, value in sorted(self.counters[name].items()):
                    out.append(f"{name}{_labels(labels)} {_number(value)}")
                continue
            for labels, (counts, (total, count)) in sorted(self.histogram.items()):
                cumulative = 0
                for bound, n in zip(BUCKETS, counts):
                    cumulative += n
                    le = "+Inf" if bound == math.inf else repr(bound)
                    out.append(f"{name}_bucket{_labels((*labels, ('le', le)))} {cumulative}")
                out.append(f"{name}_sum{_labels(labels)} {_number(total)}")
                out.append(f"{name}_count{_labels(labels)} {_number(count)}")
        return "\n".join(out) + "\n"


def _labels(labels: Iterable[tuple[str, str]]) -> str:
    # exposition format 0.0.4: label values escape backslash, double quote and line feed
    items = [f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34)).replace(chr(10), chr(92) + "n")}"' for k, v in labels]
    return "{" + ",".join(items) + "}" if items else ""


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else repr(value)


def enable_access_log(stream: Any = None) -> None:
    """Print `wiremap.gateway.access` lines (the JSON alone) on `stream` (stderr), once."""
    if any(getattr(h, "_wiremap_access", False) for h in _access.handlers):
        return
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler._wiremap_access = True  # type: ignore[attr-defined]
    _access.addHandler(handler)
    _access.setLevel(logging.INFO)


def _path(scope: Any) -> str:
    """`request.url.path` (Starlette escapes these three in the URL it builds) without building
    the request's whole URL, a split and a parse on every request."""
    return str(scope["path"]).replace("?", "%3F").replace("#", "%23").replace("\\", "%5C")


def observed(handle: Callable[[Any, Any], Awaitable[Any]]) -> Callable[[Any, Any], Awaitable[Any]]:
    """Decorates the gateway's `handle(self, request)`: each request gets an `AccessRecord`,
    finished when its answer is complete (a stream's response finishes it at its end), whatever
    route called it."""

    async def handle_observed(gateway: Any, request: Any) -> Any:
        if _current.get() is not None:  # already observed (a route that calls handle again)
            return await handle(gateway, request)
        record = AccessRecord(gateway.metrics, "", gateway.config.inbound.key, request.method, _path(request.scope))
        token = _current.set(record)
        try:
            response = await handle(gateway, request)
        except BaseException:
            record.finish(500)
            raise
        finally:
            _current.reset(token)
        record.request_id = response.headers.get("x-request-id") or record.request_id
        if not record.deferred:
            record.finish(response.status_code)
        return response

    return handle_observed

"""OpenTelemetry spans for `Provider.complete()` and `Provider.stream()` (Prompty §7.1.8, GenAI
semantic conventions).

Optional: `opentelemetry-api` is imported on first use (`pip install wiremap[otel]`); without it
every function here is a no-op. Each call gets one CLIENT span named `chat {model}` with

    gen_ai.operation.name            "chat"
    gen_ai.provider.name             the mapping's provider id (`openai`, `anthropic`, ...)
    gen_ai.request.model             the bound model
    gen_ai.request.<option>          each RuntimeConfig option the call sets (temperature,
                                     max_tokens, top_p, top_k, seed, stop_sequences,
                                     frequency_penalty, presence_penalty)
    gen_ai.output.type               "json" when the call gives a response_schema
    server.address / server.port     from the base URL
    gen_ai.usage.input_tokens        Response.usage.prompt_tokens (when reported)
    gen_ai.usage.output_tokens       Response.usage.completion_tokens (when reported)
    gen_ai.response.finish_reasons   [Response.finish_reason]
    gen_ai.response.id / .model      from the provider body (`raw["id"]`, `raw["model"]`)

a call made with retries (`retry=`, `max_retries=`) gets one span per attempt, marked
`openarmature.llm.attempt_index` (0-based) and, on a retry, `openarmature.llm.retry_reason`
(`transient` or `reask`; OpenArmature §7.1, which names these attributes; GenAI has none);
and, when the call raises, `error.type` (the error's category, or the exception's class name for
anything that is not a `ProviderError`) with an ERROR status. A streamed call's span starts when
its iteration begins (the request is sent) and ends when the stream ends (the assembled
`Response`'s attributes) or fails (the error, and the usage and finish reason of what was
assembled before it); a stream its consumer stops reading ends its span without an error. Request and response contents, URLs
with credentials and headers are never recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import Any, Final

from .version import __version__

__all__ = ["ChatSpan", "otel_available", "wiremap_version"]

_CONFIG_ATTRIBUTES: Final = (
    "temperature",
    "max_tokens",
    "top_p",
    "top_k",
    "seed",
    "stop_sequences",
    "frequency_penalty",
    "presence_penalty",
)

_TRACER_NAME: Final = "wiremap"

# None: not probed yet; False: opentelemetry-api is not importable; else the `trace` module.
_trace_api: Any = None
# the tracer of the global tracer provider, made once (`_global_tracer`)
_default_tracer: Any = None


def _api() -> Any:
    global _trace_api
    if _trace_api is None:
        try:
            from opentelemetry import trace
        except ImportError:
            _trace_api = False
        else:
            _trace_api = trace
    return _trace_api


def wiremap_version() -> str:
    """`wiremap.__version__` (runtime/version.py)."""
    return __version__


def otel_available() -> bool:
    """Whether `opentelemetry-api` is importable (spans are emitted)."""
    return _api() is not False


def _reset() -> None:
    """Forget the import probe (tests that hide or restore opentelemetry)."""
    global _trace_api, _default_tracer
    _trace_api = None
    _default_tracer = None


def _global_tracer(trace: Any) -> Any:
    """wiremap's tracer from the global tracer provider, made on first use and kept: looking
    the global provider up reads the environment each time (a few % of a gateway request).
    Kept safely: before a global provider is set the API gives a proxy tracer, which turns
    into the real provider's tracer once one is set (it can be set only once)."""
    global _default_tracer
    if _default_tracer is None:
        _default_tracer = trace.get_tracer(_TRACER_NAME, wiremap_version())
    return _default_tracer


def _config_value(name: str, value: Any) -> Any:
    """An attribute value OpenTelemetry accepts, or None to leave the attribute out."""
    if name == "stop_sequences":
        if isinstance(value, list) and value and all(type(v) is str for v in value):
            return list(value)
        return None
    if type(value) is bool or not isinstance(value, (int, float)):
        return None
    return value


class ChatSpan:
    """A context manager around one `complete()`: a no-op without opentelemetry.

    Entering starts the span and makes it current (so instrumented HTTP clients nest under it);
    `response(...)` records the response attributes; leaving with an exception records
    `error.type` and the ERROR status, then ends the span.
    """

    __slots__ = ("_span", "_token", "_args", "_operation", "_ended")

    def __init__(
        self,
        tracer_provider: Any,
        *,
        provider: str,
        model: str,
        config: Any,
        structured: bool,
        server_address: str | None,
        server_port: int | None,
        operation: str = "chat",
    ) -> None:
        self._span: Any = None
        self._token: Any = None
        self._ended = False
        self._operation = operation  # gen_ai.operation.name: chat, embeddings, generate_content
        self._args = (
            tracer_provider,
            provider,
            model,
            config,
            structured,
            server_address,
            server_port,
        )

    def __enter__(self) -> "ChatSpan":
        self.start()
        if self._span is not None:
            from opentelemetry import context

            trace = _api()
            self._token = context.attach(trace.set_span_in_context(self._span))
        return self

    def start(self) -> "ChatSpan":
        """Start the span without making it current (a stream: its events are yielded to the
        caller's code, so the span cannot stay attached across them); `activate()` makes it
        current for a stretch without yields (the HTTP request, so instrumented clients nest)."""
        trace = _api()
        if trace is False or self._span is not None:
            return self
        tracer_provider, provider, model, config, structured, address, port = self._args
        if tracer_provider is None:
            tracer = _global_tracer(trace)
        else:
            tracer = trace.get_tracer(_TRACER_NAME, wiremap_version(), tracer_provider=tracer_provider)
        span = tracer.start_span(f"{self._operation} {model}", kind=trace.SpanKind.CLIENT)
        self._span = span
        if span.is_recording():
            attributes: dict[str, Any] = {
                "gen_ai.operation.name": self._operation,
                "gen_ai.provider.name": provider,
                "gen_ai.request.model": model,
            }
            if isinstance(config, Mapping):
                for name in _CONFIG_ATTRIBUTES:
                    if name in config:
                        value = _config_value(name, config[name])
                        if value is not None:
                            attributes[f"gen_ai.request.{name}"] = value
            if structured:
                attributes["gen_ai.output.type"] = "json"
            if address:
                attributes["server.address"] = address
            if port is not None:
                attributes["server.port"] = port
            span.set_attributes(attributes)
        return self

    def attempt(self, index: int, retry_reason: str | None) -> None:
        """Mark the span as attempt `index` (0-based) of a call with retries (OpenArmature §7.1
        "Per-attempt span emission"): `openarmature.llm.attempt_index`, and on a retry
        `openarmature.llm.retry_reason` (`transient` or `reask`: why this attempt was made)."""
        span = self._span
        if span is None or not span.is_recording():
            return
        span.set_attribute("openarmature.llm.attempt_index", index)
        if retry_reason is not None:
            span.set_attribute("openarmature.llm.retry_reason", retry_reason)

    def activate(self) -> Any:
        """A context manager making the started span current (for code without yields)."""
        import contextlib

        span = self._span
        if span is None:
            return contextlib.nullcontext()
        from opentelemetry import trace

        return trace.use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False)

    def response(self, response: Any) -> None:
        """Record the response attributes: of a `Response`, or of the canonical dict a failed
        stream assembled before its error (its `partial`)."""
        span = self._span
        if span is None or not span.is_recording():
            return

        def get(obj: Any, name: str) -> Any:
            return obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)

        attributes: dict[str, Any] = {}
        usage = get(response, "usage")
        for attr, field in (
            ("input_tokens", "prompt_tokens"),
            ("output_tokens", "completion_tokens"),
        ):
            value = get(usage, field) if usage is not None else None
            if type(value) is int:
                attributes[f"gen_ai.usage.{attr}"] = value
        finish_reason = get(response, "finish_reason")
        if isinstance(finish_reason, str):
            attributes["gen_ai.response.finish_reasons"] = [finish_reason]
        raw = get(response, "raw")
        if isinstance(raw, Mapping):
            for attr in ("id", "model"):
                value = raw.get(attr)
                if isinstance(value, str) and value:
                    attributes[f"gen_ai.response.{attr}"] = value
        span.set_attributes(attributes)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        try:
            self.finish(exc)
        finally:
            if self._token is not None:
                from opentelemetry import context

                context.detach(self._token)
                self._token = None

    def finish(self, exc: BaseException | None = None) -> None:
        """Record the error (if any) and end the span; once."""
        span = self._span
        if span is None or self._ended:
            return
        self._ended = True
        if exc is not None:
            from opentelemetry.trace import Status, StatusCode

            category = getattr(exc, "category", None)
            error_type = category if isinstance(category, str) else type(exc).__qualname__
            span.set_attribute("error.type", error_type)
            span.set_status(Status(StatusCode.ERROR, f"{error_type}: {exc}"[:500]))
            if isinstance(exc, Exception):
                span.record_exception(exc)
        span.end()

"""`Provider.stream()`: a streamed completion over HTTP, as canonical stream events.

    stream = provider.stream(messages, tools=..., config=...)
    async for event in stream:          # canonical events (wiremap.runtime.stream), as they arrive
        ...
    stream.response                     # the assembled Response, equal to the non-streamed one

The request is the format's `request_to_wire` plus its stream table's managed fields
(`stream_request_to_wire`); a format without a `stream:` table raises `InvalidRequestError`
before anything is sent (OpenArmature §5 "Provider streaming support"). A non-2xx answer is
`error_from_wire` as for `complete()`. Once the stream has begun, an `error` event, malformed
event JSON, a body that ends before the stream's end, or a transport failure ends the iteration
with a typed `ProviderError` whose `partial` attribute holds what was assembled so far (a
canonical response dict, finish_reason `error`); the events already yielded stay yielded.
A 2xx answer that is not a stream at all (an HTML page or a JSON document, by its content type,
or a body that ends cleanly without a single event: empty, a cut JSON document) is
`InvalidResponseError` before the first event. The Provider's `deadline` bounds the whole
stream (`ProviderTimeoutError`), whatever keep-alive comments arrive. With retries (the call's
`retry=` or the Provider's), an error the retry plan accepts starts the same request again, but
only until the first event has been delivered; the deadline covers every attempt and wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
import urllib.parse
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, Any

from .canonical import Response
from .errors import (
    InvalidRequestError,
    InvalidResponseError,
    ProviderError,
    ProviderTimeoutError,
    UnavailableError,
)
from .http_support import join_url, without_userinfo
from .stream import StreamAssembler, StreamParser, stream_error, stream_request_to_wire
from .wire import merge_option_headers, option_headers
from .structured import parsed_model

if TYPE_CHECKING:
    from .provider import Provider
    from .retry import RetryPlan
    from .tracing import ChatSpan

__all__ = ["ResponseStream"]

_SNIPPET = 200
# content types that are certainly not server-sent events (a missing or odd type is left to the
# parser: some servers label their streams text/plain)
_NOT_SSE = re.compile(r"html|json|xml", re.IGNORECASE)


class ResponseStream:
    """An async iterator of canonical stream events; `response` is set when it is exhausted."""

    def __init__(
        self,
        provider: "Provider",
        request: dict[str, Any],
        response_schema: dict[str, Any] | None,
        mode: str | None,
        wire_map: Any = None,
        span: "ChatSpan | None" = None,
        *,
        plan: "RetryPlan | None" = None,
        model: type[Any] | None = None,
    ) -> None:
        self.provider = provider
        self._plan = plan if plan is not None and plan.max_attempts > 1 else None
        self._model = model  # a pydantic model class: `Response.parsed` is an instance of it
        self._span = span  # Provider.stream(): the call's span (complete(stream=True) has its own)
        self.response: Response | None = None
        # the Response assembled from the events, before `response_schema` parses it (`response`
        # is then read again from its raw body): what a gateway re-emitting the events reports on
        self.assembled: Response | None = None
        self.events: int = 0
        fmt = provider.format
        # a format with wire_rules (Mistral): the call's WireMap carries the id/name rewrites of
        # the request to the stream, whose tool calls come back with the caller's own
        self.wire_map: Any = None
        self._names: Any = None  # the tool-name renames of a format's declared rule (TOOL_NAME_RULE)
        if fmt.wire_rules is not None:
            from .wire_rules import WireMap

            self.wire_map = wire_map if wire_map is not None else WireMap()
        elif getattr(fmt.module, "TOOL_NAME_RULE", None):
            from .wire_rules import WireMap, fit_tool_names

            self._names = wire_map if wire_map is not None else WireMap()
            request = fit_tool_names(request, fmt.module.TOOL_NAME_RULE, self._names, fmt.key)
        if not fmt.stream:
            raise InvalidRequestError(
                f"{fmt.key} does not support streaming (its mapping has no `stream:` table); "
                "call without stream",
                path="stream",
            )
        # converted now: pre-send errors propagate from stream() itself, before any I/O
        kwargs: dict[str, Any] = {"structured_output": mode} if mode is not None else {}
        if self.wire_map is not None:
            kwargs["wire_map"] = self.wire_map
        self._wire = stream_request_to_wire(fmt, request, **kwargs)
        self._option_headers = option_headers(fmt.module, request)  # request.options `header:` rows
        self._schema = response_schema
        self._mode = mode
        self._gen: AsyncIterator[dict[str, Any]] | None = None

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        if self._gen is None:
            self._gen = self._run()
        return self._gen

    async def collect(self) -> Response:
        """Consume the whole stream; the assembled Response."""
        async for _event in self:
            pass
        assert self.response is not None
        return self.response

    def _activate(self) -> Any:
        return self._span.activate() if self._span is not None else contextlib.nullcontext()

    async def _run(self) -> AsyncIterator[dict[str, Any]]:
        """The events, inside the call's span (Provider.stream()): it starts with the iteration
        and ends with the stream, with the assembled Response's attributes or the error (and what
        was assembled before it)."""
        span = self._span
        if span is not None:
            span.start()
        events = self._attempts()
        try:
            async for ev in events:
                yield ev
        except GeneratorExit:  # the consumer stopped reading: not an error of the call
            if span is not None:
                span.finish(None)
            raise
        except BaseException as exc:
            if span is not None:
                partial = getattr(exc, "partial", None)
                if partial is not None:
                    span.response(partial)
                span.finish(exc)
            raise
        finally:
            await events.aclose()
        if span is not None:
            if self.response is not None:
                span.response(self.response)
            span.finish(None)

    async def _attempts(self) -> AsyncGenerator[dict[str, Any], None]:
        """The events of the first attempt that gets one delivered: before that, an error the
        retry plan accepts starts the request again (after its wait); after it, every error
        propagates (the caller has events of this answer). The deadline covers all attempts."""
        p = self.provider
        deadline = p._deadline
        until = None if deadline is None else asyncio.get_running_loop().time() + deadline
        plan = self._plan
        attempt, delay = 0, 0.0
        while True:
            events = self._events(until)
            delivered = False
            try:
                async for ev in events:
                    delivered = True
                    yield ev
                return
            except Exception as error:
                if delivered or plan is None or attempt + 1 >= plan.max_attempts or not plan.retryable(error, attempt):
                    raise
                attempt += 1
                delay = plan.delay(attempt, error)
                if until is not None and asyncio.get_running_loop().time() + delay >= until:
                    raise
                if plan.on_retry is not None:
                    plan.on_retry(attempt, error, delay)
            finally:
                await events.aclose()
            if delay > 0:
                await p._sleep(delay)

    def _not_a_stream(self, status: int, what: str, body: bytes) -> InvalidResponseError:
        p = self.provider
        snippet = p._redact(body[:_SNIPPET].decode("utf-8", "replace"))
        err = InvalidResponseError(
            f"HTTP {status} answer to a streamed request is {what}, not server-sent events "
            f"({len(body)} bytes{': ' + repr(snippet) if snippet else ''})",
            status=status,
            body=snippet,
        )
        p._scrub(err)
        return err

    async def _events(self, until: float | None) -> AsyncGenerator[dict[str, Any], None]:
        import httpx

        p = self.provider
        fmt = p.format
        if p._body_fields:  # transport.body: the fixed fields (Bedrock's anthropic_version)
            self._wire = {**p._body_fields, **self._wire, **p._body_fields}
        try:
            content = json.dumps(self._wire, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        except (TypeError, ValueError) as exc:
            raise InvalidRequestError(f"the request body is not JSON-encodable: {exc}") from exc
        missing = p._missing_key
        if missing is not None:
            from .errors import AuthenticationError

            raise AuthenticationError(missing)
        if p._missing_param is not None:
            raise InvalidRequestError(p._missing_param)
        parser = StreamParser(fmt, wire_map=self.wire_map if self.wire_map is not None else self._names)
        assembler = StreamAssembler(fmt)
        headers = dict(p._headers)
        for name in list(headers):
            if name.lower() == "accept":
                del headers[name]
        # the stream table's framing: SSE, or AWS's binary event-stream
        if self._option_headers:
            headers = merge_option_headers(headers, self._option_headers)
        headers["Accept"] = "application/vnd.amazon.eventstream" if str((fmt.stream or {}).get("framing")).startswith("aws_eventstream") else "text/event-stream"
        method, url = p._method, p._url
        stream_path = (fmt.stream or {}).get("endpoint", {}).get("path")
        if stream_path is not None or p._path_params:
            # the stream table's own endpoint (Gemini's `:streamGenerateContent?alt=sse`), and
            # path-bound request fields (`{model}`) moved from the body into the URL
            path = p._fill(str(stream_path or p._path))
            wire = dict(self._wire)
            for name in re.findall(r"\{([^{}]*)\}", path):
                value = wire.pop(name, None)
                if not isinstance(value, str) or not value:
                    value = p.model
                path = path.replace("{" + name + "}", urllib.parse.quote(value, safe=""))
            url = join_url(p.base_url, path)
            content = json.dumps(wire, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()
        if p._fallback is not None:  # auth.fallback: signed (SigV4) or a Google token, per request
            headers = await p._signed(method, url, headers, content)
        client = p._client()
        started = time.perf_counter()
        shown = without_userinfo(url)
        deadline = p._deadline
        head = b""  # the body's first bytes, quoted when it turns out not to be a stream

        def fail(ev: dict[str, Any]) -> ProviderError:
            err = stream_error(ev, assembler.partial())
            p._scrub(err)
            return err

        try:
            request = client.stream(method, url, content=content, headers=headers, params=p._query(url, False))
            with self._activate():  # current while the request is sent: an instrumented client nests under it
                async with asyncio.timeout_at(until):
                    resp = await request.__aenter__()
            try:
                status = resp.status_code
                if not 200 <= status < 300:
                    async with asyncio.timeout_at(until):
                        body = await resp.aread()
                    err = p._http_error(method, url, resp, body)
                    p._scrub(err)
                    raise err
                ctype = resp.headers.get("content-type", "")
                if _NOT_SSE.search(ctype):  # an HTML page, a JSON body: not a stream at all
                    async with asyncio.timeout_at(until):
                        body = await resp.aread()
                    raise self._not_a_stream(status, f"a {ctype.split(';')[0].strip()} body", body)
                chunks = resp.aiter_bytes()
                while True:
                    try:
                        async with asyncio.timeout_at(until):
                            chunk = await chunks.__anext__()
                    except StopAsyncIteration:
                        break
                    if len(head) < _SNIPPET:
                        head += chunk[: _SNIPPET - len(head)]
                    for ev in parser.feed(chunk):
                        assembler.add(ev)
                        if ev["type"] == "error":
                            raise fail(ev)
                        self.events += 1
                        yield ev
            except BaseException as exc:
                await request.__aexit__(type(exc), exc, exc.__traceback__)
                raise
            await request.__aexit__(None, None, None)
        except httpx.HTTPError as exc:
            p._scrub(exc)
            reason = p._redact(str(exc)) or "no detail"
            if isinstance(exc, httpx.TimeoutException):
                what = "timed out"
            elif isinstance(exc, httpx.RemoteProtocolError):
                what = "connection closed by the server"
            elif isinstance(exc, httpx.ConnectError):
                what = "cannot connect"
            else:
                what = "transport failure"
            cls: type[ProviderError] = UnavailableError
            if isinstance(exc, httpx.DecodingError):
                cls = InvalidResponseError
            elif isinstance(exc, httpx.TimeoutException):
                cls = ProviderTimeoutError
            err = cls(
                f"{method} {shown}: {what} after {time.perf_counter() - started:.3f}s, "
                f"{self.events} events in ({type(exc).__name__}: {reason})"
            )
            err.partial = assembler.partial()
            raise err from exc
        except TimeoutError as exc:  # the call's total deadline (asyncio.timeout_at)
            err = ProviderTimeoutError(
                f"{method} {shown}: timed out (the stream did not end within the call's {deadline:g} s deadline, "
                f"{self.events} events in)"
            )
            err.partial = assembler.partial()
            raise err from exc
        tail = parser.close()
        if self.events == 0 and tail and tail[-1]["type"] == "error" and "raw" not in tail[-1] and tail[-1].get("category") == "provider_unavailable":
            # the body ended cleanly without a single event: an empty body, a page, a cut JSON
            # document -- not a dropped stream (that is a transport error above), a wrong answer
            raise self._not_a_stream(resp.status_code, "a body without server-sent events", head)
        for ev in tail:
            assembler.add(ev)
            if ev["type"] == "error":
                raise fail(ev)
            self.events += 1
            yield ev
        try:
            response = self.assembled = assembler.response()
            if self._schema is not None:
                kwargs: dict[str, Any] = {"response_schema": self._schema}
                if self._mode is not None:
                    kwargs["structured_output"] = self._mode
                if self.wire_map is not None:
                    kwargs["wire_map"] = self.wire_map
                parsed = fmt.response_from_wire(response.raw, **kwargs)
                parsed.raw = response.raw
                response = parsed
                if self._names is not None:
                    from .wire_rules import restore_response

                    response = restore_response(response, self._names)
            if self._model is not None:
                response = parsed_model(response, self._model, self._schema)
        except ProviderError as exc:
            p._scrub(exc)
            raise
        self.response = response

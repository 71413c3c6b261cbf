"""The gateway's streaming path: a `stream: true` request in the inbound format, answered with
the inbound format's server-sent events translated from the upstream's stream as it arrives.

- The upstream is called with `Provider.stream()`; when the upstream mapping has no `stream:`
  table, it is called atomically and its `Response` is re-emitted as one stream
  (`events_from_response`), reported as a loss (`stream`: delivered in one piece).
- Errors before the first event (pre-send validation, an HTTP error status from the upstream)
  are answered as for a non-streamed call: the inbound format's error envelope and status, so
  the client's SDK raises its usual exception class. Errors after it (an upstream `error` event,
  malformed chunks, a dropped connection) are written as the inbound format's own error event,
  and the stream ends there.
- Request-side losses go in the `x-wiremap-losses` header; response-side losses, known at the
  end, are written as the SSE comment `: wiremap-losses [{"path", "kind", "detail"}...]` right
  before the stream's end marker.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from wiremap.runtime.errors import InvalidRequestError, ProviderError
from wiremap.runtime.format import Format
from wiremap.runtime.provider import Provider
from wiremap.runtime.stream import StreamEmitter, events_from_response, forward_event
from wiremap.runtime.translate import Loss, response_losses

from .gateway_common import loss_header

__all__ = ["stream_response", "strip_stream_fields"]


def strip_stream_fields(fmt: Format, body: Mapping[str, Any]) -> dict[str, Any]:
    """The body without the fields that select streaming in `fmt` (its stream table's `request`
    keys): they set the delivery mode of the gateway's answer, not options for the upstream."""
    if not fmt.stream:
        raise InvalidRequestError(f"{fmt.key} does not support streaming; send the request without `stream`", path="stream")
    managed = fmt.stream["request"]
    return {k: v for k, v in body.items() if k not in managed}


async def stream_response(gateway: Any, provider: Provider, plain: dict[str, Any], losses: list[Loss], request: Any = None, rid: str = "", slot: Any = None, client_body: Any = None, record: Any = None) -> Any:
    """The StreamingResponse for one streamed request. The first upstream event is awaited here
    (cancelled if the client leaves meanwhile), so that an error before it is answered with the
    inbound error envelope; `slot` (the gateway's in-flight slot) is released when the response
    ends, however it ends. `record` (wiremap.gateway_metrics.AccessRecord) gets the stream's
    usage, losses and error category, and is finished when the response ends."""
    cfg = gateway.config
    args: dict[str, Any] = dict(tools=plain.get("tools"), config=plain.get("config"), response_schema=plain.get("response_schema"), tool_choice=plain.get("tool_choice"), carried=plain.get("carried"))
    extra_losses: list[Loss] = []
    first: list[dict[str, Any]] = []
    pump: Any = None
    stream: Any = None  # the upstream's ResponseStream: it assembles the Response as the events pass
    whole: Any = None  # the Response of an upstream that cannot stream
    if provider.format.stream:
        async def start() -> Any:  # the request's conversion too runs off the serving loop
            return provider.stream(plain["messages"], **args)

        stream = await gateway.upstream(start())
        pump = gateway.pump(stream.__aiter__())  # read by a task of its own, handed over in batches
        try:
            first = await (gateway.until_disconnect(request, pump.batch()) if request is not None else pump.batch())
        except BaseException:
            pump.close()
            raise
        # a ProviderError here propagates: the caller answers with the inbound error envelope
    else:
        call = gateway.upstream(provider.complete(plain["messages"], **args))
        response = await (gateway.until_disconnect(request, call) if request is not None else call)
        first = events_from_response(response)
        whole = response
        extra_losses.append(Loss("stream", "changed", f"{provider.format.key} cannot stream; the answer was delivered in one piece"))

    # the client's body: did it ask for the usage chunk; raw_from: the upstream's own usage goes
    # back verbatim to a client of the same wire
    emitter = StreamEmitter(cfg.inbound, request=client_body, raw_from=provider.format)
    from wiremap.runtime.stream import without_own_carried

    def emit(events: list[dict[str, Any]]) -> bytes:
        out = []
        for ev in events:
            fwd = forward_event(ev, provider.format, emitter)  # signed data goes back only to its origin
            if fwd is not None:
                out.append(emitter.emit(fwd))
        return b"".join(out)

    async def body() -> AsyncIterator[bytes]:
        failed = False
        data = emit(first)
        # an upstream stream that has ended already (every event came in the first batch, as a
        # short answer's do) is answered in one piece with its end: one write to the client
        # instead of three (_Final: the last chunk and the chunked terminator in one message)
        if pump is not None and first and not pump.ended():
            if data:
                yield data
            data = b""
            try:
                while True:
                    batch = await pump.batch()
                    if not batch:
                        break
                    chunk = emit(batch)
                    if chunk:
                        yield chunk
            except ProviderError as exc:
                failed = True
                if record is not None:
                    record.failed(exc)
                shown = gateway.public(exc, rid) if rid else exc
                data = emitter.emit({"type": "error", "category": exc.category, "message": getattr(shown, "message", str(shown))})
            except Exception as exc:  # a gateway bug still ends the client's stream in its format
                failed = True
                if record is not None:
                    record.failed(exc)
                data = emitter.emit({"type": "error", "category": "provider_invalid_response", "message": f"gateway error: {type(exc).__name__}"})
        out_losses = list(extra_losses) + list(emitter.losses)
        # the Response the upstream's stream assembled from these events (ResponseStream: its
        # assembly failing is the stream's error, above), or the one an upstream that cannot
        # stream answered with
        response = stream.assembled if stream is not None else whole
        if not failed and response is not None:
            try:
                if record is not None:
                    record.usage(response.usage)
                # a stream's carried wire data is a loss on another wire only (runtime/stream.py)
                _wire, more = response_losses(without_own_carried(response, cfg.inbound), cfg.inbound, source=provider.format)
                seen = {(loss.path, loss.kind) for loss in out_losses}
                out_losses += [loss for loss in more if (loss.path, loss.kind) not in seen and not loss.path.startswith("message.content")]
            except ProviderError:
                pass
        if record is not None:
            record.losses = len(losses) + len(out_losses)
        trailer = None
        if out_losses:
            trailer = "wiremap-losses " + json.dumps([loss.to_dict() for loss in out_losses], ensure_ascii=True, separators=(",", ":"))
        yield _Final(data + emitter.close(trailer))

    async def guarded() -> AsyncIterator[bytes]:
        try:
            async for chunk in body():
                yield chunk
        finally:
            if pump is not None:  # a client that left: the upstream call ends too
                pump.close()

    headers = {"x-wiremap-upstream": provider.format.key, "cache-control": "no-cache"}
    if rid:
        headers["x-request-id"] = rid
    if losses:
        headers["x-wiremap-losses"] = loss_header(losses)
    if record is not None:
        record.deferred = True  # finished by the response, at the stream's end
    # the inbound format's framing: SSE, or AWS's binary event-stream (`stream.framing`)
    return _SlotResponse(guarded(), slot, media_type=emitter.media_type, headers=headers, record=record)


class _Final(bytes):
    """The stream's last chunk: sent with `more_body: false`, so the server writes it and the
    end of the chunked body at once."""


def _slot_response_class() -> Any:
    from starlette.responses import StreamingResponse

    class SlotResponse(StreamingResponse):
        """A StreamingResponse that releases the gateway's in-flight slot when it is done."""

        def __init__(self, content: Any, slot: Any, record: Any = None, **kwargs: Any) -> None:
            super().__init__(content, **kwargs)
            self._slot = slot
            self._record = record

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            try:
                if scope.get("type") == "http" and self.background is None:
                    await self._stream_until_disconnect(receive, send)
                else:  # pragma: no cover - the gateway's streams are HTTP without background tasks
                    await super().__call__(scope, receive, send)
            finally:
                if self._slot is not None:
                    self._slot.release()
                aclose = getattr(self.body_iterator, "aclose", None)
                if aclose is not None:  # never started (the client left first): close it now
                    await aclose()
                if self._record is not None:
                    self._record.finish(self.status_code)

        async def _stream_until_disconnect(self, receive: Any, send: Any) -> None:
            """What StreamingResponse does for an ASGI server below spec 2.4 (uvicorn's 2.3):
            the body is sent until it ends or the client disconnects, whichever comes first;
            a disconnect ends it quietly. Here in this task, with one watcher task, where
            Starlette makes an anyio task group of two tasks and a cancel scope per stream."""
            me = asyncio.current_task()
            assert me is not None
            state = {"gone": False, "done": False}

            async def watch() -> None:
                while True:
                    message = await receive()
                    if message.get("type") == "http.disconnect":
                        break
                if not state["done"]:
                    state["gone"] = True
                    me.cancel()

            watcher = asyncio.ensure_future(watch())
            try:
                await self._send_stream(send)
                state["done"] = True
            except asyncio.CancelledError:
                if not state["gone"]:
                    raise
                me.uncancel()  # the client left: the stream ends here, as Starlette's does
            finally:
                state["done"] = True
                if not watcher.done():
                    watcher.cancel()

        async def _send_stream(self, send: Any) -> None:
            """Starlette's `stream_response`, but a `_Final` chunk ends the body itself (the
            gateway's streams end with one) instead of an empty message after it."""
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            async for chunk in self.body_iterator:
                if type(chunk) is _Final:
                    await send({"type": "http.response.body", "body": bytes(chunk), "more_body": False})
                    return
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    return SlotResponse


def _SlotResponse(content: Any, slot: Any, record: Any = None, **kwargs: Any) -> Any:
    global _slot_class
    if _slot_class is None:
        _slot_class = _slot_response_class()
    return _slot_class(content, slot, record, **kwargs)


_slot_class: Any = None

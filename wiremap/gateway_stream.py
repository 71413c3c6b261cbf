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
- The emitter is given the client's own request body, so what the inbound table's `usage_when`
  names decides the usage chunk (OpenAI: only with `stream_options.include_usage: true`, as the
  API does; the documented `chunk.choices[0]` loop breaks on a chunk with empty choices).
- Request-side losses go in the `x-wiremap-losses` header; response-side losses, known at the
  end, are written as the SSE comment `: wiremap-losses [{"path", "kind", "detail"}...]` right
  before the stream's end marker.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

from wiremap.runtime.errors import InvalidRequestError, ProviderError
from wiremap.runtime.format import Format
from wiremap.runtime.provider import Provider
from wiremap.runtime.stream import StreamEmitter, events_from_response, forward_event
from wiremap.runtime.translate import Loss, response_losses

__all__ = ["stream_response", "strip_stream_fields"]


def strip_stream_fields(fmt: Format, body: Mapping[str, Any]) -> dict[str, Any]:
    """The body without the fields that select streaming in `fmt` (its stream table's `request`
    keys): they set the delivery mode of the gateway's answer, not options for the upstream."""
    if not fmt.stream:
        raise InvalidRequestError(f"{fmt.key} does not support streaming; send the request without `stream`", path="stream")
    managed = fmt.stream["request"]
    return {k: v for k, v in body.items() if k not in managed}


async def stream_response(gateway: Any, provider: Provider, plain: dict[str, Any], losses: list[Loss],
                          request: Mapping[str, Any] | None = None) -> Any:
    from starlette.responses import StreamingResponse

    from .gateway import _loss_header

    cfg = gateway.config
    args = dict(tools=plain.get("tools"), config=plain.get("config"), response_schema=plain.get("response_schema"), tool_choice=plain.get("tool_choice"))
    extra_losses: list[Loss] = []
    first: list[dict[str, Any]] = []
    upstream_events: AsyncIterator[dict[str, Any]] | None = None
    if provider.format.stream:
        stream = provider.stream(plain["messages"], **args)
        upstream_events = stream.__aiter__()
        try:
            first.append(await upstream_events.__anext__())
        except StopAsyncIteration:
            pass
        # a ProviderError here propagates: the caller answers with the inbound error envelope
    else:
        response = await provider.complete(plain["messages"], **args)
        first = events_from_response(response)
        extra_losses.append(Loss("stream", "changed", f"{provider.format.key} cannot stream; the answer was delivered in one piece"))

    emitter = StreamEmitter(cfg.inbound, request=request)  # the client's body: did it ask for the usage chunk
    from wiremap.runtime.stream import StreamAssembler

    assembler = StreamAssembler(provider.format)

    async def body() -> AsyncIterator[bytes]:
        failed = False
        for ev in first:
            assembler.add(ev)
            fwd = forward_event(ev, provider.format, emitter)  # signed data goes back only to its origin
            data = emitter.emit(fwd) if fwd is not None else b""
            if data:
                yield data
        if upstream_events is not None:
            try:
                async for ev in upstream_events:
                    assembler.add(ev)
                    fwd = forward_event(ev, provider.format, emitter)
                    data = emitter.emit(fwd) if fwd is not None else b""
                    if data:
                        yield data
            except ProviderError as exc:
                failed = True
                yield emitter.emit({"type": "error", "category": exc.category, "message": exc.message})
            except Exception as exc:  # a gateway bug still ends the client's stream in its format
                failed = True
                yield emitter.emit({"type": "error", "category": "provider_invalid_response", "message": f"gateway error: {type(exc).__name__}"})
        out_losses = list(extra_losses) + list(emitter.losses)
        if not failed:
            try:
                response = assembler.response()
                _wire, more = response_losses(response, cfg.inbound)
                seen = {(loss.path, loss.kind) for loss in out_losses}
                out_losses += [loss for loss in more if (loss.path, loss.kind) not in seen and not loss.path.startswith("message.content")]
            except ProviderError:
                pass
        trailer = None
        if out_losses:
            trailer = "wiremap-losses " + json.dumps([loss.to_dict() for loss in out_losses], ensure_ascii=True, separators=(",", ":"))
        yield emitter.close(trailer)

    headers = {"x-wiremap-upstream": cfg.upstream.key, "cache-control": "no-cache"}
    if losses:
        headers["x-wiremap-losses"] = _loss_header(losses)
    return StreamingResponse(body(), media_type="text/event-stream", headers=headers)

"""Issue 15 item 14: one depth limit (MAX_JSON_DEPTH) in every direction.

Tool-call arguments nested 1 500 deep used to raise a bare RecursionError from
`response_to_wire` and `translate_response` while `response_from_wire` accepted the same body.
Now every entry point of every chat format refuses a value nested past the limit with a typed
ProviderError naming the path, and accepts one nested exactly to the limit:

- `request_to_wire` / `response_to_wire` (canonical in): InvalidRequestError at the canonical path;
- `request_from_wire` / `response_from_wire` (wire in): InvalidRequestError / InvalidResponseError,
  at the canonical path of the value read, or at the wire field when its JSON text cannot even be
  decoded;
- `translate_request`, `translate_response`, `translator(...).request/.response`: the same;
- `translate_stream`: the stream ends with InvalidResponseError (never a RecursionError);
- `translate_error` with a body nested that deep: a translation, never an exception.
"""

from __future__ import annotations

import base64
import json
import warnings
from typing import Any

import pytest

import wiremap
from wiremap import InvalidRequestError, InvalidResponseError, ProviderError
from wiremap.runtime.eventstream import EventStreamDecoder, encode_message
from wiremap.runtime.stream import StreamEmitter, events_from_response

LIMIT = wiremap.MAX_JSON_DEPTH
CHAT = [k for k in wiremap.formats() if wiremap.get_format(k).kind == "chat"]
DEPTHS = [LIMIT + 1, 1_500, 5_000]


def deep_object(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def deep_text(depth: int) -> str:
    """The JSON text of deep_object(depth), built without an encoder (which would recurse)."""
    return '{"a":' * depth + "1" + "}" * depth


def response(arguments: Any) -> dict[str, Any]:
    return {
        "message": {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "f", "arguments": arguments}]},
        "finish_reason": "tool_calls",
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def request(arguments: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "name": "f", "arguments": arguments}]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ],
        "tools": [{"name": "f", "parameters": {"type": "object"}}],
        "config": {"max_tokens": 16},
    }


MARK = {"MARK": 1}


def _put_deep(node: Any, depth: int) -> Any:
    """A wire body with the marker arguments replaced by ones `depth` deep: an object where the
    format carries arguments as an object, JSON text where it carries a string."""
    if isinstance(node, dict):
        if node == MARK:
            return deep_object(depth)
        return {k: _put_deep(v, depth) for k, v in node.items()}
    if isinstance(node, list):
        return [_put_deep(v, depth) for v in node]
    if isinstance(node, str) and "MARK" in node:
        assert json.loads(node) == MARK
        return deep_text(depth)
    return node


def wire_bodies(key: str, depth: int) -> tuple[Any, Any]:
    """(wire request, wire response) of `key` whose tool call's arguments are `depth` deep."""
    fmt = wiremap.get_format(key)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wire_request = fmt.request_to_wire(request(MARK))
        wire_response = fmt.response_to_wire(response(MARK))
    deep_request, deep_response = _put_deep(wire_request, depth), _put_deep(wire_response, depth)
    assert deep_request != wire_request and deep_response != wire_response, "the arguments were replaced"
    return deep_request, deep_response


def stream_bytes(key: str, depth: int) -> bytes:
    """`key`'s stream (SSE, or AWS event-stream messages) of the tool-call response, arguments `depth` deep."""
    emitter = StreamEmitter(key)
    data = b"".join(emitter.emit(ev) for ev in events_from_response(response(MARK))) + emitter.close()
    text = deep_text(depth)

    def deepen(raw: bytes) -> bytes:
        return raw.replace(b'{\\"MARK\\":1}', json.dumps(text)[1:-1].encode()).replace(b'{"MARK":1}', text.encode())

    if emitter.framing == "aws_eventstream":  # each message's payload changes, so its lengths and CRCs are written anew
        decoder = EventStreamDecoder()
        out = b"".join(encode_message(m.headers, deepen(m.payload)) for m in decoder.feed(data))
        decoder.close()
    elif emitter.framing == "aws_eventstream_chunks":  # the event is base64 inside each chunk's PayloadPart
        def deepen_chunk(payload: bytes) -> bytes:
            part = json.loads(payload)
            part["bytes"] = base64.b64encode(deepen(base64.b64decode(part["bytes"]))).decode()
            return json.dumps(part).encode()

        decoder = EventStreamDecoder()
        out = b"".join(encode_message(m.headers, deepen_chunk(m.payload)) for m in decoder.feed(data))
        decoder.close()
    else:
        out = deepen(data)
    assert out != data
    return out


def other(key: str) -> str:
    return "openai_chat" if key.startswith("anthropic") else "anthropic_messages"


def refused(fn: Any, cls: type[ProviderError]) -> ProviderError:
    """`fn()` raises `cls` (a ProviderError subclass, never a RecursionError) naming a path to
    the arguments; returns it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(cls) as info:
            fn()
    err = info.value
    assert err.path and ("arguments" in err.path or ".args" in err.path), err.path
    if len(err.path) > 200:  # a decoded value: the path goes down to the node past the limit
        assert err.path.endswith(".a" * 8) and f"deeper than {LIMIT}" in err.message
    return err


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("key", CHAT)
def test_every_direction_refuses_arguments_past_the_limit(key: str, depth: int) -> None:
    fmt = wiremap.get_format(key)
    canonical = deep_object(depth)
    wire_request, wire_response = wire_bodies(key, depth)

    # canonical in
    err = refused(lambda: fmt.request_to_wire(request(canonical)), InvalidRequestError)
    assert err.path.startswith("messages[1].tool_calls[0].arguments.a")  # type: ignore[union-attr]
    err = refused(lambda: fmt.response_to_wire(response(canonical)), InvalidRequestError)
    assert err.path.startswith("message.tool_calls[0].arguments.a")  # type: ignore[union-attr]
    err = refused(lambda: fmt.response_to_wire(wiremap.Response.from_dict(response(canonical))), InvalidRequestError)

    # wire in
    refused(lambda: fmt.request_from_wire(wire_request), InvalidRequestError)
    err = refused(lambda: fmt.response_from_wire(wire_response), InvalidResponseError)
    assert err.body is wire_response

    # translations, both report and fast paths
    refused(lambda: wiremap.translate_request(wire_request, key, other(key)), InvalidRequestError)
    refused(lambda: wiremap.translate_response(wire_response, key, other(key)), InvalidResponseError)
    tr = wiremap.translator(key, other(key))
    refused(lambda: tr.request(wire_request), InvalidRequestError)
    refused(lambda: tr.response(wire_response), InvalidResponseError)


@pytest.mark.parametrize("key", CHAT)
def test_every_direction_accepts_arguments_at_the_limit(key: str) -> None:
    """The limit is the same everywhere: a value exactly MAX_JSON_DEPTH deep goes through every
    entry point (so no direction is stricter than request_to_wire)."""
    fmt = wiremap.get_format(key)
    canonical = deep_object(LIMIT)
    wire_request, wire_response = wire_bodies(key, LIMIT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fmt.request_to_wire(request(canonical))
        fmt.response_to_wire(response(canonical))
        assert fmt.request_from_wire(wire_request).messages[1].tool_calls[0].arguments == canonical  # type: ignore[union-attr,index]
        assert fmt.response_from_wire(wire_response).message.tool_calls[0].arguments == canonical  # type: ignore[index]
        assert wiremap.translate_request(wire_request, key, other(key)).result
        assert wiremap.translate_response(wire_response, key, other(key)).result
        assert wiremap.translator(key, other(key)).response(wire_response)
        if fmt.stream is not None:
            t = wiremap.translate_stream([stream_bytes(key, LIMIT)], key, other(key))
            assert b"".join(t) and t.error is None
            assert t.response is not None and t.response.message.tool_calls[0].arguments == canonical  # type: ignore[index]


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("key", [k for k in CHAT if wiremap.get_format(k).stream is not None])
def test_a_stream_with_arguments_past_the_limit_ends_with_a_typed_error(key: str, depth: int) -> None:
    data = stream_bytes(key, depth)
    for target in (other(key), "gemini_generate_content"):  # Gemini's emitter parses whole calls
        t = wiremap.translate_stream([data], key, target)
        out = b"".join(t)  # never raises: the error is the stream's last event
        assert isinstance(t.error, InvalidResponseError), t.error
        assert t.response is None and out
        # the event is decoded and the arguments named, unless the event itself is too deep
        # for the JSON decoder (then its number is named)
        if t.error.path:
            assert "arguments" in t.error.path or ".args" in t.error.path, t.error
            assert f"deeper than {LIMIT}" in t.error.message
        else:
            assert "is not JSON" in t.error.message and "stream event" in t.error.message, t.error


@pytest.mark.parametrize("key", CHAT)
def test_an_error_body_nested_past_the_limit_translates(key: str) -> None:
    for depth in DEPTHS:
        t = wiremap.translate_error(500, {"error": deep_object(depth)}, {}, key, other(key))
        status, _body, _headers = t.result
        assert status >= 500

"""`stream.framing: aws_eventstream`: the AWS binary event-stream as a stream table's framing.

The decoder (runtime/eventstream.py) is checked against AWS's own encoding (botocore's decoder as
an oracle, and a message whose bytes are written out by hand from the "Event stream encoding"
layout), split at every byte; a bad CRC or a truncated message is a typed error naming the byte
offset. A tiny mapping whose stream table uses the framing is generated and driven end to end:
parser, assembler, exception messages, emitter, and a re-read of what the emitter wrote.
"""

from __future__ import annotations

import importlib
import importlib.util
import itertools
import json
import os
import shutil
import struct
import sys
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from wiremap.codegen import generate
from wiremap.codegen.generate import module_name
from wiremap.codegen.load.source import MappingError
from wiremap.runtime import format as format_registry
from wiremap.runtime.errors import InvalidResponseError, RateLimitError
from wiremap.runtime.eventstream import EventStreamDecoder, encode_message
from wiremap.runtime.stream import StreamAssembler, StreamEmitter, StreamParser, stream_error

TESTS = Path(__file__).resolve().parent.parent
TINY_BASE = TESTS / "mappings_err" / "_base" / "tiny_base.yaml"
_ids = itertools.count()


def event(name: str, payload: Any) -> bytes:
    return encode_message({":event-type": name, ":content-type": "application/json", ":message-type": "event"},
                          json.dumps(payload).encode())


# A message written out byte by byte from AWS's layout (prelude: total length, headers length,
# prelude CRC; headers: name length, name, type 7, 2-byte value length, value; payload; message
# CRC), without the encoder under test.
_HEADER = b"\x0b:event-type" + b"\x07" + b"\x00\x05" + b"chunk"
_PAYLOAD = b'{"x":1}'
_TOTAL = 12 + len(_HEADER) + len(_PAYLOAD) + 4
_PRELUDE = struct.pack(">II", _TOTAL, len(_HEADER))
_PRELUDE += struct.pack(">I", zlib.crc32(_PRELUDE))
HAND_MADE = _PRELUDE + _HEADER + _PAYLOAD + struct.pack(">I", zlib.crc32(_PRELUDE + _HEADER + _PAYLOAD))


def decode_split(data: bytes, cut: int) -> list[tuple[dict[str, Any], bytes]]:
    dec = EventStreamDecoder()
    msgs = dec.feed(data[:cut]) + dec.feed(data[cut:])
    dec.close()
    return [(m.headers, m.payload) for m in msgs]


def test_the_hand_made_message_decodes_and_the_encoder_writes_the_same_bytes() -> None:
    assert _TOTAL == 43 and HAND_MADE[:8] == b"\x00\x00\x00\x2b\x00\x00\x00\x14"
    assert decode_split(HAND_MADE, 0) == [({":event-type": "chunk"}, b'{"x":1}')]
    assert encode_message({":event-type": "chunk"}, _PAYLOAD) == HAND_MADE


# Two messages written by an independent encoder (the Elixir `event_stream` package's documented
# examples, hex.pm/packages/event_stream lib/event_stream.ex): no headers, and one string header.
ELIXIR_PLAIN = bytes([0, 0, 0, 30, 0, 0, 0, 0, 186, 242, 246, 138, 123, 34, 102, 111,
                      111, 34, 58, 32, 34, 98, 97, 114, 34, 125, 174, 114, 88, 228])
ELIXIR_HEADER = bytes([0, 0, 0, 62, 0, 0, 0, 32, 64, 93, 249, 70, 12, 99, 111, 110, 116, 101, 110,
                       116, 45, 116, 121, 112, 101, 7, 0, 16, 97, 112, 112, 108, 105, 99, 97, 116,
                       105, 111, 110, 47, 106, 115, 111, 110, 123, 34, 102, 111, 111, 34, 58, 32, 34,
                       98, 97, 114, 34, 125, 111, 162, 191, 59])


def test_an_independent_encoders_messages_decode_and_encode_the_same() -> None:
    assert decode_split(ELIXIR_PLAIN + ELIXIR_HEADER, 31) == [
        ({}, b'{"foo": "bar"}'), ({"content-type": "application/json"}, b'{"foo": "bar"}')]
    assert encode_message({}, b'{"foo": "bar"}') == ELIXIR_PLAIN
    assert encode_message({"content-type": "application/json"}, b'{"foo": "bar"}') == ELIXIR_HEADER


CAPTURE = (
    event("messageStart", {"role": "assistant"})
    + event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Héllo"}})
    + HAND_MADE
    + encode_message({}, b"")  # the smallest message: 16 bytes, no headers, no payload
    + ELIXIR_HEADER
    + event("messageStop", {"stopReason": "stop"})
)


def test_every_split_point_gives_the_same_messages() -> None:
    whole = decode_split(CAPTURE, len(CAPTURE))
    assert [h.get(":event-type") for h, _ in whole] == ["messageStart", "contentBlockDelta", "chunk", None, None, "messageStop"]
    for cut in range(len(CAPTURE) + 1):
        assert decode_split(CAPTURE, cut) == whole, cut


def test_byte_by_byte_feeding_gives_the_same_messages() -> None:
    dec = EventStreamDecoder()
    got = [m for i in range(len(CAPTURE)) for m in dec.feed(CAPTURE[i:i + 1])]
    dec.close()
    assert [(m.headers, m.payload) for m in got] == decode_split(CAPTURE, 0)
    assert [m.offset for m in got][:2] == [0, len(event("messageStart", {"role": "assistant"}))]


def test_botocore_decodes_what_the_encoder_writes_and_agrees_with_the_decoder() -> None:
    eventstream = pytest.importorskip("botocore.eventstream")
    buffer = eventstream.EventStreamBuffer()
    buffer.add_data(CAPTURE)
    theirs = [(m.headers, m.payload) for m in buffer]
    assert theirs == decode_split(CAPTURE, 0)
    # and every header type botocore writes in its own tests reads back the same
    typed = encode_message({"s": "v", "b": b"\x01\x02", "i": -7, "t": True, "f": False}, b"p")
    buffer = eventstream.EventStreamBuffer()
    buffer.add_data(typed)
    assert [m.headers for m in buffer] == [{"s": "v", "b": b"\x01\x02", "i": -7, "t": True, "f": False}]
    assert decode_split(typed, 5)[0][0] == {"s": "v", "b": b"\x01\x02", "i": -7, "t": True, "f": False}


@pytest.mark.parametrize(
    ("where", "what"),
    [(9, "the prelude CRC does not match"), (20, "the message CRC does not match"), (-1, "the message CRC does not match")],
)
def test_a_flipped_byte_is_a_crc_error_naming_the_message_offset(where: int, what: str) -> None:
    first = event("messageStart", {"role": "assistant"})
    second = bytearray(event("contentBlockDelta", {"delta": {"text": "x"}}))
    second[where] ^= 0x01
    dec = EventStreamDecoder()
    assert len(dec.feed(first)) == 1
    with pytest.raises(InvalidResponseError) as info:
        dec.feed(bytes(second))
    assert what in info.value.message and f"byte {len(first)}" in info.value.message
    assert info.value.path == f"stream@{len(first)}"


def test_a_truncated_last_message_is_an_error_at_close() -> None:
    dec = EventStreamDecoder()
    data = HAND_MADE + HAND_MADE[:-3]
    assert len(dec.feed(data)) == 1
    with pytest.raises(InvalidResponseError, match=f"byte {len(HAND_MADE)}: the stream ended inside a message"):
        dec.close()


def test_an_impossible_length_is_refused_before_waiting_for_it() -> None:
    prelude = struct.pack(">II", 8, 0)
    with pytest.raises(InvalidResponseError, match="byte 0: the message length 8 is out of range"):
        EventStreamDecoder().feed(prelude + struct.pack(">I", zlib.crc32(prelude)))


# ------------------------------------------------------------------------------ a tiny mapping

STREAM_MAPPING = """
extends: tiny_base
meta: {id: es_chat}
errors:
  message: message
  type: error.type
  type_header: x-amzn-ErrorType
  rules:
    - {type: throttlingException, category: provider_rate_limit}
    - {status: "5xx", category: provider_unavailable}
    - {status: "*", category: provider_invalid_request}
stream:
  request: {stream: true}
  framing: aws_eventstream
  parse:
    rules:
      - {event: messageStart, emit: message_start}
      - {event: contentBlockDelta, emit: text, fields: {text: delta.text}}
      - {event: messageStop, emit: finish, fields: {reason: stopReason}}
      - {event: metadata, emit: usage, fields: {usage: usage}}
      - {event: metadata, emit: end}
  tool_calls: {new_id: same_call}
  emit:
    message_start: [{event: messageStart, data: {role: assistant}}]
    text_delta: [{event: contentBlockDelta, data: {contentBlockIndex: "{index}", delta: {text: "{text}"}}}]
    tool_call_start: []
    tool_call_delta: []
    finish: [{event: messageStop, data: {stopReason: "{finish_reason}"}}]
    usage: [{event: metadata, data: {usage: "{usage}"}}]
    error: [{event: internalServerException, data: {message: "{error.message}"}}]
    end: []
"""


def build(tmp_path: Path, text: str) -> ModuleType:
    folder = tmp_path / f"m{next(_ids)}" / "mappings"
    folder.mkdir(parents=True)
    shutil.copy(TINY_BASE, folder / TINY_BASE.name)
    (folder / "es_chat.yaml").write_text(text, "utf-8")
    files = generate(str(folder))
    package = f"wiremap_eventstream_pkg_{os.getpid()}_{next(_ids)}"
    where = tmp_path / package
    where.mkdir()
    for rel, body in files.items():
        (where / rel).write_text(body, "utf-8")
    spec = importlib.util.spec_from_file_location(package, where / "__init__.py", submodule_search_locations=[str(where)])
    assert spec is not None and spec.loader is not None
    sys.modules[package] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sys.modules[package])
    return importlib.import_module(f"{package}.{module_name('es_chat')}")


@pytest.fixture(scope="module")
def fmt(tmp_path_factory: pytest.TempPathFactory) -> format_registry.Format:
    return format_registry.Format(build(tmp_path_factory.mktemp("es"), STREAM_MAPPING))


BODY = (
    event("messageStart", {"role": "assistant"})
    + event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hel"}})
    + event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "lo"}})
    + event("messageStop", {"stopReason": "length"})
    + event("metadata", {"usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}})
)


def parse(fmt: format_registry.Format, *chunks: bytes) -> list[dict[str, Any]]:
    parser = StreamParser(fmt)
    out = [ev for chunk in chunks for ev in parser.feed(chunk)]
    return out + parser.close()


def test_the_mapping_reads_an_event_stream_split_anywhere(fmt: format_registry.Format) -> None:
    whole = parse(fmt, BODY)
    assert [ev["type"] for ev in whole] == ["message_start", "text_delta", "text_delta", "finish", "usage"]
    for cut in range(len(BODY) + 1):
        assert parse(fmt, BODY[:cut], BODY[cut:]) == whole, cut
    assembler = StreamAssembler(fmt)
    for ev in whole:
        assembler.add(ev)
    response = assembler.response().to_dict()
    assert response["message"]["content"] == "Hello"
    assert response["finish_reason"] == "length" and response["usage"]["total_tokens"] == 5


def test_an_exception_message_is_the_streams_error_typed_by_its_exception_type(fmt: format_registry.Format) -> None:
    exception = encode_message({":exception-type": "throttlingException", ":content-type": "application/json",
                                ":message-type": "exception"}, b'{"message":"Too many requests"}')
    start = event("messageStart", {"role": "assistant"})
    events = parse(fmt, start, exception, BODY[len(start):])  # nothing after the exception is read
    err_event = events[-1]
    assert err_event["type"] == "error" and err_event["category"] == "provider_rate_limit"
    assert err_event["error_type"] == "throttlingException" and "Too many requests" in err_event["message"]
    assert [ev["type"] for ev in events] == ["message_start", "error"]
    err = stream_error(err_event)
    assert isinstance(err, RateLimitError) and err.provider_type == "throttlingException"


def test_a_corrupt_or_truncated_body_ends_the_stream_with_a_typed_error(fmt: format_registry.Format) -> None:
    bad = bytearray(BODY)
    bad[-2] ^= 0xFF
    last = len(BODY) - len(event("metadata", {"usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}))
    events = parse(fmt, bytes(bad))
    assert events[-1]["category"] == "provider_invalid_response" and events[-1]["path"] == f"stream@{last}"
    events = parse(fmt, BODY[:-5])
    assert events[-1]["category"] == "provider_invalid_response"
    assert f"byte {last}: the stream ended inside a message" in events[-1]["message"]


def test_the_emitter_writes_event_stream_messages_that_read_back(fmt: format_registry.Format) -> None:
    emitter = StreamEmitter(fmt)
    assert emitter.media_type == "application/vnd.amazon.eventstream"
    out = b"".join(emitter.emit(ev) for ev in parse(fmt, BODY)) + emitter.close(trailer="losses")
    dec = EventStreamDecoder()
    msgs = dec.feed(out)
    dec.close()
    assert [m.headers[":event-type"] for m in msgs] == ["messageStart", "contentBlockDelta", "contentBlockDelta", "messageStop", "metadata"]
    assert {m.headers[":message-type"] for m in msgs} == {"event"}
    assert json.loads(msgs[1].payload) == {"contentBlockIndex": 0, "delta": {"text": "Hel"}}
    assert parse(fmt, out) == parse(fmt, BODY)


def test_the_emitter_writes_an_error_as_an_exception_message(fmt: format_registry.Format) -> None:
    emitter = StreamEmitter(fmt)
    out = emitter.emit({"type": "message_start", "raw": {}})
    out += emitter.emit({"type": "error", "category": "provider_unavailable", "message": "upstream down"})
    msgs = EventStreamDecoder().feed(out)
    assert msgs[-1].headers[":message-type"] == "exception"
    assert msgs[-1].headers[":exception-type"] == "internalServerException"
    assert json.loads(msgs[-1].payload) == {"message": "upstream down"}
    assert parse(fmt, out)[-1]["error_type"] == "internalServerException"


def test_the_generator_refuses_an_unknown_framing_and_an_unnamed_row(tmp_path: Path) -> None:
    with pytest.raises(MappingError, match=r"es_chat\.yaml:\d+: /stream/framing: 'websocket' is not allowed; expected one of: sse, aws_eventstream"):
        build(tmp_path, STREAM_MAPPING.replace("framing: aws_eventstream", "framing: websocket"))
    unnamed = STREAM_MAPPING.replace("finish: [{event: messageStop, data:", "finish: [{data:")
    with pytest.raises(MappingError, match=r"es_chat\.yaml:\d+: /stream/emit/finish/0: .*every emitted row needs an `event`"):
        build(tmp_path, unnamed)

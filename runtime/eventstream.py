"""The AWS event-stream framing (`stream.framing: aws_eventstream`): binary messages, each with
its own length and CRC32 checksums (AWS "Event stream encoding",
https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html and the Transcribe
and Bedrock streaming references; botocore.eventstream decodes the same bytes).

One message:

    prelude      total length (4 bytes, big-endian) + headers length (4) + CRC32 of those 8 bytes (4)
    headers      repeated: name length (1), name (UTF-8), value type (1), value
    payload      total length - headers length - 16 bytes
    message CRC  CRC32 of everything before it (4)

Header value types: 0 true, 1 false, 2 byte, 3 short, 4 integer, 5 long, 6 byte array (2-byte
length), 7 string (2-byte length, UTF-8), 8 timestamp (8 bytes, ms since the epoch), 9 UUID (16).
A stream's own headers are `:message-type` (`event`, `exception` or `error`), `:event-type`,
`:exception-type`, `:content-type`; `:error-code` / `:error-message` on an `error` message.
"""

from __future__ import annotations

import struct
import zlib
from typing import Final, Mapping, Union

from .errors import InvalidResponseError

__all__ = ["EventStreamMessage", "EventStreamDecoder", "encode_message", "HeaderValue", "MEDIA_TYPE"]

MEDIA_TYPE: Final = "application/vnd.amazon.eventstream"
_PRELUDE: Final = 12  # total length, headers length, prelude CRC
_MIN_MESSAGE: Final = 16  # prelude + message CRC
_MAX_MESSAGE: Final = 16 * 1024 * 1024  # botocore's limit: a larger length is a corrupt prelude
_MAX_HEADERS: Final = 128 * 1024
_FIXED: Final = {2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}
_SIGNED: Final = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}

HeaderValue = Union[str, bytes, int, bool]


class EventStreamMessage:
    """One decoded message: its headers (strings, byte arrays, integers, booleans; a timestamp is
    its milliseconds, a UUID its 16 bytes), its payload bytes, and its byte offset in the stream."""

    __slots__ = ("headers", "payload", "offset")

    def __init__(self, headers: dict[str, HeaderValue], payload: bytes, offset: int) -> None:
        self.headers = headers
        self.payload = payload
        self.offset = offset

    def text(self, name: str) -> str | None:
        """A string header's value (None when absent or not a string)."""
        value = self.headers.get(name)
        return value if isinstance(value, str) else None

    def __repr__(self) -> str:
        return f"EventStreamMessage(headers={self.headers!r}, payload={self.payload!r}, offset={self.offset})"


def _bad(offset: int, what: str) -> InvalidResponseError:
    return InvalidResponseError(f"the event stream is malformed at byte {offset}: {what}", path=f"stream@{offset}")


def _headers(raw: bytes, offset: int) -> dict[str, HeaderValue]:
    """The header block of the message at `offset` (the block starts at offset + 12)."""
    out: dict[str, HeaderValue] = {}
    i = 0
    while i < len(raw):
        at = offset + _PRELUDE + i
        n = raw[i]
        i += 1
        if n == 0 or i + n + 1 > len(raw):
            raise _bad(at, "a header name runs past the header block")
        try:
            name = raw[i:i + n].decode("utf-8")
        except UnicodeDecodeError:
            raise _bad(at, "a header name is not UTF-8") from None
        i += n
        kind = raw[i]
        i += 1
        value: HeaderValue
        if kind in (0, 1):
            value = kind == 0
        elif kind in _FIXED:
            size = _FIXED[kind]
            if i + size > len(raw):
                raise _bad(at, f"header {name!r} runs past the header block")
            chunk = raw[i:i + size]
            value = chunk if kind == 9 else int(struct.unpack(_SIGNED[kind], chunk)[0])
            i += size
        elif kind in (6, 7):
            if i + 2 > len(raw):
                raise _bad(at, f"header {name!r} runs past the header block")
            size = int.from_bytes(raw[i:i + 2], "big")
            i += 2
            if i + size > len(raw):
                raise _bad(at, f"header {name!r} runs past the header block")
            chunk = raw[i:i + size]
            i += size
            if kind == 6:
                value = chunk
            else:
                try:
                    value = chunk.decode("utf-8")
                except UnicodeDecodeError:
                    raise _bad(at, f"header {name!r} is not UTF-8") from None
        else:
            raise _bad(at, f"header {name!r} has an unknown value type {kind}")
        out[name] = value
    return out


class EventStreamDecoder:
    """Bytes split anywhere -> whole messages, each checksum checked.

    `feed(chunk)` returns the messages that chunk completes; `close()` checks nothing is left
    over. A bad length, a CRC mismatch, a malformed header or a truncated last message raises
    `InvalidResponseError` naming the byte offset of the message (path `stream@<offset>`)."""

    __slots__ = ("_buf", "_offset")

    def __init__(self) -> None:
        self._buf = b""
        self._offset = 0  # stream offset of _buf[0]

    def feed(self, chunk: bytes) -> list[EventStreamMessage]:
        buf = self._buf + chunk if self._buf else bytes(chunk)
        out: list[EventStreamMessage] = []
        start = 0
        while len(buf) - start >= _PRELUDE:
            at = self._offset + start
            total, head = struct.unpack_from(">II", buf, start)
            (prelude_crc,) = struct.unpack_from(">I", buf, start + 8)
            if zlib.crc32(buf[start:start + 8]) != prelude_crc:
                raise _bad(at, "the prelude CRC does not match")
            if total < _MIN_MESSAGE or total > _MAX_MESSAGE:
                raise _bad(at, f"the message length {total} is out of range")
            if head > _MAX_HEADERS or head > total - _MIN_MESSAGE:
                raise _bad(at, f"the headers length {head} does not fit the message")
            if len(buf) - start < total:
                break
            body = buf[start:start + total - 4]
            (message_crc,) = struct.unpack_from(">I", buf, start + total - 4)
            if zlib.crc32(body) != message_crc:
                raise _bad(at, "the message CRC does not match")
            headers = _headers(body[_PRELUDE:_PRELUDE + head], at)
            out.append(EventStreamMessage(headers, body[_PRELUDE + head:], at))
            start += total
        self._buf = buf[start:]
        self._offset += start
        return out

    def close(self) -> None:
        """The end of the body: a partial message left over is a truncated stream."""
        if self._buf:
            at, size = self._offset, len(self._buf)
            self._buf = b""
            raise _bad(at, f"the stream ended inside a message ({size} bytes of it received)")


def _header_bytes(name: str, value: HeaderValue) -> bytes:
    raw = name.encode("utf-8")
    if not 0 < len(raw) < 256:
        raise ValueError(f"event-stream header name {name!r} must be 1 to 255 bytes")
    if isinstance(value, bool):
        return bytes([len(raw)]) + raw + bytes([0 if value else 1])
    if isinstance(value, int):
        return bytes([len(raw)]) + raw + b"\x04" + struct.pack(">i", value)
    kind, data = (6, value) if isinstance(value, bytes) else (7, value.encode("utf-8"))
    if len(data) > 0xFFFF:
        raise ValueError(f"event-stream header {name!r} is longer than 65535 bytes")
    return bytes([len(raw)]) + raw + bytes([kind]) + len(data).to_bytes(2, "big") + data


def encode_message(headers: Mapping[str, HeaderValue], payload: bytes) -> bytes:
    """One event-stream message: headers in the order given (a string is type 7, bytes type 6, an
    int type 4, a bool type 0/1), the payload, both CRCs."""
    head = b"".join(_header_bytes(k, v) for k, v in headers.items())
    total = _MIN_MESSAGE + len(head) + len(payload)
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    body = prelude + head + payload
    return body + struct.pack(">I", zlib.crc32(body))

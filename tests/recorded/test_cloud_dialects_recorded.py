"""The recorded first-party traffic (`../shared/recorded`) through the cloud-hosted dialects.

Claude on Bedrock and on Vertex AI, and Gemini on Vertex AI, take and answer their base's bodies
(the differences are in the URL, auth and transport fields: mappings/dialects/*/): so every
recorded Anthropic Messages and Gemini record must come out of the dialect exactly as it comes
out of its base (same outcome in the round-trip harness, same canonical reading). Bedrock's
streams are the same events wrapped in event-stream `chunk` messages: each recorded SSE stream,
re-framed so, must parse to the base's events. Bedrock errors are AWS-shaped, not Anthropic's:
its error records are left out."""

from __future__ import annotations

import base64
import json
import warnings
from typing import Any

import pytest

import recorded_harness as harness
import wiremap
from wiremap.runtime.eventstream import encode_message
from wiremap.runtime.stream import SSEDecoder, parse_stream

if not harness.RECORDED_DIR.is_dir():  # pragma: no cover - the data sits beside the repository
    pytest.skip(f"no recorded traffic at {harness.RECORDED_DIR}", allow_module_level=True)

BASE = {"anthropic.bedrock": "anthropic.messages_2023_06_01", "anthropic.vertex": "anthropic.messages_2023_06_01",
        "gemini.vertex": "gemini_generate_content"}
RECORDS = harness.records()


def chunks(sse: str) -> bytes:
    """An SSE stream re-framed as InvokeModelWithResponseStream: one `chunk` per event."""
    decoder = SSEDecoder()
    events = decoder.feed(sse.encode("utf-8")) + decoder.close()
    out = b""
    for _event, data in events:
        part = json.dumps({"bytes": base64.b64encode(data.encode("utf-8")).decode()}).encode()
        out += encode_message({":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}, part)
    return out


def _unnamed(d: dict[str, Any]) -> dict[str, Any]:
    """A canonical dict without the name of the format that read its carried data (`reader`,
    which names the dialect on one side and the base on the other)."""
    if isinstance(d.get("carried"), dict):
        d["carried"].pop("reader", None)
    return d


def reading(fmt: Any, record: dict[str, Any]) -> Any:
    from wiremap.runtime.errors import ProviderError

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if record["kind"] == "request":
                return _unnamed(fmt.request_from_wire(harness._request_body(record)).to_dict())
            if record["kind"] == "response":
                return _unnamed(fmt.response_from_wire(record["body"]).to_dict())
        except ProviderError as exc:
            return ("refused", exc.category, str(exc.path))
    return None


@pytest.mark.parametrize("dialect", sorted(BASE))
def test_recorded_traffic_reads_as_in_the_base(dialect: str) -> None:
    base_key = BASE[dialect]
    fmt, base = wiremap.get_format(dialect), wiremap.get_format(base_key)
    mine = [r for r in RECORDS if r["format"] == base_key and not (dialect == "anthropic.bedrock" and r["kind"] in ("stream", "error"))]
    assert len(mine) > 100
    differ = []
    for record in mine:
        if harness.outcome({**record, "format": dialect}) != harness.outcome(record):
            differ.append((record["_where"], "outcome"))
        elif reading(fmt, record) != reading(base, record):
            differ.append((record["_where"], "reading"))
    assert differ == []


def test_recorded_streams_reframed_as_bedrock_chunks_parse_as_the_sse() -> None:
    streams = [r for r in RECORDS if r["format"] == "anthropic.messages_2023_06_01" and r["kind"] == "stream"]
    assert streams
    for record in streams:
        want = parse_stream(record["sse"].encode("utf-8"), "anthropic.messages_2023_06_01")
        got = parse_stream(chunks(record["sse"]), "anthropic.bedrock")
        assert got == want, record["_where"]

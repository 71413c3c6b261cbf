"""Every event the emitters write is a valid event of the official SDKs' stream types, checked
strictly (no missing required key, no unknown key, every value of its declared type):
`openai.types.chat.ChatCompletionChunk` and `anthropic.types.RawMessageStreamEvent`; Gemini
chunks as the v1beta `GenerateContentResponse` protobuf (tests/oracle/gemini_oracle.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

openai_types = pytest.importorskip("openai.types.chat")
anthropic_types = pytest.importorskip("anthropic.types")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracle"))
from recorded import ALL, Recorded  # noqa: E402
from sdk_oracle import check_typed  # noqa: E402

from wiremap.runtime.stream import SSEDecoder, translate_stream  # noqa: E402

try:
    from gemini_oracle import check_gemini_response
except ImportError:  # pragma: no cover - google-ai-generativelanguage not installed
    check_gemini_response = None

TYPES = {"openai_chat": openai_types.ChatCompletionChunk, "anthropic_messages": anthropic_types.RawMessageStreamEvent}
# the OpenAI-compatible reasoning extension (oa §8.1.6) is not in the OpenAI SDK's ChoiceDelta
EXTENSION_KEYS = {"openai_chat": {"reasoning_content"}}


def check(fmt: str, out: bytes) -> int:
    dec = SSEDecoder()
    events = dec.feed(out) + dec.close()
    checked = 0
    for name, data in events:
        if data == "[DONE]":
            continue
        obj = json.loads(data)
        if "error" in obj and (fmt == "openai_chat" or obj.get("type") == "error"):
            assert set(obj["error"]) >= {"message", "type"}  # the format's error envelope
            continue
        if fmt == "gemini_generate_content":
            if "error" in obj:
                assert set(obj["error"]) >= {"code", "message", "status"}  # google.rpc.Status
                continue
            assert name is None and check_gemini_response is not None
            check_gemini_response(obj)  # each chunk is a partial GenerateContentResponse
            checked += 1
            continue
        if fmt == "anthropic_messages":
            assert name == obj["type"], "the SSE event name repeats the data's type"
        for choice in obj.get("choices") or []:
            for key in EXTENSION_KEYS.get(fmt, ()):
                choice.get("delta", {}).pop(key, None)
        check_typed(obj, TYPES[fmt])
        checked += 1
    return checked


@pytest.mark.parametrize("target", sorted(TYPES) + (["gemini_generate_content"] if check_gemini_response else []))
@pytest.mark.parametrize("rec", ALL, ids=[r.id for r in ALL])
def test_emitted_events_are_sdk_stream_events(rec: Recorded, target: str) -> None:
    out = b"".join(translate_stream([rec.body], rec.format, target))
    assert check(target, out) > 0

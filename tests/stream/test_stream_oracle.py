"""Every event the emitters write is a valid event of the official SDKs' stream types, checked
strictly (no missing required key, no unknown key, every value of its declared type):
`openai.types.chat.ChatCompletionChunk`, `openai.types.responses.ResponseStreamEvent`,
`anthropic.types.RawMessageStreamEvent`, mistralai's `CompletionChunk` and cohere's `V2ChatStreamResponse`; Gemini chunks as the v1beta `GenerateContentResponse`
protobuf (tests/oracle/gemini_oracle.py). A Responses stream is also checked as a sequence:
sequence_number counts from 0, response.created comes first and a closing event with the whole
Response last, every item is added before its deltas and done once."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

openai_types = pytest.importorskip("openai.types.chat")
responses_types = pytest.importorskip("openai.types.responses")
anthropic_types = pytest.importorskip("anthropic.types")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "oracle"))
from recorded import ALL, Recorded  # noqa: E402
from sdk_oracle import check_typed  # noqa: E402

from wiremap.runtime.stream import SSEDecoder, parse_stream, translate_stream  # noqa: E402

try:
    import compat_oracle  # noqa: F401  (teaches the checker mistralai's Unset / open enums)
    from mistralai.client.models import CompletionChunk as MistralChunk
except ImportError:  # pragma: no cover - mistralai not installed
    MistralChunk = None

try:
    from gemini_oracle import check_gemini_response
except ImportError:  # pragma: no cover - google-ai-generativelanguage not installed
    check_gemini_response = None

TYPES = {
    "openai_chat": openai_types.ChatCompletionChunk,
    "anthropic_messages": anthropic_types.RawMessageStreamEvent,
    "openai_responses": responses_types.ResponseStreamEvent,
}
if MistralChunk is not None:
    TYPES["mistral"] = MistralChunk
TYPES["openrouter"] = openai_types.ChatCompletionChunk  # the OpenAI chunk plus OpenRouter's reasoning keys
try:
    from cohere.v2.types.v2chat_stream_response import V2ChatStreamResponse as CohereEvent
except ImportError:  # pragma: no cover - cohere not installed
    CohereEvent = None
if CohereEvent is not None:
    TYPES["cohere_chat"] = CohereEvent  # tests/oracle/test_cohere_oracle.py checks it further
NAMED = {"anthropic_messages", "openai_responses", "cohere_chat"}  # the SSE event name repeats the data's type
# the OpenAI-compatible reasoning extension (oa §8.1.6) is not in the OpenAI SDK's ChoiceDelta
EXTENSION_KEYS = {"openai_chat": {"reasoning_content"}, "openrouter": {"reasoning", "reasoning_details"}}


def check(fmt: str, out: bytes) -> int:
    dec = SSEDecoder()
    events = dec.feed(out) + dec.close()
    checked = 0
    for name, data in events:
        if data == "[DONE]":
            continue
        obj = json.loads(data)
        if fmt == "mistral" and obj.get("object") == "error":
            assert set(obj) >= {"message", "type"}  # Mistral's own error object
            continue
        if "error" in obj and (fmt in ("openai_chat", "openrouter") or obj.get("type") == "error"):
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
        if fmt in NAMED:
            assert name == obj["type"], "the SSE event name repeats the data's type"
        for choice in obj.get("choices") or []:
            delta = choice.get("delta", {})
            if fmt == "openrouter":  # api: `reasoning` text; reasoning_details entries {type: reasoning.*, ...}
                assert isinstance(delta.get("reasoning", ""), str)
                for entry in delta.get("reasoning_details") or []:
                    assert isinstance(entry, dict) and str(entry.get("type", "")).startswith("reasoning."), entry
            for key in EXTENSION_KEYS.get(fmt, ()):
                delta.pop(key, None)
        check_typed(obj, TYPES[fmt])
        checked += 1
    if fmt == "openai_responses":
        check_responses_sequence([json.loads(d) for _n, d in events])
    return checked


def check_responses_sequence(objs: list[dict[str, Any]]) -> None:
    """api-ref: sequence_number increases from 0; response.created opens; an item is added (once)
    before its deltas and done (once) after them, with the same id; the stream ends with the
    whole Response (completed / incomplete / failed) or an error event."""
    assert [o["sequence_number"] for o in objs] == list(range(len(objs)))
    assert objs[0]["type"] == "response.created"
    assert objs[-1]["type"] in ("response.completed", "response.incomplete", "response.failed", "error")
    added: dict[int, dict[str, Any]] = {}
    done: set[int] = set()
    for o in objs:
        index = o.get("output_index")
        if o["type"] == "response.output_item.added":
            assert index not in added, f"output index {index} added twice"
            added[index] = o["item"]
        elif o["type"] == "response.output_item.done":
            assert index in added and index not in done, f"output index {index} done without being added, or twice"
            assert added[index].get("id") == o["item"].get("id") and added[index]["type"] == o["item"]["type"]
            done.add(index)
        elif index is not None:
            assert index in added and index not in done, f"{o['type']} for output index {index} outside its item"
    if objs[-1]["type"] != "error":
        assert done == set(added), "every item is done before the response closes"
        assert objs[-1]["response"]["status"] == objs[-1]["type"].removeprefix("response.")


@pytest.mark.parametrize("target", sorted(TYPES) + (["gemini_generate_content"] if check_gemini_response else []))
@pytest.mark.parametrize("rec", ALL, ids=[r.id for r in ALL])
def test_emitted_events_are_sdk_stream_events(rec: Recorded, target: str) -> None:
    # the emitter's own output: a stream's bytes into its own format pass through whole
    source = parse_stream(rec.body, rec.format) if rec.format == target else [rec.body]
    out = b"".join(translate_stream(source, rec.format, target))
    assert check(target, out) > 0

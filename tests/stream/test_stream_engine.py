"""The stream engine on recorded streams: every split into network reads gives the same events
and the same assembled Response; the assembly equals the non-streamed parse of the same answer;
emitted streams parse back; errors end the stream typed, keeping what was received."""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from recorded import ALL, Recorded  # noqa: E402

import wiremap  # noqa: E402
from wiremap.runtime.stream import (  # noqa: E402
    SSEDecoder,
    StreamAssembler,
    StreamParser,
    events_from_response,
    parse_stream,
    stream_request_to_wire,
    translate_stream,
)

STREAMING = ["openai_chat", "anthropic_messages", "gemini_generate_content", "openai_responses", "mistral", "openrouter", "cohere_chat"]
IDS = [r.id for r in ALL]


def run(rec_format: str, chunks: list[bytes], wire_map: Any = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Events and the assembled outcome (response dict, or the error and its partial)."""
    parser = StreamParser(rec_format, wire_map=wire_map)
    asm = StreamAssembler(rec_format)
    events: list[dict[str, Any]] = []
    for chunk in chunks:
        events += parser.feed(chunk)
    events += parser.close()
    for ev in events:
        asm.add(ev)
    try:
        return events, {"response": asm.response().to_dict()}
    except wiremap.ProviderError as exc:
        return events, {"error": exc.category, "partial": exc.partial}


def splits(body: bytes, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    out, i = [], 0
    while i < len(body):
        n = rng.choice([1, 2, 3, 5, 8, 13, 64, 200])
        out.append(body[i : i + n])
        i += n
    return out


@pytest.mark.parametrize("rec", ALL, ids=IDS)
def test_every_split_gives_the_same_events_and_response(rec: Recorded) -> None:
    whole = run(rec.format, [rec.body])
    assert whole[0], "no events"
    bytewise = run(rec.format, [rec.body[i : i + 1] for i in range(len(rec.body))])
    assert bytewise == whole
    for seed in range(25):
        assert run(rec.format, splits(rec.body, seed)) == whole, f"seed {seed}"
    # every two-way split point
    for cut in range(0, len(rec.body) + 1, max(1, len(rec.body) // 300)):
        assert run(rec.format, [rec.body[:cut], rec.body[cut:]]) == whole, f"cut at {cut}"


@pytest.mark.parametrize("rec", ALL, ids=IDS)
def test_outcome(rec: Recorded) -> None:
    events, outcome = run(rec.format, [rec.body])
    assert events[0]["type"] == "message_start"
    assert [e["type"] for e in events].count("message_start") == 1
    if rec.error:
        assert outcome.get("error") == rec.error, outcome
        assert events[-1]["type"] == "error"
        partial = outcome["partial"]
        assert partial["finish_reason"] == "error"
        assert "Partial" in json.dumps(partial["message"]), "what was received is kept"
        return
    assert "response" in outcome, outcome
    if rec.equivalent is not None:
        fmt = wiremap.get_format(rec.format)
        expected = fmt.response_from_wire(copy.deepcopy(rec.equivalent)).to_dict()
        got = dict(outcome["response"])
        raw = got.pop("raw")
        expected.pop("raw")
        expected.pop("carried", None)  # a streamed response carries no wire data yet (mappings/README.md, known gaps)
        got.pop("carried", None)
        assert got == expected
        # raw is the equivalent non-streamed body: it parses to the same Response
        reparsed = fmt.response_from_wire(raw).to_dict()
        reparsed.pop("raw")
        reparsed.pop("carried", None)
        assert reparsed == expected


def test_reasoning_extension_assembles_into_a_thinking_block() -> None:
    rec = next(r for r in ALL if r.name == "reasoning_then_text")
    events, outcome = run(rec.format, [rec.body])
    assert [e["type"] for e in events if e["type"].endswith("delta")] == ["reasoning_delta"] * 3 + ["text_delta"]
    msg = outcome["response"]["message"]
    assert msg["content"] == [{"type": "thinking", "text": "Thinking. More.", "origin": "openai"}, {"type": "text", "text": "Answer."}]


def test_index_0_servers_get_one_call_per_id() -> None:
    rec = next(r for r in ALL if r.name == "tool_calls_all_at_index_0")
    events, _ = run(rec.format, [rec.body])
    starts = [(e["index"], e["id"]) for e in events if e["type"] == "tool_call_start"]
    ends = [e["index"] for e in events if e["type"] == "tool_call_end"]
    assert starts == [(0, "call_a"), (1, "call_b")] and ends == [0, 1]


def test_usage_malformed_counter_is_null_and_verbatim_on_raw() -> None:
    body = (
        b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":"Hi."},"finish_reason":"stop"}]}\n\n'
        b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":"abc","completion_tokens":3,"total_tokens":10}}\n\n'
        b"data: [DONE]\n\n"
    )
    _events, outcome = run("openai_chat", [body])
    r = outcome["response"]
    assert r["usage"] == {"prompt_tokens": None, "completion_tokens": 3, "total_tokens": 10}
    assert r["raw"]["usage"] == {"prompt_tokens": "abc", "completion_tokens": 3, "total_tokens": 10}


@pytest.mark.parametrize("target", STREAMING)
@pytest.mark.parametrize("rec", [r for r in ALL if not r.error], ids=[r.id for r in ALL if not r.error])
def test_translated_stream_parses_back(rec: Recorded, target: str) -> None:
    _events, outcome = run(rec.format, [rec.body])
    source = outcome["response"]
    t = translate_stream(splits(rec.body, 7), rec.format, target)
    out = b"".join(t)
    assert t.response is not None and t.response.to_dict() == source
    # a target with wire_rules (Mistral) got ids that fit; its emitter's map reads them back as the source's
    events2, outcome2 = run(target, [out[i : i + 1] for i in range(len(out))], wire_map=t.emitter.wire_map)
    assert "response" in outcome2, outcome2
    back = outcome2["response"]
    src_msg, back_msg = source["message"], back["message"]
    lost = {loss.path for loss in t.losses}
    # a tool-call signature (Gemini's thoughtSignature) the target cannot carry is reported lost
    src_calls = [
        {k: v for k, v in c.items() if f"message.tool_calls[{i}].signature" not in lost or k not in ("signature", "origin")}
        for i, c in enumerate(src_msg.get("tool_calls") or [])
    ]
    assert (back_msg.get("tool_calls") or []) == src_calls
    # a finish reason the target has no word for (error, on OpenAI or Anthropic) is reported changed
    assert back["finish_reason"] == source["finish_reason"] or "finish_reason" in lost
    text = lambda m: "".join(b["text"] for b in m["content"] if b["type"] == "text") if isinstance(m["content"], list) else (m["content"] or "")  # noqa: E731
    assert text(back_msg) == text(src_msg)
    lost = {loss.path for loss in t.losses}
    for name in ("prompt_tokens", "completion_tokens", "total_tokens"):
        # a wire that requires counters writes unreported ones as 0, and says so
        assert back["usage"][name] == source["usage"][name] or f"usage.{name}" in lost
    if target == rec.format:
        # the stream's carried data is no loss on its own wire (the emitter writes none of it:
        # docs/canonical.md "Carried data in streams"); everything else reads back the same
        assert {k: v for k, v in back.items() if k not in ("raw", "carried")} == {k: v for k, v in source.items() if k not in ("raw", "carried")}
        assert not t.losses
    for i, block in enumerate(src_msg["content"] if isinstance(src_msg["content"], list) else []):
        plain = lambda b: {k: v for k, v in b.items() if k != "origin"}  # noqa: E731
        carried = isinstance(back_msg["content"], list) and plain(block) in [plain(b) for b in back_msg["content"]]
        if block["type"] != "text":
            assert carried or f"message.content[{i}]" in lost, f"{block} neither carried nor reported"
    if t.losses:
        assert b": wiremap-losses " in out


@pytest.mark.parametrize("target", STREAMING)
@pytest.mark.parametrize("rec", [r for r in ALL if r.error], ids=[r.id for r in ALL if r.error])
def test_translated_error_stream_ends_with_the_targets_error_event(rec: Recorded, target: str) -> None:
    t = translate_stream([rec.body], rec.format, target)
    out = b"".join(t)
    assert t.response is None and t.error is not None and t.error.category == rec.error
    assert "Partial" in json.dumps(t.error.partial)
    events, outcome = run(target, [out])
    assert events[-1]["type"] == "error" and "error" in outcome
    assert "Partial" in json.dumps(outcome["partial"])


@pytest.mark.parametrize("fmt", STREAMING)
@pytest.mark.parametrize("rec", [r for r in ALL if not r.error], ids=[r.id for r in ALL if not r.error])
def test_events_from_response_reassemble(rec: Recorded, fmt: str) -> None:
    response = run(rec.format, [rec.body])[1]["response"]
    asm = StreamAssembler(rec.format)
    for ev in events_from_response(response):
        asm.add(ev)
    again = asm.response().to_dict()
    assert {k: v for k, v in again.items() if k != "raw"} == {k: v for k, v in response.items() if k != "raw"}


def test_canonical_events_in_bytes_out() -> None:
    rec = next(r for r in ALL if r.id == "anthropic_messages:text")
    events = parse_stream(rec.body, rec.format)
    out = b"".join(translate_stream(events, rec.format, "openai_chat"))
    assert out.endswith(b"data: [DONE]\n\n")
    assert run("openai_chat", [out])[1]["response"]["message"]["content"] == "Héllo wörld 👋"


def test_sse_framing() -> None:
    dec = SSEDecoder()
    got = []
    for piece in [b": keep-alive\r", b"\nevent: a\rdata: 1\r\n", b"data: 2\n", b"id: 7\nretry: 10\n\n", b"data:x\n\n", b"data: tail"]:
        got += dec.feed(piece)
    got += dec.close()
    assert got == [("a", "1\n2"), (None, "x"), (None, "tail")]


@pytest.mark.parametrize("fmt", STREAMING)
def test_garbage_never_raises(fmt: str) -> None:
    rng = random.Random(3)
    for _ in range(200):
        blob = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 80)))
        lines = rng.choice([b"data: ", b"event: error\ndata: ", b"event: message_delta\ndata: {\"delta\": 5}\n\n", b""]) + blob + b"\n\n"
        events = parse_stream(lines, fmt)
        assert events and events[-1]["type"] in ("error", "tool_call_end", "finish", "usage", "text_delta", "message_start") or events
        assert events[-1]["type"] == "error" or any(e["type"] == "finish" for e in events)


def test_wrong_types_name_the_path() -> None:
    body = b'data: {"id":"c","choices":[{"index":0,"delta":{"content":5}}]}\n\n'
    events = parse_stream(body, "openai_chat")
    assert events[-1]["type"] == "error" and events[-1]["path"] == "choices[0].delta.content"
    body = b'data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":["a"]}}]}}]}\n\n'
    events = parse_stream(body, "openai_chat")
    assert events[-1]["path"] == "choices[0].delta.tool_calls[0].function.arguments"


def test_arguments_that_are_not_json() -> None:
    body = (
        b'data: {"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{nope"}}]}}]}\n\n'
        b'data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    )
    _e, outcome = run("openai_chat", [body])
    assert outcome["error"] == "provider_invalid_response"
    assert outcome["partial"]["message"]["tool_calls"] == [{"id": "x", "name": "f", "arguments": None}]


# ------------------------------------------------------------------------------------ requests

REQ = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def test_stream_request_sets_the_managed_fields() -> None:
    assert stream_request_to_wire("openai_chat", REQ) == {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True, "stream_options": {"include_usage": True}}
    wire = stream_request_to_wire("anthropic_messages", {**REQ, "config": {"extras": {"stream": True}}})
    assert wire["stream"] is True and "config" not in wire


@pytest.mark.parametrize(
    "fmt,extras,path",
    [
        ("openai_chat", {"stream": False}, "config.extras.stream"),
        ("openai_chat", {"stream_options": {"include_usage": False}}, "config.extras.stream_options"),
        ("anthropic_messages", {"stream": False}, "config.extras.stream"),
    ],
)
def test_conflicting_managed_extras_are_rejected(fmt: str, extras: dict[str, Any], path: str) -> None:
    with pytest.raises(wiremap.InvalidRequestError) as info:
        stream_request_to_wire(fmt, {**REQ, "config": {"extras": extras}})
    assert info.value.path == path


def test_a_format_without_a_stream_table_refuses() -> None:
    with pytest.raises(wiremap.InvalidRequestError) as info:
        stream_request_to_wire("openarmature.anthropic_messages", {**REQ, "config": {"max_tokens": 5}})
    assert info.value.path == "stream" and "does not support streaming" in str(info.value)


def test_parts_of_one_chunk_keep_their_order() -> None:
    """Rules over the same `each` list run item by item: thought, text, thought in one Gemini
    chunk are three parts in that order (rule by rule they would come out grouped by kind)."""
    parts = [{"text": "A", "thought": True}, {"text": "B"}, {"text": "C", "thought": True, "thoughtSignature": "c2ln"}]
    chunk = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}]}
    events = parse_stream(b"data: " + json.dumps(chunk).encode() + b"\n\n", "gemini_generate_content")
    got = [(e["type"], e["index"]) for e in events if e["type"] in ("text_delta", "reasoning_delta", "reasoning_signature")]
    assert got == [("reasoning_delta", 0), ("text_delta", 1), ("reasoning_delta", 2), ("reasoning_signature", 2)]


def test_whole_calls_without_id_get_the_non_streamed_id() -> None:
    body = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"x": 1}}}, {"functionCall": {"name": "f", "args": {"x": 1}}}]}, "finishReason": "STOP", "index": 0}]}
    _events, outcome = run("gemini_generate_content", [b"data: " + json.dumps(body).encode() + b"\n\n"])
    expected = wiremap.get_format("gemini_generate_content").response_from_wire(copy.deepcopy(body)).to_dict()
    calls = outcome["response"]["message"]["tool_calls"]
    assert calls == expected["message"]["tool_calls"] and calls[0]["id"] != calls[1]["id"]
    assert outcome["response"]["finish_reason"] == "tool_calls"


def _mutate(obj: Any, rng: random.Random) -> Any:
    """One leaf or container of `obj` replaced by a value of another type."""
    paths: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                paths.append((node, k))
                walk(v)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                paths.append((node, i))
                walk(v)

    walk(obj)
    if paths:
        parent, key = rng.choice(paths)
        parent[key] = rng.choice([None, 7, -1, 2.5, True, "x", "", [], [1, "a"], {}, {"type": 3}, {"index": [1]}, "[DONE]"])
    return obj


@pytest.mark.parametrize("rec", ALL, ids=IDS)
def test_mutated_events_end_typed_never_raise(rec: Recorded) -> None:
    """Any value of any type anywhere in any event: the parser never raises, and the assembly
    raises only a ProviderError (a malformed field is an `error` event naming its path)."""
    dec = SSEDecoder()
    frames = dec.feed(rec.body) + dec.close()
    rng = random.Random(rec.id)
    for _ in range(60):
        i = rng.randrange(len(frames))
        out = []
        for j, (name, data) in enumerate(frames):
            if j == i and data != "[DONE]":
                try:
                    data = json.dumps(_mutate(json.loads(data), rng))
                except ValueError:  # the recorded malformed event stays malformed
                    pass
            out.append((f"event: {name}\n" if name else "") + f"data: {data}\n\n")
        events = parse_stream("".join(out).encode(), rec.format)
        assert events[0]["type"] == "message_start"
        asm = StreamAssembler(rec.format)
        for ev in events:
            asm.add(ev)
        try:
            asm.response()
        except wiremap.ProviderError as exc:
            assert exc.partial is not None
        bad = [e for e in events if e["type"] == "error" and e["category"] == "provider_invalid_response" and "path" in e]
        for e in bad:
            assert isinstance(e["path"], str) and e["path"]

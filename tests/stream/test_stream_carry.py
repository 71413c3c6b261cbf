"""Streamed responses keep the wire data their stream rules do not read (docs/canonical.md
"Carried data in streams"): a `carried` event the assembler folds into `Response.carried`, named
as a loss when a stream is translated to another wire, never when it goes back to its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from wiremap.runtime.format import get_format
from wiremap.runtime.stream import StreamAssembler, parse_stream, translate_stream

ROOT = Path(__file__).resolve().parents[2]


def fixture(key: str, fid: str) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "mappings" / "fixtures" / f"{key}.yaml").read_text())
    return next(f for f in data["fixtures"] if f["id"] == fid)


def sse(*chunks: dict[str, Any], done: bool = True) -> bytes:
    out = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (out + ("data: [DONE]\n\n" if done else "")).encode()


def assembled(body: bytes, key: str) -> Any:
    asm = StreamAssembler(key)
    for ev in parse_stream(body, key):
        asm.add(ev)
    return asm.response()


def translated(body: bytes, source: str, target: str) -> tuple[bytes, list[Any]]:
    t = translate_stream([body[i : i + 7] for i in range(0, len(body), 7)], source, target)
    out = b"".join(t)
    return out, t.losses


def carried_paths(losses: list[Any]) -> set[str]:
    return {loss.path for loss in losses if "wire data the target cannot carry" in loss.detail}


AZURE = fixture("azure_openai", "stream_prompt_filter_chunk_opens_nothing")["stream_from_wire"].encode()
AZURE_FILTERED = fixture("azure_openai", "stream_filtered_mid_stream")["stream_from_wire"].encode()
PERPLEXITY = fixture("perplexity", "stream_running_usage_citations_carried")["stream_from_wire"].encode()
COHERE_PLAN = fixture("cohere_chat", "stream_thinking_and_tool_call")["stream_from_wire"].encode()
COHERE_CITES = fixture("cohere_chat", "stream_text_with_citations")["stream_from_wire"].encode()
ANTHROPIC_SERVER = fixture("anthropic_messages", "stream_server_tool_use_is_no_tool_call")["stream_from_wire"].encode()


@pytest.mark.parametrize(
    ("body", "source", "target", "paths"),
    [
        # `created`: an envelope value Anthropic's and Gemini's answers have no field for (translate._envelope_losses)
        (AZURE, "azure_openai", "anthropic_messages", {"prompt_filter_results", "choices[0].content_filter_results", "system_fingerprint", "created"}),
        (AZURE, "azure_openai", "openai_chat", {"prompt_filter_results", "choices[0].content_filter_results", "system_fingerprint"}),
        (AZURE_FILTERED, "azure_openai", "gemini_generate_content", {"choices[0].content_filter_results", "created"}),
        (PERPLEXITY, "perplexity", "anthropic_messages", {"citations", "search_results", "created"}),
        (PERPLEXITY, "perplexity", "openai_chat", {"citations", "search_results"}),
        (COHERE_PLAN, "cohere_chat", "openai_chat", {"message.tool_plan"}),
        (COHERE_CITES, "cohere_chat", "anthropic_messages", {"message.citations"}),
        # a server tool's blocks no rule reads: the events, whole (the non-streamed body carries the blocks)
        (ANTHROPIC_SERVER, "anthropic_messages", "openai_chat", {"content_block_start", "content_block_delta"}),
    ],
)
def test_translated_stream_names_the_carried_data_at_its_path(body: bytes, source: str, target: str, paths: set[str]) -> None:
    out, losses = translated(body, source, target)
    assert carried_paths(losses) == paths
    trailer = [line for line in out.decode().splitlines() if line.startswith(": wiremap-losses ")]
    assert len(trailer) == 1
    named = {loss["path"] for loss in json.loads(trailer[0][len(": wiremap-losses "):])}
    assert paths <= named


@pytest.mark.parametrize(
    ("body", "key"),
    [(AZURE, "azure_openai"), (AZURE_FILTERED, "azure_openai"), (PERPLEXITY, "perplexity"), (COHERE_PLAN, "cohere_chat"), (COHERE_CITES, "cohere_chat"),
     (ANTHROPIC_SERVER, "anthropic_messages")],
)
def test_same_format_gains_no_loss_from_carried_data(body: bytes, key: str) -> None:
    with_carry = translated(body, key, key)[1]
    assert not carried_paths(with_carry)
    # nothing beyond what the stream without its unread data loses
    events = [ev for ev in parse_stream(body, key) if ev["type"] != "carried"]
    t = translate_stream(events, key, key)
    b"".join(t)
    assert [loss.path for loss in with_carry] == [loss.path for loss in t.losses]


def test_azure_filter_results_keep_the_last_value_per_path() -> None:
    resp = assembled(AZURE, "azure_openai")
    ops = dict(resp.carried.ops)
    assert resp.carried.origin == get_format("azure_openai").module.ORIGIN
    assert ops[("prompt_filter_results",)][0]["prompt_index"] == 0
    # every chunk repeats it: one op, the last non-empty value
    assert list(ops).count(("choices", 0, "content_filter_results")) == 1
    assert ops[("choices", 0, "content_filter_results")]["hate"] == {"filtered": False, "severity": "safe"}
    assert ops[("system_fingerprint",)] == "fp_1"


def test_repeated_chunk_fields_do_not_explode_and_padding_is_not_carried() -> None:
    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 5, "model": "gpt", "system_fingerprint": "fp", "service_tier": "default",
             "obfuscation": "x9", "choices": [{"index": 0, "delta": {"content": "a", "refusal": None}, "logprobs": None, "finish_reason": None}]}
    last = {**chunk, "obfuscation": "q", "choices": [{"index": 0, "delta": {}, "logprobs": None, "finish_reason": "stop"}]}
    events = parse_stream(sse(chunk, chunk, chunk, last), "openai_chat")
    carried = [ev for ev in events if ev["type"] == "carried"]
    assert len(carried) == 1 and events[-1] is carried[0]
    assert carried[0]["data"] == [{"path": ["system_fingerprint"], "value": "fp"}, {"path": ["service_tier"], "value": "default"}]


def test_a_stream_with_nothing_unread_has_no_carried_event() -> None:
    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 5, "model": "gpt", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "a"}, "finish_reason": "stop"}]}
    events = parse_stream(sse(chunk), "openai_chat")
    assert all(ev["type"] != "carried" for ev in events)
    assert assembled(sse(chunk), "openai_chat").carried is None


def test_tool_call_arguments_are_not_walked() -> None:
    """A value a rule reads whole (Gemini's functionCall.args) holds the caller's data, not the wire's."""
    chunk = {"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {"zzz_unknown": 1}}}]}, "finishReason": "STOP"}],
             "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
    events = parse_stream(sse(chunk, done=False), "gemini_generate_content")
    assert all("zzz_unknown" not in json.dumps(ev) for ev in events if ev["type"] == "carried")


def test_an_event_no_rule_names_is_carried_whole_in_order() -> None:
    body = (
        'event: message-start\ndata: {"id":"c1","type":"message-start","delta":{"message":{"role":"assistant"}}}\n\n'
        'event: content-delta\ndata: {"type":"content-delta","index":0,"delta":{"message":{"content":{"text":"Hi"}}}}\n\n'
        'event: brand-new\ndata: {"type":"brand-new","n":1}\n\n'
        'event: brand-new\ndata: {"type":"brand-new","n":2}\n\n'
        'event: message-end\ndata: {"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"tokens":{"input_tokens":1,"output_tokens":1}}}}\n\n'
    ).encode()
    carried = [ev for ev in parse_stream(body, "cohere_chat") if ev["type"] == "carried"]
    assert carried[0]["data"] == [{"path": ["brand-new"], "value": [{"type": "brand-new", "n": 1}, {"type": "brand-new", "n": 2}]}]
    _out, losses = translated(body, "cohere_chat", "openai_chat")
    assert "brand-new" in carried_paths(losses)


@pytest.mark.parametrize(
    ("stream_id", "body_id", "paths"),
    [
        ("stream_text_with_citations", "resp_citations_carried", [("message", "citations")]),
        ("stream_thinking_and_tool_call", None, [("message", "tool_plan")]),
    ],
)
def test_cohere_stream_carries_what_the_non_streamed_body_carries(stream_id: str, body_id: str | None, paths: list[tuple[Any, ...]]) -> None:
    """The assembled response carries tool_plan and citations as response_from_wire carries them
    for the equivalent body: the same ops, anchored the same way."""
    fmt = get_format("cohere_chat")
    resp = assembled(fixture("cohere_chat", stream_id)["stream_from_wire"].encode(), "cohere_chat")
    body = json.loads(json.dumps(resp.raw))
    for path in paths:  # the equivalent non-streamed body: the assembled one with the carried values
        value = dict(resp.carried.ops)[path]
        body["message"][path[-1]] = value
    if body_id is not None:  # the citations are the resp_ fixture's, as the stream sent them
        want = fixture("cohere_chat", body_id)["from_wire"]["message"]["citations"]
        got = dict(resp.carried.ops)[("message", "citations")]
        assert [{k: c[k] for k in ("start", "end", "text", "sources")} for c in got] == [{k: c[k] for k in ("start", "end", "text", "sources")} for c in want]
    plain = fmt.response_from_wire(body).carried
    assert plain is not None
    ours = {path: (value, anchor) for (path, value), anchor in zip(resp.carried.ops, resp.carried.anchors)}
    theirs = {path: (value, anchor) for (path, value), anchor in zip(plain.ops, plain.anchors)}
    for path in paths:
        assert ours[path] == theirs[path]
    # and it goes back to a Cohere client as the non-streamed one does
    assert fmt.response_to_wire(resp)["message"][paths[0][-1]] == dict(plain.ops)[paths[0]]


def test_carried_event_precedes_a_mid_stream_error() -> None:
    chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 5, "model": "gpt", "system_fingerprint": "fp", "choices": [{"index": 0, "delta": {"content": "a"}}]}
    body = sse(chunk, done=False) + b'data: {"error": {"message": "boom", "type": "server_error"}}\n\n'
    events = parse_stream(body, "openai_chat")
    assert [ev["type"] for ev in events[-2:]] == ["carried", "error"]


def test_mapping_refuses_a_carry_rule_without_its_path() -> None:
    from wiremap.codegen.sections.stream import compile_stream

    class Err(Exception):
        pass

    spec = yaml.safe_load((ROOT / "mappings" / "cohere_chat.yaml").read_text())["stream"]
    spec["parse"]["rules"].append({"event": "x", "emit": "carry", "fields": {"value": "a"}})
    with pytest.raises(Err, match="needs `to`"):
        compile_stream({"stream": spec}, {}, ("usage",), "null", ("finish_reason",), [], "stop", {}, "parts",
                       lambda pointer, msg: Err(f"{pointer}: {msg}"))


def test_mapping_refuses_restated_naming_an_unread_event() -> None:
    from wiremap.codegen.sections.stream import compile_stream

    class Err(Exception):
        pass

    spec = yaml.safe_load((ROOT / "mappings" / "cohere_chat.yaml").read_text())["stream"]
    spec["parse"]["restated"] = ["no-such-event"]
    with pytest.raises(Err, match="no rule reads the event 'no-such-event'"):
        compile_stream({"stream": spec}, {}, ("usage",), "null", ("finish_reason",), [], "stop", {}, "parts",
                       lambda pointer, msg: Err(f"{pointer}: {msg}"))


def test_a_restated_snapshot_is_carried_once() -> None:
    """Responses' response.created holds the Response that response.completed repeats whole: an
    unread field of it is carried from the final event only."""
    resp = {"id": "r1", "object": "response", "created_at": 1, "model": "m", "status": "in_progress", "output": [], "store": True}
    done = {**resp, "status": "completed", "output": [{"type": "message", "id": "m1", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": "Hi", "annotations": []}]}], "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}
    events = [
        {"type": "response.created", "sequence_number": 0, "response": resp},
        {"type": "response.output_text.delta", "sequence_number": 1, "item_id": "m1", "output_index": 0, "content_index": 0, "delta": "Hi"},
        {"type": "response.completed", "sequence_number": 2, "response": done},
    ]
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    carried = [ev for ev in parse_stream(body, "openai_responses") if ev["type"] == "carried"]
    paths = [tuple(item["path"]) for item in carried[0]["data"]]
    assert ("response.completed", "response", "store") in paths
    assert not [p for p in paths if p[0] == "response.created"]


@pytest.mark.parametrize(
    ("body", "key", "paths"),
    [
        (AZURE, "azure_openai", [("prompt_filter_results",), ("choices", 0, "content_filter_results"), ("system_fingerprint",)]),
        (PERPLEXITY, "perplexity", [("citations",), ("search_results",)]),
        (COHERE_PLAN, "cohere_chat", [("message", "tool_plan")]),
        (COHERE_CITES, "cohere_chat", [("message", "citations")]),
    ],
)
def test_assembled_stream_carries_as_the_equivalent_body(body: bytes, key: str, paths: list[tuple[Any, ...]]) -> None:
    """Written as a non-streamed body of its own wire, the assembled response puts each carried
    value back at its path (these paths are the body's own), and that body reads into the same
    carried ops and anchors: the stream carries what the non-streamed response does."""
    fmt = get_format(key)
    resp = assembled(body, key)
    equivalent = fmt.response_to_wire(resp)
    ops = dict(resp.carried.ops)
    for path in paths:
        at: Any = equivalent
        for k in path:
            at = at[k]
        assert at == ops[path], path
    plain = fmt.response_from_wire(equivalent).carried
    assert plain is not None
    ours = {path: (value, anchor) for (path, value), anchor in zip(resp.carried.ops, resp.carried.anchors)}
    theirs = {path: (value, anchor) for (path, value), anchor in zip(plain.ops, plain.anchors)}
    for path in paths:
        assert ours[path] == theirs[path], path


@pytest.mark.parametrize(
    ("body", "source", "target"),
    [(AZURE_FILTERED, "azure_openai", "azure_openai"), (AZURE_FILTERED, "azure_openai", "azure_openai_v1"),
     (PERPLEXITY, "perplexity", "perplexity"), (COHERE_CITES, "cohere_chat", "cohere_chat"),
     (ANTHROPIC_SERVER, "anthropic_messages", "anthropic.messages_2023_06_01")],
)
def test_a_stream_into_its_own_wire_passes_through_whole(body: bytes, source: str, target: str) -> None:
    """Same format in and out is the identity: the bytes, carried data and all (and two formats
    whose stream tables are one, Azure's two routes, are the same format for a stream)."""
    out, losses = translated(body, source, target)
    assert out == body and losses == []
    t = translate_stream([body], source, target)
    b"".join(t)
    assert t.response is not None and t.response.carried is not None  # still read for the response


def test_a_stream_rewritten_for_its_own_wire_names_the_carried_data_it_cannot_write() -> None:
    """Canonical events in (or a dialect with its own stream table): the stream is re-written, and
    the provider data a stream has no place for is named, never dropped silently."""
    t = translate_stream(parse_stream(AZURE_FILTERED, "azure_openai"), "azure_openai", "azure_openai")
    out = b"".join(t)
    data = [line for line in out.decode().splitlines() if line.startswith("data: ")]
    assert data and not any("content_filter_results" in line for line in data)
    dropped = {loss.path for loss in t.losses if loss.kind == "dropped"}
    assert "choices[0].content_filter_results" in dropped
    assert "wiremap-losses" in out.decode() and "choices[0].content_filter_results" in out.decode().split("wiremap-losses")[1]
    assert all("re-written azure_openai stream" in loss.detail for loss in t.losses if loss.path in dropped)

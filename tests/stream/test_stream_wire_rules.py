"""wire_rules in the stream engine (Mistral: 9-character tool-call ids, tool names [a-zA-Z0-9_-]):
tool calls read from a stream come back with the caller's own ids and names through the call's
WireMap, as non-streamed; a stream written in the format gets ids and names that fit, rewritten
exactly as request_to_wire rewrites them, and each rewrite is recorded."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent))
from recorded import ALL, sse  # noqa: E402
from test_stream_engine import run, splits  # noqa: E402

import wiremap  # noqa: E402
from wiremap.runtime.stream import StreamEmitter, parse_stream, translate_stream  # noqa: E402
from wiremap.runtime.wire_rules import WireMap  # noqa: E402

MISTRAL = wiremap.get_format("mistral")
REQUEST = {
    "model": "mistral-large-latest",
    "messages": [
        {"role": "user", "content": "Weather in Rome?"},
        {"role": "assistant", "tool_calls": [{"id": "call_weather_1", "name": "get.weather", "arguments": {"city": "Rome"}}]},
        {"role": "tool", "tool_call_id": "call_weather_1", "content": "25C"},
        {"role": "user", "content": "And Oslo, twice?"},
    ],
    "tools": [{"name": "get.weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}],
}


def request_map() -> WireMap:
    m = WireMap()
    MISTRAL.request_to_wire(REQUEST, wire_map=m)
    assert m.names == {"get.weather": "get_weather_T3RehTJ5"} and m.ids == {"call_weather_1": "XpvnY4TsS"}
    return m


def test_calls_read_back_with_the_request_map() -> None:
    rec = next(r for r in ALL if r.id == "mistral:parallel_tool_calls")
    m = request_map()
    whole = run("mistral", [rec.body], wire_map=m)
    starts = [(e["id"], e["name"]) for e in whole[0] if e["type"] == "tool_call_start"]
    assert starts == [("Dq8zRk2Ws", "get.weather"), ("pDxlfVnZ9", "get.weather")]  # fresh ids kept, names the caller's
    for seed in range(10):
        assert run("mistral", splits(rec.body, seed), wire_map=m) == whole
    assert run("mistral", [rec.body[i : i + 1] for i in range(len(rec.body))], wire_map=m) == whole
    expected = MISTRAL.response_from_wire(copy.deepcopy(rec.equivalent), wire_map=m).to_dict()
    got = dict(whole[1]["response"])
    got.pop("raw")
    expected.pop("raw")
    expected.pop("carried", None)  # a streamed response carries no wire data yet
    got.pop("carried", None)
    assert got == expected
    # without the map the wire's own names come through (as response_from_wire without one)
    assert [e["name"] for e in run("mistral", [rec.body])[0] if e["type"] == "tool_call_start"] == ["get_weather_T3RehTJ5"] * 2


def test_an_echoed_rewritten_id_is_the_callers_again() -> None:
    chunk = {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [
        {"id": "XpvnY4TsS", "type": "function", "function": {"name": "get_weather_T3RehTJ5", "arguments": "{}"}, "index": 0}]}, "finish_reason": "tool_calls"}]}
    events = parse_stream(sse([chunk, "[DONE]"]), "mistral", wire_map=request_map())
    assert [(e["id"], e["name"]) for e in events if e["type"] == "tool_call_start"] == [("call_weather_1", "get.weather")]


def test_emitter_rewrites_what_does_not_fit_as_the_request_would() -> None:
    events = [
        {"type": "message_start", "raw": {"id": "x", "model": "m"}},
        {"type": "tool_call_start", "index": 0, "id": "call_weather_1", "name": "get.weather"},
        {"type": "tool_call_delta", "index": 0, "arguments": "{\"city\":\"Rome\"}"},
        {"type": "tool_call_end", "index": 0},
        {"type": "tool_call_start", "index": 1, "id": "D681PevKs", "name": "lookup"},  # fits: sent as it is
        {"type": "tool_call_end", "index": 1},
        {"type": "finish", "finish_reason": "tool_calls", "raw": None},
    ]
    emitter = StreamEmitter("mistral")
    out = b"".join(emitter.emit(ev) for ev in events) + emitter.close()
    sent = [c for line in out.decode().splitlines() if line.startswith("data: {")
            for ch in json.loads(line[6:])["choices"] for c in ch["delta"].get("tool_calls") or []]
    assert [(c["id"], c["function"]["name"]) for c in sent] == [("XpvnY4TsS", "get_weather_T3RehTJ5"), ("D681PevKs", "lookup")]
    ref = request_map()  # the request rules give the same wire values: a client resending them matches
    assert emitter.wire_map.ids == ref.ids and emitter.wire_map.names == ref.names
    assert [(c.rule, c.action, c.before, c.after) for c in emitter.wire_map.changes] == [
        ("tool_call_id", "rewrite", "call_weather_1", "XpvnY4TsS"), ("tool_name", "rename", "get.weather", "get_weather_T3RehTJ5")]
    assert {(loss.path, loss.kind) for loss in emitter.losses} == {
        ("message.tool_calls[0].id", "changed"), ("message.tool_calls[0].name", "changed")}
    back = parse_stream(out, "mistral", wire_map=emitter.wire_map)
    assert [(e["id"], e["name"]) for e in back if e["type"] == "tool_call_start"] == [("call_weather_1", "get.weather"), ("D681PevKs", "lookup")]


def test_translation_into_mistral_reports_the_rewrites() -> None:
    rec = next(r for r in ALL if r.id == "anthropic_messages:parallel_tool_calls")
    t = translate_stream([rec.body], "anthropic_messages", "mistral")
    out = b"".join(t)
    assert {c.before for c in t.emitter.wire_map.changes} == {"toolu_a", "toolu_b", "toolu_c"}
    assert all(len(c.after) == 9 and c.after.isalnum() for c in t.emitter.wire_map.changes)
    assert b": wiremap-losses " in out and b"wire_rules.tool_call_id rewrite" in out

"""Streaming throughput: canonical events per second parsed, assembled and re-emitted.

    python bench/bench_stream.py [--seconds 1.0] [--deltas 400] [--repeats 1]

Runs standalone (from the repository root, or anywhere `wiremap` is importable) and prints a
markdown table; `make bench` (bench/run.py) includes the same table in bench/RESULTS.md through
`section()`: every number the median of its repeats, with the ratio to LiteLLM. The input is a long recorded stream per format, built from the recorded
streams of tests/stream/recorded.py's shapes: `--deltas` text deltas, then a tool call whose
arguments come in 20 pieces, a finish and a usage event, fed to the parser in 1 KiB network
reads.

Columns:
- parse: bytes -> canonical events (`StreamParser`), events per second;
- parse+assemble: the same plus the assembled `Response` (`StreamAssembler`);
- re-emit: canonical events -> SSE bytes of each target format (`StreamEmitter`; the Responses
  emitter also writes the whole assembled Response into response.completed);
- translate: bytes in one format -> bytes in the other (`translate_stream`), source events/s;
- litellm: LiteLLM's own streaming chunk parser on the same stream (Anthropic:
  `litellm.llms.anthropic.chat.handler.ModelResponseIterator.chunk_parser` over the SSE data
  lines, OpenAI: `litellm.CustomStreamWrapper` over the decoded chunks). LiteLLM is not a
  dependency of wiremap: when it is not importable the column says so. It runs offline
  (`LITELLM_LOCAL_MODEL_COST_MAP=True` is set); install it beside wiremap in a separate
  environment, e.g. `python -m venv /tmp/l && /tmp/l/bin/pip install litellm && /tmp/l/bin/python
  bench/bench_stream.py`. The work differs: LiteLLM's OpenAI path is handed already-decoded
  chunk objects (no SSE framing or JSON decoding) and adds its own per-chunk bookkeeping
  (logging, usage, cost); its Anthropic column is handed decoded dicts, no SSE framing.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from wiremap.runtime.stream import (  # noqa: E402
    StreamAssembler,
    StreamEmitter,
    StreamParser,
    parse_stream,
    translate_stream,
)

FORMATS = ("openai_chat", "anthropic_messages")  # sources (LiteLLM has a streaming iterator for both)
TARGETS = ("openai_chat", "anthropic_messages", "openai_responses")


def openai_stream(deltas: int) -> bytes:
    base = {"id": "chatcmpl-b", "object": "chat.completion.chunk", "created": 1732000000, "model": "gpt-4o"}

    def chunk(delta: dict[str, Any] | None, finish: str | None = None, **extra: Any) -> bytes:
        body = dict(base, choices=[] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}], **extra)
        return b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\n\n"

    out = [chunk({"role": "assistant", "content": ""})]
    out += [chunk({"content": f"word{i} "}) for i in range(deltas)]
    out.append(chunk({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": ""}}]}))
    out += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}) for piece in _arg_pieces()]
    out.append(chunk({}, "tool_calls"))
    out.append(chunk(None, usage={"prompt_tokens": 100, "completion_tokens": deltas, "total_tokens": 100 + deltas}))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def anthropic_stream(deltas: int) -> bytes:
    def ev(body: dict[str, Any]) -> bytes:
        return f"event: {body['type']}\n".encode() + b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\n\n"

    out = [ev({"type": "message_start", "message": {"id": "msg_b", "type": "message", "role": "assistant", "content": [], "model": "claude-x",
                                                    "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 100, "output_tokens": 1}}})]
    out.append(ev({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}))
    out += [ev({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": f"word{i} "}}) for i in range(deltas)]
    out.append(ev({"type": "content_block_stop", "index": 0}))
    out.append(ev({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}}}))
    out += [ev({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": piece}}) for piece in _arg_pieces()]
    out.append(ev({"type": "content_block_stop", "index": 1}))
    out.append(ev({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": deltas}}))
    out.append(ev({"type": "message_stop"}))
    return b"".join(out)


def _arg_pieces() -> list[str]:
    text = json.dumps({"query": "x" * 200, "limit": 10})
    n = 20
    size = len(text) // n + 1
    return [text[i : i + size] for i in range(0, len(text), size)]


def reads(body: bytes, size: int = 1024) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def rate(fn: Callable[[], int], seconds: float, repeats: int = 1) -> float:
    """Units per second, the median of `repeats` measurements of `seconds` each: `fn` returns
    how many units one run handled."""
    fn()  # warm-up
    results = []
    for _ in range(max(1, repeats)):
        done = 0
        start = time.perf_counter()
        end = start + seconds
        while True:
            done += fn()
            now = time.perf_counter()
            if now >= end:
                results.append(done / (now - start))
                break
    return statistics.median(results)


def bench_format(fmt: str, body: bytes, seconds: float, repeats: int = 1) -> dict[str, str]:
    chunks = reads(body)
    events = parse_stream(body, fmt)
    n = len(events)

    def parse() -> int:
        p = StreamParser(fmt)
        count = 0
        for c in chunks:
            count += len(p.feed(c))
        return count + len(p.close())

    def parse_assemble() -> int:
        p = StreamParser(fmt)
        a = StreamAssembler(fmt)
        for c in chunks:
            for ev in p.feed(c):
                a.add(ev)
        for ev in p.close():
            a.add(ev)
        a.response()
        return n

    row = {"format": fmt, "events": str(n), "bytes": str(len(body))}
    parse_rate = rate(parse, seconds, repeats)
    row["parse (events/s)"] = f"{parse_rate:,.0f}"
    row["parse+assemble (events/s)"] = f"{rate(parse_assemble, seconds, repeats):,.0f}"
    for target in TARGETS:

        def emit(target: str = target) -> int:
            e = StreamEmitter(target)
            for ev in events:
                e.emit(ev)
            e.close()
            return n

        def translate(target: str = target) -> int:
            for _ in translate_stream(chunks, fmt, target):
                pass
            return n

        row[f"re-emit as {target} (events/s)"] = f"{rate(emit, seconds, repeats):,.0f}"
        row[f"translate to {target} (events/s)"] = f"{rate(translate, seconds, repeats):,.0f}"
    lite = litellm_rate(fmt, body, n, seconds, repeats)
    row["litellm (events/s)"] = lite if isinstance(lite, str) else f"{lite:,.0f}"
    row["parse ÷ litellm"] = "n/a" if isinstance(lite, str) else f"{parse_rate / lite:.1f}×"
    return row


def litellm_rate(fmt: str, body: bytes, n: int, seconds: float, repeats: int = 1) -> float | str:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: no cost-map download
    try:
        import litellm  # noqa: F401
    except Exception as exc:  # pragma: no cover - depends on the environment
        return f"n/a (litellm not importable: {type(exc).__name__})"
    lines = [line[6:] for line in body.decode().splitlines() if line.startswith("data: ")]
    try:
        if fmt == "anthropic_messages":
            from litellm.llms.anthropic.chat.handler import ModelResponseIterator

            dicts = [json.loads(x) for x in lines]

            def run() -> int:
                it = ModelResponseIterator(streaming_response=iter(()), sync_stream=True)
                for d in dicts:
                    it.chunk_parser(d)
                return n

            return rate(run, seconds, repeats)
        from litellm import CustomStreamWrapper
        from litellm.litellm_core_utils.litellm_logging import Logging
        from litellm.types.utils import ModelResponseStream

        dicts = [json.loads(x) for x in lines if x != "[DONE]"]

        def run_openai() -> int:
            logging_obj = Logging(model="gpt-4o", messages=[], stream=True, call_type="completion", start_time=time.time(),
                                  litellm_call_id="bench", function_id="bench")
            chunks = [ModelResponseStream(**d) for d in dicts]
            wrapper = CustomStreamWrapper(completion_stream=iter(chunks), model="gpt-4o", custom_llm_provider="openai", logging_obj=logging_obj)
            for _ in wrapper:
                pass
            return n

        return rate(run_openai, seconds, repeats)
    except Exception as exc:  # pragma: no cover - litellm internals move between versions
        return f"n/a (litellm {getattr(sys.modules.get('litellm'), 'version', '?')}: {type(exc).__name__}: {str(exc)[:60]})"


# ------------------------------------------------------------------ hand-written re-framers
#
# The floor of issue 19 target 5: straight-line SSE re-framers for the bench streams, one per
# pair, that send the same bytes as `translate_stream` (checked by `per_chunk_rows`). They frame
# the network reads into events, decode each data line, and write the target's events: what the
# streams here need and nothing else (no validation, no error events, no other block kinds).

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def _frames(reads: Any) -> Any:
    """Network reads -> the data of each SSE event (its `data:` line), in order."""
    buf = b""
    for chunk in reads:
        buf += chunk
        *events, buf = buf.split(b"\n\n")
        for event in events:
            for line in event.split(b"\n"):
                if line.startswith(b"data: "):
                    yield line[6:]


def reframe_openai_to_anthropic(reads: Any) -> Any:
    """OpenAI Chat chunks -> Anthropic Messages events (SSE bytes), as `translate_stream` writes them."""
    block = -1  # the index of the open content block
    kind = ""  # its kind: "text", or the tool call's index as text
    finish = None
    created = None  # OpenAI's creation time, which Anthropic's stream has no field for
    for data in _frames(reads):
        if data == b"[DONE]":
            break
        c = json.loads(data)
        if block < 0 and kind == "":
            kind = "none"
            created = c.get("created")
            yield (b"event: message_start\ndata: " + _dumps({"type": "message_start", "message": {
                "id": c["id"], "type": "message", "role": "assistant", "model": c["model"], "content": [],
                "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 0, "output_tokens": 0}}}).encode() + b"\n\n")
        choices = c["choices"]
        if not choices:
            u = c["usage"]
            if block >= 0:
                yield b"event: content_block_stop\ndata: " + _dumps({"type": "content_block_stop", "index": block}).encode() + b"\n\n"
            if created is not None:  # the value it drops is named, as translate_stream's loss trailer names it
                yield (b": wiremap-losses " + _dumps([{"path": "created", "kind": "dropped",
                       "detail": f"{created} is openai wire data the target cannot carry"}]).encode() + b"\n\n")
            yield (b"event: message_delta\ndata: " + _dumps({"type": "message_delta", "delta": {"stop_reason": finish, "stop_sequence": None},
                   "usage": {"input_tokens": u["prompt_tokens"], "output_tokens": u["completion_tokens"]}}).encode() + b"\n\n")
            yield b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
            continue
        choice = choices[0]
        delta = choice["delta"]
        text = delta.get("content")
        out = []
        if text:
            if kind != "text":
                if block >= 0:
                    out.append(b"event: content_block_stop\ndata: " + _dumps({"type": "content_block_stop", "index": block}).encode() + b"\n\n")
                block += 1
                kind = "text"
                out.append(b"event: content_block_start\ndata: " + _dumps({"type": "content_block_start", "index": block,
                           "content_block": {"type": "text", "text": ""}}).encode() + b"\n\n")
            out.append(b"event: content_block_delta\ndata: " + _dumps({"type": "content_block_delta", "index": block,
                       "delta": {"type": "text_delta", "text": text}}).encode() + b"\n\n")
        for call in delta.get("tool_calls") or ():
            f = call["function"]
            if "id" in call:
                if block >= 0:
                    out.append(b"event: content_block_stop\ndata: " + _dumps({"type": "content_block_stop", "index": block}).encode() + b"\n\n")
                block += 1
                kind = str(call["index"])
                out.append(b"event: content_block_start\ndata: " + _dumps({"type": "content_block_start", "index": block,
                           "content_block": {"type": "tool_use", "id": call["id"], "name": f["name"], "input": {}}}).encode() + b"\n\n")
            if f.get("arguments"):
                out.append(b"event: content_block_delta\ndata: " + _dumps({"type": "content_block_delta", "index": block,
                           "delta": {"type": "input_json_delta", "partial_json": f["arguments"]}}).encode() + b"\n\n")
        if choice.get("finish_reason"):
            finish = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}[choice["finish_reason"]]
        if out:
            yield b"".join(out)


def reframe_anthropic_to_openai(reads: Any) -> Any:
    """Anthropic Messages events -> OpenAI Chat chunks (SSE bytes), as `translate_stream` writes them."""
    head = b""
    calls = -1  # the index of the last tool call
    finish = None
    usage: dict[str, Any] = {}
    for data in _frames(reads):
        e = json.loads(data)
        t = e["type"]
        if t == "content_block_delta":
            d = e["delta"]
            if d["type"] == "text_delta":
                body = {"content": d["text"]}
            else:
                body = {"tool_calls": [{"index": calls, "function": {"arguments": d["partial_json"]}}]}
            yield head + _dumps(body).encode() + b',"finish_reason":null}]}\n\n'
        elif t == "content_block_start":
            b = e["content_block"]
            if b["type"] == "tool_use":
                calls += 1
                yield head + _dumps({"tool_calls": [{"index": calls, "id": b["id"], "type": "function",
                                                      "function": {"name": b["name"], "arguments": ""}}]}).encode() + b',"finish_reason":null}]}\n\n'
        elif t == "message_start":
            m = e["message"]
            usage = dict(m["usage"])
            head = b"data: " + _dumps({"id": m["id"], "object": "chat.completion.chunk", "created": 0, "model": m["model"]}).encode()[:-1] + b',"choices":[{"index":0,"delta":'
            yield head + b'{"role":"assistant"},"finish_reason":null}]}\n\n'
        elif t == "message_delta":
            finish = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}[e["delta"]["stop_reason"]]
            usage.update(e.get("usage") or {})
        elif t == "message_stop":
            tail = head[: head.index(b',"choices":')]
            prompt, completion = usage["input_tokens"], usage["output_tokens"]
            yield (head + b'{},"finish_reason":' + _dumps(finish).encode() + b"}]}\n\n"
                   + tail + b',"choices":[],"usage":' + _dumps({"prompt_tokens": prompt, "completion_tokens": completion,
                                                               "total_tokens": prompt + completion}).encode() + b"}\n\ndata: [DONE]\n\n")


REFRAMERS = {("openai_chat", "anthropic_messages"): reframe_openai_to_anthropic,
             ("anthropic_messages", "openai_chat"): reframe_anthropic_to_openai}


def rates_in_turns(fns: list[Callable[[], int]], seconds: float, rounds: int) -> list[float]:
    """Units per second of each of `fns`, timed in turns: each round measures every function once
    (`seconds` each, the order rotated every round), so that a change in the shared machine's
    speed falls on all of them alike; the median of the rounds for each."""
    gc.collect()
    gc.freeze()  # what is alive already (a caller's LiteLLM heap) is not walked by a collection inside a block
    for fn in fns:
        fn()  # warm-up
    results: list[list[float]] = [[] for _ in fns]
    for r in range(max(1, rounds)):
        for k in [(r + i) % len(fns) for i in range(len(fns))]:
            done = 0
            start = time.perf_counter()
            end = start + seconds
            while True:
                done += fns[k]()
                now = time.perf_counter()
                if now >= end:
                    results[k].append(done / (now - start))
                    break
    return [statistics.median(x) for x in results]


def per_chunk_rows(repeats: int = 7, seconds: float = 0.2, deltas: int = 400) -> tuple[str, list[tuple[str, float]]]:
    """Target 5 of issue 19: the per-chunk cost of `translate_stream` against the hand-written
    re-framer of the same pair (the same bytes; checked), on the bench streams in 1 KiB reads.
    Returns the markdown section and (pair, ratio) rows."""
    bodies = {"openai_chat": openai_stream(deltas), "anthropic_messages": anthropic_stream(deltas)}
    lines = [
        f"\n## Streams: per-chunk translation against a hand-written SSE re-framer (bench/bench_stream.py; timed in turns, median of {repeats} rounds of {seconds} s each)\n",
        "The same streams in 1 KiB network reads; *chunks* = the source's SSE events; *re-framer* = bench/bench_stream.py "
        "`reframe_*`, straight-line code that frames the reads, decodes each event and writes the target's events, "
        "byte for byte what `translate_stream` sends (checked); µs per source chunk. The target: within 2×.\n",
        "| source → target | chunks | re-framer µs/chunk | translate_stream µs/chunk | ×re-framer |",
        "|---|---:|---:|---:|---:|",
    ]
    rows: list[tuple[str, float]] = []
    for (src, dst), reframe in REFRAMERS.items():
        chunks = reads(bodies[src])
        events = sum(1 for _ in _frames(chunks))
        ours = b"".join(translate_stream(chunks, src, dst))
        if b"".join(reframe(chunks)) != ours:
            raise AssertionError(f"the {src} -> {dst} re-framer's bytes differ from translate_stream's")

        def floor(reframe: Any = reframe) -> int:
            for _ in reframe(chunks):
                pass
            return events

        def translate(src: str = src, dst: str = dst) -> int:
            for _ in translate_stream(chunks, src, dst):
                pass
            return events

        r_floor, r_tr = rates_in_turns([floor, translate], seconds, repeats)
        t_floor, t_tr = 1 / r_floor, 1 / r_tr
        rows.append((f"{src} → {dst}", t_tr / t_floor))
        lines.append(f"| {src} → {dst} | {events} | {t_floor * 1e6:.2f} | {t_tr * 1e6:.2f} | {t_tr / t_floor:.2f}× |")
    return "\n".join(lines) + "\n", rows


def table(deltas: int = 400, seconds: float = 1.0, repeats: int = 1) -> list[str]:
    """The markdown table, one row per source format."""
    bodies = {"openai_chat": openai_stream(deltas), "anthropic_messages": anthropic_stream(deltas)}
    rows = [bench_format(fmt, body, seconds, repeats) for fmt, body in bodies.items()]
    columns = list(rows[0])
    out = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" if c == "format" else "---:" for c in columns) + "|"]
    out += ["| " + " | ".join(row[c] for c in columns) + " |" for row in rows]
    return out


def section(repeats: int = 7, seconds: float = 0.2, deltas: int = 400) -> str:
    """The streaming section of bench/RESULTS.md (bench/run.py): medians of `repeats`."""
    head = [
        f"\n## Streaming: events per second (bench/bench_stream.py; median of {repeats} runs of {seconds} s)\n",
        f"Each stream: {deltas} text deltas, then a tool call whose arguments come in 20 pieces, a finish and usage, fed in "
        "1 KiB network reads. *parse*: bytes -> canonical events; *parse+assemble*: and the assembled Response; "
        "*re-emit*: canonical events -> the target's SSE bytes; *translate*: bytes -> bytes (`translate_stream`, "
        "source events/s); LiteLLM: its own streaming chunk parser on the same stream, handed already-decoded chunks "
        "(no SSE framing, no JSON decoding); *parse ÷ litellm*: how many times faster wiremap's parse is.\n",
    ]
    return "\n".join(head + table(deltas, seconds, repeats)) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--deltas", type=int, default=400, help="text deltas per stream")
    parser.add_argument("--repeats", type=int, default=1, help="measurements per number (the median is shown)")
    args = parser.parse_args(argv)
    print(f"wiremap streaming benchmark (Python {sys.version.split()[0]}, {args.deltas} text deltas + a 20-piece tool call, 1 KiB reads)\n")
    print("\n".join(table(args.deltas, args.seconds, args.repeats)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

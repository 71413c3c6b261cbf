"""Streaming throughput: canonical events per second parsed, assembled and re-emitted.

    python bench/bench_stream.py [--seconds 1.0] [--deltas 400]

Runs standalone (from the repository root, or anywhere `wiremap` is importable) and prints a
markdown table. The input is a long recorded stream per format, built from the recorded
streams of tests/stream/recorded.py's shapes: `--deltas` text deltas, then a tool call whose
arguments come in 20 pieces, a finish and a usage event, fed to the parser in 1 KiB network
reads.

Columns:
- parse: bytes -> canonical events (`StreamParser`), events per second;
- parse+assemble: the same plus the assembled `Response` (`StreamAssembler`);
- re-emit: canonical events -> SSE bytes of every streaming format (`StreamEmitter`);
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
import json
import os
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

FORMATS = ("openai_chat", "anthropic_messages")


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


def rate(fn: Callable[[], int], seconds: float) -> float:
    """Units per second: `fn` returns how many units one run handled."""
    fn()  # warm-up
    done = 0
    start = time.perf_counter()
    end = start + seconds
    while True:
        done += fn()
        now = time.perf_counter()
        if now >= end:
            return done / (now - start)


def bench_format(fmt: str, body: bytes, seconds: float) -> dict[str, str]:
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
    row["parse (events/s)"] = f"{rate(parse, seconds):,.0f}"
    row["parse+assemble (events/s)"] = f"{rate(parse_assemble, seconds):,.0f}"
    for target in FORMATS:

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

        row[f"re-emit as {target} (events/s)"] = f"{rate(emit, seconds):,.0f}"
        row[f"translate to {target} (events/s)"] = f"{rate(translate, seconds):,.0f}"
    row["litellm (events/s)"] = litellm_rate(fmt, body, n, seconds)
    return row


def litellm_rate(fmt: str, body: bytes, n: int, seconds: float) -> str:
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

            return f"{rate(run, seconds):,.0f}"
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

        return f"{rate(run_openai, seconds):,.0f}"
    except Exception as exc:  # pragma: no cover - litellm internals move between versions
        return f"n/a (litellm {getattr(sys.modules.get('litellm'), 'version', '?')}: {type(exc).__name__}: {str(exc)[:60]})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--deltas", type=int, default=400, help="text deltas per stream")
    args = parser.parse_args(argv)
    bodies = {"openai_chat": openai_stream(args.deltas), "anthropic_messages": anthropic_stream(args.deltas)}
    rows = [bench_format(fmt, body, args.seconds) for fmt, body in bodies.items()]
    columns = list(rows[0])
    print(f"wiremap streaming benchmark (Python {sys.version.split()[0]}, {args.deltas} text deltas + a 20-piece tool call, 1 KiB reads)\n")
    print("| " + " | ".join(columns) + " |")
    print("|" + "|".join("---" for _ in columns) + "|")
    for row in rows:
        print("| " + " | ".join(row[c] for c in columns) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The recorded provider traffic (`../shared/recorded`, see its README) through wiremap.

Every record is tried the way a gateway or a dataset converter meets it, in its own format:
- request / response: read with `*_from_wire` and written back with `*_to_wire`; `pass` when the
  body comes back equal as JSON (types included), `changed` when it comes back different,
  `refusal` when a converter raises a typed `ProviderError`;
- stream (SSE text): parsed into canonical events and assembled, re-emitted in the same format
  from those events (`translate_stream` of the events: given the bytes, a stream of one format
  passes through whole), parsed and assembled again: `pass` when both readings give the same
  response and neither raised (a stream the provider ended with an error event passes when
  both readings end with the same error category);
- stream_json_array (Gemini without `alt=sse`): each element is one response chunk, read and
  written back as a response;
- error: `error_from_wire` must return a typed error, and the format's own `error_to_wire` of it
  must read back as the same category.
`untyped` is any other exception: always a bug.

Run `python tests/recorded/recorded_harness.py` for the table and the first examples per class.
"""

from __future__ import annotations

import json
import sys
import warnings
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
RECORDED_DIR = REPO_ROOT.parent / "shared" / "recorded"
KINDS = ("request", "response", "stream", "error")
OUTCOMES = ("pass", "refusal", "changed", "untyped")


def records() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in sorted(RECORDED_DIR.glob("*.jsonl")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                record = json.loads(line)
                record["_where"] = f"{path.name}:{n}"
                out.append(record)
    return out


def _request_body(record: dict[str, Any]) -> dict[str, Any]:
    """The body as wiremap's converters take it: a model bound to the URL path (Gemini's
    `models/{model}:generateContent`) is the body's `model`, as the gateway passes it."""
    body = record["body"]
    model = (record.get("meta") or {}).get("model")
    if isinstance(body, dict) and "model" not in body and isinstance(model, str):
        body = {"model": model, **body}
    return body


def _plain(response: Any) -> dict[str, Any]:
    d: dict[str, Any] = response.to_dict()
    for key in ("raw", "carried", "parsed"):
        d.pop(key, None)
    return d


def _stream(fmt: Any, sse: str) -> str:
    from wiremap.runtime.errors import ProviderError
    from wiremap.runtime.stream import parse_stream, translate_stream

    data = sse.encode("utf-8")
    first = translate_stream(parse_stream(data, fmt), fmt, fmt)
    out = b""
    error1: Any = None
    try:
        for chunk in first:
            out += chunk
    except ProviderError as exc:
        error1 = exc
    if error1 is None and first.error is not None:
        error1 = first.error
    second = translate_stream([out], fmt, fmt)
    error2: Any = None
    try:
        for _ in second:
            pass
    except ProviderError as exc:
        error2 = exc
    if error2 is None and second.error is not None:
        error2 = second.error
    if error1 is not None or error2 is not None:
        if error1 is not None and error2 is not None and error1.category == error2.category:
            return "pass"
        if error1 is not None:
            raise error1
        return "changed"
    return "pass" if _plain(first.response) == _plain(second.response) else "changed"


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def outcome(record: dict[str, Any]) -> tuple[str, str]:
    """(outcome, detail) for one record in its own format."""
    import wiremap
    from wiremap.runtime.errors import ProviderError

    kind = record["kind"]
    try:
        fmt = wiremap.get_format(record["format"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if kind == "request":
                body = _request_body(record)
                again = fmt.request_to_wire(fmt.request_from_wire(body))
                return ("pass", "") if _same(again, body) else ("changed", "")
            if kind == "response":
                body = record["body"]
                again = fmt.response_to_wire(fmt.response_from_wire(body))
                return ("pass", "") if _same(again, body) else ("changed", "")
            if kind == "stream_json_array":
                chunks = record["body"]
                for chunk in chunks if isinstance(chunks, list) else [chunks]:
                    again = fmt.response_to_wire(fmt.response_from_wire(chunk))
                    if not _same(again, chunk):
                        return ("changed", "")
                return ("pass", "")
            if kind == "stream":
                return (_stream(fmt, record["sse"]), "")
            if kind == "error":
                err = fmt.error_from_wire(record["status"], record.get("body"), record.get("headers") or {})
                if not isinstance(err, ProviderError):
                    return ("untyped", f"error_from_wire returned {type(err).__name__}")
                if fmt.error_to_wire is None:
                    return ("pass", "")
                status, body, headers = fmt.error_to_wire(err)
                back = fmt.error_from_wire(status, body, headers)
                return ("pass", "") if back.category == err.category else ("changed", f"{err.category} -> {back.category}")
            return ("untyped", f"unknown record kind {kind!r}")
    except ProviderError as exc:
        return ("refusal", f"{exc.category}: {exc.path}: {exc}")
    except Exception as exc:  # noqa: BLE001 - the harness names every untyped failure
        return ("untyped", f"{type(exc).__name__}: {exc}")


def kind_of(record: dict[str, Any]) -> str:
    return "stream" if record["kind"].startswith("stream") else record["kind"]


def table(results: list[tuple[dict[str, Any], str, str]]) -> str:
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    for record, result, _ in results:
        counts[(record["format"], kind_of(record))][result] += 1
        totals[kind_of(record)][result] += 1
    lines = ["| format | kind | pass | refusal | changed | untyped | pass % |", "|---|---|---:|---:|---:|---:|---:|"]
    for (fmt, kind), c in sorted(counts.items()):
        n = sum(c.values())
        lines.append(f"| {fmt} | {kind} | {c['pass']} | {c['refusal']} | {c['changed']} | {c['untyped']} | {100 * c['pass'] / n:.1f} |")
    for kind in KINDS:
        c = totals[kind]
        n = sum(c.values())
        if n:
            lines.append(f"| **all** | **{kind}** | {c['pass']} | {c['refusal']} | {c['changed']} | {c['untyped']} | {100 * c['pass'] / n:.1f} |")
    return "\n".join(lines)


def run() -> list[tuple[dict[str, Any], str, str]]:
    return [(r, *outcome(r)) for r in records()]


if __name__ == "__main__":
    sys.path.insert(0, str(REPO_ROOT))
    results = run()
    print(table(results))
    shown: Counter[tuple[str, str, str]] = Counter()
    for record, result, detail in results:
        key = (record["format"], kind_of(record), result)
        if result != "pass" and shown[key] < int(sys.argv[1] if len(sys.argv) > 1 else 3):
            shown[key] += 1
            print(f"{result:8} {record['format']} {record['kind']} {record['_where']} {record['source'].split(':', 1)[1][:90]}\n         {detail[:300]}")


CACHE: list[tuple[dict[str, Any], str, str]] = []  # one run per pytest session (test_recorded.py)

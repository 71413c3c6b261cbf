"""The gateway's optional JSON accelerator (wiremap.gateway_json, the `gateway-fast` extra):
with orjson the gateway parses request bodies to the same values as the standard library, so
it sends the upstream and the client the same bytes."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
orjson = pytest.importorskip("orjson")
import httpx  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import Reply  # noqa: E402
from test_gateway_sdks import Gateway, Upstream  # noqa: E402

import wiremap  # noqa: E402
import wiremap.gateway as gateway_module  # noqa: E402
from wiremap import gateway_json  # noqa: E402
from wiremap.gateway import create_app  # noqa: E402

RECORDED = Path(__file__).resolve().parents[2].parent / "shared" / "recorded"


def _bodies() -> list[Any]:
    if not RECORDED.is_dir():
        pytest.skip("../shared/recorded is not beside the repository")
    out = []
    for path in sorted(RECORDED.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if "body" in record:
                out.append(record["body"])
    return out


def _typed(value: Any) -> str:
    """The value with its types visible (1 and 1.0, True and 1 differ)."""
    return json.dumps(value, default=repr, sort_keys=False) + "|" + repr(value)


def _accelerated() -> Any:
    if gateway_json.ACCELERATOR != "orjson":
        pytest.skip("WIREMAP_GATEWAY_JSON=stdlib is set")
    return gateway_json.loads


def test_every_recorded_body_parses_to_the_same_value() -> None:
    fast = _accelerated()
    bodies = _bodies()
    assert len(bodies) > 1000
    for body in bodies:
        for raw in (json.dumps(body).encode(), json.dumps(body, ensure_ascii=False).encode(), json.dumps(body, indent=1).encode()):
            assert _typed(fast(raw)) == _typed(gateway_json.stdlib_loads(raw))


@pytest.mark.parametrize("raw", [
    b'{"n": 123456789012345678901234567890}',  # beyond 64 bits: orjson would make it a float
    b'{"n": -9223372036854775809, "m": 18446744073709551616}',
    b'{"x": NaN, "y": Infinity, "z": -Infinity}',  # the standard library accepts them
    b'{"s": "\\ud800 alone"}',  # a lone surrogate escape
    b'{"a": 1, "a": 2}',  # the last one wins in both
    b'{"f": [1e-7, 1E400, -0.0, 0.1, 1.0, 2]}',
    '{"a": "é"}'.encode("utf-16"),  # UTF-16 with a byte order mark: json.loads reads it
])
def test_inputs_orjson_reads_differently_get_the_standard_librarys_value(raw: bytes) -> None:
    fast = _accelerated()
    assert _typed(fast(raw)) == _typed(gateway_json.stdlib_loads(raw))


@pytest.mark.parametrize("raw", [b'{"a": ', b"\xff\xfe\x00garbage", b'{"a": 1} trailing', b"[" * 100_000 + b"]" * 100_000])
def test_bad_bodies_fail_as_with_the_standard_library(raw: bytes) -> None:
    fast = _accelerated()
    with pytest.raises((ValueError, RecursionError)) as ours:
        fast(raw)
    with pytest.raises((ValueError, RecursionError)) as ref:
        gateway_json.stdlib_loads(raw)
    assert type(ours.value) is type(ref.value) and str(ours.value) == str(ref.value)


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    up = Upstream()
    with up.server:
        yield up


def test_the_gateway_sends_the_same_bytes_with_and_without_orjson(upstream: Upstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every recorded OpenAI Chat request (not streamed) through the gateway to Anthropic, once
    parsed by orjson and once by the standard library: the same upstream body and the same answer."""
    fast = _accelerated()
    requests = [json.loads(line)["body"] for line in (RECORDED / "openai_chat.jsonl").read_text(encoding="utf-8").splitlines()
                if json.loads(line)["kind"] == "request"] if RECORDED.is_dir() else []
    requests = [r for r in requests if not r.get("stream")]
    if not requests:
        pytest.skip("no recorded openai_chat requests")
    answer = wiremap.get_format("anthropic_messages").response_to_wire(
        {"message": {"role": "assistant", "content": "Hi ü \u2028 \U0001f600"}, "finish_reason": "stop",
         "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}, "raw": {}})
    gw = Gateway(create_app("openai_chat", "anthropic_messages", upstream.server.url))
    compared = 0
    try:
        with httpx.Client(timeout=20) as client:
            for body in requests:
                raw = json.dumps(body, ensure_ascii=False).encode()
                seen = []
                for loads in (gateway_json.stdlib_loads, fast):
                    monkeypatch.setattr(gateway_module, "json_loads", loads)
                    upstream.replies.append(Reply(200, answer))
                    r = client.post(gw.url + "/v1/chat/completions", content=raw,
                                    headers={"authorization": "Bearer k", "content-type": "application/json"})
                    headers = {k: v for k, v in r.headers.items() if k not in ("x-request-id", "date")}
                    sent = upstream.last.body if r.status_code == 200 else b""
                    seen.append((r.status_code, r.content, headers, sent))
                assert seen[0] == seen[1], body
                compared += seen[0][0] == 200
    finally:
        gw.stop()
    assert compared >= len(requests) // 2  # most recorded requests translate (the rest: the same 4xx both ways)

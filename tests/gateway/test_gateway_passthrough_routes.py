"""Same-format passthrough under `wiremap serve --config`, and what the access log and /metrics
say of a passed-through request (issue 18).

A route whose upstream speaks the inbound format gets the client's bytes (on a fallback too,
with `upstream_model` renaming only the model value's bytes); the upstream's extras policy,
where it has one, cuts the fields it drops out of those bytes. The access-log line of a
passthrough names the model and the usage the upstream reported (read once the answer is sent),
and a stream's line is written after its last byte. Gemini's `:streamGenerateContent` path is
logged and counted like every other route.

Loopback upstreams only; retries are off (`max_retries: 0`) so that each test queues exactly the
answers it needs.
"""

from __future__ import annotations

import json
import logging
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
httpx = pytest.importorskip("httpx")
prometheus_parser = pytest.importorskip("prometheus_client.parser")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import Reply  # noqa: E402
from test_gateway_sdks import Gateway, Upstream, anthropic_message  # noqa: E402

from wiremap.gateway import create_app  # noqa: E402
from wiremap.gateway_endpoints import UsageTap, drop_fields  # noqa: E402
from wiremap.runtime.format import get_format  # noqa: E402

OPENAI_KEY = "sk-openai-env-secret-1111"
ANTHROPIC_KEY = "sk-ant-env-secret-2222"
CLIENT_KEY = "sk-client-3333"
OVERLOADED = Reply(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
# odd spacing, escapes, number spellings and an unknown field: what a translation would not keep
REQUEST = '{ "model" : "gpt-5",\n "messages":[{"role":"user","content":"h\\u00e9llo ✓"}], "max_tokens":  64, "x_vendor": [1.50, 2e3] }'
ANSWER = ('{"id":"chatcmpl-9","object":"chat.completion","created":1,"model":"gpt-5-2026","choices":[{"index":0,'
          '"message":{"role":"assistant","content":"Hi ✓"},"finish_reason":"stop"}],'
          '"usage":{"prompt_tokens":21,"completion_tokens":4,"total_tokens":25,"prompt_tokens_details":{"cached_tokens":16}},  "x_new": 1.50}').encode()


def config_text(oai: str, ant: str) -> str:
    return textwrap.dedent(f"""\
        inbound: openai_chat
        upstreams:
          openai: {{format: openai_chat, base_url: "{oai}", api_key_env: WIREMAP_TEST_OPENAI_KEY, retries: {{max_retries: 0}}}}
          lean: {{format: openai_chat, base_url: "{oai}", keep_extras: false, retries: {{max_retries: 0}}}}
          picky: {{format: openai_chat, base_url: "{oai}", allowed_extras: [top_k], retries: {{max_retries: 0}}}}
          anthropic: {{format: anthropic_messages, base_url: "{ant}", api_key_env: WIREMAP_TEST_ANTHROPIC_KEY, retries: {{max_retries: 0}}}}
        routes:
          - {{model: fast, upstream: openai, upstream_model: gpt-5-mini}}
          - {{model: lean, upstream: lean}}
          - {{model: picky, upstream: picky}}
          - {{model: "gpt-*", upstream: openai, fallbacks: [{{upstream: anthropic, upstream_model: claude-sonnet-5}}]}}
          - {{model: "claude-*", upstream: anthropic, fallbacks: [{{upstream: openai, upstream_model: gpt-4o}}]}}
        default: {{upstream: openai}}
        """)


@pytest.fixture(scope="module")
def upstreams() -> Iterator[tuple[Upstream, Upstream]]:
    oai, ant = Upstream(), Upstream()
    with oai.server, ant.server:
        yield oai, ant


@pytest.fixture(scope="module")
def gateway(upstreams: tuple[Upstream, Upstream], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    oai, ant = upstreams
    path = tmp_path_factory.mktemp("gw") / "gateway.yaml"
    path.write_text(config_text(oai.server.url, ant.server.url))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WIREMAP_TEST_OPENAI_KEY", OPENAI_KEY)
        mp.setenv("WIREMAP_TEST_ANTHROPIC_KEY", ANTHROPIC_KEY)
        gw = Gateway(create_app(config_file=path))
    yield gw
    gw.stop()


@pytest.fixture
def ups(upstreams: tuple[Upstream, Upstream]) -> tuple[Upstream, Upstream]:
    for up in upstreams:
        up.replies.clear()
        up.server.requests.clear()
    return upstreams


def post(gw: Gateway, body: str | bytes, path: str = "/v1/chat/completions") -> Any:
    content = body.encode() if isinstance(body, str) else body
    return httpx.post(gw.url + path, content=content, headers={"authorization": f"Bearer {CLIENT_KEY}", "content-type": "application/json"}, timeout=20)


def access_lines(caplog: pytest.LogCaptureFixture, count: int) -> list[dict[str, Any]]:
    """The first `count` access-log lines; a passthrough writes its line just after its answer
    is sent, so the client may read the answer first: wait (up to 10 s) for the line."""
    deadline = time.monotonic() + 10
    while True:
        lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "wiremap.gateway.access"]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.01)


# ------------------------------------------------------------------------------ passthrough on routes


def test_a_route_to_an_upstream_of_the_inbound_format_passes_the_bytes(gateway: Gateway, ups: tuple[Upstream, Upstream]) -> None:
    oai, ant = ups
    oai.replies.append(Reply(200, ANSWER, content_type="application/json", headers={"x-ratelimit-remaining-requests": "9"}))
    answer = post(gateway, REQUEST)
    assert oai.last.body == REQUEST.encode() and oai.last.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    assert answer.status_code == 200 and answer.content == ANSWER
    assert answer.headers["x-wiremap-upstream"] == "openai_chat" and answer.headers["x-ratelimit-remaining-requests"] == "9"
    assert "x-wiremap-losses" not in answer.headers and ant.server.requests == []


def test_upstream_model_rewrites_only_the_model_bytes(gateway: Gateway, ups: tuple[Upstream, Upstream]) -> None:
    oai, _ = ups
    oai.replies.append(Reply(200, ANSWER, content_type="application/json"))
    answer = post(gateway, REQUEST.replace('"gpt-5"', '"fast"'))
    assert answer.content == ANSWER
    assert oai.last.body == REQUEST.replace('"gpt-5"', '"gpt-5-mini"').encode()


def test_a_fallback_to_the_inbound_format_passes_the_bytes(gateway: Gateway, ups: tuple[Upstream, Upstream]) -> None:
    oai, ant = ups
    ant.replies.append(OVERLOADED)
    oai.replies.append(Reply(200, ANSWER, content_type="application/json"))
    answer = post(gateway, REQUEST.replace('"gpt-5"', '"claude-sonnet-5"'))
    assert ant.last.json()["model"] == "claude-sonnet-5"  # the first upstream got a translation
    assert oai.last.body == REQUEST.replace('"gpt-5"', '"gpt-4o"').encode()
    assert answer.status_code == 200 and answer.content == ANSWER


def test_a_passthrough_that_fails_falls_back_to_a_translation(gateway: Gateway, ups: tuple[Upstream, Upstream]) -> None:
    oai, ant = ups
    oai.replies.append(Reply(503, {"error": {"message": "overloaded", "type": "server_error", "code": None}}))
    ant.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "from claude"}])))
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=CLIENT_KEY, max_retries=0, timeout=20)
    raw = client.chat.completions.with_raw_response.create(model="gpt-5", messages=[{"role": "user", "content": "Hi"}])
    assert raw.parse().choices[0].message.content == "from claude"
    assert raw.headers["x-wiremap-upstream"] == "anthropic_messages"
    assert ant.last.json()["model"] == "claude-sonnet-5" and ant.last.headers["x-api-key"] == ANTHROPIC_KEY


def test_the_last_passthroughs_error_reaches_the_client_as_it_came(gateway: Gateway, ups: tuple[Upstream, Upstream]) -> None:
    oai, ant = ups
    ant.replies.append(OVERLOADED)
    error = b'{"error": {"message": "quota", "type": "requests", "param": null, "code": "rate_limit_exceeded"}, "x": 1.50}'
    oai.replies.append(Reply(429, error, content_type="application/json", headers={"retry-after": "3"}))
    answer = post(gateway, REQUEST.replace('"gpt-5"', '"claude-sonnet-5"'))
    assert (answer.status_code, answer.content, answer.headers["retry-after"]) == (429, error, "3")
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=CLIENT_KEY, max_retries=0, timeout=20)
    ant.replies.append(OVERLOADED)
    oai.replies.append(Reply(429, error, content_type="application/json"))
    with pytest.raises(openai.RateLimitError):
        client.chat.completions.create(model="claude-haiku-5", messages=[{"role": "user", "content": "Hi"}])


def test_keep_extras_false_cuts_the_extras_out_of_the_bytes(gateway: Gateway, ups: tuple[Upstream, Upstream]) -> None:
    oai, _ = ups
    oai.replies.append(Reply(200, ANSWER, content_type="application/json"))
    body = '{"model": "lean", "top_k": 5, "messages": [{"role": "user", "content": "Hi"}],\n "x_vendor": {"a": [1, 2]} , "temperature": 0.50}'
    answer = post(gateway, body)
    assert answer.content == ANSWER
    assert oai.last.body == b'{"model": "lean", "messages": [{"role": "user", "content": "Hi"}],\n "temperature": 0.50}'
    losses = json.loads(answer.headers["x-wiremap-losses"])
    assert [(x["path"], x["kind"], x["direction"]) for x in losses] == [("top_k", "dropped", "request"), ("x_vendor", "dropped", "request")]
    assert "keep_extras: false" in losses[0]["detail"]


def test_allowed_extras_keeps_the_named_fields_bytes(gateway: Gateway, ups: tuple[Upstream, Upstream]) -> None:
    oai, _ = ups
    oai.replies.append(Reply(200, ANSWER, content_type="application/json"))
    answer = post(gateway, '{"x_vendor": 1, "model": "picky", "top_k": 5,  "messages": [{"role": "user", "content": "Hi"}]}')
    assert oai.last.body == b'{"model": "picky", "top_k": 5,  "messages": [{"role": "user", "content": "Hi"}]}'
    assert [x["path"] for x in json.loads(answer.headers["x-wiremap-losses"])] == ["x_vendor"]


def test_drop_fields_keeps_every_other_byte() -> None:
    raw = b'{ "a" : 1 ,"b":[1,{"c":2}],\n"c": "x" }'
    assert drop_fields(raw, {"b"}) == b'{ "a" : 1 ,"c": "x" }'
    assert drop_fields(raw, {"a"}) == b'{ "b":[1,{"c":2}],\n"c": "x" }'
    assert drop_fields(raw, {"c"}) == b'{ "a" : 1 ,"b":[1,{"c":2}] }'
    assert drop_fields(raw, {"a", "b", "c"}) == b'{  }'
    assert drop_fields(raw, {"zzz"}) == raw and drop_fields(b"[1, 2]", {"a"}) == b"[1, 2]" and drop_fields(b'{"a": ', {"a"}) == b'{"a": '


# ------------------------------------------------------------------------------ access log and metrics


def scrape(gw: Gateway) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(gw.url + "/metrics", timeout=20).text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in prometheus_parser.text_string_to_metric_families(text)
        for s in family.samples
    }


def delta(before: dict[Any, float], after: dict[Any, float], name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


def test_a_passthroughs_log_line_has_the_model_and_the_upstreams_usage(gateway: Gateway, ups: tuple[Upstream, Upstream], caplog: pytest.LogCaptureFixture) -> None:
    oai, ant = ups
    before = scrape(gateway)
    with caplog.at_level(logging.INFO, logger="wiremap.gateway.access"):
        oai.replies.append(Reply(200, ANSWER, content_type="application/json"))
        assert post(gateway, REQUEST.replace('"gpt-5"', '"fast"')).status_code == 200
        ant.replies.append(OVERLOADED)
        oai.replies.append(Reply(429, {"error": {"message": "quota", "type": "requests", "param": None, "code": "rate_limit_exceeded"}}))
        assert post(gateway, REQUEST.replace('"gpt-5"', '"claude-sonnet-5"')).status_code == 429
        lines = access_lines(caplog, 2)
    ok, failed = lines
    assert {k: ok[k] for k in ("upstream", "upstream_format", "model", "upstream_model", "stream", "status", "category")} == {
        "upstream": "openai", "upstream_format": "openai_chat", "model": "fast", "upstream_model": "gpt-5-mini",
        "stream": False, "status": 200, "category": None,
    }
    assert (ok["input_tokens"], ok["output_tokens"], ok["cached_tokens"]) == (21, 4, 16)
    assert (failed["status"], failed["category"], failed["tried"], failed["upstream_model"]) == (429, "provider_rate_limit", ["anthropic", "openai"], "gpt-4o")
    after = scrape(gateway)
    assert delta(before, after, "wiremap_tokens_total", kind="input") == 21
    assert delta(before, after, "wiremap_tokens_total", kind="cached") == 16
    assert delta(before, after, "wiremap_requests_total", inbound="openai_chat", upstream="openai", status="429") == 1
    assert delta(before, after, "wiremap_errors_total", category="provider_rate_limit") == 1


class GatedUpstream:
    """An upstream that sends the head of its stream, then waits for `release` before the rest."""

    def __init__(self, head: bytes, rest: bytes) -> None:
        self.release = threading.Event()
        gate = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for part, wait in ((head, True), (rest, False)):
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                    self.wfile.flush()
                    if wait:
                        gate.release.wait(20)
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def sse(*events: dict[str, Any]) -> bytes:
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode()


def test_a_passthrough_streams_line_comes_after_its_last_byte_with_its_usage(caplog: pytest.LogCaptureFixture) -> None:
    head = sse({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-5", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hel"}, "finish_reason": None}]})
    rest = sse(
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-5", "choices": [{"index": 0, "delta": {"content": "lo"}, "finish_reason": "stop"}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-5", "choices": [],
         "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11, "prompt_tokens_details": {"cached_tokens": 4}}},
    ) + b"data: [DONE]\n\n"
    up = GatedUpstream(head, rest)
    gw = Gateway(create_app("openai_chat", "openai_chat", up.url, model_map={"gpt-5": "gpt-5-2026"}))
    try:
        request = b'{"model":"gpt-5","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Hi"}]}'
        with caplog.at_level(logging.INFO, logger="wiremap.gateway.access"):
            with httpx.stream("POST", gw.url + "/v1/chat/completions", content=request, headers={"authorization": "Bearer k"}, timeout=20) as answer:
                chunks = answer.iter_raw()
                got = next(chunks)
                assert access_lines(caplog, 0) == []  # the client has the first bytes; the stream is not over
                up.release.set()
                got += b"".join(chunks)
            lines = access_lines(caplog, 1)
        assert got == head + rest
        [line] = lines
        assert (line["model"], line["upstream_model"], line["stream"], line["status"]) == ("gpt-5", "gpt-5-2026", True, 200)
        assert (line["input_tokens"], line["output_tokens"], line["cached_tokens"]) == (9, 2, 4)
    finally:
        gw.stop()
        up.stop()


@pytest.mark.parametrize(
    ("fmt", "stream"),
    [
        ("openai_chat", b'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
                        b'data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":3}}}\n\ndata: [DONE]\n\n'),
        ("anthropic_messages", b'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"c",'
                               b'"content":[],"stop_reason":null,"usage":{"input_tokens":2,"output_tokens":1,"cache_read_input_tokens":3}}}\r\n\r\n'
                               b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"usage"}}\r\n\r\n'
                               b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}\r\n\r\n'
                               b'event: message_stop\ndata: {"type":"message_stop"}\r\n\r\n'),
        ("gemini_generate_content", b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"a"}]}}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"totalTokenCount":6}}\r\n\r\n'
                                    b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"b"}]},"finishReason":"STOP"}],'
                                    b'"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":7,"totalTokenCount":12,"cachedContentTokenCount":3}}'),
    ],
)
@pytest.mark.parametrize("size", [1, 13, 10_000])
def test_usage_tap_reads_a_streams_usage_whatever_its_chunking(fmt: str, stream: bytes, size: int) -> None:
    tap = UsageTap(get_format(fmt))
    for i in range(0, len(stream), size):
        tap.feed(stream[i : i + size])
    usage = tap.usage()
    assert (usage["prompt_tokens"], usage["completion_tokens"], usage.get("cached_tokens")) == ((5 if fmt != "anthropic_messages" else 5), 7, 3)


# ------------------------------------------------------------------------------ Gemini's stream path


@pytest.mark.parametrize("upstream_format", ["openai_chat", "gemini_generate_content"])
def test_gemini_stream_path_is_logged_and_counted(upstream_format: str, caplog: pytest.LogCaptureFixture) -> None:
    up = Upstream()
    with up.server:
        gw = Gateway(create_app("gemini_generate_content", upstream_format, up.server.url))
        try:
            if upstream_format == "openai_chat":
                body = sse(
                    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "flash", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}]},
                    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "flash", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}},
                ) + b"data: [DONE]\n\n"
            else:
                body = sse({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}, "finishReason": "STOP"}],
                            "usageMetadata": {"promptTokenCount": 5, "candidatesTokenCount": 7, "totalTokenCount": 12}})
            up.replies.append(Reply(200, body, content_type="text/event-stream"))
            before = scrape(gw)
            with caplog.at_level(logging.INFO, logger="wiremap.gateway.access"):
                answer = httpx.post(gw.url + "/v1beta/models/flash:streamGenerateContent?alt=sse", headers={"x-goog-api-key": "g-key"}, timeout=20,
                                    json={"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]})
                lines = access_lines(caplog, 1)
            assert answer.status_code == 200 and "Hi" in answer.text
            [line] = lines
            assert (line["path"], line["model"], line["stream"], line["status"]) == ("/v1beta/models/flash:streamGenerateContent", "flash", True, 200)
            assert (line["input_tokens"], line["output_tokens"]) == (5, 7)
            after = scrape(gw)
            assert delta(before, after, "wiremap_requests_total", inbound="gemini_generate_content", upstream=upstream_format, status="200") == 1
            assert delta(before, after, "wiremap_tokens_total", kind="output") == 7
        finally:
            gw.stop()


def test_strict_refuses_a_passthrough_whose_policy_would_drop_fields(tmp_path: Path) -> None:
    up = Upstream()
    with up.server:
        path = tmp_path / "gateway.toml"
        path.write_text(f'inbound = "openai_chat"\nstrict = true\n[upstreams.lean]\nformat = "openai_chat"\nbase_url = "{up.server.url}"\nkeep_extras = false\n[default]\nupstream = "lean"\n')
        gw = Gateway(create_app(config_file=path))
        try:
            client = openai.OpenAI(base_url=gw.url + "/v1", api_key=CLIENT_KEY, max_retries=0, timeout=20)
            with pytest.raises(openai.BadRequestError) as caught:
                client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "Hi"}], extra_body={"x_vendor": 1})
            assert "x_vendor" in caught.value.response.headers["x-wiremap-losses"]
            assert up.server.requests == []
        finally:
            gw.stop()

"""`wiremap serve --config`: several upstreams, routes by model, fallbacks, retries, the extras
policy, the access log and /metrics, end to end through uvicorn with the official SDKs
(`max_retries=0` on the SDKs: the retries under test are the gateway's).

Two loopback upstreams play Anthropic (anthropic_messages) and OpenAI (openai_chat); the
gateway's config file routes `claude-*` to the first, falling back to the second, and every other
model to the second. Retry waits go through `gateway.sleep`, replaced here by a recorder, so the
tests check the waits the gateway asked for without waiting.
"""

from __future__ import annotations

import json
import logging
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
prometheus_parser = pytest.importorskip("prometheus_client.parser")

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "runtime"))
from loopback import Reply, refused_url  # noqa: E402
from test_gateway_sdks import Gateway, Upstream, anthropic_message, chat_completion  # noqa: E402

from wiremap.cli import main  # noqa: E402
from wiremap.gateway import create_app  # noqa: E402
from wiremap.gateway_config import GatewayConfigError, load_gateway_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ANTHROPIC_KEY = "sk-ant-env-secret-0123456789"
OPENAI_KEY = "sk-openai-env-secret-9876543210"
CLIENT_KEY = "sk-client-secret-key-5555"
OVERLOADED = Reply(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})


def config_text(anthropic_url: str, openai_url: str, **anthropic_extra: str) -> str:
    extra = "".join(f"\n    {k}: {v}" for k, v in anthropic_extra.items())
    return textwrap.dedent(f"""\
        inbound: openai_chat
        upstreams:
          anthropic:
            format: anthropic_messages
            base_url: {anthropic_url}
            api_key_env: WIREMAP_TEST_ANTHROPIC_KEY
            allowed_extras: [top_k]
            retries: {{max_retries: 2, initial_delay: 0.5, max_delay: 4, max_retry_after: 30}}{extra}
          openai:
            format: openai_chat
            base_url: {openai_url}
            api_key_env: WIREMAP_TEST_OPENAI_KEY
            retries: {{max_retries: 0}}
        routes:
          - model: claude-solo             # first match wins: before the pattern
            upstream: anthropic
          - model: "claude-*"
            upstream: anthropic
            fallbacks:
              - {{upstream: openai, upstream_model: gpt-4o}}
        default:
          upstream: openai
        """)


class Sleeps:
    """Stands in for the gateway's `asyncio.sleep` between retries: records, never waits."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


@pytest.fixture(scope="module")
def upstreams() -> Iterator[tuple[Upstream, Upstream]]:
    ant, oai = Upstream(), Upstream()
    with ant.server, oai.server:
        yield ant, oai


@pytest.fixture(scope="module")
def gateway(upstreams: tuple[Upstream, Upstream], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    ant, oai = upstreams
    path = tmp_path_factory.mktemp("gw") / "gateway.yaml"
    path.write_text(config_text(ant.server.url, oai.server.url))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WIREMAP_TEST_ANTHROPIC_KEY", ANTHROPIC_KEY)
        mp.setenv("WIREMAP_TEST_OPENAI_KEY", OPENAI_KEY)
        app = create_app(config_file=path)
    gw = Gateway(app)
    gw.app = app
    yield gw
    gw.stop()


@pytest.fixture
def sleeps(gateway: Any) -> Iterator[Sleeps]:
    rec = Sleeps()
    gateway.app.state.gateway.sleep = rec
    yield rec


@pytest.fixture
def client(gateway: Any, upstreams: tuple[Upstream, Upstream], sleeps: Sleeps) -> Any:
    for up in upstreams:
        up.replies.clear()
        up.server.requests.clear()
    return openai.OpenAI(base_url=gateway.url + "/v1", api_key=CLIENT_KEY, max_retries=0, timeout=20)


def ask(client: Any, model: str, **kw: Any) -> Any:
    return client.chat.completions.with_raw_response.create(model=model, messages=[{"role": "user", "content": "Hi"}], **kw)


# ------------------------------------------------------------------------------ routing


def test_routes_by_model_to_upstreams_of_different_formats(client: Any, upstreams: tuple[Upstream, Upstream]) -> None:
    ant, oai = upstreams
    ant.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "from claude"}])))
    oai.replies.append(Reply(200, chat_completion({"content": "from gpt"})))
    first = ask(client, "claude-sonnet-5")
    second = ask(client, "gpt-4o-mini")
    assert first.parse().choices[0].message.content == "from claude"
    assert second.parse().choices[0].message.content == "from gpt"
    assert first.headers["x-wiremap-upstream"] == "anthropic_messages" and second.headers["x-wiremap-upstream"] == "openai_chat"
    # each upstream got its own wire and the gateway's key for it, never the client's
    (a,), (o,) = ant.server.requests, oai.server.requests
    assert a.path == "/v1/messages" and a.json()["model"] == "claude-sonnet-5" and a.json()["messages"][0]["content"] == [{"type": "text", "text": "Hi"}]
    assert a.headers["x-api-key"] == ANTHROPIC_KEY
    assert o.path == "/v1/chat/completions" and o.json()["model"] == "gpt-4o-mini"
    assert o.headers["authorization"] == f"Bearer {OPENAI_KEY}"


# ------------------------------------------------------------------------------ fallbacks and retries


def test_529_falls_back_to_the_next_upstream_in_its_format(client: Any, upstreams: tuple[Upstream, Upstream], sleeps: Sleeps) -> None:
    ant, oai = upstreams
    ant.replies += [OVERLOADED, OVERLOADED, OVERLOADED]
    oai.replies.append(Reply(200, chat_completion({"content": "fallback answer"})))
    raw = ask(client, "claude-sonnet-5", max_completion_tokens=40)
    assert raw.parse().choices[0].message.content == "fallback answer"
    assert raw.headers["x-wiremap-upstream"] == "openai_chat"
    assert len(ant.server.requests) == 3  # the first attempt and its two retries
    assert len(sleeps.waits) == 2 and all(0 < w <= 4 for w in sleeps.waits)
    (sent,) = oai.server.requests
    assert sent.json() == {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}], "max_completion_tokens": 40}
    assert sent.headers["authorization"] == f"Bearer {OPENAI_KEY}"


def test_retry_honours_retry_after(client: Any, upstreams: tuple[Upstream, Upstream], sleeps: Sleeps) -> None:
    ant, oai = upstreams
    ant.replies += [
        Reply(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}, headers={"retry-after": "7"}),
        Reply(200, anthropic_message([{"type": "text", "text": "after the wait"}])),
    ]
    raw = ask(client, "claude-sonnet-5")
    assert raw.parse().choices[0].message.content == "after the wait"
    assert len(ant.server.requests) == 2 and not oai.server.requests
    assert sleeps.waits == [7.0]  # the server's wait, not the backoff's


def test_retry_after_beyond_max_retry_after_is_not_waited_for(client: Any, upstreams: tuple[Upstream, Upstream], sleeps: Sleeps) -> None:
    ant, oai = upstreams
    ant.replies.append(Reply(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}, headers={"retry-after": "3600"}))
    oai.replies.append(Reply(200, chat_completion({"content": "elsewhere"})))
    assert ask(client, "claude-sonnet-5").parse().choices[0].message.content == "elsewhere"
    assert len(ant.server.requests) == 1 and sleeps.waits == []


def test_last_upstreams_error_reaches_the_client_as_its_sdks_exception(client: Any, upstreams: tuple[Upstream, Upstream]) -> None:
    ant, oai = upstreams
    ant.replies += [OVERLOADED] * 3
    oai.replies.append(Reply(503, {"error": {"message": "down", "type": "server_error"}}))
    with pytest.raises(openai.InternalServerError):
        ask(client, "claude-sonnet-5")
    assert len(ant.server.requests) == 3 and len(oai.server.requests) == 1  # openai: max_retries 0


def test_a_route_without_fallbacks_answers_with_its_upstreams_error(client: Any, upstreams: tuple[Upstream, Upstream]) -> None:
    ant, oai = upstreams
    ant.replies += [OVERLOADED] * 3
    with pytest.raises(openai.APIStatusError) as info:
        ask(client, "claude-solo")
    assert info.value.status_code in (503, 529) and not oai.server.requests


def test_non_transient_errors_go_straight_to_the_client(client: Any, upstreams: tuple[Upstream, Upstream], sleeps: Sleeps) -> None:
    ant, oai = upstreams
    ant.replies.append(Reply(400, {"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: too large"}}))
    with pytest.raises(openai.BadRequestError) as info:
        ask(client, "claude-sonnet-5")
    assert "too large" in str(info.value)
    assert len(ant.server.requests) == 1 and not oai.server.requests and sleeps.waits == []


def test_stream_falls_back_before_its_first_byte(client: Any, upstreams: tuple[Upstream, Upstream], caplog: pytest.LogCaptureFixture) -> None:
    ant, oai = upstreams
    ant.replies += [OVERLOADED] * 3
    chunks = [
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "stre"}, "finish_reason": None}]},
        {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o", "choices": [{"index": 0, "delta": {"content": "amed"}, "finish_reason": "stop"}]},
    ]
    sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    oai.replies.append(Reply(200, sse, content_type="text/event-stream"))
    with caplog.at_level(logging.INFO, logger="wiremap.gateway.access"):
        stream = client.chat.completions.create(model="claude-sonnet-5", messages=[{"role": "user", "content": "Hi"}], stream=True)
        text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
        assert text == "streamed"
        assert len(ant.server.requests) == 3
        assert oai.server.requests[0].json()["stream"] is True and oai.server.requests[0].json()["model"] == "gpt-4o"
        # a stream's line is written when the gateway has finished the response, just after the
        # client read its end: wait for it (an event, not a duration under test)
        for _ in range(1000):
            lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "wiremap.gateway.access"]
            if lines:
                break
            time.sleep(0.01)
    (line,) = lines
    assert (line["stream"], line["status"], line["tried"], line["retries"], line["upstream_model"]) == (True, 200, ["anthropic", "openai"], 2, "gpt-4o")


def test_an_unreachable_upstream_falls_back(tmp_path: Path, upstreams: tuple[Upstream, Upstream]) -> None:
    _, oai = upstreams
    oai.replies.clear()
    oai.replies.append(Reply(200, chat_completion({"content": "reached"})))
    path = write(tmp_path, f"""\
        inbound: openai_chat
        upstreams:
          down: {{format: anthropic_messages, base_url: '{refused_url()}', retries: {{max_retries: 1, initial_delay: 0}}}}
          up: {{format: openai_chat, base_url: '{oai.server.url}'}}
        default: {{upstream: down, fallbacks: [up]}}
        """)
    gw = Gateway(create_app(config_file=path))
    try:
        c = openai.OpenAI(base_url=gw.url + "/v1", api_key=CLIENT_KEY, max_retries=0, timeout=20)
        assert ask(c, "gpt-4o").parse().choices[0].message.content == "reached"
        assert oai.last.headers["authorization"] == f"Bearer {CLIENT_KEY}"  # no api_key_env: the client's key
    finally:
        gw.stop()


def test_unrouted_model_without_default_is_an_invalid_model_error(tmp_path: Path, upstreams: tuple[Upstream, Upstream], monkeypatch: pytest.MonkeyPatch) -> None:
    ant, _ = upstreams
    path = tmp_path / "gateway.toml"
    path.write_text(textwrap.dedent(f"""\
        inbound = "anthropic_messages"
        [upstreams.claude]
        format = "anthropic_messages"
        base_url = "{ant.server.url}"
        [[routes]]
        model = "claude-*"
        upstream = "claude"
        """))
    gw = Gateway(create_app(config_file=path))
    try:
        client = anthropic.Anthropic(base_url=gw.url, api_key=CLIENT_KEY, max_retries=0, timeout=20)
        with pytest.raises(anthropic.NotFoundError) as info:
            client.messages.create(model="gpt-4o", max_tokens=10, messages=[{"role": "user", "content": "Hi"}])
        assert "no route for model 'gpt-4o'" in str(info.value)
        # no api_key_env: the client's own key is forwarded, as without a config file
        ant.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "ok"}])))
        out = client.messages.create(model="claude-haiku-5", max_tokens=10, messages=[{"role": "user", "content": "Hi"}])
        assert out.content[0].text == "ok" and ant.last.headers["x-api-key"] == CLIENT_KEY
    finally:
        gw.stop()


# ------------------------------------------------------------------------------ extras policy


def test_allowed_extras_are_forwarded_and_the_others_dropped_and_named(client: Any, upstreams: tuple[Upstream, Upstream]) -> None:
    ant, _ = upstreams
    ant.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "ok"}])))
    raw = ask(client, "claude-sonnet-5", extra_body={"top_k": 5, "logit_bias": {"50256": -100}})
    sent = ant.last.json()
    assert sent["top_k"] == 5 and "logit_bias" not in sent
    losses = json.loads(raw.headers["x-wiremap-losses"])
    assert [(x["path"], x["kind"]) for x in losses if "extras" in x["path"] or "logit_bias" in x["path"]] == [("config.extras.logit_bias", "dropped")]


def test_keep_extras_false_drops_extras_even_on_the_same_provider(tmp_path: Path, upstreams: tuple[Upstream, Upstream]) -> None:
    _, oai = upstreams
    path = tmp_path / "gateway.yaml"
    path.write_text(f"inbound: openai_chat\nupstreams:\n  o: {{format: openai_responses, base_url: '{oai.server.url}', keep_extras: false}}\ndefault: {{upstream: o}}\n")
    gw = Gateway(create_app(config_file=path))
    try:
        oai.replies.append(Reply(200, {
            "id": "resp_1", "object": "response", "created_at": 1, "status": "completed", "model": "gpt-4o",
            "output": [{"type": "message", "id": "m1", "status": "completed", "role": "assistant", "content": [{"type": "output_text", "text": "ok", "annotations": []}]}],
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2},
        }))
        c = openai.OpenAI(base_url=gw.url + "/v1", api_key=CLIENT_KEY, max_retries=0, timeout=20)
        raw = ask(c, "gpt-4o", extra_body={"top_k": 5})
        assert raw.parse().choices[0].message.content == "ok"
        assert "top_k" not in oai.last.json()
        assert any(x["path"] == "config.extras.top_k" or x["path"] == "top_k" for x in json.loads(raw.headers["x-wiremap-losses"]))
    finally:
        gw.stop()


# ------------------------------------------------------------------------------ access log and metrics


def test_access_log_line_per_request_without_secrets(client: Any, upstreams: tuple[Upstream, Upstream], caplog: pytest.LogCaptureFixture) -> None:
    ant, oai = upstreams
    ant.replies += [OVERLOADED, Reply(200, {**anthropic_message([{"type": "text", "text": "ok"}]), "usage": {"input_tokens": 30, "output_tokens": 4, "cache_read_input_tokens": 20}})]
    with caplog.at_level(logging.DEBUG):
        raw = ask(client, "claude-sonnet-5", extra_body={"logit_bias": {"1": 1}})
        assert raw.parse().choices[0].message.content == "ok"
        ant.replies += [OVERLOADED] * 3
        oai.replies.append(Reply(429, {"error": {"message": "quota", "type": "requests", "code": "rate_limit_exceeded"}}))
        with pytest.raises(openai.RateLimitError):
            ask(client, "claude-sonnet-5")
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "wiremap.gateway.access"]
    assert len(lines) == 2
    ok, failed = lines
    assert ok["request_id"] == raw.headers["x-request-id"]
    assert {k: ok[k] for k in ("inbound", "upstream", "upstream_format", "model", "upstream_model", "status", "category", "retries", "fallback", "tried")} == {
        "inbound": "openai_chat", "upstream": "anthropic", "upstream_format": "anthropic_messages", "model": "claude-sonnet-5",
        "upstream_model": "claude-sonnet-5", "status": 200, "category": None, "retries": 1, "fallback": False, "tried": ["anthropic"],
    }
    assert (ok["input_tokens"], ok["output_tokens"], ok["cached_tokens"]) == (50, 4, 20)
    assert ok["losses"] == len(json.loads(raw.headers["x-wiremap-losses"])) >= 1 and ok["latency_ms"] >= 0
    assert failed["status"] == 429 and failed["category"] == "provider_rate_limit"
    assert failed["fallback"] is True and failed["tried"] == ["anthropic", "openai"] and failed["upstream_model"] == "gpt-4o"
    everything = "\n".join(f"{r.name} {r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    for secret in (ANTHROPIC_KEY, OPENAI_KEY, CLIENT_KEY):
        assert secret not in everything


def test_metrics_parse_as_prometheus_text_and_count(client: Any, gateway: Any, upstreams: tuple[Upstream, Upstream]) -> None:
    import httpx

    def scrape() -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        r = httpx.get(gateway.url + "/metrics")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain; version=0.0.4")
        return {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in prometheus_parser.text_string_to_metric_families(r.text)
            for s in family.samples
        }

    before = scrape()
    ant, oai = upstreams
    ant.replies += [OVERLOADED] * 3
    oai.replies.append(Reply(200, chat_completion({"content": "ok"})))  # usage 12 in, 6 out
    ask(client, "claude-sonnet-5")
    oai.replies.append(Reply(400, {"error": {"message": "bad", "type": "invalid_request_error"}}))
    with pytest.raises(openai.BadRequestError):
        ask(client, "gpt-4o")
    after = scrape()

    def delta(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    assert delta("wiremap_requests_total", inbound="openai_chat", upstream="openai", status="200") == 1
    assert delta("wiremap_requests_total", inbound="openai_chat", upstream="openai", status="400") == 1
    assert delta("wiremap_errors_total", category="provider_invalid_request") == 1
    assert delta("wiremap_tokens_total", kind="input") == 12 and delta("wiremap_tokens_total", kind="output") == 6
    assert delta("wiremap_upstream_retries_total", upstream="anthropic") == 2
    assert delta("wiremap_fallbacks_total", upstream="anthropic") == 1
    assert delta("wiremap_request_duration_seconds_count", upstream="openai") == 2
    assert delta("wiremap_request_duration_seconds_bucket", upstream="openai", le="+Inf") == 2


# ------------------------------------------------------------------------------ the file


def write(tmp_path: Path, text: str, name: str = "gateway.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


BASE = """\
inbound: openai_chat
upstreams:
  anthropic: {format: anthropic_messages}
  openai: {format: openai_chat}
"""


@pytest.mark.parametrize("text, where, message", [
    (BASE + "routes:\n  - {model: a, upstream: openai}\n  - {model: b, upstream: anthropic}\n  - {model: c, upstream: antropic}\n",
     "gateway.yaml:8: routes[2].upstream", "unknown upstream 'antropic' (did you mean 'anthropic'?)"),
    (BASE + "default: {upstream: openai, fallbacks: [openia]}\n", "default.fallbacks[0]", "unknown upstream 'openia' (did you mean 'openai'?)"),
    (BASE.replace("{format: openai_chat}", "{format: openai_chat, api_key: sk-live-123}") + "default: {upstream: openai}\n",
     "upstreams.openai.api_key", "a key may not be written in the file"),
    (BASE.replace("{format: openai_chat}", "{format: openai_chat, api_key_env: sk-live-123}") + "default: {upstream: openai}\n",
     "upstreams.openai.api_key_env", "the NAME of an environment variable"),
    (BASE.replace("{format: openai_chat}", "{format: openai_chat, base_url: 'https://u:pw@example.com'}") + "default: {upstream: openai}\n",
     "upstreams.openai.base_url", "credentials in the URL are not allowed"),
    (BASE.replace("{format: openai_chat}", "{format: openai_chat, base_url: 'https://example.com/v1?key=sk-live-123'}") + "default: {upstream: openai}\n",
     "upstreams.openai.base_url", "credentials in the URL are not allowed"),
    (BASE.replace("{format: openai_chat}", "{format: open_chat}") + "default: {upstream: openai}\n",
     "upstreams.openai.format", "unknown format 'open_chat' (did you mean 'openai_chat'?)"),
    (BASE.replace("{format: openai_chat}", "{format: openai_embeddings}") + "default: {upstream: openai}\n",
     "upstreams.openai.format", "the inbound format is kind chat: every upstream must be of the inbound's kind"),
    (BASE.replace("{format: openai_chat}", "{format: openai_images}") + "default: {upstream: openai}\n",
     "upstreams.openai.format", "is kind images; the gateway serves chat and embeddings formats only"),
    (BASE + "default: {upstream: openai}\nrouts: []\n", "gateway.yaml:6: routs", "unknown key (did you mean 'routes'?)"),
    (BASE.replace("{format: openai_chat}", "{format: openai_chat, retries: {max_retries: -1}}") + "default: {upstream: openai}\n",
     "upstreams.openai.retries.max_retries", "expected an integer >= 0"),
    (BASE.replace("{format: openai_chat}", "{format: openai_chat, retries: {max_retires: 2}}") + "default: {upstream: openai}\n",
     "upstreams.openai.retries.max_retires", "did you mean 'max_retries'?"),
    (BASE, "gateway.yaml:1: no route", "give `routes` (by model) or a `default` upstream"),
    (BASE + "default: {upstream: openai, fallbacks: [openai]}\n", "default.fallbacks[0]", "upstream 'openai' is already in this route"),
    ("inbound: openai_chat\nupstreams: [a]\n", "upstreams", "expected a mapping of upstream name"),
    ("inbound: [\n", "gateway.yaml", "not valid YAML"),
])
def test_config_errors_name_the_file_line_and_key(tmp_path: Path, text: str, where: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(GatewayConfigError) as info:
        create_app(config_file=path)
    text_of_error = str(info.value)
    assert where in text_of_error and message in text_of_error
    assert str(path) in text_of_error
    assert "sk-live-123" not in text_of_error  # a key pasted into the file is never repeated


def test_a_key_variable_that_is_not_set_fails_at_start_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WIREMAP_TEST_UNSET", raising=False)
    path = write(tmp_path, BASE.replace("{format: openai_chat}", "{format: openai_chat, api_key_env: WIREMAP_TEST_UNSET}") + "default: {upstream: openai}\n")
    with pytest.raises(GatewayConfigError, match=r"upstreams.openai.api_key_env: the environment variable WIREMAP_TEST_UNSET is not set"):
        create_app(config_file=path)


def test_toml_and_yaml_say_the_same(tmp_path: Path) -> None:
    yaml_file = load_gateway_file(write(tmp_path, BASE + "routes:\n  - {model: 'claude-*', upstream: anthropic, fallbacks: [openai]}\n"))
    toml_file = load_gateway_file(write(tmp_path, """\
        inbound = "openai_chat"
        upstreams.anthropic.format = "anthropic_messages"
        upstreams.openai.format = "openai_chat"
        [[routes]]
        model = "claude-*"
        upstream = "anthropic"
        fallbacks = ["openai"]
        """, "gateway.toml"))
    assert yaml_file.routes == toml_file.routes and yaml_file.upstreams == toml_file.upstreams


def test_the_example_file_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """examples/gateway.yaml is the README's example."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "a")
    monkeypatch.setenv("OPENAI_API_KEY", "b")
    app = create_app(config_file=ROOT / "examples" / "gateway.yaml")
    routing = app.state.gateway.config.routing
    assert [(lane.name, model) for lane, model in routing.hops("claude-opus-5")] == [("anthropic", None), ("openai", "gpt-4o")]
    assert [(lane.name, model) for lane, model in routing.hops("o3")] == [("openai", None)]
    assert "examples/gateway.yaml" in (ROOT / "README.md").read_text()


def test_serve_config_conflicts_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = write(tmp_path, BASE + "default: {upstream: openai}\n")
    assert main(["serve", "--config", str(good), "--inbound", "openai_chat", "--port", "1"]) == 2
    assert "--inbound conflict(s) with the file" in capsys.readouterr().err
    bad = write(tmp_path, BASE + "default: {upstream: nobody}\n", "bad.yaml")
    assert main(["serve", "--config", str(bad), "--port", "1"]) == 2
    assert "bad.yaml:5: default.upstream: unknown upstream 'nobody'" in capsys.readouterr().err
    assert main(["serve", "--port", "1"]) == 2
    assert "serve needs --inbound and --upstream, or --config FILE" in capsys.readouterr().err


def test_wiremap_serve_config_end_to_end(tmp_path: Path, upstreams: tuple[Upstream, Upstream]) -> None:
    """The command itself: keys from its environment, the access line on its stderr, no key in it."""
    import os
    import signal
    import socket
    import subprocess

    import httpx

    ant, _ = upstreams
    ant.replies.clear()
    ant.replies.append(Reply(200, anthropic_message([{"type": "text", "text": "served"}])))
    path = write(tmp_path, f"inbound: openai_chat\nupstreams:\n  a: {{format: anthropic_messages, base_url: '{ant.server.url}', api_key_env: WIREMAP_TEST_SERVE_KEY}}\ndefault: {{upstream: a}}\n")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "WIREMAP_TEST_SERVE_KEY": ANTHROPIC_KEY}
    proc = subprocess.Popen(
        [sys.executable, "-m", "wiremap", "serve", "--config", str(path), "--port", str(port), "--graceful-timeout", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True,
    )
    try:
        for _ in range(300):  # wait for it to listen
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            pytest.fail("the gateway did not start")
        c = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key=CLIENT_KEY, max_retries=0, timeout=20)
        assert c.chat.completions.create(model="claude-sonnet-5", messages=[{"role": "user", "content": "Hi"}]).choices[0].message.content == "served"
        assert ant.last.headers["x-api-key"] == ANTHROPIC_KEY
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
    access = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert [(x["upstream"], x["status"], x["model"]) for x in access] == [("a", 200, "claude-sonnet-5")]
    assert ANTHROPIC_KEY not in err and CLIENT_KEY not in err


def test_keep_extras_true_forwards_every_extra_to_another_wire() -> None:
    from wiremap.gateway import GatewayConfig
    from wiremap.gateway_config import apply_extras_policy
    from wiremap.runtime.format import get_format

    inbound = get_format("openai_chat")
    plain = inbound.request_from_wire({"model": "m", "messages": [{"role": "user", "content": "Hi"}], "top_k": 3, "foo": {"a": 1}}).to_dict()
    kept, losses = apply_extras_policy(dict(plain), inbound, GatewayConfig("openai_chat", "anthropic_messages", keep_extras=True))
    assert kept["config"]["extras"] == {"top_k": 3, "foo": {"a": 1}} and losses == []
    allowed, losses = apply_extras_policy(dict(plain), inbound, GatewayConfig("openai_chat", "anthropic_messages", allowed_extras=["foo"]))
    assert allowed["config"]["extras"] == {"foo": {"a": 1}} and [x.path for x in losses] == ["config.extras.top_k"]


def test_metrics_label_values_are_escaped() -> None:
    from wiremap.gateway_metrics import Metrics

    m = Metrics()
    m.inc("wiremap_errors_total", (("category", 'a"b\\c\nd'),), 2)
    (family,) = [f for f in prometheus_parser.text_string_to_metric_families(m.render()) if f.name == "wiremap_errors"]
    assert [(s.labels, s.value) for s in family.samples] == [({"category": 'a"b\\c\nd'}, 2.0)]

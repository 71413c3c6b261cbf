"""Provider over real HTTP for the cloud-hosted dialects (anthropic.bedrock, anthropic.vertex,
gemini.vertex): what reaches the wire (URL with the model and the transport params, the fixed
body fields, no `model` in the body, auth) and what comes back, streamed and not.

The oracles are the anthropic SDK's Bedrock and Vertex clients (anthropic/lib/bedrock/_client.py
and anthropic/lib/vertex/_client.py, `_prepare_options`), the AWS and Google references, and
botocore (it re-computes the SigV4 signature and decodes the event-stream chunks)."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest

import wiremap
from loopback import Reply, Seen
from wiremap.runtime.errors import AuthenticationError, InvalidRequestError, RateLimitError
from wiremap.runtime.eventstream import encode_message

MESSAGE = {
    "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
    "content": [{"type": "text", "text": "pong"}], "stop_reason": "end_turn", "stop_sequence": None,
    "usage": {"input_tokens": 3, "output_tokens": 1},
}
SSE_EVENTS = [
    {"type": "message_start", "message": {**MESSAGE, "content": [], "stop_reason": None, "usage": {"input_tokens": 3, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "po"}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "ng"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 2}},
    {"type": "message_stop"},
]
MESSAGES = [{"role": "user", "content": "ping"}]


def chunk(event: dict[str, Any]) -> bytes:
    """One InvokeModelWithResponseStream `chunk` message: a PayloadPart {bytes: base64 of the event}."""
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode(), "p": "abcdefgh"}).encode()
    return encode_message({":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}, payload)


def sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def complete(fmt: str, model: str, **kw: Any) -> wiremap.Response:
    async with wiremap.Provider(fmt, model=model, **kw) as p:
        return await p.complete(MESSAGES, config={"max_tokens": 16, "temperature": 0.2})


async def streamed(fmt: str, model: str, **kw: Any) -> tuple[list[dict[str, Any]], wiremap.Response]:
    async with wiremap.Provider(fmt, model=model, **kw) as p:
        s = p.stream(MESSAGES, config={"max_tokens": 16})
        events = [ev async for ev in s]
        return events, s.response


# ------------------------------------------------------------------------------- Bedrock


def test_bedrock_invoke_url_body_and_bearer_key(serve: Any) -> None:
    server = serve(lambda seen: Reply(200, MESSAGE))
    out = run(complete("anthropic.bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0", api_key="ABSKbedrock-key-1", base_url=server.url))
    assert out.message.content == "pong" and out.finish_reason == "stop"
    (seen,) = server.requests
    # sdk: urllib.parse.quote(model, safe=":;") -> the ':' may be quoted or not; both name the same path
    assert seen.raw_path in ("/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke", "/model/anthropic.claude-sonnet-4-5-20250929-v1:0/invoke")
    assert seen.headers["authorization"] == "Bearer ABSKbedrock-key-1"
    assert "anthropic-version" not in seen.headers and "x-api-key" not in seen.headers
    body = json.loads(seen.body)
    assert list(body)[0] == "anthropic_version"
    assert body == {"anthropic_version": "bedrock-2023-05-31", "messages": [{"role": "user", "content": [{"type": "text", "text": "ping"}]}],
                    "temperature": 0.2, "max_tokens": 16}


def test_bedrock_region_from_params_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_REGION", "eu-west-3")
    p = wiremap.Provider("anthropic.bedrock", model="m", api_key="k" * 20)
    assert p.base_url == "https://bedrock-runtime.eu-west-3.amazonaws.com"
    p = wiremap.Provider("anthropic.bedrock", model="m", api_key="k" * 20, params={"region": "ap-northeast-1"})
    assert p.base_url == "https://bedrock-runtime.ap-northeast-1.amazonaws.com"
    monkeypatch.delenv("AWS_REGION")
    assert wiremap.Provider("anthropic.bedrock", model="m", api_key="k" * 20).base_url == "https://bedrock-runtime.us-east-1.amazonaws.com"
    with pytest.raises(ValueError, match="no transport param 'zone'"):
        wiremap.Provider("anthropic.bedrock", model="m", api_key="k" * 20, params={"zone": "x"})


def test_bedrock_stream_reads_event_stream_chunks(serve: Any) -> None:
    body = b"".join(chunk(e) for e in SSE_EVENTS)
    server = serve(lambda seen: Reply(200, body, content_type="application/vnd.amazon.eventstream"))
    events, response = run(streamed("anthropic.bedrock", "anthropic.claude-haiku-4-5", api_key="ABSKbedrock-key-1", base_url=server.url))
    assert [e["text"] for e in events if e["type"] == "text_delta"] == ["po", "ng"]
    assert response.message.content == "pong" and response.finish_reason == "stop"
    assert response.usage is not None and (response.usage.prompt_tokens, response.usage.completion_tokens) == (3, 2)
    (seen,) = server.requests
    assert seen.path == "/model/anthropic.claude-haiku-4-5/invoke-with-response-stream"
    assert seen.headers["accept"] == "application/vnd.amazon.eventstream"
    sent = json.loads(seen.body)
    assert "stream" not in sent and "model" not in sent  # sdk: both popped; the endpoint says it
    assert sent["anthropic_version"] == "bedrock-2023-05-31"


def test_bedrock_stream_exception_message_is_the_typed_error(serve: Any) -> None:
    body = chunk(SSE_EVENTS[0]) + encode_message(
        {":exception-type": "throttlingException", ":content-type": "application/json", ":message-type": "exception"},
        json.dumps({"message": "Too many tokens"}).encode())
    server = serve(lambda seen: Reply(200, body, content_type="application/vnd.amazon.eventstream"))
    with pytest.raises(RateLimitError, match="Too many tokens"):
        run(streamed("anthropic.bedrock", "m", api_key="ABSKbedrock-key-1", base_url=server.url))


def test_bedrock_error_is_read_from_the_aws_shape(serve: Any) -> None:
    server = serve(lambda seen: Reply(429, {"message": "Too many requests"}, headers={"x-amzn-ErrorType": "ThrottlingException", "retry-after": "2"}))
    with pytest.raises(RateLimitError) as info:
        run(complete("anthropic.bedrock", "m", api_key="ABSKbedrock-key-1", base_url=server.url))
    assert info.value.retry_after == 2


def test_bedrock_sigv4_without_a_key(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No Bedrock API key: the request is signed with AWS SigV4 (service bedrock, the params'
    region) from the credentials botocore's chain finds; botocore re-computes the same signature."""
    pytest.importorskip("botocore")
    for name in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    server = serve(lambda seen: Reply(200, MESSAGE))
    out = run(complete("anthropic.bedrock", "anthropic.claude-haiku-4-5", base_url=server.url, params={"region": "us-west-2"}))
    assert out.message.content == "pong"
    (seen,) = server.requests
    auth = seen.headers["authorization"]
    assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") and "/us-west-2/bedrock/aws4_request" in auth
    date = seen.headers["x-amz-date"]

    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    signed = [h.split("=", 1)[1] for h in auth.split(", ") if h.startswith("SignedHeaders=")][0].split(";")
    again = AWSRequest(method="POST", url=server.url + seen.raw_path, data=seen.body,
                       headers={k: v for k, v in seen.headers.items() if k in signed and k not in ("authorization", "x-amz-date")})
    signer = SigV4Auth(Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"), "bedrock", "us-west-2")
    import datetime
    again.context["timestamp"] = date
    with monkeypatch.context() as m:
        fixed = datetime.datetime.strptime(date, "%Y%m%dT%H%M%SZ")

        class _Frozen(datetime.datetime):
            @classmethod
            def utcnow(cls) -> datetime.datetime:  # type: ignore[override]
                return fixed

            @classmethod
            def now(cls, tz: Any = None) -> datetime.datetime:  # type: ignore[override]
                return fixed.replace(tzinfo=tz) if tz else fixed

        m.setattr("botocore.auth.datetime.datetime", _Frozen)
        signer.add_auth(again)
    assert again.headers["Authorization"] == auth


def test_bedrock_without_key_or_credentials_is_an_authentication_error(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    server = serve(lambda seen: Reply(200, MESSAGE))
    with pytest.raises(AuthenticationError, match="no AWS credentials"):
        run(complete("anthropic.bedrock", "m", base_url=server.url))
    assert server.requests == []


# -------------------------------------------------------------------------------- Vertex


def test_vertex_anthropic_url_body_and_token(serve: Any) -> None:
    server = serve(lambda seen: Reply(200, MESSAGE))
    out = run(complete("anthropic.vertex", "claude-sonnet-4-5@20250929", api_key="ya29.token-1234567890", base_url=server.url,
                       params={"project": "my-proj", "region": "us-east5"}))
    assert out.message.content == "pong"
    (seen,) = server.requests
    assert seen.raw_path == "/v1/projects/my-proj/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5%4020250929:rawPredict"
    assert seen.headers["authorization"] == "Bearer ya29.token-1234567890"
    body = json.loads(seen.body)
    assert body["anthropic_version"] == "vertex-2023-10-16" and "model" not in body


def test_vertex_anthropic_stream_is_sse_with_stream_true(serve: Any) -> None:
    server = serve(lambda seen: Reply(200, sse(SSE_EVENTS), content_type="text/event-stream"))
    events, response = run(streamed("anthropic.vertex", "claude-haiku-4-5@20251001", api_key="ya29.token-1234567890", base_url=server.url,
                                    params={"project": "p1", "region": "europe-west1"}))
    assert response.message.content == "pong"
    (seen,) = server.requests
    assert seen.path == "/v1/projects/p1/locations/europe-west1/publishers/anthropic/models/claude-haiku-4-5%4020251001:streamRawPredict"
    body = json.loads(seen.body)
    assert body["stream"] is True and body["anthropic_version"] == "vertex-2023-10-16" and "model" not in body


def test_vertex_missing_project_is_named_before_sending(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_VERTEX_PROJECT_ID", raising=False)
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")
    server = serve(lambda seen: Reply(200, MESSAGE))
    with pytest.raises(InvalidRequestError, match=r"\{project\} \(pass params=\{'project': \.\.\.\} or set ANTHROPIC_VERTEX_PROJECT_ID\)"):
        run(complete("anthropic.vertex", "m", api_key="ya29.token-1234567890", base_url=server.url))
    assert server.requests == []
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "from-env")
    assert wiremap.Provider("anthropic.vertex", model="m", api_key="t" * 20).base_url == "https://us-east5-aiplatform.googleapis.com"


def test_vertex_google_adc_token_without_a_key(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """No access token: google-auth's application-default credentials give one, refreshed when
    it is no longer valid (google.auth.default is replaced: no metadata server here)."""
    google_auth = pytest.importorskip("google.auth")
    monkeypatch.delenv("GOOGLE_OAUTH_ACCESS_TOKEN", raising=False)

    class Creds:
        def __init__(self) -> None:
            self.token: str | None = None
            self.valid = False
            self.refreshes = 0

        def refresh(self, request: Any) -> None:
            self.refreshes += 1
            self.token, self.valid = f"ya29.adc-{self.refreshes}", True

    creds = Creds()
    asked: list[Any] = []

    def default(scopes: Any = None) -> tuple[Any, str]:
        asked.append(scopes)
        return creds, "adc-project"

    monkeypatch.setattr(google_auth, "default", default)
    server = serve(lambda seen: Reply(200, {"candidates": [{"content": {"role": "model", "parts": [{"text": "pong"}]}, "finishReason": "STOP", "index": 0}]}))

    async def two_calls() -> None:
        async with wiremap.Provider("gemini.vertex", model="gemini-2.5-flash", base_url=server.url,
                                    params={"project": "proj", "location": "us-central1"}) as p:
            await p.complete(MESSAGES)
            creds.valid = False  # expired: refreshed before the next call
            await p.complete(MESSAGES)

    run(two_calls())
    assert asked == [["https://www.googleapis.com/auth/cloud-platform"]]  # loaded once
    assert [s.headers["authorization"] for s in server.requests] == ["Bearer ya29.adc-1", "Bearer ya29.adc-2"]


def test_gemini_vertex_url_body_and_labels(serve: Any) -> None:
    answer = {"candidates": [{"content": {"role": "model", "parts": [{"text": "pong"}]}, "finishReason": "STOP", "index": 0}],
              "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4}}
    server = serve(lambda seen: Reply(200, answer))

    async def main() -> wiremap.Response:
        async with wiremap.Provider("gemini.vertex", model="gemini-2.5-flash", api_key="ya29.token-1234567890", base_url=server.url,
                                    params={"project": "proj", "location": "us-central1"}) as p:
            return await p.complete(MESSAGES, config={"temperature": 0.1, "extras": {"labels": {"team": "search"}}})

    out = run(main())
    assert out.message.content == "pong"
    (seen,) = server.requests
    assert seen.path == "/v1/projects/proj/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent"
    assert seen.headers["authorization"] == "Bearer ya29.token-1234567890" and "x-goog-api-key" not in seen.headers
    assert json.loads(seen.body) == {"contents": [{"role": "user", "parts": [{"text": "ping"}]}], "generationConfig": {"temperature": 0.1},
                                     "labels": {"team": "search"}}


def test_gemini_vertex_stream_path(serve: Any) -> None:
    chunk_ = {"candidates": [{"content": {"role": "model", "parts": [{"text": "pong"}]}, "finishReason": "STOP", "index": 0}],
              "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 1, "totalTokenCount": 4}}
    server = serve(lambda seen: Reply(200, f"data: {json.dumps(chunk_)}\n\n", content_type="text/event-stream"))
    events, response = run(streamed("gemini.vertex", "gemini-2.5-flash", api_key="ya29.token-1234567890", base_url=server.url,
                                    params={"project": "proj", "location": "us-central1"}))
    assert response.message.content == "pong"
    (seen,) = server.requests
    assert seen.raw_path == "/v1/projects/proj/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"


def test_default_base_url_is_filled_from_the_params() -> None:
    p = wiremap.Provider("gemini.vertex", model="gemini-2.5-flash", api_key="t" * 20, params={"project": "proj", "location": "europe-west4"})
    assert p.base_url == "https://europe-west4-aiplatform.googleapis.com"


@pytest.mark.parametrize(
    "payload, detail",
    [
        (b'{"p": "no bytes"}', "is not a PayloadPart"),
        (b'["bytes"]', "is not a PayloadPart"),
        (b'{"bytes": "%%%not base64"}', "not base64 of UTF-8 text"),
        (json.dumps({"bytes": base64.b64encode(b"\xff\xfe").decode()}).encode(), "not base64 of UTF-8 text"),
    ],
)
def test_a_malformed_chunk_ends_the_stream_with_a_typed_error(payload: bytes, detail: str) -> None:
    from wiremap.runtime.stream import StreamParser

    body = chunk(SSE_EVENTS[0]) + encode_message({":event-type": "chunk", ":content-type": "application/json", ":message-type": "event"}, payload)
    parser = StreamParser("anthropic.bedrock")
    events = parser.feed(body) + parser.close()
    assert events[0]["type"] == "message_start"
    err = events[-1]
    assert err["type"] == "error" and err["category"] == "provider_invalid_response" and detail in err["message"]
    assert err["path"].startswith("stream@")


def test_other_event_names_in_a_chunk_stream_are_skipped() -> None:
    """botocore's parser yields only the `chunk` member of the ResponseStream union's events."""
    from wiremap.runtime.stream import StreamParser

    other = encode_message({":event-type": "initial-response", ":content-type": "application/json", ":message-type": "event"}, b"{}")
    parser = StreamParser("anthropic.bedrock")
    events = parser.feed(other + b"".join(chunk(e) for e in SSE_EVENTS)) + parser.close()
    assert [e["type"] for e in events if e["type"] != "usage"] == ["message_start", "text_delta", "text_delta", "finish"]


def test_botocore_and_google_auth_are_imported_only_to_sign() -> None:
    """The extras stay optional: a call with a key (and everything before a call) imports neither."""
    import subprocess
    import sys

    code = (
        "import sys, wiremap\n"
        "for key, params in (('anthropic.bedrock', {}), ('anthropic.vertex', {'project': 'p', 'region': 'r'}), ('gemini.vertex', {'project': 'p', 'location': 'l'})):\n"
        "    wiremap.Provider(key, model='m', params=params)\n"
        "    wiremap.Provider(key, model='m', api_key='k' * 20, params=params)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('botocore', 'boto3', 'google', 'requests')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------------------- betas (issue 17)

BETAS = ["context-1m-2025-08-07", "interleaved-thinking-2025-05-14"]


async def with_betas(fmt: str, model: str, stream: bool, **kw: Any) -> wiremap.Response:
    async with wiremap.Provider(fmt, model=model, **kw) as p:
        if stream:
            return await p.stream(MESSAGES, config={"max_tokens": 16, "betas": BETAS}).collect()
        return await p.complete(MESSAGES, config={"max_tokens": 16, "betas": BETAS})


@pytest.mark.parametrize("stream", [False, True])
def test_bedrock_sends_betas_in_the_body(serve: Any, stream: bool) -> None:
    reply = Reply(200, b"".join(chunk(e) for e in SSE_EVENTS), content_type="application/vnd.amazon.eventstream") if stream else Reply(200, MESSAGE)
    server = serve(lambda seen: reply)
    out = run(with_betas("anthropic.bedrock", "anthropic.claude-haiku-4-5", stream, api_key="ABSKbedrock-key-1", base_url=server.url))
    assert out.message.content == "pong"
    (seen,) = server.requests
    assert json.loads(seen.body)["anthropic_beta"] == BETAS  # api: the body list
    assert "anthropic-beta" not in seen.headers


@pytest.mark.parametrize("fmt", ["anthropic_messages", "anthropic.vertex"])
@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_and_vertex_send_betas_as_the_header(serve: Any, fmt: str, stream: bool) -> None:
    reply = Reply(200, sse(SSE_EVENTS), content_type="text/event-stream") if stream else Reply(200, MESSAGE)
    server = serve(lambda seen: reply)
    params = {"params": {"project": "p1", "region": "us-east5"}} if fmt == "anthropic.vertex" else {}
    # a beta the caller set on the Provider joins the call's, each once
    out = run(with_betas(fmt, "claude-haiku-4-5", stream, api_key="ya29.token-1234567890", base_url=server.url,
                         headers={"Anthropic-Beta": "files-api-2025-04-14,context-1m-2025-08-07"}, **params))
    assert out.message.content == "pong"
    (seen,) = server.requests
    assert seen.headers["anthropic-beta"] == "files-api-2025-04-14,context-1m-2025-08-07,interleaved-thinking-2025-05-14"
    assert "anthropic_beta" not in json.loads(seen.body) and "betas" not in json.loads(seen.body)


def test_betas_for_a_format_without_a_row_are_a_named_loss() -> None:
    t = wiremap.translate_request({"model": "m", "max_tokens": 8, "anthropic_beta": BETAS, "messages": [{"role": "user", "content": "hi"}]},
                                  "anthropic.bedrock", "openai_chat")
    (loss,) = [x for x in t.losses if x.path == "config.betas"]
    assert loss.kind == "dropped" and all(b in loss.detail for b in BETAS)
    t = wiremap.translate_request({"model": "m", "max_tokens": 8, "anthropic_beta": BETAS, "messages": [{"role": "user", "content": "hi"}]},
                                  "anthropic.bedrock", "anthropic_messages")
    assert t.lossless and t.headers == {"anthropic-beta": ",".join(BETAS)} and "anthropic_beta" not in t.result


@pytest.mark.parametrize(("source", "version"), [("anthropic.bedrock", "bedrock-2023-05-31"), ("anthropic.vertex", "vertex-2023-10-16")])
def test_the_transports_body_field_is_not_request_data(source: str, version: str) -> None:
    # a logged Bedrock/Vertex body holds anthropic_version (the transport's, like a header): read
    # with the dialect and sent to Anthropic's own API, it must not ride along as carried data
    body = {"anthropic_version": version, "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}], "model": "claude"}
    t = wiremap.translate_request(body, source, "anthropic_messages")
    assert "anthropic_version" not in t.result and t.losses == []
    assert "carried" not in wiremap.get_format(source).request_from_wire(body).to_dict() or all(
        op["path"] != ["anthropic_version"] for op in wiremap.get_format(source).request_from_wire(body).to_dict()["carried"]["ops"]
    )

"""Interop with the official `openai` and `anthropic` Python SDKs over real loopback HTTP.

A threaded `http.server` on 127.0.0.1 (ephemeral port) records every request body it receives
and answers with a body the test chose (one produced by our `response_to_wire`).

- Request direction: the SDK clients send `chat.completions.create(...)` / `messages.create(...)`
  calls of many kinds; `request_from_wire(recorded body)` must read each one into the exact
  canonical request expected, and `request_to_wire(request_from_wire(body))` must reproduce the
  body where the mapping is lossless (where it is lossy by design, the re-emitted body is pinned).
- Response direction: the server answers with `response_to_wire(canonical response)`; the SDK
  clients must parse it into objects carrying the canonical values, and the body must also pass
  the SDK's own strict pydantic validation (`Model.model_validate`), since the client parse is
  lenient (it never rejects a malformed body).

Issue #3, "Tests": "The official openai and anthropic Python SDKs pointed at the same loopback
server send requests that our request_from_wire reads; our response_to_wire bodies are parsed by
those SDKs' clients."
"""

from __future__ import annotations

import copy
import json
import warnings
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import wiremap

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

from anthropic.types import Message as AnthropicMessage  # noqa: E402
from openai.types.chat import ChatCompletion  # noqa: E402

OPENAI = wiremap.get_format("openai_chat")
ANTHROPIC = wiremap.get_format("anthropic_messages")

PNG_B64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
PDF_B64 = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PC9UeXBlL0NhdGFsb2c+PgplbmRvYmoKdHJhaWxlcgo8PC9Sb290IDEgMCBSPj4KJSVFT0YK"
WAV_B64 = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA="
MP3_B64 = "SUQzBAAAAAAAI1RTU0UAAAAPAAADTGF2ZjU4Ljc2LjEwMAAAAAAAAAAAAAAA"

WEATHER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "units": {"type": "string", "enum": ["c", "f"]},
    },
    "required": ["city", "units"],
    "additionalProperties": False,
}

USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


# ============================================================================ loopback server
class Loopback:
    """A threaded HTTP server on 127.0.0.1 that records request bodies and answers with `reply`."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.reply: dict[str, Any] = {}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw
                with owner.lock:
                    owner.requests.append(("POST", self.path, dict(self.headers), body))
                    reply = owner.reply
                data = json.dumps(reply).encode("utf-8")
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def arm(self, reply: dict[str, Any]) -> None:
        with self.lock:
            self.requests.clear()
            self.reply = reply

    def only_request(self) -> tuple[str, Any]:
        with self.lock:
            assert len(self.requests) == 1, f"expected one request, got {len(self.requests)}"
            _method, path, _headers, body = self.requests[0]
        return path, body

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@pytest.fixture(scope="module")
def server() -> Iterator[Loopback]:
    s = Loopback()
    try:
        yield s
    finally:
        s.close()


@pytest.fixture(scope="module")
def openai_client(server: Loopback) -> Iterator[Any]:
    client = openai.OpenAI(
        base_url=f"http://127.0.0.1:{server.port}/v1", api_key="test", max_retries=0, timeout=10
    )
    yield client
    client.close()


@pytest.fixture(scope="module")
def anthropic_client(server: Loopback) -> Iterator[Any]:
    client = anthropic.Anthropic(
        base_url=f"http://127.0.0.1:{server.port}", api_key="test", max_retries=0, timeout=10
    )
    yield client
    client.close()


def _text_response(text: str = "ok") -> dict[str, Any]:
    return {"message": {"role": "assistant", "content": text}, "finish_reason": "stop", "usage": USAGE}


def send_openai(server: Loopback, client: Any, **kwargs: Any) -> dict[str, Any]:
    """One chat.completions.create over the wire; the request body the server received."""
    server.arm(OPENAI.response_to_wire(_text_response()))
    completion = client.chat.completions.create(**kwargs)
    assert completion.choices[0].message.content == "ok"
    path, body = server.only_request()
    assert path == OPENAI.endpoint["path"] == "/v1/chat/completions"
    assert isinstance(body, dict)
    return body


def send_anthropic(server: Loopback, client: Any, **kwargs: Any) -> dict[str, Any]:
    """One messages.create over the wire; the request body the server received."""
    server.arm(ANTHROPIC.response_to_wire(_text_response()))
    message = client.messages.create(**kwargs)
    assert message.content[0].text == "ok"
    path, body = server.only_request()
    assert path == ANTHROPIC.endpoint["path"] == "/v1/messages"
    assert isinstance(body, dict)
    return body


def _decode_arguments(body: dict[str, Any]) -> dict[str, Any]:
    """A copy of an OpenAI body with every tool call's `arguments` JSON string decoded."""
    out = copy.deepcopy(body)
    for message in out.get("messages", []):
        for call in message.get("tool_calls") or []:
            call["function"]["arguments"] = json.loads(call["function"]["arguments"])
    return out


# ============================================================================ OpenAI requests
class Case:
    """An SDK call, the canonical request it must read as, and its round trip.

    `round_trip=None`: lossless, request_to_wire(request_from_wire(body)) == body.
    Otherwise a function body -> the body the mapping re-emits (lossy by design; documented).
    """

    def __init__(
        self,
        kwargs: dict[str, Any],
        canonical: dict[str, Any],
        round_trip: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
    ) -> None:
        self.kwargs = kwargs
        self.canonical = canonical
        self.round_trip = round_trip


def _replace(**changes: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def apply(body: dict[str, Any]) -> dict[str, Any]:
        out = copy.deepcopy(body)
        for key, value in changes.items():
            if value is None:
                out.pop(key, None)
            else:
                out[key] = value
        return out

    return apply


TOOLS_OPENAI = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": WEATHER_SCHEMA,
            "strict": True,
        },
    },
    {"type": "function", "function": {"name": "now", "description": "The time."}},
]
TOOLS_CANONICAL = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": WEATHER_SCHEMA,
        "strict": True,
    },
    {"name": "now", "description": "The time."},
]

OPENAI_CASES: dict[str, Case] = {
    "text": Case(
        {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hello"}]},
        {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hello"}]},
    ),
    "system_user_sampling": Case(
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "Be terse."},
                {"role": "user", "content": "Hi"},
            ],
            "temperature": 0.2,
            "top_p": 0.9,
            "frequency_penalty": 0.5,
            "presence_penalty": -0.25,
        },
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "Be terse."},
                {"role": "user", "content": "Hi"},
            ],
            "config": {
                "temperature": 0.2,
                "top_p": 0.9,
                "frequency_penalty": 0.5,
                "presence_penalty": -0.25,
            },
        },
    ),
    # `developer` is read as system (mapping read_also) and re-emitted as `system`.
    "developer_role": Case(
        {
            "model": "o3",
            "messages": [
                {"role": "developer", "content": "Answer in French."},
                {"role": "user", "content": "Hi"},
            ],
        },
        {
            "model": "o3",
            "messages": [
                {"role": "system", "content": "Answer in French."},
                {"role": "user", "content": "Hi"},
            ],
        },
        round_trip=lambda body: {
            **body,
            "messages": [{"role": "system", "content": "Answer in French."}, body["messages"][1]],
        },
    ),
    "multimodal_image_detail_and_file": Case(
        {
            "model": "gpt-4o",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Compare these."},
                        {
                            "type": "image_url",
                            "image_url": {"url": "https://example.com/cat.png", "detail": "high"},
                        },
                        {
                            "type": "image_url",
                            "image_url": {"url": f"data:image/png;base64,{PNG_B64}", "detail": "low"},
                        },
                        {"type": "image_url", "image_url": {"url": "https://example.com/dog.jpg"}},
                        {
                            "type": "file",
                            "file": {
                                "file_data": f"data:application/pdf;base64,{PDF_B64}",
                                "filename": "spec.pdf",
                            },
                        },
                    ],
                }
            ],
        },
        {
            "model": "gpt-4o",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Compare these."},
                        {
                            "type": "image",
                            "source": {"type": "url", "url": "https://example.com/cat.png"},
                            "detail": "high",
                        },
                        {
                            "type": "image",
                            "source": {"type": "inline", "base64_data": PNG_B64},
                            "media_type": "image/png",
                            "detail": "low",
                        },
                        {
                            "type": "image",
                            "source": {"type": "url", "url": "https://example.com/dog.jpg"},
                        },
                        {
                            "type": "file",
                            "source": {"type": "inline", "base64_data": PDF_B64},
                            "media_type": "application/pdf",
                            "filename": "spec.pdf",
                        },
                    ],
                }
            ],
        },
    ),
    "input_audio": Case(
        {
            "model": "gpt-4o-audio-preview",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Transcribe both."},
                        {"type": "input_audio", "input_audio": {"data": WAV_B64, "format": "wav"}},
                        {"type": "input_audio", "input_audio": {"data": MP3_B64, "format": "mp3"}},
                    ],
                }
            ],
            "modalities": ["text"],
        },
        {
            "model": "gpt-4o-audio-preview",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Transcribe both."},
                        {
                            "type": "audio",
                            "source": {"type": "inline", "base64_data": WAV_B64},
                            "media_type": "audio/wav",
                        },
                        {
                            "type": "audio",
                            "source": {"type": "inline", "base64_data": MP3_B64},
                            "media_type": "audio/mpeg",
                        },
                    ],
                }
            ],
            "config": {"extras": {"modalities": ["text"]}},
        },
    ),
    "tools_strict_parallel_flag": Case(
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Weather in Paris?"}],
            "tools": TOOLS_OPENAI,
            "parallel_tool_calls": True,
        },
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Weather in Paris?"}],
            "tools": TOOLS_CANONICAL,
            "config": {"parallel_tool_calls": True},  # a canonical option (issue 14)
        },
    ),
    # Arguments already in the byte-stable form (compact, sorted keys): lossless.
    "parallel_tool_call_history": Case(
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "Use tools."},
                {"role": "user", "content": "Weather in Paris and the time?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris","units":"c"}'},
                        },
                        {
                            "id": "call_b",
                            "type": "function",
                            "function": {"name": "now", "arguments": "{}"},
                        },
                    ],
                },
                {"role": "tool", "tool_call_id": "call_a", "content": '{"temp":21}'},
                {"role": "tool", "tool_call_id": "call_b", "content": "12:00"},
                {"role": "assistant", "content": "21 C at noon."},
                {"role": "user", "content": "Thanks"},
            ],
            "tools": TOOLS_OPENAI,
        },
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "Use tools."},
                {"role": "user", "content": "Weather in Paris and the time?"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris", "units": "c"}},
                        {"id": "call_b", "name": "now", "arguments": {}},
                    ],
                },
                {"role": "tool", "tool_call_id": "call_a", "content": '{"temp":21}'},
                {"role": "tool", "tool_call_id": "call_b", "content": "12:00"},
                {"role": "assistant", "content": "21 C at noon."},
                {"role": "user", "content": "Thanks"},
            ],
            "tools": TOOLS_CANONICAL,
        },
    ),
    # Arguments as a client writes them (spaces, unsorted): decoded; re-emitted byte-stable.
    "tool_call_arguments_normalised": Case(
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "user", "content": "Weather?"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"units": "f", "city": "Oslo"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "call_a", "content": "cold"},
            ],
            "tools": TOOLS_OPENAI,
        },
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "user", "content": "Weather?"},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "call_a", "name": "get_weather", "arguments": {"city": "Oslo", "units": "f"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "call_a", "content": "cold"},
            ],
            "tools": TOOLS_CANONICAL,
        },
        round_trip=lambda body: {
            **body,
            "messages": [
                body["messages"][0],
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Oslo","units":"f"}'},
                        }
                    ],
                },
                body["messages"][2],
            ],
        },
    ),
    "response_format_json_schema": Case(
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Weather as JSON"}],
            "response_format": {
                "type": "json_schema",
                # name = the schema's title, strict = whether it qualifies: the values
                # request_to_wire derives, so this body round-trips.
                "json_schema": {
                    "name": "weather",
                    "schema": {**WEATHER_SCHEMA, "title": "weather"},
                    "strict": True,
                },
            },
        },
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Weather as JSON"}],
            "response_schema": {**WEATHER_SCHEMA, "title": "weather"},
            # no config: name and strict are what request_to_wire derives (the title, qualifies)
        },
    ),
    # JSON mode is the canonical json_mode (issue 14; the option row's values).
    "response_format_json_object_is_json_mode": Case(
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "JSON please"}],
            "response_format": {"type": "json_object"},
        },
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "JSON please"}],
            "config": {"json_mode": True},
        },
    ),
    "max_completion_tokens_stop_list_seed": Case(
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Count"}],
            "max_completion_tokens": 64,
            "stop": ["END", "STOP"],
            "seed": 7,
        },
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Count"}],
            "config": {"max_tokens": 64, "seed": 7, "stop_sequences": ["END", "STOP"]},
        },
    ),
    # Scalar stop is read as a one-item list; the list form goes back out.
    "stop_string": Case(
        {"model": "gpt-4o", "messages": [{"role": "user", "content": "Count"}], "stop": "END"},
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Count"}],
            "config": {"stop_sequences": ["END"]},
        },
        round_trip=_replace(stop=["END"]),
    ),
    # Deprecated max_tokens is read (read_also) and re-emitted as max_completion_tokens.
    "max_tokens_deprecated": Case(
        {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 32},
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Hi"}],
            "config": {"max_tokens": 32},
        },
        round_trip=_replace(max_tokens=None, max_completion_tokens=32),
    ),
    "extra_body_and_unmapped_params_are_extras": Case(
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Hi"}],
            "user": "user-42",
            "metadata": {"trace": "t1"},
            "logit_bias": {"1234": -100},
            "n": 1,
            "store": False,
            "reasoning_effort": "low",
            "extra_body": {"custom_flag": True, "routing": {"zone": "eu", "a": [1, 2]}},
        },
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Hi"}],
            "config": {
                "n": 1,  # the options issue 14 made canonical
                "user": "user-42",
                "reasoning_effort": "low",
                "metadata": {"trace": "t1"},
                "extras": {
                    "logit_bias": {"1234": -100},
                    "store": False,
                    "custom_flag": True,
                    "routing": {"zone": "eu", "a": [1, 2]},
                }
            },
        },
    ),
    # A one-part text list is read as a block list and sent back as a plain string (§7.1.1).
    "single_text_part_collapses": Case(
        {"model": "gpt-4o", "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}]},
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Hi"}]}],
        },
        round_trip=lambda body: {**body, "messages": [{"role": "user", "content": "Hi"}]},
    ),
}

TOOL_CHOICES = {
    "none": ("none", "none"),
    "auto": ("auto", "auto"),
    "required": ("required", "required"),
    "forced": (
        {"type": "function", "function": {"name": "get_weather"}},
        {"type": "tool", "name": "get_weather"},
    ),
}
for _name, (_wire, _canonical) in TOOL_CHOICES.items():
    OPENAI_CASES[f"tool_choice_{_name}"] = Case(
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Weather?"}],
            "tools": TOOLS_OPENAI,
            "tool_choice": _wire,
        },
        {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "Weather?"}],
            "tools": TOOLS_CANONICAL,
            "tool_choice": _canonical,
        },
    )


def _modelled(request: Any) -> dict[str, Any]:
    d: dict[str, Any] = request.to_dict()
    d.pop("carried", None)
    return d


def _without_extras(canonical: dict[str, Any]) -> dict[str, Any]:
    """A base format's reader leaves what no row reads to the carried data, never config.extras
    (which stay the caller's passthrough: the canonical dict with extras writes them)."""
    d = copy.deepcopy(canonical)
    config = d.get("config")
    if isinstance(config, dict):
        config.pop("extras", None)
        if not config:
            d.pop("config")
    return d


@pytest.mark.parametrize("case_id", list(OPENAI_CASES))
def test_openai_sdk_request_is_read(case_id: str, server: Loopback, openai_client: Any) -> None:
    case = OPENAI_CASES[case_id]
    body = send_openai(server, openai_client, **copy.deepcopy(case.kwargs))
    snapshot = copy.deepcopy(body)

    request = OPENAI.request_from_wire(body)
    assert isinstance(request, wiremap.Request)
    assert _modelled(request) == _without_extras(case.canonical)
    assert body == snapshot, "request_from_wire mutated its input"

    # the same format in and out is the identity: what no row reads is carried (runtime/carry.py),
    # unless the table drops an option this API version refuses (and warns)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = OPENAI.request_to_wire(request)
    if not any(issubclass(w.category, wiremap.UnsupportedOptionWarning) for w in caught):
        assert again == body
    expected = body if case.round_trip is None else case.round_trip(body)
    # And the canonical dict form converts the same way as the typed record.
    assert OPENAI.request_to_wire(case.canonical) == expected


def test_openai_sdk_request_unsupported_tool_choice_is_a_clean_error(
    server: Loopback, openai_client: Any
) -> None:
    """`allowed_tools` has no canonical form: carried for this wire (request.unknown: carry), the
    same format sends it back as the SDK wrote it, and another wire names it as a loss."""
    body = send_openai(
        server,
        openai_client,
        model="gpt-4o",
        messages=[{"role": "user", "content": "Hi"}],
        tools=TOOLS_OPENAI,
        tool_choice={
            "type": "allowed_tools",
            "allowed_tools": {"mode": "auto", "tools": [{"type": "function", "function": {"name": "now"}}]},
        },
    )
    request = OPENAI.request_from_wire(body)
    assert request.tool_choice is wiremap.NOT_GIVEN
    assert OPENAI.request_to_wire(request) == body
    lost = wiremap.translate_request(body, "openai_chat", "anthropic_messages").losses
    assert any(x.path == "tool_choice" and x.kind == "dropped" for x in lost)


# ============================================================================ Anthropic requests
TOOLS_ANTHROPIC = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "input_schema": WEATHER_SCHEMA,
        "strict": True,
    },
    {"name": "now", "input_schema": {"type": "object", "properties": {}}},
]
TOOLS_ANTHROPIC_CANONICAL = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": WEATHER_SCHEMA,
        "strict": True,
    },
    {"name": "now", "parameters": {"type": "object", "properties": {}}},
]


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


ANTHROPIC_CASES: dict[str, Case] = {
    "system_and_text": Case(
        {
            "model": "claude-test-1",
            "max_tokens": 256,
            "system": "Be terse.",
            "messages": [_user("Hi")],
        },
        {
            "model": "claude-test-1",
            "messages": [
                {"role": "system", "content": "Be terse."},
                {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
            ],
            "config": {"max_tokens": 256},
        },
    ),
    # A string user content is read as a string and sent back as one text block (always_parts).
    "user_string_content": Case(
        {"model": "claude-test-1", "max_tokens": 16, "messages": [{"role": "user", "content": "Hi"}]},
        {
            "model": "claude-test-1",
            "messages": [{"role": "user", "content": "Hi"}],
            "config": {"max_tokens": 16},
        },
        round_trip=lambda body: {**body, "messages": [_user("Hi")]},
    ),
    # An array of system text blocks is one system message per block (each may carry its own
    # cache breakpoint); with none, written back as the string they join to.
    "system_blocks_joined": Case(
        {
            "model": "claude-test-1",
            "max_tokens": 16,
            "system": [{"type": "text", "text": "Rule one."}, {"type": "text", "text": "Rule two."}],
            "messages": [_user("Hi")],
        },
        {
            "model": "claude-test-1",
            "messages": [
                {"role": "system", "content": "Rule one."},
                {"role": "system", "content": "Rule two."},
                {"role": "user", "content": [{"type": "text", "text": "Hi"}]},
            ],
            "config": {"max_tokens": 16},
        },
        round_trip=_replace(system="Rule one.\n\nRule two."),
    ),
    "images_and_documents": Case(
        {
            "model": "claude-test-1",
            "max_tokens": 512,
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Describe all of these."},
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64},
                        },
                        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
                        {
                            "type": "document",
                            "source": {"type": "base64", "media_type": "application/pdf", "data": PDF_B64},
                            "title": "spec.pdf",
                        },
                        {"type": "document", "source": {"type": "url", "url": "https://example.com/paper.pdf"}},
                    ],
                }
            ],
        },
        {
            "model": "claude-test-1",
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "Describe all of these."},
                        {
                            "type": "image",
                            "source": {"type": "inline", "base64_data": PNG_B64},
                            "media_type": "image/png",
                        },
                        {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
                        {
                            "type": "file",
                            "source": {"type": "inline", "base64_data": PDF_B64},
                            "media_type": "application/pdf",
                            "filename": "spec.pdf",
                        },
                        {"type": "file", "source": {"type": "url", "url": "https://example.com/paper.pdf"}},
                    ],
                }
            ],
            "config": {"max_tokens": 512},
        },
    ),
    "tool_use_and_tool_result_history": Case(
        {
            "model": "claude-test-1",
            "max_tokens": 256,
            "system": "Use tools.",
            "tools": TOOLS_ANTHROPIC,
            "messages": [
                _user("Weather in Paris and the time?"),
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": "Checking."},
                        {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris", "units": "c"}},
                        {"type": "tool_use", "id": "toolu_b", "name": "now", "input": {}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_a", "content": '{"temp":21}'},
                        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "12:00"},
                    ],
                },
                {"role": "assistant", "content": [{"type": "text", "text": "21 C at noon."}]},
                _user("Thanks"),
            ],
        },
        {
            "model": "claude-test-1",
            "messages": [
                {"role": "system", "content": "Use tools."},
                {"role": "user", "content": [{"type": "text", "text": "Weather in Paris and the time?"}]},
                {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "Checking."}],
                    "tool_calls": [
                        {"id": "toolu_a", "name": "get_weather", "arguments": {"city": "Paris", "units": "c"}},
                        {"id": "toolu_b", "name": "now", "arguments": {}},
                    ],
                },
                {"role": "tool", "tool_call_id": "toolu_a", "content": '{"temp":21}'},
                {"role": "tool", "tool_call_id": "toolu_b", "content": "12:00"},
                {"role": "assistant", "content": [{"type": "text", "text": "21 C at noon."}]},
                {"role": "user", "content": [{"type": "text", "text": "Thanks"}]},
            ],
            "tools": TOOLS_ANTHROPIC_CANONICAL,
            "config": {"max_tokens": 256},
        },
    ),
    # OpenArmature §8.2.1.2: a user turn mixing results and text splits into tool messages and a
    # user turn; on the way back the text is its own user turn after the grouped results.
    "tool_result_then_text_in_one_turn": Case(
        {
            "model": "claude-test-1",
            "max_tokens": 64,
            "tools": TOOLS_ANTHROPIC,
            "messages": [
                _user("Time?"),
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_b", "name": "now", "input": {}}]},
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_b", "content": "12:00"},
                        {"type": "text", "text": "And tomorrow?"},
                    ],
                },
            ],
        },
        {
            "model": "claude-test-1",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Time?"}]},
                {
                    "role": "assistant",
                    "content": [],
                    "tool_calls": [{"id": "toolu_b", "name": "now", "arguments": {}}],
                },
                {"role": "tool", "tool_call_id": "toolu_b", "content": "12:00"},
                {"role": "user", "content": [{"type": "text", "text": "And tomorrow?"}]},
            ],
            "tools": TOOLS_ANTHROPIC_CANONICAL,
            "config": {"max_tokens": 64},
        },
        round_trip=lambda body: {
            **body,
            "messages": body["messages"][:2]
            + [
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_b", "content": "12:00"}]},
                _user("And tomorrow?"),
            ],
        },
    ),
    "thinking_blocks_with_signature": Case(
        {
            "model": "claude-test-1",
            "max_tokens": 4096,
            "thinking": {"type": "enabled", "budget_tokens": 2048},
            "tools": TOOLS_ANTHROPIC,
            "messages": [
                _user("Weather in Paris?"),
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "I should call the tool.", "signature": "EqQBCkYIARgCIkD"},
                        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"},
                        {"type": "text", "text": "Let me check."},
                        {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris", "units": "c"}},
                    ],
                },
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "sunny"}]},
            ],
        },
        {
            "model": "claude-test-1",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "thinking",
                            "text": "I should call the tool.",
                            "signature": "EqQBCkYIARgCIkD",
                            "origin": "anthropic",
                        },
                        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix", "origin": "anthropic"},
                        {"type": "text", "text": "Let me check."},
                    ],
                    "tool_calls": [
                        {"id": "toolu_a", "name": "get_weather", "arguments": {"city": "Paris", "units": "c"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "toolu_a", "content": "sunny"},
            ],
            "tools": TOOLS_ANTHROPIC_CANONICAL,
            "config": {"max_tokens": 4096, "reasoning_budget": 2048},  # thinking.budget_tokens (issue 14)
        },
    ),
    "output_config_format": Case(
        {
            "model": "claude-test-1",
            "max_tokens": 256,
            "messages": [_user("Weather as JSON")],
            "output_config": {"format": {"type": "json_schema", "schema": WEATHER_SCHEMA}},
        },
        {
            "model": "claude-test-1",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather as JSON"}]}],
            "config": {"max_tokens": 256},
            "response_schema": WEATHER_SCHEMA,
        },
    ),
    # output_config without a format (effort only) is not structured output: it stays an extra.
    "output_config_effort_only_is_extra": Case(
        {
            "model": "claude-opus-4-7",
            "max_tokens": 256,
            "messages": [_user("Think hard")],
            "output_config": {"effort": "high"},
        },
        {
            "model": "claude-opus-4-7",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Think hard"}]}],
            "config": {"max_tokens": 256, "extras": {"output_config": {"effort": "high"}}},
        },
    ),
    "stop_sequences_metadata_sampling_extras": Case(
        {
            "model": "claude-test-1",
            "max_tokens": 100,
            "messages": [_user("Count")],
            "stop_sequences": ["###", "END"],
            "metadata": {"user_id": "user-42"},
            "service_tier": "auto",
            # sampling options this SDK version no longer declares ride in extra_body
            "extra_body": {"custom_flag": True, "temperature": 0.3, "top_k": 40, "top_p": 0.8},
        },
        {
            "model": "claude-test-1",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Count"}]}],
            "config": {
                # read as the declared options, so the mapping's API 2026-10-21 rule applies
                "temperature": 0.3,
                "max_tokens": 100,
                "top_p": 0.8,
                "top_k": 40,
                "stop_sequences": ["###", "END"],
                "user": "user-42",  # metadata.user_id (issue 14)
                "extras": {
                    "service_tier": "auto",
                    "custom_flag": True,
                },
            },
        },
        # re-sent without them: API 2026-10-21 removed them (dropped with a warning)
        round_trip=lambda body: {k: v for k, v in body.items() if k not in ("temperature", "top_p", "top_k")},
    ),
}

ANTHROPIC_TOOL_CHOICES = {
    "auto": ({"type": "auto"}, "auto"),
    "any": ({"type": "any"}, "required"),
    "none": ({"type": "none"}, "none"),
    "tool": ({"type": "tool", "name": "get_weather"}, {"type": "tool", "name": "get_weather"}),
}
for _name, (_wire, _canonical) in ANTHROPIC_TOOL_CHOICES.items():
    ANTHROPIC_CASES[f"tool_choice_{_name}"] = Case(
        {
            "model": "claude-test-1",
            "max_tokens": 64,
            "messages": [_user("Weather?")],
            "tools": TOOLS_ANTHROPIC,
            "tool_choice": _wire,
        },
        {
            "model": "claude-test-1",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "Weather?"}]}],
            "tools": TOOLS_ANTHROPIC_CANONICAL,
            "tool_choice": _canonical,
            "config": {"max_tokens": 64},
        },
    )


@pytest.mark.parametrize("case_id", list(ANTHROPIC_CASES))
def test_anthropic_sdk_request_is_read(case_id: str, server: Loopback, anthropic_client: Any) -> None:
    case = ANTHROPIC_CASES[case_id]
    body = send_anthropic(server, anthropic_client, **copy.deepcopy(case.kwargs))
    snapshot = copy.deepcopy(body)

    request = ANTHROPIC.request_from_wire(body)
    assert isinstance(request, wiremap.Request)
    assert _modelled(request) == _without_extras(case.canonical)
    assert body == snapshot, "request_from_wire mutated its input"

    # the same format in and out is the identity: what no row reads is carried (runtime/carry.py),
    # unless the table drops an option this API version refuses (and warns)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = ANTHROPIC.request_to_wire(request)
    if not any(issubclass(w.category, wiremap.UnsupportedOptionWarning) for w in caught):
        assert again == body
    expected = body if case.round_trip is None else case.round_trip(body)
    assert ANTHROPIC.request_to_wire(case.canonical) == expected


def test_anthropic_sdk_tool_result_with_image_is_a_clean_error(
    server: Loopback, anthropic_client: Any
) -> None:
    """A tool_result carrying an image reads as a tool message with an image part (issue 20): the
    same format sends it back as it came, and a target whose tool message holds text only
    (OpenAI Chat) names the image as a loss."""
    body = send_anthropic(
        server,
        anthropic_client,
        model="claude-test-1",
        max_tokens=64,
        tools=TOOLS_ANTHROPIC,
        messages=[
            _user("Screenshot?"),
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_s", "name": "now", "input": {}}]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "toolu_s",
                        "content": [
                            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG_B64}}
                        ],
                    }
                ],
            },
        ],
    )
    request = ANTHROPIC.request_from_wire(body)
    assert ANTHROPIC.request_to_wire(request) == body
    (image,) = request.messages[2].content
    assert isinstance(image, wiremap.ImageBlock) and image.media_type == "image/png"
    lost = wiremap.translate_request(body, "anthropic_messages", "openai_chat").losses
    assert [str(x) for x in lost] == ["messages[2].content[0]: dropped: image block is not carried by the target"]


# --- wire settings the SDK sends that request_from_wire drops without a trace ------------------
# Each is a documented field of the installed SDK's request types. Reading a body must either
# keep such a setting (so request_to_wire re-emits it) or refuse the body; today it is silently
# discarded, so a gateway (request_from_wire -> request_to_wire) changes the request's meaning.


def test_anthropic_output_config_effort_beside_format_survives(
    server: Loopback, anthropic_client: Any
) -> None:
    body = send_anthropic(
        server,
        anthropic_client,
        model="claude-opus-4-7",
        max_tokens=256,
        messages=[_user("Weather as JSON")],
        output_config={"effort": "low", "format": {"type": "json_schema", "schema": WEATHER_SCHEMA}},
    )
    # The canonical model has no `effort`: carried for this wire (mapping
    # `unmodeled.structured_output.effort: carry`), so the same format re-sends it, and another
    # wire names it as a loss
    assert ANTHROPIC.request_to_wire(ANTHROPIC.request_from_wire(body)) == body
    lost = wiremap.translate_request(body, "anthropic_messages", "openai_chat").losses
    assert any(x.path == "output_config.effort" and x.kind == "dropped" for x in lost), lost


def test_anthropic_disable_parallel_tool_use_survives(server: Loopback, anthropic_client: Any) -> None:
    body = send_anthropic(
        server,
        anthropic_client,
        model="claude-test-1",
        max_tokens=64,
        messages=[_user("Weather?")],
        tools=TOOLS_ANTHROPIC,
        tool_choice={"type": "auto", "disable_parallel_tool_use": True},
    )
    # Never re-sent with parallel tool use switched back on: it is the canonical
    # parallel_tool_calls (issue 14), the same format sends the tool_choice as it came, and
    # OpenAI gets parallel_tool_calls: false, which its SDK types accept.
    request = ANTHROPIC.request_from_wire(body)
    assert request.config.parallel_tool_calls is False
    assert ANTHROPIC.request_to_wire(request) == body
    out = wiremap.translate_request(body, "anthropic_messages", "openai_chat")
    assert out.result["parallel_tool_calls"] is False and out.losses == []


def test_anthropic_tool_result_is_error_survives(server: Loopback, anthropic_client: Any) -> None:
    body = send_anthropic(
        server,
        anthropic_client,
        model="claude-test-1",
        max_tokens=64,
        tools=TOOLS_ANTHROPIC,
        messages=[
            _user("Time?"),
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_b", "name": "now", "input": {}}]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_b", "content": "clock offline", "is_error": True}],
            },
        ],
    )
    # Never re-sent as a success: the canonical tool message's is_error (issue 14), written back
    # to this wire, and named as a loss by another
    assert ANTHROPIC.request_from_wire(body).messages[2].is_error is True
    assert ANTHROPIC.request_to_wire(ANTHROPIC.request_from_wire(body)) == body
    lost = wiremap.translate_request(body, "anthropic_messages", "openai_chat").losses
    assert any(x.path == "messages[2].is_error" and x.kind == "dropped" for x in lost), lost


# ============================================================================ responses -> SDKs
def serve_openai(server: Loopback, client: Any, response: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    body = OPENAI.response_to_wire(response)
    server.arm(body)
    completion = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "Hi"}])
    ChatCompletion.model_validate(body)  # the SDK's strict validation, not just its lenient parse
    return completion, body


def serve_anthropic(server: Loopback, client: Any, response: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    body = ANTHROPIC.response_to_wire(response)
    server.arm(body)
    message = client.messages.create(
        model="claude-test-1", max_tokens=64, messages=[{"role": "user", "content": "Hi"}]
    )
    AnthropicMessage.model_validate(body)
    return message, body


TOOL_CALLS = [
    {"id": "call_a", "name": "get_weather", "arguments": {"city": "Paris", "units": "c", "extra": {"n": [1, 2]}}},
    {"id": "call_b", "name": "now", "arguments": {}},
]


def test_openai_sdk_parses_text_response_with_usage(server: Loopback, openai_client: Any) -> None:
    response = {
        "message": {"role": "assistant", "content": "Bonjour !"},
        "finish_reason": "stop",
        "usage": {**USAGE, "cached_tokens": 4},
        "raw": {"id": "chatcmpl-123", "model": "gpt-4o-2024-08-06", "created": 1700000000},
    }
    completion, body = serve_openai(server, openai_client, response)
    assert completion.id == "chatcmpl-123"
    assert completion.model == "gpt-4o-2024-08-06"
    assert completion.created == 1700000000
    assert completion.object == "chat.completion"
    choice = completion.choices[0]
    assert choice.index == 0
    assert choice.message.role == "assistant"
    assert choice.message.content == "Bonjour !"
    assert choice.message.tool_calls is None
    assert choice.finish_reason == "stop"
    assert completion.usage.prompt_tokens == 11
    assert completion.usage.completion_tokens == 7
    assert completion.usage.total_tokens == 18
    assert completion.usage.prompt_tokens_details.cached_tokens == 4
    back = OPENAI.response_from_wire(body)
    assert back.message.to_dict() == response["message"]
    assert back.usage.to_dict() == response["usage"]


def test_openai_sdk_parses_parallel_tool_calls(server: Loopback, openai_client: Any) -> None:
    response = {
        "message": {"role": "assistant", "content": None, "tool_calls": TOOL_CALLS},
        "finish_reason": "tool_calls",
        "usage": USAGE,
    }
    completion, body = serve_openai(server, openai_client, response)
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    calls = choice.message.tool_calls
    assert [c.id for c in calls] == ["call_a", "call_b"]
    assert [c.type for c in calls] == ["function", "function"]
    assert [c.function.name for c in calls] == ["get_weather", "now"]
    assert [json.loads(c.function.arguments) for c in calls] == [c["arguments"] for c in TOOL_CALLS]
    # compact arguments, keys in the caller's order (the oa dialects sort them, §8)
    assert calls[0].function.arguments == '{"city":"Paris","units":"c","extra":{"n":[1,2]}}'
    assert OPENAI.response_from_wire(body).message.to_dict() == response["message"]


def test_openai_sdk_parses_text_beside_tool_call(server: Loopback, openai_client: Any) -> None:
    response = {
        "message": {"role": "assistant", "content": "Checking.", "tool_calls": TOOL_CALLS[1:]},
        "finish_reason": "tool_calls",
        "usage": USAGE,
    }
    completion, _body = serve_openai(server, openai_client, response)
    message = completion.choices[0].message
    assert message.content == "Checking."
    assert message.tool_calls[0].function.name == "now"
    assert json.loads(message.tool_calls[0].function.arguments) == {}


def test_openai_sdk_response_from_anthropic_thinking_strips_thinking(
    server: Loopback, openai_client: Any
) -> None:
    """A canonical response that came from Anthropic (thinking, origin anthropic) served as an
    OpenAI body: the thinking is stripped, the text survives as a plain string."""
    response = {
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "text": "Hmm.", "signature": "sig-1", "origin": "anthropic"},
                {"type": "text", "text": "42"},
            ],
        },
        "finish_reason": "stop",
        "usage": USAGE,
    }
    completion, _body = serve_openai(server, openai_client, response)
    assert completion.choices[0].message.content == "42"


@pytest.mark.parametrize(
    ("canonical", "wire"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("tool_calls", "tool_calls"),
        ("content_filter", "content_filter"),
        ("error", "stop"),  # the mapping's emit rule: OpenAI has no error finish reason
    ],
)
def test_openai_sdk_parses_every_finish_reason(
    canonical: str, wire: str, server: Loopback, openai_client: Any
) -> None:
    message: dict[str, Any] = {"role": "assistant", "content": "partial"}
    if canonical == "tool_calls":
        message = {"role": "assistant", "content": None, "tool_calls": TOOL_CALLS[:1]}
    response = {"message": message, "finish_reason": canonical, "usage": USAGE}
    completion, body = serve_openai(server, openai_client, response)
    assert completion.choices[0].finish_reason == wire
    back = OPENAI.response_from_wire(body)
    assert back.finish_reason == ("stop" if canonical == "error" else canonical)


def test_openai_sdk_provider_finish_reason_is_kept(server: Loopback, openai_client: Any) -> None:
    """raw's own finish reason goes back out when it means the same (function_call -> tool_calls)."""
    response = {
        "message": {"role": "assistant", "content": None, "tool_calls": TOOL_CALLS[:1]},
        "finish_reason": "tool_calls",
        "usage": USAGE,
        "raw": {"choices": [{"finish_reason": "function_call"}]},
    }
    completion, _body = serve_openai(server, openai_client, response)
    assert completion.choices[0].finish_reason == "function_call"


def test_openai_sdk_parses_response_without_usage(server: Loopback, openai_client: Any) -> None:
    response = {
        "message": {"role": "assistant", "content": "ok"},
        "finish_reason": "stop",
        "usage": {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None},
    }
    completion, body = serve_openai(server, openai_client, response)
    assert completion.usage is None
    assert "usage" not in body


def test_anthropic_sdk_parses_text_response_with_usage(server: Loopback, anthropic_client: Any) -> None:
    response = {
        "message": {"role": "assistant", "content": "Bonjour !"},
        "finish_reason": "stop",
        "usage": USAGE,
        "raw": {"id": "msg_01XYZ", "model": "claude-test-1-20260101"},
    }
    message, body = serve_anthropic(server, anthropic_client, response)
    assert message.id == "msg_01XYZ"
    assert message.model == "claude-test-1-20260101"
    assert message.type == "message"
    assert message.role == "assistant"
    assert len(message.content) == 1
    assert message.content[0].type == "text"
    assert message.content[0].text == "Bonjour !"
    assert message.stop_reason == "end_turn"
    assert message.stop_sequence is None
    assert message.usage.input_tokens == 11
    assert message.usage.output_tokens == 7
    back = ANTHROPIC.response_from_wire(body)
    assert back.message.to_dict() == response["message"]
    assert back.usage.to_dict() == USAGE  # total derived from input + output


def test_anthropic_sdk_parses_thinking_with_signature(server: Loopback, anthropic_client: Any) -> None:
    response = {
        "message": {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "The answer is 42."},
                # canonical order puts thinking after text here; the wire puts it first (§3.1.6)
                {"type": "thinking", "text": "Let me think step by step.", "signature": "EqQBCkYIARgCIkD", "origin": "anthropic"},
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix", "origin": "anthropic"},
            ],
        },
        "finish_reason": "stop",
        "usage": USAGE,
    }
    message, body = serve_anthropic(server, anthropic_client, response)
    assert [b.type for b in message.content] == ["thinking", "redacted_thinking", "text"]
    assert message.content[0].thinking == "Let me think step by step."
    assert message.content[0].signature == "EqQBCkYIARgCIkD"
    assert message.content[1].data == "EmwKAhgBEgy3va3pzix"
    assert message.content[2].text == "The answer is 42."
    back = ANTHROPIC.response_from_wire(body)
    assert back.message.to_dict()["content"] == [
        {"type": "thinking", "text": "Let me think step by step.", "signature": "EqQBCkYIARgCIkD", "origin": "anthropic"},
        {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix", "origin": "anthropic"},
        {"type": "text", "text": "The answer is 42."},
    ]


def test_anthropic_sdk_response_drops_foreign_thinking(server: Loopback, anthropic_client: Any) -> None:
    """Thinking from another provider (origin openai) is not sent as an Anthropic thinking block."""
    response = {
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "text": "other vendor", "signature": "x", "origin": "openai"},
                {"type": "text", "text": "42"},
            ],
        },
        "finish_reason": "stop",
        "usage": USAGE,
    }
    message, _body = serve_anthropic(server, anthropic_client, response)
    assert [b.type for b in message.content] == ["text"]
    assert message.content[0].text == "42"


def test_anthropic_sdk_parses_tool_use(server: Loopback, anthropic_client: Any) -> None:
    response = {
        "message": {"role": "assistant", "content": "Checking both.", "tool_calls": TOOL_CALLS},
        "finish_reason": "tool_calls",
        "usage": USAGE,
    }
    message, body = serve_anthropic(server, anthropic_client, response)
    assert message.stop_reason == "tool_use"
    assert [b.type for b in message.content] == ["text", "tool_use", "tool_use"]
    assert message.content[0].text == "Checking both."
    uses = message.content[1:]
    assert [u.id for u in uses] == ["call_a", "call_b"]
    assert [u.name for u in uses] == ["get_weather", "now"]
    assert [u.input for u in uses] == [c["arguments"] for c in TOOL_CALLS]
    assert ANTHROPIC.response_from_wire(body).message.to_dict() == response["message"]


def test_anthropic_sdk_parses_tool_use_only(server: Loopback, anthropic_client: Any) -> None:
    response = {
        "message": {"role": "assistant", "content": None, "tool_calls": TOOL_CALLS[1:]},
        "finish_reason": "tool_calls",
        "usage": USAGE,
    }
    message, body = serve_anthropic(server, anthropic_client, response)
    assert [b.type for b in message.content] == ["tool_use"]
    assert message.content[0].input == {}
    assert ANTHROPIC.response_from_wire(body).message.to_dict() == response["message"]


@pytest.mark.parametrize(
    ("canonical", "wire"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("tool_calls", "tool_use"),
        ("content_filter", "refusal"),
        ("error", "end_turn"),  # the mapping's emit rule: Anthropic has no error stop reason
    ],
)
def test_anthropic_sdk_parses_every_finish_reason(
    canonical: str, wire: str, server: Loopback, anthropic_client: Any
) -> None:
    message: dict[str, Any] = {"role": "assistant", "content": "partial"}
    if canonical == "tool_calls":
        message = {"role": "assistant", "content": None, "tool_calls": TOOL_CALLS[:1]}
    response = {"message": message, "finish_reason": canonical, "usage": USAGE}
    sdk_message, body = serve_anthropic(server, anthropic_client, response)
    assert sdk_message.stop_reason == wire
    assert ANTHROPIC.response_from_wire(body).finish_reason == ("stop" if canonical == "error" else canonical)


@pytest.mark.parametrize(
    ("raw_reason", "canonical", "stop_sequence"),
    [
        ("stop_sequence", "stop", "###"),
        ("pause_turn", "stop", None),
        ("model_context_window_exceeded", "length", None),
    ],
)
def test_anthropic_sdk_provider_stop_reason_is_kept(
    raw_reason: str, canonical: str, stop_sequence: str | None, server: Loopback, anthropic_client: Any
) -> None:
    response = {
        "message": {"role": "assistant", "content": "1 2 3"},
        "finish_reason": canonical,
        "usage": USAGE,
        "raw": {"stop_reason": raw_reason, "stop_sequence": stop_sequence},
    }
    message, _body = serve_anthropic(server, anthropic_client, response)
    assert message.stop_reason == raw_reason
    assert message.stop_sequence == stop_sequence


@pytest.mark.parametrize(
    ("fmt_key", "usage"),
    [
        pytest.param("anthropic_messages", {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}, id="anthropic-unreported"),
        pytest.param("anthropic_messages", {"prompt_tokens": 5, "completion_tokens": None, "total_tokens": None}, id="anthropic-partial"),
        pytest.param("openai_chat", {"prompt_tokens": 5, "completion_tokens": None, "total_tokens": None}, id="openai-partial"),
    ],
)
def test_sdk_validates_response_with_null_usage_counters(fmt_key: str, usage: dict[str, Any]) -> None:
    response = {"message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop", "usage": usage}
    body = wiremap.get_format(fmt_key).response_to_wire(response)
    model = AnthropicMessage if fmt_key == "anthropic_messages" else ChatCompletion
    model.model_validate(body)

"""bedrock_converse against botocore's service model for bedrock-runtime (the AWS SDK's own shapes).

Rich canonical requests go through `request_to_wire`; the bodies (with `modelId` as a param, as
botocore takes it, and blob fields decoded from base64 to bytes, as botocore takes them) must
pass botocore's strict parameter validation of `ConverseRequest`. Response bodies that
`response_to_wire` writes must pass `ConverseResponse` validation likewise.
"""

from __future__ import annotations

import base64
import copy
import json
from typing import Any

import pytest

from wiremap.generated import bedrock_converse as bedrock

botocore_session = pytest.importorskip("botocore.session")
botocore_validate = pytest.importorskip("botocore.validate")

BLOB_KEYS = {"bytes", "redactedContent"}  # ImageSource/DocumentSource/AudioSource.bytes, ReasoningContentBlock.redactedContent


@pytest.fixture(scope="module")
def model() -> Any:
    client = botocore_session.get_session().create_client(
        "bedrock-runtime", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
    return client.meta.service_model


def _blobs(value: Any) -> Any:
    """The JSON wire's base64 blobs as the bytes botocore's params hold."""
    if isinstance(value, dict):
        return {k: base64.b64decode(v) if k in BLOB_KEYS and isinstance(v, str) else _blobs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_blobs(v) for v in value]
    return value


def _validate(params: dict[str, Any], shape: Any) -> None:
    report = botocore_validate.ParamValidator().validate(params, shape)
    assert not report.has_errors(), report.generate_report()


TOOLS = [
    {"name": "get_weather", "description": "Current weather for a city.",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
    {"name": "no_args"},
]

REQUESTS: dict[str, dict[str, Any]] = {
    "multimodal_tools_thinking": {
        "model": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": [
                {"type": "text", "text": "What is in these?"},
                {"type": "image", "source": {"type": "inline", "base64_data": "iVBORw0KGgo="}, "media_type": "image/png"},
                {"type": "image", "source": {"type": "url", "url": "s3://bucket/cat.jpeg"}, "media_type": "image/jpeg"},
                {"type": "file", "source": {"type": "inline", "base64_data": "JVBERi0xLjQ="}, "media_type": "application/pdf", "filename": "Q3 report"},
                {"type": "file", "source": {"type": "url", "url": "s3://bucket/data.csv"}, "media_type": "text/csv"},
                {"type": "audio", "source": {"type": "inline", "base64_data": "UklGRg=="}, "media_type": "audio/wav"},
            ]},
            {"role": "assistant", "content": [
                {"type": "thinking", "text": "Look first.", "signature": "c2lnLTE=", "origin": "bedrock"},
                {"type": "redacted_thinking", "data": "ZW5jcnlwdGVk", "origin": "bedrock"},
                {"type": "text", "text": "Checking the weather."},
            ], "tool_calls": [
                {"id": "tooluse_1", "name": "get_weather", "arguments": {"city": "Paris"}},
                {"id": "tooluse_2", "name": "no_args", "arguments": {}},
            ]},
            {"role": "tool", "tool_call_id": "tooluse_1", "content": "18C, sunny"},
            {"role": "tool", "tool_call_id": "tooluse_2", "content": "done", "is_error": True},
            {"role": "user", "content": "Thanks. Tomorrow?"},
        ],
        "tools": TOOLS,
        "tool_choice": {"type": "tool", "name": "get_weather"},
        "config": {"max_tokens": 4096, "temperature": 0.3, "top_p": 0.9, "top_k": 50, "stop_sequences": ["END", "STOP"],
                   "metadata": {"team": "search"}, "reasoning_budget": 2048,
                   "extras": {"guardrailConfig": {"guardrailIdentifier": "gr-1", "guardrailVersion": "1"},
                              "performanceConfig": {"latency": "optimized"}}},
    },
    "any_tool_and_structured_output": {
        "model": "us.amazon.nova-pro-v1:0",
        "messages": [{"role": "user", "content": "List three colours."},
                     {"role": "assistant", "content": "Red, green"},
                     {"role": "user", "content": "Go on."}],
        "tools": TOOLS[:1],
        "tool_choice": "required",
        "config": {"max_tokens": 100, "top_k": 3, "seed": 1},
    },
    "structured_output": {
        "model": "anthropic.claude-haiku-4-5-20251001-v1:0",
        "messages": [{"role": "user", "content": "Answer."}],
        "response_schema": {"title": "Answer", "type": "object", "properties": {"a": {"type": "string"}},
                            "required": ["a"], "additionalProperties": False},
    },
}


@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_request_bodies_pass_botocore_strict_validation(model: Any, name: str) -> None:
    request = copy.deepcopy(REQUESTS[name])
    wire = bedrock.request_to_wire(request)
    assert wire["modelId"] == request["model"]  # the path-bound field is a ConverseRequest member (URI label)
    shape = model.operation_model("Converse").input_shape
    _validate(_blobs(wire), shape)
    # ConverseStream takes the same body at its own endpoint
    _validate(_blobs(wire), model.operation_model("ConverseStream").input_shape)


def test_the_oracle_catches_a_wrong_body(model: Any) -> None:
    """The validator is strict: an unknown member or a wrong type is reported (the check has teeth)."""
    wire = _blobs(bedrock.request_to_wire(copy.deepcopy(REQUESTS["structured_output"])))
    wire["messages"][0]["content"][0]["type"] = "text"  # a chat-completions habit Converse refuses
    report = botocore_validate.ParamValidator().validate(wire, model.operation_model("Converse").input_shape)
    assert report.has_errors() and "type" in report.generate_report()


RESPONSES = [
    {"message": {"role": "assistant", "content": "Hello"}, "finish_reason": "stop",
     "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}},
    {"message": {"role": "assistant", "content": [
        {"type": "thinking", "text": "hmm", "signature": "c2ln", "origin": "bedrock"},
        {"type": "text", "text": "calling"}],
        "tool_calls": [{"id": "tooluse_1", "name": "get_weather", "arguments": {"city": "Paris"}}]},
     "finish_reason": "tool_calls",
     "usage": {"prompt_tokens": 1010, "completion_tokens": 5, "total_tokens": 1015, "cached_tokens": 1000, "cache_creation_tokens": 0}},
    {"message": {"role": "assistant", "content": "cut"}, "finish_reason": "length"},
    {"message": {"role": "assistant", "content": None}, "finish_reason": "content_filter",
     "usage": {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}},
]


@pytest.mark.parametrize("index", range(len(RESPONSES)))
def test_response_bodies_pass_botocore_validation(model: Any, index: int) -> None:
    response = copy.deepcopy(RESPONSES[index])
    response.setdefault("usage", {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None})
    wire = bedrock.response_to_wire(response)
    _validate(_blobs(wire), model.operation_model("Converse").output_shape)
    # and it reads back as the same answer
    back = bedrock.response_from_wire(wire).to_dict()
    assert back["finish_reason"] == response["finish_reason"]


def test_error_bodies_name_a_modeled_error_shape(model: Any) -> None:
    from wiremap.runtime.errors import RateLimitError

    status, body, headers = bedrock.error_to_wire(RateLimitError("slow down"))
    errors = {shape.name: shape for shape in model.operation_model("Converse").error_shapes}
    # rest-json: the shape's name in x-amzn-ErrorType (errors.emit.headers), the body {message}
    name = headers["x-amzn-ErrorType"]
    assert name in errors and errors[name].metadata["error"]["httpStatusCode"] == status
    assert body == {"message": "slow down"}


def test_botocore_reads_the_error_it_is_answered_with(model: Any) -> None:
    """botocore's rest-json error parser, given what error_to_wire writes, names the shape."""
    from botocore.parsers import RestJSONParser

    from wiremap.runtime.errors import InvalidRequestError

    status, body, headers = bedrock.error_to_wire(InvalidRequestError("bad field"))
    from urllib3 import HTTPHeaderDict  # botocore's response headers: case-insensitive

    parsed = RestJSONParser().parse(
        {"status_code": status, "headers": HTTPHeaderDict(headers), "body": json.dumps(body).encode()},
        model.operation_model("Converse").output_shape,
    )
    assert parsed["Error"]["Code"] == "ValidationException" and parsed["Error"]["Message"] == "bad field"

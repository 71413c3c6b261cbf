"""Amazon Titan Text Embeddings on Bedrock through Provider (issue 17): the region's endpoint and
AWS SigV4 without a Bedrock API key, as bedrock_converse and anthropic.bedrock do (the table had
one us-east-1 origin and bearer keys only)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import wiremap
from loopback import Reply

ANSWER = {"embedding": [0.5, -0.25], "inputTextTokenCount": 2}


def test_the_region_picks_the_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_REGION", raising=False)
    assert wiremap.Provider("bedrock_titan_embeddings", model="amazon.titan-embed-text-v2:0", api_key="k").base_url == "https://bedrock-runtime.us-east-1.amazonaws.com"
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    assert wiremap.Provider("bedrock_titan_embeddings", model="m", api_key="k").base_url == "https://bedrock-runtime.eu-central-1.amazonaws.com"
    assert wiremap.Provider("bedrock_titan_embeddings", model="m", api_key="k", params={"region": "ap-south-1"}).base_url == "https://bedrock-runtime.ap-south-1.amazonaws.com"


def test_sigv4_without_a_key(serve: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("botocore")
    for name in ("AWS_BEARER_TOKEN_BEDROCK", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    server = serve(lambda seen: Reply(200, ANSWER))

    async def go() -> Any:
        async with wiremap.Provider("bedrock_titan_embeddings", model="amazon.titan-embed-text-v2:0", base_url=server.url, params={"region": "eu-west-1"}) as p:
            return await p.embed("hello", config={"dimensions": 256})

    out = asyncio.run(go())
    assert out.embeddings == [[0.5, -0.25]] and out.usage.prompt_tokens == 2
    (seen,) = server.requests
    assert seen.raw_path == "/model/amazon.titan-embed-text-v2%3A0/invoke"
    auth = seen.headers["authorization"]
    assert auth.startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") and "/eu-west-1/bedrock/aws4_request" in auth

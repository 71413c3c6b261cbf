"""`transport.params` (issue 17): a per-region base URL, its `{region}` filled from `params=`,
else its environment variable, else the table's default (Bedrock Converse: AWS_REGION, us-east-1)."""

from __future__ import annotations

import pytest

from wiremap.runtime.http_support import table_base_url
from wiremap.runtime.provider import Provider


def test_the_region_comes_from_the_environment_or_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_REGION", raising=False)
    assert Provider("bedrock_converse", model="anthropic.claude", api_key="k").base_url == "https://bedrock-runtime.us-east-1.amazonaws.com"
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    assert Provider("bedrock_converse", model="anthropic.claude", api_key="k").base_url == "https://bedrock-runtime.eu-central-1.amazonaws.com"
    assert Provider("bedrock_converse", model="m", api_key="k", params={"region": "ap-south-1"}).base_url == "https://bedrock-runtime.ap-south-1.amazonaws.com"
    # an explicit base_url still wins
    assert Provider("bedrock_converse", model="m", api_key="k", base_url="http://127.0.0.1:9").base_url == "http://127.0.0.1:9"


@pytest.mark.parametrize("value", ["evil.example/x", "a b", "eu@x", "..", "us-east-1.evil.example"])
def test_a_variable_that_would_change_the_host_is_refused(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("AWS_REGION", value)
    with pytest.raises(ValueError, match=r"transport param 'region' \(AWS_REGION\) must be letters, digits, '-' and '_'"):
        Provider("bedrock_converse", model="m", api_key="k")


def test_a_table_without_variables_is_as_written() -> None:
    assert table_base_url({"base_url": "https://api.openai.com/v1"}) == "https://api.openai.com/v1"
    assert table_base_url({}) is None

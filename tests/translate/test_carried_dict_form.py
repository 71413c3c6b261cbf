"""A canonical request read back from its dict form (`Request.to_dict()`, as the gateway routes
it and as a user stores it) reports the same losses as the record it came from. The dict form of
carried wire data names the format that read it and the option aliases, so the report finds the
same keys the reader's tables name: before, a recorded OpenAI request's text parts and its legacy
`max_tokens` were named `dropped` on the way to Anthropic from the dict, and not from the record
(the gateway's `x-wiremap-losses` said so)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import wiremap
from wiremap.runtime.canonical import Request
from wiremap.runtime.translate import request_losses

RECORDED = Path(__file__).resolve().parents[2].parent / "shared" / "recorded"
PAIRS = [("openai_chat", "anthropic_messages"), ("anthropic.messages_2023_06_01", "openai_chat"), ("openai_chat", "gemini_generate_content"), ("openai_responses", "anthropic_messages"), ("groq", "openai_responses")]


def _requests(key: str) -> list[Any]:
    path = RECORDED / f"{key}.jsonl"
    if not path.exists():
        pytest.skip(f"no recorded traffic at {path}")
    return [r["body"] for r in map(json.loads, path.read_text().splitlines()) if r["kind"] == "request"]


def _report(request: Any, target: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [(loss.path, loss.kind, loss.detail) for loss in request_losses(request, target)[1]]


@pytest.mark.parametrize(("source", "target"), PAIRS)
def test_the_dict_form_reports_what_the_record_reports(source: str, target: str) -> None:
    fmt = wiremap.get_format(source)
    compared = carrying = 0
    for body in _requests(source):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                record = fmt.request_from_wire(body)
            expected = _report(record, target)
        except wiremap.ProviderError:
            continue
        plain = record.to_dict()
        assert Request.from_dict(plain).to_dict() == plain
        assert _report(plain, target) == expected, body
        compared += 1
        carrying += record.carried is not None
    assert compared > 20 and carrying > 5


def test_the_dict_form_names_its_reader_and_aliases() -> None:
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "max_tokens": 5}
    plain = wiremap.get_format("openai_chat").request_from_wire(body).to_dict()
    assert plain["carried"]["reader"] == "openai_chat" and plain["carried"]["aliases"] == [["max_tokens"]]
    assert _report(plain, "anthropic_messages") == []  # the text is the text, max_tokens is config.max_tokens

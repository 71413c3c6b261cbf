"""A response's envelope values (its id, model, creation time: what a writer takes from `raw`,
not from the canonical record) that the target's answer has no field for are named in the loss
report, at their wire path; a value the target keeps under its own name is not."""

from __future__ import annotations

import pytest

import wiremap

ANTHROPIC = {"id": "msg_01ABC", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
             "content": [{"type": "text", "text": "Hi."}], "stop_reason": "end_turn", "stop_sequence": None,
             "usage": {"input_tokens": 5, "output_tokens": 2}}
OPENAI = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1764000000, "model": "gpt-4o-2024-08-06",
          "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi."}, "finish_reason": "stop"}],
          "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}}


def _dropped(body: dict, source: str, target: str) -> set[str]:
    losses = wiremap.translate_response(body, source, target).losses
    return {loss.path for loss in losses if loss.kind == "dropped" and loss.path in body}


@pytest.mark.parametrize(("body", "source", "target", "named"), [
    (ANTHROPIC, "anthropic_messages", "bedrock_converse", {"id", "model"}),  # Converse answers have neither
    (ANTHROPIC, "anthropic_messages", "openai_chat", set()),  # both kept, under the same names
    (ANTHROPIC, "anthropic_messages", "gemini_generate_content", set()),  # kept as responseId and modelVersion
    (OPENAI, "openai_chat", "anthropic_messages", {"created"}),  # Anthropic's answer has no creation time
    (OPENAI, "openai_chat", "bedrock_converse", {"id", "model", "created"}),
    (OPENAI, "openai_chat", "azure_openai", set()),  # the same wire: nothing is lost
])
def test_envelope_values_the_target_cannot_hold_are_named(body: dict, source: str, target: str, named: set[str]) -> None:
    assert _dropped(body, source, target) == named


def test_response_losses_looks_for_them_given_the_source() -> None:
    from wiremap.runtime.canonical import Response
    from wiremap.runtime.translate import response_losses

    response = wiremap.get_format("anthropic_messages").response_from_wire(ANTHROPIC)
    assert isinstance(response, Response)
    _wire, losses = response_losses(response, "bedrock_converse", source="anthropic_messages")
    assert {loss.path for loss in losses} >= {"id", "model"}
    _wire, losses = response_losses(response, "bedrock_converse")  # no source given: not looked for
    assert not {loss.path for loss in losses} & {"id", "model"}

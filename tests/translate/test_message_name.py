"""Issue #14 item 3: the message `name` (OpenAI Chat's "optional name for the participant") is
canonical on system, user and assistant messages. It goes to the OpenAI Chat family that takes it,
and a target without one names it as a loss at its path (docs/canonical.md "The message name")."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import wiremap
from wiremap import InvalidRequestError
from wiremap.runtime.canonical import AssistantMessage, Request, SystemMessage, UserMessage

BODY = {
    "model": "gpt-4o",
    "messages": [
        {"role": "system", "content": "You referee.", "name": "rules"},
        {"role": "user", "content": "I move first.", "name": "alice"},
        {"role": "user", "content": [{"type": "text", "text": "No, I do."}], "name": "bob"},
        {"role": "assistant", "content": "Alice moves first.", "name": "referee"},
        {"role": "user", "content": "Fine."},
    ],
}


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_openai_names_are_canonical() -> None:
    req = wiremap.get_format("openai_chat").request_from_wire(BODY)
    assert req.messages[0] == SystemMessage("You referee.", name="rules")
    assert req.messages[1] == UserMessage("I move first.", name="alice")
    assert req.messages[3] == AssistantMessage("Alice moves first.", name="referee")
    assert req.messages[4].name is wiremap.runtime.canonical.NOT_GIVEN
    # nothing of it is carried data: the tables read it (a one-part list is carried as its form)
    assert req.carried is not None and all("name" not in op[0] for op in req.carried.ops)
    assert req.to_dict()["messages"][1] == {"role": "user", "content": "I move first.", "name": "alice"}


@pytest.mark.parametrize("target", ["openai_chat", "groq", "deepseek", "openrouter", "vllm", "together"])
def test_the_openai_family_keeps_names(target: str) -> None:
    out = _quiet(wiremap.translate_request, BODY, "openai_chat", target)
    assert [m.get("name") for m in out.result["messages"]] == ["rules", "alice", "bob", "referee", None]
    assert not any(x.path.endswith(".name") for x in out.losses)


@pytest.mark.parametrize("target", ["anthropic_messages", "gemini_generate_content", "openai_responses", "mistral", "ollama", "openarmature.openai_chat"])
def test_a_target_without_names_names_each_one(target: str) -> None:
    out = _quiet(wiremap.translate_request, BODY, "openai_chat", target)
    named = {x.path for x in out.losses if x.path.endswith(".name")}
    assert named == {"messages[0].name", "messages[1].name", "messages[2].name", "messages[3].name"}
    assert '"name": "alice"' not in str(out.result).replace("'", '"')


def test_the_fused_translator_writes_what_the_two_step_path_writes() -> None:
    fast = _quiet(wiremap.translator("openai_chat", "anthropic_messages").request, BODY)
    slow = _quiet(wiremap.translate_request, BODY, "openai_chat", "anthropic_messages").result
    assert fast == slow


def test_an_empty_or_non_string_name_is_refused_at_its_path() -> None:
    fmt = wiremap.get_format("openai_chat")
    with pytest.raises(InvalidRequestError) as caught:
        fmt.request_to_wire(Request("m", [UserMessage("hi", name="")]))
    assert caught.value.path == "messages[0].name"
    with pytest.raises(InvalidRequestError) as caught:
        Request.from_dict({"model": "m", "messages": [{"role": "assistant", "content": "x", "name": 3}]})
    assert caught.value.path == "messages[0].name"
    bad = {"model": "m", "messages": [{"role": "user", "content": "hi", "name": ["x"]}]}
    with pytest.raises(InvalidRequestError) as caught:
        fmt.request_from_wire(bad)
    assert caught.value.path == "messages[0].name"

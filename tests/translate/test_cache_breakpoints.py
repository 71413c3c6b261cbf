"""Issue #14 item 3: prompt-cache breakpoints are canonical (`cache_control` on text, image and
document blocks, tool results, tools and system messages; docs/canonical.md "Prompt-cache
breakpoints"). They cross between the formats that take them (Anthropic Messages, OpenRouter) with
their ttl, and every breakpoint a target cannot take is a named loss at its path: a coding agent
whose cache markers vanish pays about 10x the input cost."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import wiremap
from wiremap import InvalidRequestError
from wiremap.runtime.canonical import NOT_GIVEN
from wiremap.runtime.translate import TranslationLossError
from wiremap.runtime.canonical import Request, SystemMessage, TextBlock, Tool, UserMessage

EPH = {"type": "ephemeral"}
HOUR = {"type": "ephemeral", "ttl": "1h"}
RECORDED = Path(__file__).resolve().parents[3] / "shared" / "recorded"

ANTHROPIC = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 100,
    "system": [
        {"type": "text", "text": "You are a coding agent.", "cache_control": HOUR},
    ],
    "tools": [
        {"name": "read", "input_schema": {"type": "object"}},
        {"name": "write", "input_schema": {"type": "object"}, "cache_control": EPH},
    ],
    "messages": [
        {"role": "user", "content": [
            {"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}, "cache_control": EPH},
            {"type": "text", "text": "Fix the bug.", "cache_control": EPH},
        ]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "file text", "cache_control": EPH},
        ]},
    ],
}


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _paths(translation: Any) -> dict[str, str]:
    return {x.path: x.kind for x in translation.losses}


def test_anthropic_breakpoints_are_canonical() -> None:
    req = wiremap.get_format("anthropic_messages").request_from_wire(ANTHROPIC)
    assert req.messages[0] == SystemMessage("You are a coding agent.", cache_control=HOUR)
    assert [t.cache_control for t in req.tools] == [NOT_GIVEN, EPH]
    image, text = req.messages[1].content
    assert image.cache_control == EPH and text.cache_control == EPH
    assert req.messages[3].cache_control == EPH  # the tool result
    # nothing of it is carried data: the tables read it
    assert req.carried is None or all("cache_control" not in json.dumps(op) for op in req.carried.ops)


def test_same_format_is_the_identity() -> None:
    assert wiremap.translate_request(ANTHROPIC, "anthropic_messages", "anthropic_messages").result == ANTHROPIC


def test_anthropic_to_openrouter_and_back_keeps_every_breakpoint_it_can() -> None:
    out = wiremap.translate_request(ANTHROPIC, "anthropic_messages", "openrouter")
    body = out.result
    assert body["messages"][0] == {"role": "system", "content": [{"type": "text", "text": "You are a coding agent.", "cache_control": HOUR}]}
    assert body["tools"][1]["cache_control"] == EPH and "cache_control" not in body["tools"][0]
    user = body["messages"][1]["content"]
    assert [p.get("cache_control") for p in user] == [EPH, EPH]
    # an OpenAI-shaped tool message has no breakpoint: the one loss, named at its path
    assert _paths(out) == {"messages[3].cache_control": "dropped"}
    back = wiremap.translate_request(body, "openrouter", "anthropic_messages")
    assert back.losses == []
    expected = json.loads(json.dumps(ANTHROPIC))
    del expected["messages"][2]["content"][0]["cache_control"]
    assert back.result == expected


@pytest.mark.parametrize("target", ["openai_chat", "gemini_generate_content", "openai_responses", "mistral"])
def test_a_target_without_breakpoints_names_each_one(target: str) -> None:
    out = _quiet(wiremap.translate_request, ANTHROPIC, "anthropic_messages", target)
    cache = {p for p, kind in _paths(out).items() if p.endswith("cache_control")}
    assert cache == {
        "messages[0].cache_control",
        "messages[1].content[0].cache_control",
        "messages[1].content[1].cache_control",
        "messages[3].cache_control",
        "tools[1].cache_control",
    }
    assert "cache_control" not in json.dumps(out.result)
    assert any("prompt-cache breakpoint" in x.detail for x in out.losses)
    with pytest.raises(TranslationLossError):
        _quiet(wiremap.translate_request, ANTHROPIC, "anthropic_messages", target, strict=True)


def test_a_single_cached_text_part_is_not_folded_into_a_string() -> None:
    """OpenAI-family user content with one text part goes out as a plain string, which has no
    place for a breakpoint: a cached part stays a part."""
    req = Request("m", [UserMessage([TextBlock("hi", cache_control=EPH)])])
    body = wiremap.get_format("openrouter").request_to_wire(req)
    assert body["messages"][0]["content"] == [{"type": "text", "text": "hi", "cache_control": EPH}]
    plain = wiremap.get_format("openrouter").request_to_wire(Request("m", [UserMessage([TextBlock("hi")])]))
    assert plain["messages"][0]["content"] == "hi"


def test_system_blocks_each_keep_their_own_breakpoint() -> None:
    body = {
        "model": "claude-sonnet-4-5", "max_tokens": 10,
        "system": [{"type": "text", "text": "Static rules.", "cache_control": EPH}, {"type": "text", "text": "Today is Monday."}],
        "messages": [{"role": "user", "content": "hi"}],
    }
    req = wiremap.get_format("anthropic_messages").request_from_wire(body)
    assert req.messages[:2] == [SystemMessage("Static rules.", cache_control=EPH), SystemMessage("Today is Monday.")]
    assert wiremap.translate_request(body, "anthropic_messages", "anthropic_messages").result == body
    out = wiremap.translate_request(body, "anthropic_messages", "openrouter")
    assert out.losses == []
    assert out.result["messages"][:2] == [
        {"role": "system", "content": [{"type": "text", "text": "Static rules.", "cache_control": EPH}]},
        {"role": "system", "content": "Today is Monday."},
    ]
    # without a breakpoint the system field stays the joined string it always was
    plain = wiremap.get_format("anthropic_messages").request_to_wire(
        Request("m", [SystemMessage("a"), SystemMessage("b"), UserMessage("hi")])
    )
    assert plain["system"] == "a\n\nb"


def test_a_malformed_breakpoint_is_a_typed_error_at_its_path() -> None:
    bad = json.loads(json.dumps(ANTHROPIC))
    bad["messages"][0]["content"][1]["cache_control"] = {"ttl": "5m"}
    with pytest.raises(InvalidRequestError) as caught:
        wiremap.get_format("anthropic_messages").request_from_wire(bad)
    assert caught.value.path == "messages[0].content[1].cache_control.type"
    bad["messages"][0]["content"][1]["cache_control"] = "ephemeral"
    with pytest.raises(InvalidRequestError) as caught:
        wiremap.get_format("anthropic_messages").request_from_wire(bad)
    assert caught.value.path == "messages[0].content[1].cache_control"
    # a canonical record built by hand is validated before it is written
    with pytest.raises(InvalidRequestError) as caught:
        wiremap.get_format("anthropic_messages").request_to_wire(
            Request("m", [UserMessage("hi")], tools=[Tool("f", cache_control={"ttl": 3})])  # type: ignore[list-item]
        )
    assert caught.value.path == "tools[0].cache_control.type"


# each place a breakpoint sits, and the canonical path validation names (the system block is
# canonical message 0, so the first user turn is message 1)
_SPOTS = [
    (("system", 0), "messages[0].cache_control"),
    (("tools", 1), "tools[1].cache_control"),
    (("messages", 0, "content", 1), "messages[1].content[1].cache_control"),
    (("messages", 0, "content", 0), "messages[1].content[0].cache_control"),
    (("messages", 2, "content", 0), "messages[3].cache_control"),  # a tool result: a tool message
]


@pytest.mark.parametrize(("where", "path"), _SPOTS)
@pytest.mark.parametrize("target", ["anthropic_messages", "openai_chat", "openrouter"])
def test_a_breakpoint_that_is_not_json_is_a_typed_error_at_its_path(where: tuple[Any, ...], path: str, target: str) -> None:
    # json.loads reads NaN: a body like this reaches a gateway, and the API refuses it whole
    bad = json.loads(json.dumps(ANTHROPIC))
    node: Any = bad
    for step in where:
        node = node[step]
    node["cache_control"] = {"type": "ephemeral", "ttl": float("nan")}
    for run in (
        lambda: wiremap.translator("anthropic_messages", target).request(bad),
        lambda: wiremap.translate_request(bad, "anthropic_messages", target),
    ):
        with pytest.raises(InvalidRequestError) as caught:
            _quiet(run)
        assert caught.value.path == path + ".ttl"


def test_a_canonical_breakpoint_that_is_not_json_is_refused_before_it_is_written() -> None:
    for value, why in [({"type": "ephemeral", "ttl": {1, 2}}, "got set"), ({"type": "ephemeral", "x": b"1h"}, "got bytes")]:
        req = Request("m", [UserMessage([TextBlock("hi", cache_control=value)])])
        with pytest.raises(InvalidRequestError, match=why) as caught:
            wiremap.get_format("anthropic_messages").request_to_wire(req)
        assert caught.value.path.startswith("messages[0].content[0].cache_control.")


def _recorded_with_breakpoints(fmt_file: str) -> list[dict[str, Any]]:
    out = []
    with open(RECORDED / fmt_file, encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if record.get("kind") == "request" and '"cache_control"' in json.dumps(record["body"]):
                out.append(record["body"])
    return out


@pytest.mark.skipif(not RECORDED.is_dir(), reason="../shared/recorded is not on this machine")
def test_recorded_openrouter_breakpoints_reach_anthropic() -> None:
    """Every breakpoint real OpenRouter clients sent on system, user text and tools arrives in the
    Anthropic body; the ones that cannot (a tool message's part: its content is text) are named."""
    bodies = _recorded_with_breakpoints("openrouter.jsonl")
    assert bodies
    reached = 0
    for body in bodies:
        out = _quiet(wiremap.translate_request, body, "openrouter", "anthropic_messages")
        sent = json.dumps(body).count('"cache_control"')
        got = json.dumps(out.result).count('"cache_control"')
        named = sum(1 for x in out.losses if "cache_control" in x.path)
        assert got + named >= sent, (body, out.losses)
        reached += got
    assert reached >= 25

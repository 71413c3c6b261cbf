"""The hypothesis properties of tests/test_properties.py for the OpenAI-compatible family.

Each family member speaks the OpenAI wire with a few rows changed, so the requests and responses
are drawn from the `openai_chat` profile (tests/strategies.py) and `normalise_compat()` states the
equivalences on top of test_properties.normalise("openai_chat", ...), one per changed row:

a. canonical -> wire -> canonical is the identity up to normalise_compat, and the wire is a fixed
   point -- for Mistral through the wire rules: ids rewritten to 9 characters and names renamed
   on the way out come back as the caller's own with the call's WireMap;
b. responses: canonical -> wire, then wire -> canonical -> wire gives the same bytes;
c. request_to_wire is pure and byte-stable (also with a WireMap, which it fills and nothing else);
d. totality: arbitrary JSON makes every entry point raise only ProviderError subclasses.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import wiremap
from wiremap import ProviderError, UnsupportedContentBlockError

sys.path.insert(0, str(Path(__file__).resolve().parent))
import strategies as gen  # noqa: E402
from test_properties import SETTINGS as _BASE_SETTINGS
from test_properties import _check_error, _openai_block, _decoded, _reordered, assert_same_json, normalise, quiet, sorts_json, wire_bytes  # noqa: E402

# Twenty-three formats share the openai profile: fewer examples each than the two base formats get.
SETTINGS = _BASE_SETTINGS.__class__(_BASE_SETTINGS, max_examples=60)

FAMILY = (
    "openai_compatible", "deepseek", "openrouter", "mistral", "groq", "together", "ollama", "vllm",
    # issue 17's long tail
    "fireworks", "cerebras", "deepinfra", "sambanova", "nebius", "novita", "nvidia_nim", "huggingface", "lmstudio", "llamacpp",
    "xai", "perplexity", "zai", "moonshot", "dashscope",
)
#: options.top_k: sent by these (their mappings' top_k rows); dropped by the others.
SENDS_TOP_K = {
    "openai_compatible", "openrouter", "mistral", "together", "vllm",
    "fireworks", "deepinfra", "sambanova", "nebius", "novita", "nvidia_nim", "lmstudio", "llamacpp",
    "perplexity", "dashscope",
}
#: options a family member drops (`unsupported: drop`/`warn` rows: its docs have no such field)
#: that openai_chat sends, of the ones the openai_chat profile draws.
DROPS = {
    "mistral": {"user"},  # options.user: Mistral has no end-user field
    "deepinfra": {"metadata", "top_logprobs"},
    "sambanova": {"n", "seed", "logprobs", "top_logprobs", "user", "metadata", "prompt_cache_key"},
    "nebius": {"seed", "metadata", "prompt_cache_key"},
    "novita": {"user", "metadata", "prompt_cache_key"},
    "huggingface": {"n", "user", "metadata", "prompt_cache_key"},
    "lmstudio": {"n", "logprobs", "top_logprobs", "user", "metadata", "prompt_cache_key"},
    "perplexity": {"seed", "stop_sequences", "n", "logprobs", "top_logprobs", "user", "prompt_cache_key", "metadata"},
    "zai": {"seed", "frequency_penalty", "presence_penalty", "n", "logprobs", "top_logprobs", "prompt_cache_key", "metadata"},
    "moonshot": {"seed"},
}


def fmt(key: str) -> Any:
    return wiremap.get_format(key)


def _kwargs(key: str) -> dict[str, Any]:
    return {"wire_map": wiremap.WireMap()} if fmt(key).wire_rules else {}


def _entry_json(entry: dict[str, Any]) -> str:
    # runtime/reasoning.py: a details entry is kept as its canonical JSON
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _reasoning_blocks(key: str, content: Any) -> list[dict[str, Any]]:
    """What the request.reasoning row sends for a tool-call turn and reads back (origin rule:
    the drawn origins are never this provider, so only unstamped blocks are sent)."""
    spec = getattr(fmt(key).module, "REASONING", None)
    if spec is None or spec["send"] == "never" or not isinstance(content, list):
        return []
    provider = fmt(key).provider
    mine = [b for b in content if b["type"] in ("thinking", "redacted_thinking") and b.get("origin", provider) == provider]
    if "details" in spec:
        out = []
        for b in mine:
            if b["type"] != "thinking":
                continue  # drawn data is no details entry: nothing to send
            entry = {"type": "reasoning.text", "text": b["text"]}  # drawn signatures are no entries either
            if b["text"]:
                out.append({"type": "thinking", "text": b["text"], "signature": _entry_json(entry), "origin": provider})
            else:
                out.append({"type": "redacted_thinking", "data": _entry_json(entry), "origin": provider})
        return out
    text = "".join(b["text"] for b in mine if b["type"] == "thinking")
    return [{"type": "thinking", "text": text, "origin": provider}] if text else []


def normalise_compat(key: str, request: dict[str, Any]) -> dict[str, Any]:
    r = normalise("openai_chat", request)
    for original, m in zip(request["messages"], r["messages"]):
        if m["role"] != "assistant" or not original.get("tool_calls"):
            continue  # send: tool_call_turns -- plain turns carry no reasoning
        blocks = _reasoning_blocks(key, original.get("content"))
        if blocks:
            c = m.get("content")
            m["content"] = blocks + ([] if c in (None, "") else [{"type": "text", "text": c}] if isinstance(c, str) else c)
    config = dict(r.get("config") or {})
    top_k = (request.get("config") or {}).get("top_k")
    if key in SENDS_TOP_K and top_k is not None:
        config["top_k"] = top_k  # options.top_k: top_k (normalise("openai_chat") drops it)
    for name in DROPS.get(key, ()):
        config.pop(name, None)
    if config:
        r["config"] = config
    else:
        r.pop("config", None)  # every option dropped: no config comes back
    if key == "mistral":
        for original, m in zip(request["messages"], r["messages"]):
            if m["role"] == "assistant" and isinstance(original.get("content"), list):
                # content_parts.thinking (ThinkChunk): this provider's (or unstamped) thinking is
                # sent in place and read back stamped mistral; another's is stripped, as is
                # redacted thinking (no wire field)
                blocks = [b for b in map(_mistral_block, original["content"]) if b is not None]
                if len(blocks) == 1 and blocks[0]["type"] == "text":
                    m["content"] = blocks[0]["text"]  # content: string_or_parts
                else:
                    m["content"] = blocks or None
        for tool in r.get("tools") or []:
            # tools row parameters "{parameters}" (Function.parameters is required)
            tool.setdefault("parameters", {"type": "object", "properties": {}})
    return r


def _mistral_block(block: dict[str, Any]) -> dict[str, Any] | None:
    if block["type"] == "redacted_thinking":
        return None
    if block["type"] != "thinking":
        return _openai_block(block)
    if block.get("origin", "mistral") != "mistral":
        return None
    out = {"type": "thinking", "text": block["text"], "origin": "mistral"}
    if "signature" in block:
        out["signature"] = block["signature"]
    return out


def _draw_request(data: st.DataObject, key: str) -> tuple[dict[str, Any], dict[str, Any], Any]:
    request = data.draw(gen.canonical_requests("openai_chat"), label="request")
    if isinstance(request.get("config"), dict):  # valid for this format: inside its `range` rows
        gen.in_ranges(request["config"], key)
    kwargs = _kwargs(key)
    try:
        wire = quiet(lambda: fmt(key).request_to_wire(request, **kwargs))
    except UnsupportedContentBlockError:
        assume(False)  # a part kind this provider refuses (mistral: inline audio and files)
        raise
    except ProviderError as exc:
        # a tool_choice mode the provider refuses (tool_choice: reject -- llamacpp, lmstudio: a
        # forced tool; zai: all but auto; moonshot, dashscope: required), before anything is sent
        assume(getattr(exc, "path", None) != "tool_choice")
        raise
    return request, wire, kwargs.get("wire_map")


@pytest.mark.parametrize("key", FAMILY)
@SETTINGS
@given(data=st.data())
def test_request_round_trip_is_identity_up_to_normalise(key: str, data: st.DataObject) -> None:
    request, wire, wire_map = _draw_request(data, key)
    f = fmt(key)
    extra = {"wire_map": wire_map} if wire_map is not None else {}
    back = f.request_from_wire(wire, **extra).to_dict()
    back.pop("carried", None)  # compared by the write-back below
    assert_same_json(back, normalise_compat(key, request))
    back = f.request_from_wire(wire, **extra)
    # the wire is a fixed point (with a fresh map: the rewrites are deterministic)
    assert wire_bytes(quiet(lambda: f.request_to_wire(back, **_kwargs(key)))) == wire_bytes(wire)
    if wire_map is not None:
        for call in (c for m in wire["messages"] if m.get("role") == "assistant" for c in m.get("tool_calls") or []):
            assert len(call["id"]) == 9 and call["id"].isalnum(), call["id"]


@pytest.mark.parametrize("key", FAMILY)
@SETTINGS
@given(data=st.data())
def test_response_wire_round_trip_is_identity(key: str, data: st.DataObject) -> None:
    response = data.draw(gen.canonical_responses("openai_chat"), label="response")
    f = fmt(key)
    before = copy.deepcopy(response)
    body = f.response_to_wire(response)
    assert response == before, "response_to_wire mutated its input"
    parsed = f.response_from_wire(body)
    assert parsed.raw is body
    assert wire_bytes(f.response_to_wire(parsed)) == wire_bytes(body)
    assert wire_bytes(f.response_to_wire(parsed.to_dict())) == wire_bytes(body)


@pytest.mark.parametrize("key", FAMILY)
@SETTINGS
@given(data=st.data(), rnd=st.randoms(use_true_random=False))
def test_request_to_wire_is_pure_and_byte_stable(key: str, data: st.DataObject, rnd: random.Random) -> None:
    request, first, wire_map = _draw_request(data, key)
    f = fmt(key)
    before = copy.deepcopy(request)
    again = quiet(lambda: f.request_to_wire(request, **_kwargs(key)))
    assert request == before, "request_to_wire mutated its input"
    assert wire_bytes(again) == wire_bytes(first)
    shuffled = _reordered(request, rnd)
    again_shuffled = quiet(lambda: f.request_to_wire(shuffled, **_kwargs(key)))
    if sorts_json(f):  # OpenArmature §8: the same bytes whatever the key order
        assert wire_bytes(again_shuffled) == wire_bytes(first)
    else:  # the caller's key order is kept: the same body (as JSON: tool arguments in the new order)
        assert _decoded(again_shuffled) == _decoded(first)
    if wire_map is not None:
        # the map records exactly what differs: every rewritten id/name is on the wire
        text = wire_bytes(first)
        for wire_id in wire_map.ids.values():
            assert wire_id in text
        assert all(c.rule in ("tool_call_id", "tool_name") for c in wire_map.changes)


ENTRY_POINTS = ("request_to_wire", "request_from_wire", "response_from_wire", "response_to_wire")


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("key", FAMILY)
@SETTINGS
@given(value=gen.arbitrary_json)
def test_total_on_arbitrary_json(key: str, entry: str, value: Any) -> None:
    fn = getattr(fmt(key), entry)
    kwargs = _kwargs(key) if entry != "response_to_wire" else {}
    try:
        quiet(lambda: fn(value, **kwargs))
    except ProviderError as exc:
        _check_error(exc, value)

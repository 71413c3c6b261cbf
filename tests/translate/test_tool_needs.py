"""`_TOOL_NEEDS`: the keys a format's tool reader requires, which `wire.read_or_skip` checks
before it calls the reader, so that a server tool (an Anthropic `tool_search_tool_bm25`, a
Responses `web_search`) is skipped without the reader's exception. The shortcut must answer
what the reader answers: every key it names is one without which `_read_tool` refuses the
tool, and a tool holding them all is read as before."""

from __future__ import annotations

import sys
from typing import Any

import pytest

import wiremap
from wiremap.runtime import wire as _w
from wiremap.runtime.canonical import Tool
from wiremap.runtime.wire import WireShapeError


def _modules() -> list[tuple[str, Any]]:
    out = []
    for key in wiremap.formats():
        fmt = wiremap.get_format(key)
        module = sys.modules.get(getattr(fmt.request_from_wire, "__module__", ""))
        if module is not None and hasattr(module, "_TOOL_NEEDS"):
            out.append((key, module))
    return out


MODULES = _modules()
TOOL = Tool(name="lookup", description="Look it up.", parameters={"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]})


def test_the_formats_that_carry_server_tools_name_their_needs() -> None:
    keys = {key: sorted(m._TOOL_NEEDS) for key, m in MODULES}
    assert keys["anthropic_messages"] == ["input_schema", "name"]
    assert keys["openai_chat"] == ["function"]
    assert keys["openai_responses"] == ["name", "parameters"]
    assert keys["bedrock_converse"] == ["toolSpec"]


@pytest.mark.parametrize("key,module", MODULES, ids=[k for k, _ in MODULES])
def test_each_needed_key_is_one_the_reader_refuses_without(key: str, module: Any) -> None:
    wire = module._tool_to_wire(TOOL, "tools[0]", {_w.KEEP_ORDER: True} if hasattr(_w, "KEEP_ORDER") else None)
    assert module._read_tool(wire, "tools[0]").name == "lookup"
    assert _w.read_or_skip(module._read_tool, wire, "tools[0]", module._TOOL_NEEDS).name == "lookup"
    for need in module._TOOL_NEEDS:
        lacking = {k: v for k, v in wire.items() if k != need}
        with pytest.raises(WireShapeError):
            module._read_tool(lacking, "tools[0]")
        assert _w.read_or_skip(module._read_tool, lacking, "tools[0]", module._TOOL_NEEDS) is _w.SKIP


def test_a_server_tool_still_goes_back_to_its_own_wire_and_is_named_elsewhere() -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "hi"}],
        "tools": [
            {"name": "lookup", "input_schema": {"type": "object"}},
            {"name": "tool_search_tool_bm25", "type": "tool_search_tool_bm25_20251119"},
        ],
    }
    fmt = wiremap.get_format("anthropic_messages")
    assert fmt.request_to_wire(fmt.request_from_wire(body))["tools"] == body["tools"]
    out = wiremap.translate_request(body, "anthropic_messages", "openai_chat")
    assert [t["function"]["name"] for t in out.result["tools"]] == ["lookup"]
    assert any(loss.path.startswith("tools[1]") for loss in out.losses), out.report()
    assert wiremap.translator("anthropic_messages", "openai_chat").request(body) == out.result

"""wiremap.tools: tools from where they live (issue 20), projected through the tables.

Against a real MCP server (tests/tools/mcp_server.py, the official SDK's MCPServer) over stdio and
streamable HTTP, two OpenAPI documents (petstore.yaml, tasks.json) checked against the official
SDK request types, and the Prompty §7.1.3/§7.1.4 fixtures of the prompty.* dialects."""

from __future__ import annotations

import asyncio
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

import wiremap
from wiremap import tools
from wiremap.runtime.canonical import AssistantMessage, Config, ImageBlock, Request, TextBlock, ToolCall, UserMessage
from wiremap.runtime.translate import request_losses

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "oracle"))
from compat_oracle import check_mistral_request  # noqa: E402
from gemini_oracle import check_gemini_request  # noqa: E402
from sdk_oracle import (  # noqa: E402
    check_anthropic_messages_request,
    check_openai_chat_request,
    check_openai_responses_request,
)

SERVER = [sys.executable, str(HERE / "mcp_server.py"), "stdio"]
CHAT = [k for k in wiremap.formats() if wiremap.get_format(k).kind == "chat"]

# Each provider's documented tool-name rule (checked independently of the tables' rows).
NAME_RULES = {
    "openai": r"[a-zA-Z0-9_-]{1,64}",
    "anthropic": r"[a-zA-Z0-9_-]{1,128}",
    "google": r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}",
    "mistral": r"[a-zA-Z0-9_-]{1,64}",
}


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


# --------------------------------------------------------------------------- §7.1.4


def test_property_list_to_json_schema_follows_the_kind_table() -> None:
    schema = tools.from_properties([{"name": k, "kind": k} for k in tools.KINDS])
    assert schema == {"type": "object", "properties": {k: {"type": v} for k, v in tools.KINDS.items()}}
    assert tools.KINDS["float"] == "number"


def test_property_default_and_example_are_kept() -> None:
    schema = tools.from_properties([{"name": "n", "kind": "integer", "default": 3, "example": 7}])
    assert schema["properties"]["n"] == {"type": "integer", "default": 3, "examples": [7]}


def test_property_mapping_form_nested_items_and_properties() -> None:
    schema = tools.from_properties(
        {
            "tags": {"kind": "array", "items": {"kind": "string"}, "required": True},
            "address": {"kind": "object", "properties": [{"name": "zip", "kind": "string", "required": True}]},
        }
    )
    assert schema == {
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "address": {"type": "object", "properties": {"zip": {"type": "string"}}, "required": ["zip"]},
        },
        "required": ["tags"],
    }


@pytest.mark.parametrize(
    "props, where, message",
    [
        ([{"name": "a", "kind": "decimal"}], "properties[0].kind", "not a Prompty property kind"),
        ([{"kind": "string"}], "properties[0]", "non-empty string `name`"),
        ([{"name": "a", "kind": "string", "requried": True}], "properties[0]", "unknown property key(s) requried"),
        ([{"name": "a", "kind": "string"}, {"name": "a", "kind": "integer"}], "properties[1]", "listed twice"),
        ("city", "properties", "a list or a mapping"),
    ],
)
def test_bad_property_lists_name_where(props: Any, where: str, message: str) -> None:
    with pytest.raises(tools.ToolError) as info:
        tools.from_properties(props)
    assert info.value.where == where
    assert message in str(info.value)


def _prompty_cases() -> list[Any]:
    cases = yaml.safe_load((HERE / "prompty_fixtures.yaml").read_text())
    return [pytest.param(case, fmt, wire, id=f"{case['id']}-{fmt}") for case in cases for fmt, wire in case["wire"].items()]


@pytest.mark.parametrize("case, fmt, expected", _prompty_cases())
def test_prompty_tools_to_wire_fixtures(case: dict[str, Any], fmt: str, expected: list[Any]) -> None:
    spec = case["tool"]
    entry = tools.function_tool(spec["name"], spec["parameters"], spec.get("description"))
    if spec.get("bindings"):
        entry = tools.bind(entry, **spec["bindings"])
    if spec.get("strict"):
        entry = tools.strict(entry)
    fields, losses, _ = tools.to_wire([entry], fmt)
    assert fields == {"tools": expected}
    # strict: the dialect's table closes the schema (request.tools.strict), and says so
    closed = [f"tools[0].parameters.additionalProperties: added: the target adds false"] if spec.get("strict") else []
    assert [str(loss) for loss in losses] == closed


# --------------------------------------------------------------------------- bindings


def test_bind_strips_the_parameter_and_call_injects_it() -> None:
    seen: dict[str, Any] = {}

    def search(query: str, tenant: str) -> dict[str, Any]:
        seen.update(query=query, tenant=tenant)
        return {"hits": 1}

    entry = tools.function_tool("search", [{"name": "query", "kind": "string", "required": True}, {"name": "tenant", "kind": "string", "required": True}], handler=search)
    bound = tools.bind(entry, tenant="acme")
    assert bound.tool.parameters == {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    assert entry.tool.parameters["required"] == ["query", "tenant"]  # the original is not changed
    # the model cannot override a bound value
    result = tools.call_sync(bound, ToolCall(id="c1", name="search", arguments={"query": "q", "tenant": "evil"}))
    assert seen == {"query": "q", "tenant": "acme"}
    assert result.message.content == '{"hits": 1}' and result.structured == {"hits": 1}


def test_bind_refuses_unknown_parameters_and_values_that_do_not_fit() -> None:
    entry = tools.function_tool("f", [{"name": "n", "kind": "integer"}])
    with pytest.raises(tools.ToolError, match="binds 'x'"):
        tools.bind(entry, x=1)
    with pytest.raises(tools.ToolError, match="does not fit") as info:
        tools.bind(entry, n="three")
    assert info.value.where == "f.n"


def test_a_failing_handler_is_an_error_result() -> None:
    def boom() -> str:
        raise RuntimeError("disk full")

    result = tools.call_sync(tools.function_tool("boom", handler=boom), ToolCall(id="c", name="boom", arguments={}))
    assert result.message.is_error is True and "disk full" in result.message.content


# --------------------------------------------------------------------------- MCP


@pytest.fixture(scope="module")
def stdio_projection() -> tools.ToolProjection:
    return tools.from_mcp_sync(SERVER)


def test_mcp_discovery_over_stdio(stdio_projection: tools.ToolProjection) -> None:
    p = stdio_projection
    assert [e.name for e in p] == ["get_weather", "files.read", "fail", "chart"]  # names stay intact
    weather = p["get_weather"]
    assert weather.source == "mcp" and weather.tool.description == "The weather in a city."
    assert weather.tool.parameters["required"] == ["city", "api_key"]
    # what no chat format carries stays with the tool, for its origin
    assert weather.meta["origin"] == "mcp"
    assert weather.meta["annotations"] == {"title": "Weather", "readOnlyHint": True}
    assert weather.meta["outputSchema"]["properties"]["result"] == {"title": "Result", "type": "string"}


def test_mcp_allowed_tools_filter_and_refuse_unknown_names() -> None:
    p = tools.from_mcp_sync(SERVER, allowed=["fail", "files.read"])
    assert [e.name for e in p] == ["files.read", "fail"]
    with pytest.raises(tools.ToolError, match=r"allowedTools names \['nope'\]"):
        tools.from_mcp_sync(SERVER, allowed=["nope"])


def test_mcp_calls_bound_parameter_error_and_image(stdio_projection: tools.ToolProjection) -> None:
    p = tools.ToolProjection(stdio_projection)
    p.bind("get_weather", api_key="secret-key")
    assert "api_key" not in p["get_weather"].tool.parameters["properties"]

    async def calls() -> list[tools.ToolResult]:
        async with p:  # one connection for the three calls
            return [
                await tools.call(p, ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})),
                await tools.call(p, ToolCall(id="c2", name="fail", arguments={"reason": "no disk"})),
                await tools.call(p, {"id": "c3", "name": "chart", "arguments": {"title": "sales"}}),
            ]

    weather, failed, chart = _run(calls())
    assert weather.message.content == "Paris: 21 degrees (metric)" and weather.message.is_error is wiremap.NOT_GIVEN
    assert weather.message.tool_call_id == "c1" and weather.message.name == "get_weather"
    assert failed.message.is_error is True and "failed: no disk" in failed.message.content
    text, image = chart.message.content
    assert text == TextBlock(text="chart sales")
    assert isinstance(image, ImageBlock) and image.media_type == "image/png" and chart.media == [image]

    # the image result reaches Anthropic and Gemini as their own parts, inside the tool result
    request = Request(
        model="m",
        messages=[
            UserMessage(content="chart the sales"),
            AssistantMessage(content=None, tool_calls=[ToolCall(id="c3", name="chart", arguments={"title": "sales"})]),
            chart.message,
        ],
        tools=p.tools,
        config=Config(max_tokens=100),
    )
    data = image.source.base64_data
    anthropic = wiremap.get_format("anthropic_messages").request_to_wire(request)
    assert anthropic["messages"][-1]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "c3",
            "content": [
                {"type": "text", "text": "chart sales"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
            ],
        }
    ]
    gemini = wiremap.get_format("gemini_generate_content").request_to_wire(request)
    assert gemini["contents"][-1]["parts"] == [
        {
            "functionResponse": {
                "id": "c3",
                "name": "chart",
                "response": {"result": "chart sales"},
                "parts": [{"inlineData": {"mimeType": "image/png", "data": data}}],
            }
        }
    ]
    for fmt in ("anthropic_messages", "gemini_generate_content"):  # and read back as it was
        wire = wiremap.get_format(fmt).request_to_wire(request)
        assert wiremap.get_format(fmt).request_from_wire(wire).messages[-1].content == [text, image]
    # OpenAI Chat's tool message holds text: the image is named where it is lost, by the
    # translation's loss report and, called directly, by a warning
    with pytest.warns(wiremap.UnsupportedOptionWarning, match=r"messages\[2\]\.content\[1\]: a tool result's image\.inline part is not carried by this format's tool results; dropped"):
        sent = wiremap.get_format("openai_chat").request_to_wire(request)
    assert sent["messages"][-1] == {"role": "tool", "tool_call_id": "c3", "content": "chart sales"}
    _, losses = request_losses(request, "openai_chat")
    assert [str(loss) for loss in losses] == ["messages[2].content[1]: dropped: image block is not carried by the target"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def http_server() -> Any:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, str(HERE / "mcp_server.py"), "http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail("the MCP HTTP server did not start")
    yield f"http://127.0.0.1:{port}/mcp"
    proc.terminate()
    proc.wait(10)


def test_mcp_over_streamable_http(http_server: str) -> None:
    p = tools.from_mcp_sync(http_server, allowed=["get_weather", "fail"])
    assert [e.name for e in p] == ["get_weather", "fail"]
    p.bind("get_weather", api_key="secret-key")
    result = tools.call_sync(p, ToolCall(id="h1", name="get_weather", arguments={"city": "Oslo", "units": "imperial"}))
    assert result.message.content == "Oslo: 21 degrees (imperial)"
    wrong = tools.bind(p["get_weather"], api_key="wrong")  # the server refuses: an error result, not an exception
    assert tools.call_sync(wrong, ToolCall(id="h2", name="get_weather", arguments={"city": "Oslo"})).message.is_error is True


def test_an_unreachable_mcp_server_is_a_typed_error() -> None:
    with pytest.raises(tools.ToolCallError) as info:
        tools.from_mcp_sync(f"http://127.0.0.1:{_free_port()}/mcp")
    assert info.value.where.startswith("http://127.0.0.1:")
    with pytest.raises(tools.ToolError, match="starts with http"):
        tools.from_mcp_sync("localhost:8000")


def test_mcp_names_reach_every_format_within_its_rule(stdio_projection: tools.ToolProjection) -> None:
    for fmt in CHAT:
        fields, losses, wire_map = tools.to_wire(stdio_projection, fmt)
        provider = wiremap.get_format(fmt).provider
        names = _wire_names(fields)
        if provider in NAME_RULES:
            assert all(re.fullmatch(NAME_RULES[provider], n) for n in names), (fmt, names)
        if "files.read" not in names:  # renamed, reversibly, and said
            renamed = wire_map.names["files.read"]
            assert renamed in names and wire_map.caller_name(renamed) == "files.read"
            assert any(loss.path.endswith(".name") and "files.read" in loss.detail for loss in losses)


# --------------------------------------------------------------------------- OpenAPI


def _wire_names(fields: dict[str, Any]) -> list[str]:
    out = []
    for tool in fields.get("tools", fields.get("toolConfig", {}).get("tools", [])):  # Bedrock: toolConfig.tools
        if "toolSpec" in tool:
            out.append(tool["toolSpec"]["name"])
        elif "functionDeclarations" in tool:
            out += [d["name"] for d in tool["functionDeclarations"]]
        else:
            out.append(tool.get("function", tool)["name"])
    return out


CHECKS = {
    "openai_chat": check_openai_chat_request,
    "openai_responses": check_openai_responses_request,
    "anthropic_messages": check_anthropic_messages_request,
    "gemini_generate_content": check_gemini_request,
    "mistral": check_mistral_request,
}


@pytest.mark.parametrize("spec", ["petstore.yaml", "tasks.json"])
@pytest.mark.parametrize("fmt", CHAT)
def test_openapi_projected_to_every_chat_format(spec: str, fmt: str) -> None:
    p = tools.from_openapi(HERE / spec)
    fields, losses, _ = tools.to_wire(p, fmt)
    names = _wire_names(fields)
    assert len(names) == len(p)
    provider = wiremap.get_format(fmt).provider
    if provider in NAME_RULES:
        assert all(re.fullmatch(NAME_RULES[provider], n) for n in names), names
    if fmt in CHECKS:  # the official SDK request types accept the base formats' bodies
        request = Request(model="m", messages=[UserMessage(content="hi")], tools=p.tools)
        CHECKS[fmt](wiremap.get_format(fmt).request_to_wire(request))
    for loss in losses:  # what a target cannot take is named at its path
        assert loss.path.startswith("tools["), loss


def test_openapi_petstore_projection() -> None:
    p = tools.from_openapi(HERE / "petstore.yaml")
    assert p.skipped == {"uploadFile": "its request body is application/octet-stream; a tool takes JSON or form bodies"}
    add = p["addPet"].tool.parameters
    assert list(add["properties"]) == ["id", "name", "category", "photoUrls", "tags", "status"]  # the body's own order
    assert add["required"] == ["name", "photoUrls"]
    assert add["properties"]["tags"]["items"] == {"type": "object", "properties": {"id": {"type": "integer", "format": "int64"}, "name": {"type": "string"}}}
    assert "example" not in json.dumps(add)
    order = p["placeOrder"].tool.parameters["properties"]
    assert "id" not in order  # readOnly: a response-only property
    pet = p["deletePet"].tool.parameters
    assert pet["properties"]["petId"] == {"type": "integer", "format": "int64", "description": "ID of pet"}
    assert pet["required"] == ["petId"]
    assert p["getPetById"].tool.description == "Find pet by ID.\n\nReturns a single pet."


def test_openapi_tasks_names_refs_and_body() -> None:
    p = tools.from_openapi(HERE / "tasks.json")
    assert p.names["tasks_list"] == "tasks.list" and p.names["post_comments"] == "POST /comments"
    long = [n for n in p.names if n.startswith("get_very_long")]
    assert len(long) == 1 and len(long[0]) <= 64
    comment = p["post_comments"].tool.parameters
    assert comment["properties"]["replies"]["items"] == {"$ref": "#/$defs/Comment"}  # a cycle goes to $defs
    assert comment["$defs"]["Comment"]["properties"]["replies"]["items"] == {"$ref": "#/$defs/Comment"}
    update = p["tasks_update"].tool.parameters
    assert list(update["properties"]) == ["project_id", "task_id", "body"]  # the body repeats project_id: kept whole
    assert update["properties"]["body"]["properties"]["due"] == {"type": ["string", "null"], "format": "date"}
    assert p["tasks_create"].route.route.base_url == "https://eu.tasks.example.com/v2"


def test_openapi_calls_send_what_the_operation_says() -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        if request.url.path.endswith("/pet/404"):
            return httpx.Response(404, json={"message": "Pet not found"})
        if request.url.path.endswith("/pet/7") and request.method == "GET":
            return httpx.Response(200, json={"id": 7, "name": "Rex"})
        return httpx.Response(200, text="ok")

    p = tools.from_openapi(HERE / "petstore.yaml", headers={"X-Client": "wiremap"})
    p.bind("deletePet", api_key="k-1")
    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))

    async def run() -> list[tools.ToolResult]:
        return [
            await tools.call(p, ToolCall(id="1", name="getPetById", arguments={"petId": 7}), http_client=client),
            await tools.call(p, ToolCall(id="2", name="findPetsByTags", arguments={"tags": ["a", "b c"]}), http_client=client),
            await tools.call(p, ToolCall(id="3", name="addPet", arguments={"name": "Rex", "photoUrls": []}), http_client=client),
            await tools.call(p, ToolCall(id="4", name="deletePet", arguments={"petId": 7}), http_client=client),
            await tools.call(p, ToolCall(id="5", name="getPetById", arguments={"petId": 404}), http_client=client),
            await tools.call(p, ToolCall(id="6", name="getPetById", arguments={"petId": 1, "color": "red"}), http_client=client),
        ]

    got, tags, added, deleted, missing, unknown = _run(run())
    assert str(sent[0].url) == "https://petstore3.swagger.io/api/v3/pet/7" and sent[0].headers["x-client"] == "wiremap"
    assert got.structured == {"id": 7, "name": "Rex"} and got.message.is_error is wiremap.NOT_GIVEN
    assert sent[1].url.params.get_list("tags") == ["a", "b c"]
    assert sent[2].method == "POST" and json.loads(sent[2].content) == {"name": "Rex", "photoUrls": []}
    assert sent[2].headers["content-type"] == "application/json"
    assert sent[3].method == "DELETE" and sent[3].headers["api_key"] == "k-1"  # the bound header
    assert missing.message.is_error is True and missing.message.content.startswith("HTTP 404 Not Found")
    assert unknown.message.is_error is True and "color" in unknown.message.content and len(sent) == 5


def test_openapi_errors_name_the_place(tmp_path: Path) -> None:
    with pytest.raises(tools.ToolError, match="Swagger 2.0"):
        tools.from_openapi({"swagger": "2.0", "paths": {}})
    bad = {"openapi": "3.0.0", "paths": {"/a": {"get": {"parameters": [{"$ref": "#/components/parameters/Nope"}]}}}}
    with pytest.raises(tools.ToolError) as info:
        tools.from_openapi(bad)
    assert info.value.where == "spec#/paths/~1a/get/parameters/0" and "points at nothing" in str(info.value)
    with pytest.raises(tools.ToolError, match=r"operations \['nope'\] are not in the document"):
        tools.from_openapi(HERE / "petstore.yaml", ["getPetById", "nope"])
    broken = tmp_path / "api.json"
    broken.write_text("{not json")
    with pytest.raises(tools.ToolError, match="not valid JSON") as info:
        tools.from_openapi(broken)
    assert info.value.where == str(broken)


# --------------------------------------------------------------------------- CLI


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "wiremap", "tools", *args], capture_output=True, text=True, timeout=120)


def test_cli_prints_openapi_tools_for_a_format() -> None:
    out = _cli("--openapi", str(HERE / "tasks.json"), "--operation", "tasks.create", "--to", "gemini_generate_content", "--bind", "tasks_create.project_id=\"p1\"")
    assert out.returncode == 0, out.stderr
    (decl,) = json.loads(out.stdout)["tools"][0]["functionDeclarations"]
    assert decl["name"] == "tasks_create" and "project_id" not in decl["parametersJsonSchema"]["properties"]
    assert "name: tasks_create <- tasks.create" in out.stderr


def test_cli_prints_mcp_tools_and_names_renames() -> None:
    out = _cli("--mcp", " ".join(SERVER), "--to", "openai_chat", "--allow", "files.read")
    assert out.returncode == 0, out.stderr
    (tool,) = json.loads(out.stdout)["tools"]
    assert re.fullmatch(NAME_RULES["openai"], tool["function"]["name"])
    assert "loss: tools[0].name: changed: tool name 'files.read'" in out.stderr
    bad = _cli("--openapi", str(HERE / "petstore.yaml"), "--to", "openai_chat", "--bind", "nope")
    assert bad.returncode == 1 and "write TOOL.PARAM=JSON" in bad.stderr


# --------------------------------------------------------------------------- tool-result parts


def _with_result(content: Any) -> dict[str, Any]:
    return {
        "model": "m",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "f", "arguments": {}}]},
            {"role": "tool", "tool_call_id": "c1", "content": content},
        ],
        "config": {"max_tokens": 10},
    }


@pytest.mark.parametrize(
    "fmt, content, path, words",
    [
        ("anthropic_messages", [], "messages[2].content", "must not be empty"),
        ("anthropic_messages", [{"type": "thinking", "text": "t", "signature": "s"}], "messages[2].content[0]", "holds text, image, audio and file blocks"),
        ("openarmature.openai_chat", [{"type": "text", "text": "a"}], "messages[2].content", "serialise structured tool results"),
    ],
)
def test_tool_result_parts_are_checked(fmt: str, content: Any, path: str, words: str) -> None:
    with pytest.raises(wiremap.InvalidRequestError) as info:
        wiremap.get_format(fmt).request_to_wire(_with_result(content))
    assert info.value.path == path and words in str(info.value)


def test_tool_result_parts_through_responses_and_text_only_wires() -> None:
    image = {"type": "image", "source": {"type": "inline", "base64_data": "iVBORw0KGgo="}, "media_type": "image/png"}
    body = wiremap.get_format("openai_responses").request_to_wire(_with_result([{"type": "text", "text": "see"}, image]))
    output = [item for item in body["input"] if item.get("type") == "function_call_output"][0]["output"]
    assert output == [{"type": "input_text", "text": "see"}, {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"}]
    # a wire array of text parts only reads as its text, as before: no change of form reported
    wire = wiremap.get_format("anthropic_messages").request_to_wire(_with_result("plain"))
    wire["messages"][-1]["content"][0]["content"] = [{"type": "text", "text": "pla"}, {"type": "text", "text": "in"}]
    assert wiremap.get_format("anthropic_messages").request_from_wire(wire).messages[-1].content == "plain"
    translated = wiremap.translate_request(wire, "anthropic_messages", "openai_chat")
    assert translated.losses == []

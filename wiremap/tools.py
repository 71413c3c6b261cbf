"""Tools from where they live, projected into canonical `Tool`s (Prompty §7.1.3, §7.1.4).

A *projection* turns a tool source into canonical tools that every format's tables translate:

    from_properties(props)          a Prompty property list -> a JSON Schema (the §7.1.4 kind table)
    function_tool(name, props, ...) a function tool, optionally with a local handler
    await from_mcp(server, allowed) the tools an MCP server lists (official `mcp` SDK: a URL is
                                    streamable HTTP, StdioServerParameters or a command list is stdio,
                                    or an open mcp.Client / ClientSession)
    from_openapi(spec, operations)  one function per OpenAPI 3.x operation: path, query, header and
                                    body parameters merged into one object schema, $refs resolved
    bind(tool, **values)            bound parameters leave the schema the model sees and are
                                    injected at call time (§7.1.3)
    strict(tool)                    strict mode: the flag on the tool; each table closes the schema
                                    as its API asks (§7.1.3)
    await call(projection, call)    runs a canonical ToolCall on its MCP server, HTTP operation or
                                    handler, bound values injected, and returns a ToolResult whose
                                    `message` is the canonical ToolMessage
    to_wire(tools, format)          the wire fields a format's tables write for the tools, and what
                                    the format could not take (the loss report)

Names: MCP tool names stay as the server gives them (the tables and WireMap rename for a target
that cannot take one, reversibly). OpenAPI operation ids become names that fit every chat
format's tool-name rule (the intersection of the rules the tables declare); the projection's
`names` maps each back to its operationId.

What no chat format carries (an MCP tool's `outputSchema`, `annotations`, `title`, `_meta`; an
operation's method and path) stays on the `ProjectedTool` as `meta`, with its origin, for the
source it came from.

This module is optional (extra `wiremap[tools]`): `mcp` is imported only by `from_mcp` and MCP
calls, PyYAML only for a YAML OpenAPI file. `import wiremap` does not import it.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import hashlib
import inspect
import json
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from wiremap.runtime.canonical import (
    NOT_GIVEN,
    AudioBlock,
    Block,
    Config,
    FileBlock,
    ImageBlock,
    InlineSource,
    Request,
    TextBlock,
    Tool,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
)

__all__ = [
    "ToolError",
    "ToolCallError",
    "ProjectedTool",
    "ToolProjection",
    "ToolResult",
    "KINDS",
    "from_properties",
    "function_tool",
    "from_mcp",
    "from_mcp_sync",
    "from_openapi",
    "bind",
    "strict",
    "call",
    "call_sync",
    "to_wire",
    "name_rule",
    "fit_name",
]


class ToolError(ValueError):
    """A tool source that cannot be projected, or a call that cannot be routed. `where` names the
    place: a property list index, a spec file and JSON pointer, an MCP server, a tool name."""

    def __init__(self, message: str, *, where: str = "") -> None:
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)


class ToolCallError(ToolError):
    """The tool's server could not be reached or answered outside the tool protocol (a connection
    error, an MCP protocol error). A tool that ran and failed is a ToolResult with `is_error`."""


# ---------------------------------------------------------------------------------------------
# §7.1.4: a property list -> JSON Schema

#: Prompty §7.1.4 "Kind -> JSON Schema type mapping. Implementations MUST use this table."
KINDS: dict[str, str] = {
    "string": "string",
    "integer": "integer",
    "float": "number",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}

_PROPERTY_KEYS = frozenset(
    {"name", "kind", "description", "required", "enumValues", "default", "example", "items", "properties"}
)


def _property_items(props: Any, where: str) -> list[tuple[str, dict[str, Any], str]]:
    """(name, property, where) for a property list, or a mapping name -> property."""
    out: list[tuple[str, dict[str, Any], str]] = []
    if isinstance(props, Mapping):
        for name, prop in props.items():
            at = f"{where}.{name}" if where else str(name)
            if not isinstance(prop, Mapping):
                raise ToolError(f"a property must be a mapping, got {type(prop).__name__}", where=at)
            out.append((str(name), dict(prop), at))
        return out
    if not isinstance(props, Sequence) or isinstance(props, (str, bytes)):
        raise ToolError(f"a property list must be a list or a mapping, got {type(props).__name__}", where=where or "properties")
    for i, prop in enumerate(props):
        at = f"{where}[{i}]"
        if not isinstance(prop, Mapping):
            raise ToolError(f"a property must be a mapping, got {type(prop).__name__}", where=at)
        name = prop.get("name")
        if not isinstance(name, str) or not name:
            raise ToolError("a property needs a non-empty string `name`", where=at)
        out.append((name, dict(prop), at))
    return out


def _property_schema(prop: dict[str, Any], where: str) -> dict[str, Any]:
    unknown = sorted(set(prop) - _PROPERTY_KEYS)
    if unknown:
        raise ToolError(f"unknown property key(s) {', '.join(unknown)}; a property has: {', '.join(sorted(_PROPERTY_KEYS))}", where=where)
    kind = prop.get("kind")
    if kind not in KINDS:
        raise ToolError(f"kind {kind!r} is not a Prompty property kind; expected one of: {', '.join(KINDS)} (Prompty §7.1.4)", where=f"{where}.kind")
    schema: dict[str, Any] = {"type": KINDS[kind]}
    description = prop.get("description")
    if description is not None:
        if not isinstance(description, str):
            raise ToolError("description must be a string", where=f"{where}.description")
        if description:
            schema["description"] = description
    enum = prop.get("enumValues")
    if enum is not None:
        if not isinstance(enum, list) or not enum:
            raise ToolError("enumValues must be a non-empty list", where=f"{where}.enumValues")
        schema["enum"] = list(enum)
    if "default" in prop:
        schema["default"] = prop["default"]
    if "example" in prop:  # JSON Schema's annotation for it (§7.1.4 has no row; kept, not dropped)
        schema["examples"] = [prop["example"]]
    # Prompty's ArrayProperty / ObjectProperty: the item and the nested property list.
    if "items" in prop:
        if kind != "array":
            raise ToolError("items is for kind array", where=f"{where}.items")
        items = prop["items"]
        if not isinstance(items, Mapping):
            raise ToolError("items must be a property (a mapping with a kind)", where=f"{where}.items")
        schema["items"] = _property_schema({k: v for k, v in items.items() if k != "name"}, f"{where}.items")
    if "properties" in prop:
        if kind != "object":
            raise ToolError("properties is for kind object", where=f"{where}.properties")
        schema.update(from_properties(prop["properties"], where=f"{where}.properties"))
        schema["type"] = "object"
    return schema


def from_properties(props: Any, *, where: str = "properties") -> dict[str, Any]:
    """A Prompty property list (or a mapping name -> property) -> a JSON Schema object (§7.1.4):
    `{type: object, properties: {name: {type, description?, enum?}}, required?: [...]}`, in the
    list's order; `required` is left out when no property is required."""
    schema: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
    for name, prop, at in _property_items(props, where):
        if name in schema["properties"]:
            raise ToolError(f"property {name!r} is listed twice", where=at)
        schema["properties"][name] = _property_schema(prop, at)
        required = prop.get("required", False)
        if not isinstance(required, bool):
            raise ToolError("required must be a boolean", where=f"{at}.required")
        if required:
            schema["required"].append(name)
    if not schema["required"]:
        del schema["required"]
    return schema


# ---------------------------------------------------------------------------------------------
# projected tools


class ProjectedTool:
    """A canonical `tool` (what the model sees) with what a call needs: `source` (function, mcp,
    openapi), its `route`, the `bound` values injected at call time, `original` (the name at the
    source) and `meta` (what no chat format carries, kept for the source: an MCP tool's
    outputSchema, annotations and title; an operation's method and path)."""

    __slots__ = ("tool", "source", "route", "bound", "original", "meta")

    def __init__(
        self,
        tool: Tool,
        source: str = "function",
        route: Any = None,
        bound: Mapping[str, Any] | None = None,
        original: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        self.tool = tool
        self.source = source
        self.route = route
        self.bound: dict[str, Any] = dict(bound or {})
        self.original = original if original is not None else tool.name
        self.meta: dict[str, Any] = dict(meta or {})

    @property
    def name(self) -> str:
        return str(self.tool.name)

    def __repr__(self) -> str:
        bound = f", bound={sorted(self.bound)}" if self.bound else ""
        return f"ProjectedTool({self.tool.name!r}, source={self.source!r}{bound})"


class ToolProjection:
    """Projected tools by name. `tools` is the canonical list for `Request.tools`; `names` maps a
    projected name to the name at its source where they differ; `skipped` names what a source
    offered that could not be projected, and why."""

    def __init__(self, entries: Iterable[ProjectedTool] = (), *, skipped: Mapping[str, str] | None = None) -> None:
        self._entries: dict[str, ProjectedTool] = {}
        self.skipped: dict[str, str] = dict(skipped or {})
        self._servers: list[_McpServer] = []
        for entry in entries:
            self.add(entry)

    def add(self, entry: ProjectedTool | Tool) -> None:
        if isinstance(entry, Tool):
            entry = ProjectedTool(entry)
        if entry.name in self._entries:
            raise ToolError(f"two tools are named {entry.name!r} (from {self._entries[entry.name].source} and {entry.source})", where=entry.name)
        self._entries[entry.name] = entry
        server = entry.route if isinstance(entry.route, _McpServer) else None
        if server is not None and all(s is not server for s in self._servers):
            self._servers.append(server)

    def __add__(self, other: "ToolProjection") -> "ToolProjection":
        out = ToolProjection(skipped={**self.skipped, **other.skipped})
        for entry in [*self, *other]:
            out.add(entry)
        return out

    def __iter__(self) -> Iterator[ProjectedTool]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __getitem__(self, name: str) -> ProjectedTool:
        try:
            return self._entries[name]
        except KeyError:
            raise ToolError(f"no tool is named {name!r}; the projection has: {', '.join(self._entries) or '(none)'}", where=name) from None

    @property
    def tools(self) -> list[Tool]:
        return [e.tool for e in self._entries.values()]

    @property
    def names(self) -> dict[str, str]:
        return {e.name: e.original for e in self._entries.values() if e.original != e.name}

    def bind(self, name: str, **values: Any) -> ProjectedTool:
        """Bind parameters of the tool `name` in place (see `bind`)."""
        entry = bind(self[name], **values)
        self._entries[name] = entry
        return entry

    def strict(self, name: str | None = None) -> None:
        """Strict mode for the tool `name`, or every tool (see `strict`)."""
        for key in [name] if name is not None else list(self._entries):
            entry = self[key]
            self._entries[entry.name] = _replace(entry, tool=strict(entry.tool))

    async def __aenter__(self) -> "ToolProjection":
        """Keep one MCP connection open per server for the calls made inside the block (without
        it each call opens its own)."""
        for server in self._servers:
            await server.open()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        for server in self._servers:
            await server.close()

    def __repr__(self) -> str:
        return f"ToolProjection({list(self._entries)})"


def _replace(entry: ProjectedTool, **changes: Any) -> ProjectedTool:
    fields = {k: getattr(entry, k) for k in ProjectedTool.__slots__}
    fields.update(changes)
    return ProjectedTool(**fields)


def _schema_of(parameters: Any, where: str) -> dict[str, Any]:
    if parameters is None:
        return {"type": "object", "properties": {}}
    if isinstance(parameters, Mapping) and ("type" in parameters or "properties" in parameters or "$ref" in parameters or not parameters):
        return copy.deepcopy(dict(parameters))
    return from_properties(parameters, where=where)


def function_tool(
    name: str,
    parameters: Any = None,
    description: str | None = None,
    *,
    handler: Callable[..., Any] | None = None,
    strict: bool = False,
) -> ProjectedTool:
    """A function tool (§7.1.3 `function`, or a registered custom tool): `parameters` is a Prompty
    property list or a JSON Schema. `handler` (sync or async, called with the arguments as keyword
    arguments) is what `call` runs."""
    if not isinstance(name, str) or not name:
        raise ToolError("a tool needs a non-empty string name", where="name")
    tool = Tool(
        name=name,
        description=description if description else NOT_GIVEN,
        parameters=_schema_of(parameters, f"{name}.parameters"),
    )
    entry = ProjectedTool(tool, "function", route=_Handler(handler) if handler is not None else None)
    return _replace(entry, tool=_strict_tool(tool)) if strict else entry


# ---------------------------------------------------------------------------------------------
# bindings and strict mode (§7.1.3)


def bind(tool: ProjectedTool | Tool, **values: Any) -> ProjectedTool:
    """Bound parameters: removed from `properties` and `required` of the schema the model sees,
    recorded to be injected by `call`. A name the schema does not have, or a value its property
    schema refuses, is a ToolError."""
    entry = tool if isinstance(tool, ProjectedTool) else ProjectedTool(tool)
    params = entry.tool.parameters
    if not isinstance(params, dict):
        params = {"type": "object", "properties": {}}
    props = params.get("properties")
    if not isinstance(props, dict):
        props = {}
    for key, value in values.items():
        if key in entry.bound:
            continue  # bound before: the new value replaces the old one
        if key not in props:
            raise ToolError(
                f"binds {key!r}, which is not a parameter the model sees (it has: {', '.join(props) or 'none'})",
                where=f"{entry.name}.parameters.properties",
            )
        _check_value(props[key], value, f"{entry.name}.{key}")
    schema = dict(params)
    schema["properties"] = {k: v for k, v in props.items() if k not in values}
    required = params.get("required")
    if isinstance(required, list):
        kept = [r for r in required if r not in values]
        if kept:
            schema["required"] = kept
        else:
            schema.pop("required", None)
    from wiremap.runtime.records import replace

    return _replace(entry, tool=replace(entry.tool, parameters=schema), bound={**entry.bound, **values})


def _check_value(schema: Any, value: Any, where: str) -> None:
    if not isinstance(schema, dict):
        return
    import jsonschema

    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as exc:
        raise ToolError(f"the bound value {value!r} does not fit the parameter's schema: {exc.message}", where=where) from None
    except jsonschema.SchemaError:
        return  # a schema jsonschema cannot read (an OpenAPI 3.0 leftover): the provider decides


def _strict_tool(tool: Tool) -> Tool:
    from wiremap.runtime.records import replace

    return replace(tool, strict=True)


def strict(tool: Tool | ProjectedTool) -> Any:
    """Strict mode (§7.1.3): `strict: true` on the tool, not inside the schema. Each format's
    table closes the schema as its API asks (`request.tools.strict`: Prompty closes the root
    object, OpenAI every object schema), so the canonical schema stays as given."""
    if isinstance(tool, ProjectedTool):
        return _replace(tool, tool=_strict_tool(tool.tool))
    return _strict_tool(tool)


# ---------------------------------------------------------------------------------------------
# tool names: the rule every chat format's table declares


def name_rule(formats: Iterable[str] | None = None) -> dict[str, Any]:
    """The tool-name rule that fits every format in `formats` (default: every chat format): the
    intersection of their tables' rules (`tools.name_rule`, or `wire_rules.tool_name`):
    `{chars, first, max_length}`."""
    from wiremap.runtime.format import formats as all_formats
    from wiremap.runtime.format import get_format

    keys = list(formats) if formats is not None else all_formats()
    chars: set[str] | None = None
    first: set[str] | None = None
    hi = 128
    for key in keys:
        fmt = get_format(key)
        if fmt.kind != "chat":
            continue
        rule = getattr(fmt.module, "TOOL_NAME_RULE", None) or (fmt.wire_rules or {}).get("tool_name")
        if not rule:
            continue
        allowed = _chars(rule["chars"])
        chars = allowed if chars is None else chars & allowed
        start = _chars(rule.get("first", rule["chars"]))
        first = start if first is None else first & start
        hi = min(hi, rule.get("max_length", hi))
    chars = chars if chars is not None else _chars("a-zA-Z0-9_-")
    first = (first if first is not None else chars) & chars
    return {"chars": _char_class(chars), "first": _char_class(first), "max_length": hi}


_PRINTABLE = "".join(chr(c) for c in range(33, 127))


def _chars(cls: str) -> set[str]:
    pattern = re.compile(f"[{cls}]")
    return {c for c in _PRINTABLE if pattern.fullmatch(c)}


def _char_class(chars: set[str]) -> str:
    out = []
    for lo, hi in (("a", "z"), ("A", "Z"), ("0", "9")):
        span = {chr(c) for c in range(ord(lo), ord(hi) + 1)}
        if span <= chars:
            out.append(f"{lo}-{hi}")
            chars = chars - span
    rest = sorted(chars)
    if "-" in rest:  # last, so that it is literal
        rest.remove("-")
        rest.append("-")
    return "".join(out) + "".join(re.escape(c) if c in "\\]^" else c for c in rest)


def fit_name(name: str, rule: Mapping[str, Any], taken: Iterable[str] = ()) -> str:
    """`name` made to fit `rule` (from `name_rule`), deterministically: other characters become
    `_`, a name that may not start as it does gets `_` (or `t`) in front, and a name that is then
    too long, or taken by another tool, keeps a prefix and gains `_` and 8 hex digits of its hash."""
    chars, first, hi = rule["chars"], rule["first"], rule["max_length"]
    taken = set(taken)
    clean = re.sub(f"[^{chars}]", "_", name) or "_"
    if not re.match(f"[{first}]", clean):
        clean = ("_" if re.fullmatch(f"[{first}]", "_") else "t") + clean
    if len(clean) <= hi and clean not in taken:
        return clean
    salt = 0
    while True:
        digest = hashlib.sha256(f"{name}\x00{salt}".encode()).hexdigest()[:8]
        out = clean[: hi - 9] + "_" + digest
        if out not in taken:
            return out
        salt += 1


# ---------------------------------------------------------------------------------------------
# to the wire, through the tables


def to_wire(
    tools: Iterable[Tool | ProjectedTool] | ToolProjection, format: str, *, model: str = "model"
) -> tuple[dict[str, Any], list[Any], Any]:
    """The wire fields `format`'s tables write for `tools` (`{"tools": [...]}` for most formats),
    the loss report (what the format could not take, at its path: `wiremap.translate.Loss`), and
    the WireMap of the names the format's tool-name rule changed (reversible: `caller_name`)."""
    from wiremap.runtime.format import get_format
    from wiremap.runtime.translate import Loss, request_losses
    from wiremap.runtime.wire_rules import WireMap, apply_request_rules

    fmt = get_format(format)
    if fmt.kind != "chat":
        raise ToolError(f"{format} is a {fmt.kind} format; tools go to chat formats", where=format)
    canonical = [t.tool if isinstance(t, ProjectedTool) else t for t in tools]
    wire_map = WireMap()
    config = Config(max_tokens=1024)  # some formats require it; the same in both bodies
    probe = Request(model=model, messages=[UserMessage(content="-")], tools=canonical or NOT_GIVEN, config=config)
    bare = Request(model=model, messages=[UserMessage(content="-")], config=config)
    # the table's tool-name rule (request.tools.name, or wire_rules.tool_name), applied here so
    # that the renames land on the WireMap the caller reads the model's calls back with
    rule = getattr(fmt.module, "TOOL_NAME_RULE", None) or (fmt.wire_rules or {}).get("tool_name")
    if rule:
        rules = {"tool_name": {"action": "rename", **rule}}
        probe = apply_request_rules(probe, rules, wire_map, fmt.key)
    wire, losses = request_losses(probe, fmt)
    base, base_losses = request_losses(bare, fmt)
    fields = {k: v for k, v in wire.items() if k not in base or base[k] != v}
    known = {str(loss) for loss in base_losses}
    renamed = [
        Loss(c.path, "changed", f"tool name {c.before!r} -> {c.after!r} (the format's tool-name rule; WireMap.caller_name reverses it)")
        for c in wire_map.changes
    ]
    return fields, renamed + [loss for loss in losses if str(loss) not in known], wire_map


# ---------------------------------------------------------------------------------------------
# MCP


class _McpServer:
    """How to reach one MCP server: a URL (streamable HTTP), stdio parameters, or an open client."""

    def __init__(self, target: Any) -> None:
        self.target = target
        self.client: Any = None  # an open mcp.Client while a projection's `async with` holds it
        self._cm: Any = None

    @property
    def describe(self) -> str:
        t = self.target
        if isinstance(t, str):
            return t
        command = getattr(t, "command", None)
        if command is not None:
            return "stdio:" + " ".join([command, *getattr(t, "args", [])])
        return type(t).__name__

    def _connector(self) -> Any:
        import mcp

        return mcp.Client(self.target)

    def _is_open_client(self) -> bool:
        return not isinstance(self.target, str) and hasattr(self.target, "call_tool")

    async def open(self) -> None:
        if self._is_open_client() or self.client is not None:
            return
        self._cm = self._connector()
        self.client = await self._cm.__aenter__()

    async def close(self) -> None:
        if self._cm is not None:
            cm, self._cm, self.client = self._cm, None, None
            await cm.__aexit__(None, None, None)

    async def run(self, fn: Callable[[Any], Awaitable[Any]]) -> Any:
        if self._is_open_client():
            return await fn(self.target)
        if self.client is not None:
            return await fn(self.client)
        async with self._connector() as client:
            return await fn(client)


def _server_target(server: Any) -> Any:
    if isinstance(server, (list, tuple)):
        if not server or not all(isinstance(a, str) for a in server):
            raise ToolError("a stdio server command is a non-empty list of strings", where="server")
        from mcp import StdioServerParameters

        return StdioServerParameters(command=server[0], args=list(server[1:]), env=dict(os.environ))
    if isinstance(server, str) and not re.match(r"https?://", server):
        raise ToolError("an MCP server URL starts with http:// or https:// (for stdio pass the command as a list)", where=server)
    return server


def _dump(model: Any) -> dict[str, Any]:
    if isinstance(model, Mapping):
        return dict(model)
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")  # type: ignore[no-any-return]


async def _list_tools(client: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(1000):  # a paginator that never ends cannot hang discovery
        try:
            page = await (client.list_tools(cursor=cursor) if cursor else client.list_tools())
        except TypeError:  # a ClientSession takes the cursor in params
            import mcp_types

            page = await client.list_tools(params=mcp_types.PaginatedRequestParams(cursor=cursor))
        data = _dump(page)
        out.extend(data.get("tools", []))
        cursor = data.get("nextCursor")
        if not cursor:
            break
    return out


async def from_mcp(server: Any, allowed: Iterable[str] | None = None) -> ToolProjection:
    """The tools an MCP server lists, as a projection (§7.1.3 `mcp`). `server`: an `http(s)://`
    URL (streamable HTTP), `mcp.StdioServerParameters` or a command list (stdio), or an open
    `mcp.Client` / `ClientSession`. `allowed` (Prompty `allowedTools`) keeps those names; a name
    the server does not list is a ToolError. Names stay as the server gives them; each
    `inputSchema` is the tool's parameters; `outputSchema`, `annotations`, `title`, `icons` and
    `_meta` are kept as the tool's `meta` (origin `mcp`)."""
    holder = _McpServer(_server_target(server))
    try:
        listed = await holder.run(_list_tools)
    except ToolError:
        raise
    except Exception as exc:  # the SDK's transport and protocol errors
        raise ToolCallError(f"could not list the server's tools: {type(exc).__name__}: {exc}", where=holder.describe) from exc
    keep = None if allowed is None else list(allowed)
    if keep is not None:
        missing = [n for n in keep if n not in {t.get("name") for t in listed}]
        if missing:
            raise ToolError(f"allowedTools names {missing} that the server does not list (it has: {', '.join(str(t.get('name')) for t in listed)})", where=holder.describe)
    projection = ToolProjection()
    for i, data in enumerate(listed):
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise ToolError("a listed tool has no name", where=f"{holder.describe} tools[{i}]")
        if keep is not None and name not in keep:
            continue
        schema = data.get("inputSchema")
        if not isinstance(schema, dict):
            raise ToolError("inputSchema must be a JSON Schema object", where=f"{holder.describe} tools[{i}] ({name})")
        description = data.get("description")
        tool = Tool(name=name, description=description if isinstance(description, str) and description else NOT_GIVEN, parameters=dict(schema))
        meta = {k: data[k] for k in ("title", "outputSchema", "annotations", "icons", "execution", "_meta") if k in data}
        projection.add(ProjectedTool(tool, "mcp", route=holder, original=name, meta={"origin": "mcp", **meta} if meta else {"origin": "mcp"}))
    return projection


def from_mcp_sync(server: Any, allowed: Iterable[str] | None = None) -> ToolProjection:
    """`from_mcp` for code without an event loop (a URL or stdio server, not an open client)."""
    return asyncio.run(from_mcp(server, allowed))


# ---------------------------------------------------------------------------------------------
# OpenAPI

_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# OpenAPI 3.0 keywords that are not JSON Schema, or say nothing to the model about a request
_OAS_ONLY = ("nullable", "discriminator", "xml", "externalDocs", "example")


class _Route:
    """How an OpenAPI operation is called: method, path, base URL and where each argument goes."""

    __slots__ = ("method", "path", "base_url", "params", "body", "media_type", "where")

    def __init__(self, method: str, path: str, base_url: str | None, params: list[tuple[str, str, str]], body: str | None, media_type: str | None, where: str) -> None:
        self.method = method
        self.path = path
        self.base_url = base_url
        self.params = params  # (argument name, location: path|query|header|cookie|body, wire name)
        self.body = body  # None, "merged" (the body object's properties are arguments) or the argument holding the body
        self.media_type = media_type
        self.where = where


class _Resolver:
    """Local `$ref`s inlined; a reference cycle becomes `$defs` of the tool's schema."""

    def __init__(self, spec: Mapping[str, Any], where: str) -> None:
        self.spec = spec
        self.where = where

    def target(self, ref: str, at: str) -> Any:
        if not ref.startswith("#/"):
            raise ToolError(f"only local $refs (#/...) are resolved, got {ref!r}", where=f"{self.where}#{at}")
        node: Any = self.spec
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise ToolError(f"$ref {ref!r} points at nothing", where=f"{self.where}#{at}")
        return node

    def schema(self, node: Any, at: str) -> dict[str, Any]:
        defs: dict[str, Any] = {}
        out = self._walk(node, at, (), defs, schema=True)
        pending = list(defs)
        while pending:
            ref = pending.pop()
            if defs[ref] is None:
                before = set(defs)
                defs[ref] = self._walk(self.target(ref, at), at, (ref,), defs, schema=True)
                pending.extend(set(defs) - before)
        if defs:
            if not isinstance(out, dict):
                out = {"allOf": [out]}
            out["$defs"] = {_def_name(r): v for r, v in defs.items()}
        return out if isinstance(out, dict) else {}

    def node(self, node: Any, at: str) -> Any:
        """A parameter, request body or path item: its own `$ref` followed (not its schemas)."""
        seen: list[str] = []
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if ref in seen:
                raise ToolError(f"$ref {ref!r} refers to itself", where=f"{self.where}#{at}")
            seen.append(ref)
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            node = self.target(ref, at)
            if isinstance(node, Mapping):
                node = {**node, **siblings}
        return node

    def _walk(self, node: Any, at: str, stack: tuple[str, ...], defs: dict[str, Any], *, schema: bool) -> Any:
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            if isinstance(ref, str):
                if ref in stack:
                    defs.setdefault(ref, None)
                    return {"$ref": f"#/$defs/{_def_name(ref)}"}
                resolved = self._walk(self.target(ref, at), ref[1:], (*stack, ref), defs, schema=schema)
                siblings = {k: self._walk(v, f"{at}/{k}", stack, defs, schema=schema) for k, v in node.items() if k != "$ref"}
                return {**resolved, **siblings} if isinstance(resolved, dict) else resolved
            out: dict[str, Any] = {}
            for k, v in node.items():
                if schema and k in _OAS_ONLY:
                    continue
                if schema and k == "properties" and isinstance(v, Mapping):
                    props = {}
                    for pk, pv in v.items():
                        walked = self._walk(pv, f"{at}/properties/{pk}", stack, defs, schema=True)
                        if isinstance(walked, dict) and walked.get("readOnly") is True:
                            continue  # a response-only property: not something to send
                        props[pk] = walked
                    out[k] = props
                    continue
                out[k] = self._walk(v, f"{at}/{k}", stack, defs, schema=schema and k not in ("enum", "const", "default", "examples"))
            if schema and node.get("nullable") is True and isinstance(out.get("type"), str):
                out["type"] = [out["type"], "null"]  # OpenAPI 3.0 nullable -> JSON Schema
            if schema and "required" in out and isinstance(out.get("properties"), dict):
                kept = [r for r in out["required"] if r in out["properties"]]
                if kept:
                    out["required"] = kept
                else:
                    del out["required"]
            return out
        if isinstance(node, list):
            return [self._walk(v, f"{at}/{i}", stack, defs, schema=schema) for i, v in enumerate(node)]
        return node


def _def_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _load_spec(spec: Any) -> tuple[dict[str, Any], str]:
    if isinstance(spec, Mapping):
        return dict(spec), "spec"
    path = os.fspath(spec)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as exc:
        raise ToolError(f"cannot read the OpenAPI file: {exc.strerror}", where=path) from None
    try:
        if path.endswith((".yaml", ".yml")):
            try:
                import yaml
            except ImportError:
                raise ToolError("a YAML OpenAPI file needs PyYAML: pip install 'wiremap[tools]'", where=path) from None
            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except ValueError as exc:  # json.JSONDecodeError and yaml.YAMLError's parse errors
        raise ToolError(f"not valid {'YAML' if path.endswith(('.yaml', '.yml')) else 'JSON'}: {exc}", where=path) from None
    except Exception as exc:  # yaml.YAMLError is not a ValueError
        raise ToolError(f"not valid YAML: {exc}", where=path) from None
    if not isinstance(data, dict):
        raise ToolError("an OpenAPI document is an object", where=path)
    return data, path


def _base_url(spec: Mapping[str, Any], base_url: str | None) -> str | None:
    if base_url:
        return base_url.rstrip("/")
    servers = spec.get("servers")
    if isinstance(servers, list) and servers and isinstance(servers[0], Mapping) and isinstance(servers[0].get("url"), str):
        url: str = servers[0]["url"]
        for var, value in (servers[0].get("variables") or {}).items():
            if isinstance(value, Mapping) and "default" in value:
                url = url.replace("{" + var + "}", str(value["default"]))
        return url.rstrip("/")
    return None


def from_openapi(
    spec: Any,
    operations: Iterable[str] | None = None,
    *,
    base_url: str | None = None,
    headers: Mapping[str, str] | None = None,
    formats: Iterable[str] | None = None,
) -> ToolProjection:
    """One function per operation of an OpenAPI 3.x document (a mapping, or a .json/.yaml file),
    §7.1.3 `openapi`. Path, query, header and cookie parameters and the JSON (or form) body are
    merged into one object schema: a body object's properties become arguments when no parameter
    shares a name, else the body is the argument `body`. Local `$ref`s are inlined (a cycle goes to
    `$defs`), OpenAPI 3.0 `nullable` becomes a JSON-Schema type, `readOnly` properties are left
    out. Names: the operationId (or `method_path`) made to fit every chat format's tool-name rule
    (`name_rule(formats)`); `projection.names` maps each changed name back. `operations` keeps
    those operationIds (or `"GET /path"`s). `base_url` overrides the document's first server;
    `headers` go with every call (an API key: bind secrets here or with `bind`, never in the
    schema). An operation that cannot be projected is named in `projection.skipped`."""
    data, where = _load_spec(spec)
    version = data.get("openapi")
    if not isinstance(version, str) or not version.startswith("3."):
        raise ToolError(f"an OpenAPI 3.x document is needed (openapi: {version!r}{', a Swagger 2.0 document' if 'swagger' in data else ''})", where=where)
    paths = data.get("paths")
    if not isinstance(paths, Mapping):
        raise ToolError("the document has no `paths` object", where=where)
    resolver = _Resolver(data, where)
    rule = name_rule(formats)
    url = _base_url(data, base_url)
    wanted = None if operations is None else list(operations)
    seen: set[str] = set()
    projection = ToolProjection()
    taken: set[str] = set()
    for path, item in paths.items():
        if not isinstance(item, Mapping):
            raise ToolError("a path item is an object", where=f"{where}#/paths/{_escape(path)}")
        item = resolver.node(item, f"/paths/{_escape(path)}")
        shared = item.get("parameters") or []
        for method in _METHODS:
            op = item.get(method)
            if not isinstance(op, Mapping):
                continue
            op_id = op.get("operationId")
            label = f"{method.upper()} {path}"
            original = op_id if isinstance(op_id, str) and op_id else label
            candidate = op_id if original is op_id else re.sub(r"[^A-Za-z0-9]+", "_", f"{method}{path}").strip("_")
            if wanted is not None and original not in wanted and label not in wanted:
                continue
            seen.update({original, label})
            at = f"/paths/{_escape(path)}/{method}"
            try:
                params, route = _operation_schema(resolver, shared, op, method, path, url, at)
            except _Skip as why:
                projection.skipped[original] = str(why)
                continue
            name = fit_name(candidate, rule, taken)
            taken.add(name)
            summary, description = op.get("summary"), op.get("description")
            text = "\n\n".join(s for s in (summary, description) if isinstance(s, str) and s.strip())
            tool = Tool(name=name, description=text or NOT_GIVEN, parameters=params)
            meta = {"origin": "openapi", "method": method.upper(), "path": path}
            if op.get("deprecated") is True:
                meta["deprecated"] = True
            entry = ProjectedTool(tool, "openapi", route=_HttpRoute(route, dict(headers or {})), original=original, meta=meta)
            projection.add(entry)
    if wanted is not None:
        missing = [w for w in wanted if w not in seen]
        if missing:
            raise ToolError(f"operations {missing} are not in the document", where=where)
    return projection


class _Skip(Exception):
    pass


def _escape(path: str) -> str:
    return path.replace("~", "~0").replace("/", "~1")


_JSON_MEDIA = re.compile(r"^application/([\w.+-]+\+)?json\b")


def _operation_schema(
    resolver: _Resolver, shared: Any, op: Mapping[str, Any], method: str, path: str, base_url: str | None, at: str
) -> tuple[dict[str, Any], _Route]:
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for i, p in enumerate([*(shared or []), *(op.get("parameters") or [])]):
        p = resolver.node(p, f"{at}/parameters/{i}")
        if not isinstance(p, Mapping) or not isinstance(p.get("name"), str) or p.get("in") not in ("path", "query", "header", "cookie"):
            raise ToolError("a parameter needs a string `name` and `in` (path, query, header or cookie)", where=f"{resolver.where}#{at}/parameters/{i}")
        merged[(p["name"], p["in"])] = dict(p)  # an operation's parameter overrides the path item's
    properties: dict[str, Any] = {}
    required: list[str] = []
    params: list[tuple[str, str, str]] = []
    for (wire, location), p in merged.items():
        if location == "header" and wire.lower() in ("accept", "content-type", "authorization"):
            continue  # OpenAPI: these header parameters are ignored (auth is a security scheme)
        raw = p.get("schema")
        if raw is None and isinstance(p.get("content"), Mapping) and p["content"]:
            raw = next(iter(p["content"].values())).get("schema")
        schema = resolver.schema(raw or {}, f"{at}/parameters/{wire}")
        if isinstance(p.get("description"), str) and "description" not in schema:
            schema = {**schema, "description": p["description"]}
        arg = wire if wire not in properties else f"{wire}_{location}"
        properties[arg] = schema
        params.append((arg, location, wire))
        if p.get("required") is True or location == "path":
            required.append(arg)
    body_arg: str | None = None
    media: str | None = None
    body = op.get("requestBody")
    if body is not None:
        body = resolver.node(body, f"{at}/requestBody")
        content = body.get("content") if isinstance(body, Mapping) else None
        if not isinstance(content, Mapping) or not content:
            raise ToolError("a requestBody needs `content`", where=f"{resolver.where}#{at}/requestBody")
        media = next((m for m in content if _JSON_MEDIA.match(m)), None) or next(
            (m for m in content if m == "application/x-www-form-urlencoded"), None
        )
        if media is None:
            raise _Skip(f"its request body is {', '.join(content)}; a tool takes JSON or form bodies")
        schema = resolver.schema((content[media] or {}).get("schema") or {}, f"{at}/requestBody/content/{media}")
        body_props = schema.get("properties") if schema.get("type", "object") == "object" else None
        if isinstance(body_props, dict) and body_props and not set(body_props) & set(properties):
            for key, value in body_props.items():
                properties[key] = {**value, "$defs": schema["$defs"]} if "$defs" in schema and isinstance(value, dict) else value
                params.append((key, "body", key))
            required.extend(r for r in schema.get("required", []) if r in body_props)
            body_arg = "merged"
        else:
            body_arg = "body" if "body" not in properties else "request_body"
            if isinstance(body, Mapping) and isinstance(body.get("description"), str) and "description" not in schema:
                schema = {**schema, "description": body["description"]}
            properties[body_arg] = schema
            if isinstance(body, Mapping) and body.get("required") is True:
                required.append(body_arg)
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    defs: dict[str, Any] = {}
    for key, value in properties.items():  # `#/$defs/...` refers to the tool's schema root
        if isinstance(value, dict) and "$defs" in value:
            value = dict(value)
            defs.update(value.pop("$defs"))
            properties[key] = value
    if defs:
        out["$defs"] = defs
    return out, _Route(method.upper(), path, base_url, params, body_arg, media, at)


# ---------------------------------------------------------------------------------------------
# calls


class ToolResult:
    """What a call returned. `message` is the canonical ToolMessage: its content is the text, or,
    when the result has an image, audio or file, the parts in order (text, image, audio and file
    blocks), and `is_error` is set when the tool failed. Each table writes the parts as its API
    asks (an Anthropic tool_result's image block, a Gemini functionResponse's inlineData part)
    or names what it cannot carry in the loss report. `structured` is MCP's `structuredContent`
    (or an HTTP operation's JSON body)."""

    __slots__ = ("message", "structured")

    def __init__(self, message: ToolMessage, structured: Any = None) -> None:
        self.message = message
        self.structured = structured

    @property
    def parts(self) -> list[Block]:
        content = self.message.content
        return list(content) if isinstance(content, list) else [TextBlock(text=content)] if content else []

    @property
    def media(self) -> list[Block]:
        return [p for p in self.parts if not isinstance(p, TextBlock)]

    def __repr__(self) -> str:
        return f"ToolResult({self.message!r})"


def _result(call: ToolCall, name: str, parts: list[Block], is_error: bool, structured: Any = None) -> ToolResult:
    content: str | list[Block]
    if any(not isinstance(p, TextBlock) for p in parts):
        content = list(parts)
    else:
        content = "\n".join(p.text for p in parts if isinstance(p, TextBlock))
    message = ToolMessage(tool_call_id=call.id, content=content, name=name, is_error=True if is_error else NOT_GIVEN)
    return ToolResult(message, structured)


def _mcp_parts(content: Any, where: str) -> list[Block]:
    parts: list[Block] = []
    for i, item in enumerate(content or []):
        item = _dump(item)
        kind = item.get("type")
        if kind == "text":
            parts.append(TextBlock(text=str(item.get("text", ""))))
        elif kind in ("image", "audio"):
            data, mime = item.get("data"), item.get("mimeType")
            if not isinstance(data, str) or not isinstance(mime, str):
                raise ToolCallError(f"an {kind} content needs base64 `data` and `mimeType`", where=f"{where}.content[{i}]")
            cls = ImageBlock if kind == "image" else AudioBlock
            parts.append(cls(source=InlineSource(base64_data=data), media_type=mime))
        elif kind == "resource":
            res = item.get("resource") or {}
            mime = res.get("mimeType")
            if isinstance(res.get("text"), str):
                parts.append(TextBlock(text=res["text"]))
            elif isinstance(res.get("blob"), str):
                if isinstance(mime, str) and mime.startswith("image/"):
                    parts.append(ImageBlock(source=InlineSource(base64_data=res["blob"]), media_type=mime))
                else:
                    name = str(res.get("uri", "")).rsplit("/", 1)[-1]
                    parts.append(FileBlock(source=InlineSource(base64_data=res["blob"]), media_type=mime if isinstance(mime, str) else NOT_GIVEN, filename=name or NOT_GIVEN))
            else:
                raise ToolCallError("an embedded resource needs `text` or `blob`", where=f"{where}.content[{i}]")
        elif kind == "resource_link":
            uri = item.get("uri")
            if not isinstance(uri, str):
                raise ToolCallError("a resource link needs a `uri`", where=f"{where}.content[{i}]")
            mime = item.get("mimeType")
            if re.match(r"https?://", uri):
                cls2 = ImageBlock if isinstance(mime, str) and mime.startswith("image/") else FileBlock
                parts.append(cls2(source=UrlSource(url=uri), media_type=mime if isinstance(mime, str) else NOT_GIVEN))
            else:  # a link the model's provider cannot fetch: said in text
                label = item.get("name") or uri
                parts.append(TextBlock(text=f"[resource {label}: {uri}]"))
        else:
            raise ToolCallError(f"unknown MCP content type {kind!r}", where=f"{where}.content[{i}]")
    return parts


class _Handler:
    __slots__ = ("fn",)

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn


class _HttpRoute:
    __slots__ = ("route", "headers")

    def __init__(self, route: _Route, headers: dict[str, str]) -> None:
        self.route = route
        self.headers = headers


def _query_value(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return [_query_value(v) for v in value]
    if isinstance(value, (dict,)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


async def _call_http(entry: ProjectedTool, http: _HttpRoute, call: ToolCall, args: dict[str, Any], client: Any) -> ToolResult:
    import httpx

    route = http.route
    if route.base_url is None:
        raise ToolCallError("the document names no server; pass base_url= to from_openapi", where=entry.name)
    path = route.path
    query: list[tuple[str, Any]] = []
    headers = dict(http.headers)
    cookies: dict[str, str] = {}
    body: Any = None
    body_fields: dict[str, Any] = {}
    known = {arg for arg, _, _ in route.params} | ({route.body} if route.body not in (None, "merged") else set())
    unknown = sorted(set(args) - known)
    if unknown:
        return _result(call, entry.name, [TextBlock(text=f"unknown argument(s) {', '.join(unknown)} for {entry.name}")], True)
    for arg, location, wire in route.params:
        if arg not in args:
            if location == "path":
                return _result(call, entry.name, [TextBlock(text=f"missing path parameter {arg!r}")], True)
            continue
        value = args[arg]
        if location == "path":
            path = path.replace("{" + wire + "}", quote(str(_query_value(value)), safe=""))
        elif location == "query":
            v = _query_value(value)
            query.extend((wire, x) for x in v) if isinstance(v, list) else query.append((wire, v))
        elif location == "header":
            headers[wire] = str(_query_value(value))
        elif location == "cookie":
            cookies[wire] = str(_query_value(value))
        else:
            body_fields[wire] = value
    if route.body == "merged":
        body = body_fields if body_fields or route.method in ("POST", "PUT", "PATCH") else None
    elif route.body is not None and route.body in args:
        body = args[route.body]
    if cookies:
        headers["cookie"] = "; ".join(f"{k}={quote(v, safe='')}" for k, v in cookies.items())
    kwargs: dict[str, Any] = {"params": query, "headers": headers}
    if body is not None:
        if route.media_type == "application/x-www-form-urlencoded":
            kwargs["data"] = body
        else:
            kwargs["content"] = json.dumps(body, ensure_ascii=False).encode()
            headers["content-type"] = route.media_type or "application/json"
    url = route.base_url + path
    try:
        if client is not None:
            response = await client.request(route.method, url, **kwargs)
        else:
            async with httpx.AsyncClient(timeout=60.0) as own:
                response = await own.request(route.method, url, **kwargs)
    except httpx.HTTPError as exc:
        raise ToolCallError(f"{route.method} {url} failed: {type(exc).__name__}: {exc}", where=entry.name) from exc
    ctype = response.headers.get("content-type", "").split(";")[0].strip()
    structured: Any = None
    if ctype.startswith(("image/", "audio/")) or ctype in ("application/pdf", "application/octet-stream"):
        data = base64.b64encode(response.content).decode()
        cls = ImageBlock if ctype.startswith("image/") else AudioBlock if ctype.startswith("audio/") else FileBlock
        parts: list[Block] = [cls(source=InlineSource(base64_data=data), media_type=ctype)]
    else:
        text = response.text
        if _JSON_MEDIA.match(ctype):
            try:
                structured = response.json()
            except ValueError:
                structured = None
        parts = [TextBlock(text=text)] if text else []
    failed = response.status_code >= 400
    if failed:
        parts.insert(0, TextBlock(text=f"HTTP {response.status_code} {response.reason_phrase}"))
    return _result(call, entry.name, parts, failed, structured)


async def call(
    projection: ToolProjection | ProjectedTool,
    tool_call: ToolCall | Mapping[str, Any],
    *,
    http_client: Any = None,
) -> ToolResult:
    """Run one canonical tool call: the projected tool of its name, with the arguments the model
    gave and the bound values injected (a bound value wins over a model's). An MCP tool runs on
    its server (`isError` -> `is_error`; text, image, audio and embedded resources -> parts); an
    OpenAPI operation is an HTTP request (a 4xx/5xx answer -> `is_error`); a function tool runs
    its handler (an exception -> `is_error` with its message). `http_client`: an
    `httpx.AsyncClient` to send OpenAPI calls with (default: one per call)."""
    if isinstance(tool_call, Mapping):
        tool_call = ToolCall.from_dict(dict(tool_call), "tool_call")
    entry = projection if isinstance(projection, ProjectedTool) else projection[tool_call.name]
    if entry.name != tool_call.name:
        raise ToolError(f"the call is for {tool_call.name!r}, the tool is {entry.name!r}", where=tool_call.name)
    if tool_call.arguments is None:
        return _result(tool_call, entry.name, [TextBlock(text="the arguments were not valid JSON")], True)
    args = {**tool_call.arguments, **entry.bound}
    route = entry.route
    if isinstance(route, _McpServer):
        where = f"{route.describe} {entry.original}"
        try:
            raw = await route.run(lambda client: client.call_tool(entry.original, args))
        except Exception as exc:
            raise ToolCallError(f"the MCP call failed: {type(exc).__name__}: {exc}", where=where) from exc
        data = _dump(raw)
        parts = _mcp_parts(data.get("content"), where)
        structured = data.get("structuredContent")
        if not parts and structured is not None:  # MCP: structured content SHOULD also come as text
            parts = [TextBlock(text=json.dumps(structured, ensure_ascii=False))]
        return _result(tool_call, entry.name, parts, data.get("isError") is True, structured)
    if isinstance(route, _HttpRoute):
        return await _call_http(entry, route, tool_call, args, http_client)
    if isinstance(route, _Handler):
        try:
            value = route.fn(**args)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:  # the tool failed: the model is told why
            return _result(tool_call, entry.name, [TextBlock(text=f"{type(exc).__name__}: {exc}")], True)
        if isinstance(value, ToolResult):
            return value
        if isinstance(value, list) and all(isinstance(v, (TextBlock, ImageBlock, AudioBlock, FileBlock)) for v in value):
            return _result(tool_call, entry.name, list(value), False)
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return _result(tool_call, entry.name, [TextBlock(text=text)], False, None if isinstance(value, str) else value)
    raise ToolError("the tool has no route to call (a plain Tool: give function_tool a handler)", where=entry.name)


def call_sync(projection: ToolProjection | ProjectedTool, tool_call: ToolCall | Mapping[str, Any]) -> ToolResult:
    """`call` for code without an event loop."""
    return asyncio.run(call(projection, tool_call))

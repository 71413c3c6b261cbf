"""Stage 3 (emit): a JSON Schema of each format's wire request and response, derived from the same
templates, and TypedDicts generated from it with datamodel-code-generator.

The schema describes what the converter emits (so the TypedDicts type `request_to_wire`'s
output); extras may add keys at the request root, which the schema allows.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import tempfile
import warnings
from typing import Any

from ..ir.catalog import CONTEXTS, context_for_part, part_ident
from ..cache import cached
from .lines import wire_type
from ..ir.chat import BOOLEAN_OPTIONS, INTEGER_OPTIONS, OBJECT_OPTIONS, STRING_OPTIONS, FormatIR
from ..sections.task import TaskIR, task_wire_schema
from ..sections.usage import UsageSum
from ..wiretemplate import Arr, Interp, Lit, Node, Obj, Slot

__all__ = ["wire_schemas", "render_wire_types"]

_SCALAR: dict[str, dict[str, Any]] = {"text": {"type": "string"}, "str": {"type": "string"}, "detail": {"enum": ["auto", "low", "high"]}, "bool": {"type": "boolean"}, "schema": {"type": "object"}, "object": {"type": "object"}, "cache": {"type": "object", "properties": {"type": {"type": "string"}, "ttl": {"type": "string"}}, "required": ["type"]}}


def _node_schema(node: Node, context: str, refs: dict[str, Any], optional: frozenset[str] = frozenset()) -> dict[str, Any]:
    if isinstance(node, Lit):
        return {"const": node.value}
    if isinstance(node, Interp):
        return {"type": "string", "pattern": "^" + node.pattern() + "$"}
    if isinstance(node, Slot):
        if node.codec == "json":
            return {"type": "string", "description": "JSON-encoded"}
        spec = CONTEXTS[context][node.field]
        if spec.kind in _SCALAR:
            return dict(_SCALAR[spec.kind])
        ref: dict[str, Any] = refs[f"{context}:{node.field}"]
        return ref
    if isinstance(node, Arr):
        return {"type": "array", "items": [_node_schema(n, context, refs) for n in node.items]}
    assert isinstance(node, Obj)
    props = {k: _node_schema(n, context, refs, optional) for k, n in node.items}
    required = [k for k, n in node.items if not (isinstance(n, Slot) and (n.optional or n.field in optional))]
    out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        out["required"] = required
    return out


def _title(key: str) -> str:
    return wire_type(key, "")  # the converters name the same TypedDicts (codegen/emit/lines.py)


def _option_type(opt: Any) -> str:
    """The JSON type of an option's wire field (codegen/ir/chat.py's option type sets)."""
    if opt.values:  # spelled on the wire by the row's `values` keys (json_mode: "json_object")
        return "string"
    for names, kind in ((INTEGER_OPTIONS, "integer"), (BOOLEAN_OPTIONS, "boolean"), (STRING_OPTIONS, "string"), (OBJECT_OPTIONS, "object")):
        if opt.name in names:
            return str(kind)
    return "number"


def wire_schemas(ir: FormatIR | TaskIR) -> dict[str, Any]:
    """One JSON Schema document with `$defs` for the request and the response."""
    if isinstance(ir, TaskIR):  # a non-chat kind (codegen/sections/task.py)
        return task_wire_schema(ir)
    name = _title(ir.key)
    defs: dict[str, Any] = {}

    def part_def(kind: str) -> dict[str, Any] | None:
        node = ir.parts[kind]
        if isinstance(node, str):
            return None
        ref = f"{name}{_title(part_ident(kind))}Part"
        defs[ref] = _node_schema(node, context_for_part(kind), {})
        return {"$ref": f"#/$defs/{ref}"}

    user_parts = [p for k in ir.parts if k not in ("thinking", "redacted_thinking") and (p := part_def(k))]
    asst_parts = [p for k in ("text", "thinking", "redacted_thinking") if (p := part_def(k))]
    # tool_calls.missing_arguments: empty -- the API may leave a call's arguments out
    no_args = frozenset({"arguments"}) if ir.tool_calls.missing_arguments == "empty" else frozenset()
    defs[f"{name}ToolCall"] = _node_schema(ir.tool_calls.template, "tool_call", {}, no_args)
    call_ref = {"$ref": f"#/$defs/{name}ToolCall"}
    if ir.tool_calls.placement == "content_blocks":
        asst_parts.append(call_ref)
    defs[f"{name}ToolResult"] = _node_schema(ir.tool_results.template, "tool_result", {})
    if ir.tool_results.error_template is not None:  # tool_results.error_wire: a failed result's form
        defs[f"{name}ToolResult"] = {"anyOf": [defs[f"{name}ToolResult"], _node_schema(ir.tool_results.error_template, "tool_result", {})]}
    result_ref = {"$ref": f"#/$defs/{name}ToolResult"}
    if ir.tool_results.strategy == "group_into_user_message":
        user_parts.append(result_ref)
    tool_items: dict[str, Any] = {"$ref": f"#/$defs/{name}Tool"}
    if ir.cache_point is not None:  # request.cache_points: a breakpoint item beside the parts and tools
        defs[f"{name}CachePoint"] = _node_schema(ir.cache_point, "cache_point", {})
        point_ref = {"$ref": f"#/$defs/{name}CachePoint"}
        user_parts.append(point_ref)
        asst_parts.append(point_ref)
        tool_items = {"anyOf": [tool_items, point_ref]}

    def content(parts: list[dict[str, Any]], strategy: str, nullable: bool) -> dict[str, Any]:
        arr = {"type": "array", "items": {"anyOf": parts} if len(parts) > 1 else parts[0]}
        options: list[dict[str, Any]] = [arr] if strategy == "always_parts" else [{"type": "string"}, arr]
        if nullable:
            options.append({"type": "null"})
        return {"anyOf": options}

    refs = {
        "message.user:content": content(user_parts, ir.user.content, False),
        "message.assistant:content": content(asst_parts, ir.assistant.content, ir.tool_calls.placement == "field"),
        "message.assistant:tool_calls": {"type": "array", "items": call_ref},
    }
    messages: list[dict[str, Any]] = []
    if ir.system.template is not None:
        defs[f"{name}SystemMessage"] = _node_schema(ir.system.template, "message.system", refs)
        messages.append({"$ref": f"#/$defs/{name}SystemMessage"})
    defs[f"{name}UserMessage"] = _node_schema(ir.user.template, "message.user", refs)
    defs[f"{name}AssistantMessage"] = _node_schema(ir.assistant.template, "message.assistant", refs)
    messages += [{"$ref": f"#/$defs/{name}UserMessage"}, {"$ref": f"#/$defs/{name}AssistantMessage"}]
    if ir.tool_results.strategy == "message":
        messages.append(result_ref)
    defs[f"{name}Tool"] = _node_schema(ir.tools.template, "tool", {})

    props: dict[str, Any] = {
        ir.model_field: {"type": "string"},
        ir.messages_field: {"type": "array", "items": {"anyOf": messages}},
    }
    if ir.system.field:
        _put(props, ir.system.field, {"type": "string"})
    for opt in ir.options:
        if opt.wire is None or opt.unsupported is not None:
            continue
        _put(props, opt.wire, {"type": "array", "items": {"type": "string"}} if opt.name == "stop_sequences" else {"type": _option_type(opt)})
    _put(props, ir.tools.field, {"type": "array", "items": tool_items})
    if ir.tools.strict_all is not None:  # tools.strict_all: one boolean for every tool's strict
        _put(props, ir.tools.strict_all, {"type": "boolean"})
    _put(props, ir.tool_choice.field, {"anyOf": [_node_schema(n, "tool_choice.tool", {}) for n in ir.tool_choice.modes.values()]})
    if ir.structured_template is not None and ir.structured is not None:
        _put(props, ir.structured["field"], _node_schema(ir.structured_template, "structured_output", {}))
    defs[f"{name}Request"] = {
        "type": "object",
        "properties": props,
        "required": [ir.model_field, ir.messages_field],
        "additionalProperties": True,
    }
    defs[f"{name}Response"] = _response_schema(ir, name, defs)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{name}Wire",
        "description": f"Wire shapes of {ir.key}, derived from {ir.source}",
        "$defs": defs,
        "anyOf": [{"$ref": f"#/$defs/{name}Request"}, {"$ref": f"#/$defs/{name}Response"}],
    }


def _put(props: dict[str, Any], field: str, schema: dict[str, Any]) -> None:
    """`schema` at a wire field; a dotted one (`generationConfig.temperature`) is nested, as the
    converter writes it, not a property whose name holds a dot."""
    *parents, last = field.split(".")
    for key in parents:
        holder = props.setdefault(key, {"type": "object", "properties": {}, "additionalProperties": True})
        props = holder.setdefault("properties", {})
    props[last] = schema


def _usage_schema(ir: FormatIR) -> dict[str, Any]:
    """The usage object response_to_wire writes: one integer per mapped counter path."""
    root: dict[str, Any] = {"type": "object", "properties": {}}
    paths = []
    for src in ir.usage.counters.values():
        if isinstance(src, UsageSum):  # a sum writes its own path (if any) and its free addend
            if src.path is not None:
                paths.append(src.path)
            if src.free is not None:
                paths.append(src.addends[src.free][0])
        else:
            paths.append(src)
    for src in paths:
        node = root
        for key in src[:-1]:
            node = node["properties"].setdefault(str(key), {"type": "object", "properties": {}})
        node["properties"][str(src[-1])] = {"type": "integer"}
    return root


def _response_schema(ir: FormatIR, name: str, defs: dict[str, Any]) -> dict[str, Any]:
    """The response body response_to_wire emits, from the envelope and the assistant template."""
    finish_values = sorted({w for w, _ in ir.finish.map} | set(ir.finish.emit.values()))
    slot_schemas = {
        "message": {"$ref": f"#/$defs/{name}AssistantMessage"},
        "finish_reason": {"anyOf": [{"enum": finish_values}, {"type": "string"}]},
        "usage": _usage_schema(ir),
    }
    props: dict[str, Any] = {}
    required: list[str] = []
    for item in ir.response.envelope:
        if item.kind == "literal":
            props[item.key] = {"const": item.value}
        elif item.kind == "from_raw":
            default = item.default
            props[item.key] = {} if default is None else {"type": "integer" if isinstance(default, int) else "string"}
        elif item.kind == "slot":
            props[item.key] = slot_schemas[item.slot or ""]
        else:
            choice = {
                k: (slot_schemas[n.field] if isinstance(n, Slot) else {"const": n.value})
                for k, n in item.value.items
            }
            props[item.key] = {
                "type": "array",
                "items": {"type": "object", "properties": choice, "required": list(choice), "additionalProperties": False},
            }
        if not (item.kind == "slot" and item.optional):
            required.append(item.key)
    out: dict[str, Any] = {"type": "object", "properties": props, "required": required, "additionalProperties": False}
    if not ir.response.message:  # the message's own keys sit at the root
        message = defs[f"{name}AssistantMessage"]
        out["properties"] = {**message["properties"], **props}
        out["required"] = sorted(set(required) | set(message.get("required", [])))
    return out


TYPES_STEP = "datamodel-code-generator"


def types_version() -> str:
    return importlib.metadata.version("datamodel-code-generator")


def wire_types_input(ir: FormatIR | TaskIR) -> tuple[str, str]:
    """(schema JSON text, the text datamodel-code-generator's TypedDict module is made from: a
    two-line header, then the schema; `typed_dicts` takes it)."""
    schema = wire_schemas(ir)
    schema_text = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    header = f"# Code generated by wiremap.codegen from {ir.source}. DO NOT EDIT.\n# Wire TypedDicts produced by datamodel-code-generator from {ir.key}.schema.json."
    return schema_text, header + "\n" + schema_text


def typed_dicts(source: str) -> str:
    """datamodel-code-generator's TypedDict module for `wire_types_input`'s text."""
    first, second, schema_text = source.split("\n", 2)
    return _typed_dicts(schema_text, first + "\n" + second)


def render_wire_types(ir: FormatIR | TaskIR) -> tuple[str, str]:
    """(schema JSON text, TypedDict module text)."""
    schema_text, source = wire_types_input(ir)
    return schema_text, cached(TYPES_STEP, types_version(), source, typed_dicts)


def _typed_dicts(schema_text: str, header: str) -> str:
    """datamodel-code-generator's TypedDict module for a wire schema."""
    from datamodel_code_generator import Formatter, InputFileType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType

    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        # datamodel-code-generator announces future default changes; the options are pinned here.
        warnings.simplefilter("ignore", FutureWarning)
        out_path = os.path.join(tmp, "types.py")
        generate(
            schema_text,
            input_file_type=InputFileType.JsonSchema,
            output=__import__("pathlib").Path(out_path),
            output_model_type=DataModelType.TypingTypedDict,
            target_python_version=PythonVersion.PY_311,
            disable_timestamp=True,
            formatters=[Formatter.BLACK],
            use_schema_description=False,
            use_field_description=False,
            custom_file_header=header,
        )
        with open(out_path, encoding="utf-8") as fh:
            return fh.read()

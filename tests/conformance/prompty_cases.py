"""Prompty cross-runtime vectors (../shared/conformance/prompty) as canonical requests.

`wire_vectors.json` holds `WireConformance.toRequest` vectors: a Prompty agent slice (`provider`,
`apiType`, `model_id`, `messages` of `kind`/`value` parts, `tools` with `kind`, camelCase
`options`, `outputs`) and the exact `request_body` the runtimes send. `process_vectors.json`
holds `Processor.process` vectors: a provider response body and Prompty's `result`.

Translation into the canonical model (../shared/CANONICAL.md) is faithful to Prompty's own data,
and leaves every provider decision to the mapping:

- message parts become blocks (`text` -> text, `image`/`audio`/`file` -> blocks whose source is a
  URL when `value` is http(s):/data:, else inline base64 with `mediaType`); user and assistant
  content stays a block list (the `string` variant also tries the §3.1.1-equivalent plain string
  for a single text part); system content must be a string, so its text parts are joined;
- `options` -> `config`: temperature, maxOutputTokens -> max_tokens, topP -> top_p,
  topK -> top_k, frequencyPenalty, presencePenalty, seed, stopSequences -> stop_sequences,
  additionalProperties -> extras;
- `tools` of kind `function` -> Tool; the Prompty property list becomes a JSON Schema by
  Prompty's `schema_to_wire` (§7.1.4: type, description, enum, items, nested properties,
  `required` only for required properties and omitted when empty); parameters named in
  `bindings` are removed (they are injected at call time by the Prompty runtime, never shown
  to the model); `strict` is kept on the Tool;
- `outputs` -> `response_schema` by the same plain `schema_to_wire`. The strict-mode rewrite
  (additionalProperties false, every property required, optional ones nullable), the name
  `structured_output` and `strict: true` are the dialect's job, not the input's.

Anything the canonical model cannot express raises `CannotExpress` (never silently dropped).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from _support import LATER_ISSUE, PROMPTY_DIR, missing

FORMAT_KEYS = {"openai": "prompty.openai_chat", "anthropic": "prompty.anthropic_messages"}
# Prompty apiTypes served by a non-chat mapping kind (mappings/README.md "kind").
KIND_FORMAT_KEYS = {
    ("openai", "embedding"): "prompty.openai_embeddings",
    ("openai", "image"): "prompty.openai_images",
    ("openai", "responses"): "prompty.openai_responses",  # the Responses API, a chat format of its own
}

EXPECTED_WIRE = 28
EXPECTED_PROCESS = 23  # 21 Processor.process + 2 Processor.processStream

KIND_TO_JSON_TYPE = {
    "string": "string",
    "integer": "integer",
    "float": "number",
    "number": "number",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}

OPTION_TO_CONFIG = {
    "temperature": "temperature",
    "maxOutputTokens": "max_tokens",
    "topP": "top_p",
    "topK": "top_k",
    "frequencyPenalty": "frequency_penalty",
    "presencePenalty": "presence_penalty",
    "seed": "seed",
    "stopSequences": "stop_sequences",
}


class CannotExpress(ValueError):
    """A Prompty input with no canonical equivalent."""


@dataclass
class WireVector:
    name: str
    description: str
    provider: str
    api_type: str
    input: dict[str, Any]
    expected_body: dict[str, Any]
    variant: str = "blocks"  # "blocks" | "string" (single text part as a plain string)
    skip: str | None = None

    @property
    def id(self) -> str:
        return f"{self.name}[{self.variant}]" if self.variant != "blocks" else self.name

    @property
    def format_key(self) -> str | None:
        return KIND_FORMAT_KEYS.get((self.provider, self.api_type)) or FORMAT_KEYS.get(self.provider)


@dataclass
class ProcessVector:
    name: str
    description: str
    operation: str  # process | processStream
    provider: str
    api_type: str | None
    input: dict[str, Any]
    expected: dict[str, Any]
    skip: str | None = None
    needs_runtime: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.name

    @property
    def format_key(self) -> str | None:
        return KIND_FORMAT_KEYS.get((self.provider, self.api_type)) or FORMAT_KEYS.get(self.provider)


# ---------------------------------------------------------------------------------------------
# Prompty -> canonical


def _is_url(value: str) -> bool:
    return value.startswith(("http://", "https://", "data:"))


def _source(part: dict[str, Any], where: str) -> tuple[dict[str, Any], str | None]:
    value = part.get("value")
    if not isinstance(value, str) or not value:
        raise CannotExpress(f"{where}: part value must be a non-empty string, got {value!r}")
    media_type = part.get("mediaType")
    if _is_url(value):
        return {"type": "url", "url": value}, media_type
    if not media_type:
        raise CannotExpress(f"{where}: inline (base64) part without mediaType")
    return {"type": "inline", "base64_data": value}, media_type


_PART_KEYS = {
    "text": {"kind", "value"},
    "image": {"kind", "value", "mediaType", "detail"},
    "audio": {"kind", "value", "mediaType"},
    "file": {"kind", "value", "mediaType", "filename"},
}


def part_to_block(part: dict[str, Any], where: str) -> dict[str, Any]:
    kind = part.get("kind")
    if kind not in _PART_KEYS:
        raise CannotExpress(f"{where}: part kind {kind!r} has no canonical block")
    unknown = set(part) - _PART_KEYS[kind]
    if unknown:
        raise CannotExpress(f"{where}: {kind} part keys {sorted(unknown)} have no canonical field")
    if kind == "text":
        return {"type": "text", "text": part["value"]}
    source, media_type = _source(part, where)
    block: dict[str, Any] = {"type": kind, "source": source}
    if media_type:
        block["media_type"] = media_type
    if kind == "image" and part.get("detail"):
        block["detail"] = part["detail"]
    if kind == "file" and part.get("filename"):
        block["filename"] = part["filename"]
    return block


def message_to_canonical(msg: dict[str, Any], where: str, *, variant: str) -> dict[str, Any]:
    role = msg.get("role")
    unknown = set(msg) - {"role", "content"}
    if unknown:  # Prompty `metadata` (tool_calls, tool_call_id, name...) is not in the vectors
        raise CannotExpress(f"{where}: message keys {sorted(unknown)} are not translated")
    parts = msg.get("content") or []
    if isinstance(parts, str):
        parts = [{"kind": "text", "value": parts}]
    blocks = [part_to_block(p, f"{where}.content[{i}]") for i, p in enumerate(parts)]
    if role == "system":
        if any(b["type"] != "text" for b in blocks):
            raise CannotExpress(f"{where}: system content must be text (canonical: a string)")
        return {"role": "system", "content": "".join(b["text"] for b in blocks)}
    if role in ("user", "assistant"):
        if variant == "string" and len(blocks) == 1 and blocks[0]["type"] == "text":
            return {"role": role, "content": blocks[0]["text"]}
        return {"role": role, "content": blocks}
    raise CannotExpress(f"{where}: role {role!r} needs Prompty metadata this harness lacks")


def property_to_schema(prop: dict[str, Any], where: str) -> dict[str, Any]:
    kind = prop.get("kind")
    if kind not in KIND_TO_JSON_TYPE:
        raise CannotExpress(f"{where}: property kind {kind!r} has no JSON Schema type")
    schema: dict[str, Any] = {"type": KIND_TO_JSON_TYPE[kind]}
    if prop.get("description"):
        schema["description"] = prop["description"]
    if prop.get("enumValues"):
        schema["enum"] = copy.deepcopy(prop["enumValues"])
    if kind == "array" and prop.get("items") is not None:
        schema["items"] = property_to_schema(prop["items"], f"{where}.items")
    if kind == "object" and prop.get("properties"):
        schema.update(properties_to_schema(prop["properties"], f"{where}.properties"))
    unknown = set(prop) - {
        "name",
        "kind",
        "description",
        "enumValues",
        "items",
        "properties",
        "required",
    }
    if unknown:
        raise CannotExpress(f"{where}: property keys {sorted(unknown)} are not translated")
    return schema


def properties_to_schema(props: list[dict[str, Any]], where: str) -> dict[str, Any]:
    """Prompty §7.1.4 `schema_to_wire` (plain, non-strict)."""
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    required: list[str] = []
    for i, prop in enumerate(props):
        schema["properties"][prop["name"]] = property_to_schema(prop, f"{where}[{i}]")
        if prop.get("required"):
            required.append(prop["name"])
    if required:
        schema["required"] = required
    return schema


def tool_to_canonical(tool: dict[str, Any], where: str) -> dict[str, Any]:
    if tool.get("kind") != "function":
        raise CannotExpress(
            f"{where}: tool kind {tool.get('kind')!r} is projected by the Prompty runtime "
            "(child .prompty, MCP discovery, OpenAPI, registry); only `function` maps to a Tool"
        )
    unknown = set(tool) - {"kind", "name", "description", "parameters", "bindings", "strict"}
    if unknown:
        raise CannotExpress(f"{where}: tool keys {sorted(unknown)} are not translated")
    bound = set(tool.get("bindings") or {})
    out: dict[str, Any] = {"name": tool["name"]}
    if tool.get("description"):
        out["description"] = tool["description"]
    params = [p for p in tool.get("parameters") or [] if p["name"] not in bound]
    if params:
        out["parameters"] = properties_to_schema(params, f"{where}.parameters")
    if tool.get("strict"):
        out["strict"] = True
    return out


def options_to_config(options: dict[str, Any], where: str) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for key, value in options.items():
        if value is None:
            continue
        if key == "additionalProperties":
            if value:
                config["extras"] = copy.deepcopy(value)
        elif key in OPTION_TO_CONFIG:
            config[OPTION_TO_CONFIG[key]] = copy.deepcopy(value)
        else:
            raise CannotExpress(f"{where}.{key}: no canonical config field")
    return config


def to_canonical(inp: dict[str, Any], *, variant: str = "blocks") -> dict[str, Any]:
    """A WireConformance input as a canonical request dict."""
    request: dict[str, Any] = {
        "model": inp["model_id"],
        "messages": [
            message_to_canonical(m, f"messages[{i}]", variant=variant)
            for i, m in enumerate(inp.get("messages") or [])
        ],
    }
    tools = [tool_to_canonical(t, f"tools[{i}]") for i, t in enumerate(inp.get("tools") or [])]
    if tools:
        request["tools"] = tools
    config = options_to_config(inp.get("options") or {}, "options")
    if config:
        request["config"] = config
    if inp.get("outputs"):
        request["response_schema"] = properties_to_schema(inp["outputs"], "outputs")
    return request


def _has_single_text_message(inp: dict[str, Any]) -> bool:
    return any(
        m.get("role") in ("user", "assistant")
        and len(m.get("content") or []) == 1
        and (m.get("content") or [{}])[0].get("kind") == "text"
        for m in inp.get("messages") or []
    )


# ---------------------------------------------------------------------------------------------
# Prompty's `result` from a canonical response


def prompty_result(response: dict[str, Any], *, has_outputs: bool) -> Any:
    """What Prompty's `Processor.process` returns, computed from a canonical response dict.

    Tool calls -> [{id, name, arguments: JSON string}]; otherwise the text (text blocks joined,
    null -> ""), JSON-parsed when `has_outputs` (`parsed` when the mapping produced one; a raw
    string when the text is not JSON - Prompty's fallback).
    Embeddings: the vector (one input) or the list of vectors; images: the URL or base64 data
    (one image) or the list of them (Prompty's processor, vectors embedding_* / image_*).
    """
    if "embeddings" in response:
        vectors = response["embeddings"]
        return vectors[0] if len(vectors) == 1 else vectors
    if "images" in response:
        values = [i["source"].get("url", i["source"].get("base64_data")) for i in response["images"]]
        return values[0] if len(values) == 1 else values
    message = response.get("message") or {}
    calls = message.get("tool_calls") or []
    if calls:
        return [
            {
                "id": c.get("id"),
                "name": c.get("name"),
                "arguments": json.dumps(c.get("arguments"), separators=(",", ":")),
            }
            for c in calls
        ]
    content = message.get("content")
    if content is None:
        text = ""
    elif isinstance(content, str):
        text = content
    else:
        text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
    if has_outputs:
        if response.get("parsed") is not None:
            return response["parsed"]
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


# ---------------------------------------------------------------------------------------------
# loading


def _vectors(filename: str) -> list[dict[str, Any]]:
    path = PROMPTY_DIR / filename
    if not path.is_file():
        raise FileNotFoundError(missing(path))
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _scope(provider: str, api_type: str | None) -> str | None:
    if provider in FORMAT_KEYS and api_type == "chat":
        return None
    if (provider, api_type) in KIND_FORMAT_KEYS:
        return None
    return f"Prompty {provider} apiType={api_type!r} {LATER_ISSUE}"


def load_wire() -> tuple[list[WireVector], str | None]:
    try:
        raw = _vectors("wire_vectors.json")
    except FileNotFoundError as exc:
        return [], str(exc)
    out: list[WireVector] = []
    for entry in raw:
        v = entry["vector"]
        inp = v["input"]
        api_type = inp.get("apiType", v.get("targetApi"))
        base = dict(
            name=v["name"],
            description=v.get("description", ""),
            provider=inp["provider"],
            api_type=api_type,
            input=inp,
            expected_body=v["expected"]["request_body"],
            skip=_scope(inp["provider"], api_type),
        )
        out.append(WireVector(**base))
        if out[-1].skip is None and _has_single_text_message(inp):
            out.append(WireVector(**base, variant="string"))
    return out, None


def load_process() -> tuple[list[ProcessVector], str | None]:
    try:
        raw = _vectors("process_vectors.json")
    except FileNotFoundError as exc:
        return [], str(exc)
    out: list[ProcessVector] = []
    for entry in raw:
        v = entry["vector"]
        inp = v["input"]
        operation = entry.get("operation") or v.get("operation")
        provider = inp.get("provider", "")
        api_type = inp.get("apiType")
        pv = ProcessVector(
            name=v["name"],
            description=v.get("description", ""),
            operation=operation,
            provider=provider,
            api_type=api_type,
            input=inp,
            expected=v["expected"],
        )
        if operation == "processStream":
            if any(isinstance(e.get("value"), dict) and "refusal" in json.dumps(e["value"]) for e in inp.get("events", [])):
                pv.needs_runtime = (
                    "a streamed `delta.refusal` as a determinate terminal failure: the canonical "
                    "stream has no refusal event (prompty.openai_chat reads a refusal as content, "
                    "prompty §7 as_content), so this Prompty processor outcome has no wiremap form"
                )
        else:
            pv.skip = _scope(provider, api_type)
        out.append(pv)
    return out, None


if __name__ == "__main__":  # pragma: no cover - a developer aid
    wires, err = load_wire()
    procs, err2 = load_process()
    if err or err2:
        raise SystemExit(err or err2)
    for w in wires:
        status = w.skip or "run"
        try:
            req = to_canonical(w.input, variant=w.variant) if not w.skip else None
        except CannotExpress as exc:
            status = f"CANNOT EXPRESS: {exc}"
            req = None
        print(f"{w.id:45s} {w.provider:10s} {status}")
        if req is not None:
            print("    ", json.dumps(req))
    for p in procs:
        print(f"{p.id:45s} {p.provider:10s} {p.operation} {p.skip or p.needs_runtime or 'run'}")

"""The non-chat kinds (`kind: embeddings`, `kind: images`): IR, emission and wire schema.

A chat mapping describes a conversation; these kinds describe one-shot calls whose request is a
text (or texts) extracted from the canonical messages by a named strategy, plus declared API
parameters, and whose response is a canonical `EmbeddingsResponse` / `ImagesResponse`
(docs/canonical.md). They share `meta`, `errors`, `transport` and `fixtures` with chat mappings,
and compile to the same module API (request_to_wire, response_from_wire, error_from_wire,
request_from_wire, response_to_wire and the constants). mappings/README.md "kind" documents the
tables.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any

from ..emit.emitter import Emitter
from ..emit.messages import emit_error_from_wire, emit_unsupported
from ..emit.errors import emit_error_to_wire
from ..ir.chat import Builder, ErrorsIR, ValueMapIR, build_error_rules
from ..emit.lines import FORMAT_KEY, Lines, keyed, wire_type
from ..load.source import MappingError
from ..load.resolve import Resolved
from ..ir.wire_path import parse_path

__all__ = ["TaskIR", "build_task_ir", "emit_task_module", "task_wire_schema"]

_OPTIONS = ["temperature", "max_tokens", "top_p", "top_k", "seed", "stop_sequences", "frequency_penalty", "presence_penalty"]
_PY_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "object": "dict", "array": "list"}


@dataclass
class ParamIR:
    name: str
    type: str | None
    enum: list[Any] | None
    rules: list[tuple[str, str, list[str]]]  # (regex, action, patterns)


@dataclass
class TaskIR:
    kind: str  # embeddings | images
    key: str
    provider: str
    wire: str  # the wire family (meta.wire, else the extends root): runtime/carry.py origins
    title: str
    doc_ref: str
    api_version: str | None
    source: str
    endpoint: dict[str, str] | None
    transport: dict[str, Any] | None
    model_field: str
    input: dict[str, Any]
    config_action: str
    params: list[ParamIR]
    response: dict[str, Any]
    usage: dict[str, tuple[str | int, ...]] | None
    usage_path: tuple[str | int, ...]
    envelope: list[tuple[str, str, Any, Any, bool]]  # (key, literal|from_raw, value, default, has_default)
    value_maps: dict[str, ValueMapIR]
    errors: ErrorsIR  # as chat mappings' (error_from_wire, error_to_wire)
    fixtures: list[dict[str, Any]]
    fixture_lines: dict[str, int] = field(default_factory=dict)
    structured: None = None


class _TaskBuilder(Builder):
    def build_task(self) -> TaskIR:
        d = self.data
        meta = d["meta"]
        key = meta["id"]
        if key != self.r.key:
            message = f"meta.id {key!r} must equal the file's key {self.r.key!r}"
            file, _line = self.r._origin("/meta/id")
            if file != self.r.display:
                raise MappingError(self.r.display, self.r.line_of("/extends"), "/meta/id", message)
            raise self.err("/meta/id", message)
        kind = d["kind"]
        req = d["request"]
        inp = dict(req["input"])
        if inp["strategy"] != "last_user_text" and "join" in inp:
            raise self.err("/request/input/join", f"`join` applies to strategy last_user_text, not {inp['strategy']}")
        inp.setdefault("join", "\n")

        params: list[ParamIR] = []
        for name, spec in req.get("params", {}).items():
            if name.startswith("x-"):
                continue
            pointer = f"/request/params/{name}"
            if name == req["model"] or name == inp["field"]:
                raise self.err(pointer, f"{name!r} is the {'model' if name == req['model'] else 'input'} field, which the mapping fills; it cannot be a param")
            enum = spec.get("enum")
            if enum is not None and "type" in spec:
                bad = [v for v in enum if _PY_TYPES[spec["type"]] != type(v).__name__ and not (spec["type"] == "number" and type(v) is int)]
                if bad:
                    raise self.err(pointer + "/enum", f"{bad[0]!r} is not of type {spec['type']}")
            rules = [("|".join(fnmatch.translate(p) for p in r["models"]), r["unsupported"], list(r["models"])) for r in spec.get("scoped", [])]
            params.append(ParamIR(name, spec.get("type"), list(enum) if enum is not None else None, rules))

        value_maps: dict[str, ValueMapIR] = {}
        for name, table in d.get("value_maps", {}).items():
            if name.startswith("x-"):
                continue
            pairs = [(k, v) for k, v in table.items() if k != "*" and not k.startswith("x-")]
            value_maps[name] = ValueMapIR(name, pairs, table["*"])

        resp = d["response"]
        if kind == "images" and "media_type" in resp and resp["media_type"]["map"] not in value_maps:
            known = ", ".join(sorted(value_maps)) or "(none declared)"
            raise self.err("/response/media_type/map", f"unknown value map {resp['media_type']['map']!r}; expected one of: {known}")
        if kind == "images" and resp["url"] == resp["base64"]:
            raise self.err("/response/base64", "the url and base64 fields must differ, or an image could not be told apart")
        usage = None
        usage_path: tuple[str | int, ...] = ()
        if "usage" in resp:
            u = resp["usage"]
            usage_path = parse_path(u["path"])
            usage = {c: parse_path(u[c]) for c in ("prompt_tokens", "completion_tokens", "total_tokens") if c in u}
        envelope = []
        for k, v in resp["envelope"].items():
            if isinstance(v, dict):
                envelope.append((k, "from_raw", v["from_raw"], v.get("default"), "default" in v))
            else:
                envelope.append((k, "literal", v, None, True))

        errs = d["errors"]
        error_rules = build_error_rules(errs, self.err)

        fixtures = list(d.get("fixtures", []))
        seen: set[str] = set()
        lines: dict[str, int] = {}
        for i, fx in enumerate(fixtures):
            pointer = f"/fixtures/{i}"
            if fx["id"] in seen:
                raise self.err(pointer + "/id", f"duplicate fixture id {fx['id']!r}")
            if fx["id"].endswith("__round_trip"):
                raise self.err(pointer + "/id", f"fixture id {fx['id']!r} ends in __round_trip, which names the generated round-trip tests")
            seen.add(fx["id"])
            inputs = [k for k in ("to_wire", "from_wire", "request_from_wire", "response_to_wire", "error_from_wire") if k in fx]
            outcomes = [k for k in ("expect_wire", "expect_canonical", "expect_error") if k in fx]
            if len(inputs) != 1:
                raise self.err(pointer, f"a fixture has exactly one input (to_wire, from_wire, request_from_wire, response_to_wire, error_from_wire); found {inputs or 'none'}")
            if len(outcomes) != 1:
                raise self.err(pointer, f"a fixture has exactly one expected outcome (expect_wire, expect_canonical, expect_error); found {outcomes or 'none'}")
            if "response_schema" in fx:
                raise self.err(pointer + "/response_schema", f"kind {kind} has no structured output; a fixture cannot give response_schema")
            lines[fx["id"]] = self.r.line_of(pointer) or 0

        transport = self.transport()
        return TaskIR(
            kind=kind,
            key=key,
            provider=meta["provider"],
            wire=self.r.wire,
            title=meta["title"],
            doc_ref=meta["doc_ref"],
            api_version=meta.get("api_version"),
            source=self.r.display,
            endpoint=transport["endpoint"] if transport is not None else None,
            transport=transport,
            model_field=req["model"],
            input=inp,
            config_action=req["config"],
            params=params,
            response=resp,
            usage=usage,
            usage_path=usage_path,
            envelope=envelope,
            value_maps=value_maps,
            errors=ErrorsIR(
                message=parse_path(errs["message"]),
                type=parse_path(errs["type"]) if "type" in errs else None,
                type_header=errs.get("type_header"),
                code=parse_path(errs["code"]) if "code" in errs else None,
                rules=error_rules,
                retry_after_headers=list(errs.get("retry_after", [])),
                emit=errs.get("emit"),
            ),
            fixtures=fixtures,
            fixture_lines=lines,
        )


def build_task_ir(resolved: Resolved) -> TaskIR:
    return _TaskBuilder(resolved).build_task()


# --------------------------------------------------------------------------------------------
# emission


def lit(value: Any) -> str:
    return repr(value)


def _get(var: str, keys: tuple[Any, ...]) -> str:
    if len(keys) == 1 and isinstance(keys[0], str):
        return f"{var}.get({lit(keys[0])})"
    return f"_w.get_in({var}, {lit(keys)})"


def emit_task_module(ir: TaskIR) -> tuple[Any, dict[str, str]]:
    em = Emitter(ir)  # type: ignore[arg-type]  # the emitter's helpers need only key/title/errors
    em.emit_value_maps()
    result = "EmbeddingsResponse" if ir.kind == "embeddings" else "ImagesResponse"
    inp = ir.input
    strip = inp["non_text"] == "strip"

    # ---------------------------------------------------------------- request_to_wire
    out = Lines()
    out.add("req = _w.as_request(request)")
    out.add("if isinstance(req.response_schema, dict):")
    out.add(f"    raise InvalidRequestError({keyed(FORMAT_KEY + ' has no structured output (kind ' + ir.kind + ')')}, path='response_schema')")
    out.add("if req.tools:")
    out.add(f"    raise InvalidRequestError({keyed(FORMAT_KEY + ' takes no tools (kind ' + ir.kind + ')')}, path='tools')")
    out.add("if req.tool_choice is not NOT_GIVEN:")
    out.add(f"    raise InvalidRequestError({keyed(FORMAT_KEY + ' takes no tool_choice (kind ' + ir.kind + ')')}, path='tool_choice')")
    out.add("body: dict[str, Any] = {}")
    out.add(f"body[{lit(ir.model_field)}] = req.model")
    if inp["strategy"] == "every_text":
        out.add(f"texts = _w.every_text(req.messages, {strip}, KEY)  # strategy every_text (prompty §7.2)")
        out.add("if not texts:")
        if inp["empty"] == "reject":
            out.add("    raise InvalidRequestError('no text to embed in the messages', path='messages')")
        else:
            out.add("    pass  # empty: send (an empty list goes out)")
        if inp["one"] == "string":
            out.add(f"body[{lit(inp['field'])}] = texts[0] if len(texts) == 1 else texts  # one text: a plain string")
        else:
            out.add(f"body[{lit(inp['field'])}] = texts")
    else:
        first = inp["strategy"] == "last_user_first_text"
        others = inp["others"] == "ignore"
        out.add(f"prompt = _w.last_user_text(req.messages, {first}, {lit(inp['join'])}, {strip}, {others}, KEY)  # strategy {inp['strategy']}")
        out.add("if not prompt:")
        if inp["empty"] == "reject":
            out.add("    raise InvalidRequestError('no prompt: the last user message has no text' if prompt is not None else 'no user message to take the prompt from', path='messages')")
        else:
            out.add("    prompt = ''  # empty: send (prompty §7.3)")
        out.add(f"body[{lit(inp['field'])}] = prompt")
    out.add("config = req.config if isinstance(req.config, Config) else _NO_CONFIG")
    for name in _OPTIONS:
        out.add(f"if config.{name} is not NOT_GIVEN:")
        out.indent()
        emit_unsupported(out, ir.config_action, name, f"config.{name}", FORMAT_KEY)
        out.dedent()
    out.add("extras = config.extras")
    out.add("if extras:")
    out.indent()
    out.add("assert isinstance(extras, dict)")
    out.add("model = req.model")
    out.add("for key in sorted(extras):")
    out.indent()
    out.add("value = extras[key]")
    out.add("path = 'config.extras.' + key")
    for p in ir.params:
        out.add(f"if key == {lit(p.name)}:  # a declared API parameter")
        out.indent()
        out.add("if value is None:")
        out.add("    continue  # OpenArmature §6 null-skip")
        out.add(f"_w.check_param(value, {lit(p.type)}, {lit(tuple(p.enum) if p.enum is not None else None)}, path)")
        for regex, action, patterns in p.rules:
            out.add(f"if {em.regex(regex)}.match(model) is not None:  # models: {lit(patterns)}")
            out.indent()
            emit_unsupported(out, action, p.name, "config.extras." + p.name, FORMAT_KEY, scoped=True)
            if action != "reject":
                out.add("continue")
            out.dedent()
        out.dedent()
    out.add("if key in body:")
    out.add("    if _w.deep_equal(body[key], value):")
    out.add("        continue")
    why = f" conflicts with the value {FORMAT_KEY} writes there from the request itself; set it through the request, or give the same value"
    out.add(f"    raise InvalidRequestError('extras key ' + repr(key) + {keyed(why)}, path=path)")
    out.add("body[key] = _w.canonical_json(value)")
    out.dedent()
    out.dedent()
    out.add("return body")
    em.func("_request_to_wire", "(request: Request | Mapping[str, Any]) -> dict[str, Any]", "The body of request_to_wire.", out.lines)
    out = Lines()
    out.add("if structured_output is not None:")
    out.add(f"    raise InvalidRequestError({keyed(FORMAT_KEY + ' has no structured output (kind ' + ir.kind + ')')})")
    wire_req = wire_type(ir.key, "Request")  # generated/<module>_types.py, imported for type checkers only
    out.add("try:")
    out.add(f"    return cast({lit(wire_req)}, _request_to_wire(request))")
    out.add("except RecursionError:")
    out.add("    raise InvalidRequestError('request nested too deeply') from None")
    em.func(
        "request_to_wire",
        f"(request: Request | Mapping[str, Any], *, structured_output: str | None = None) -> {wire_req}",
        f"Canonical request -> {ir.title} request body (kind {ir.kind}). Validates first; never mutates its input.",
        out.lines,
    )
    em.parts.public.append("request_to_wire")

    # ---------------------------------------------------------------- request_from_wire
    out = Lines()
    out.add("body = _w.expect_dict(body, '')")
    out.add(f"model = _w.member_str(body, {lit(ir.model_field)}, '')")
    field_ = inp["field"]
    out.add(f"value = _w.member(body, {lit(field_)}, '')")
    if ir.kind == "embeddings":
        out.add("if type(value) is str:")
        out.add("    texts = [value]")
        out.add("elif type(value) is list and all(type(t) is str for t in value):")
        out.add("    texts = list(value)")
        out.add("else:")
        out.add(f"    raise _w.WireShapeError({lit(field_)}, 'expected a string or an array of strings (token arrays have no canonical form)')")
        out.add("for k, text in enumerate(texts):")
        out.add("    if not text:")
        out.add(f"        raise _w.WireShapeError({lit(field_)} + (f'[{{k}}]' if type(value) is list else ''), 'an empty text has no canonical form')")
        out.add("if not texts:")
        out.add(f"    raise _w.WireShapeError({lit(field_)}, 'an empty input has no canonical form')")
        out.add("content: str | list[Block] = texts[0] if type(value) is str else [TextBlock(text=t) for t in texts]")
    else:
        out.add("if type(value) is not str or not value:")
        out.add(f"    raise _w.WireShapeError({lit(field_)}, 'expected a non-empty string')")
        out.add("content = value")
    out.add(f"rest = {{k: v for k, v in body.items() if k not in ({lit(ir.model_field)}, {lit(field_)})}}")
    out.add("config: Config | NotGiven = Config(extras=rest) if rest else NOT_GIVEN")
    out.add("return Request(model=model, messages=[UserMessage(content=content)], config=config)")
    em.func("_request_from_wire", "(body: Any) -> Request", "The body of request_from_wire.", out.lines)
    out = Lines()
    out.add("try:")
    out.add("    return _request_from_wire(body)")
    out.add("except _w.WireShapeError as exc:")
    out.add("    raise InvalidRequestError(exc.message, path=exc.path) from None")
    em.func(
        "request_from_wire",
        f"(body: {wire_type(ir.key, 'Request')} | Mapping[str, Any]) -> Request",
        f"{ir.title} request body -> canonical Request: the input as one user message, the other keys as config.extras.",
        out.lines,
    )
    em.parts.public.append("request_from_wire")

    # ---------------------------------------------------------------- response_from_wire
    resp = ir.response
    out = Lines()
    out.add("body = _w.expect_dict(body, '')")
    out.add("usage: Usage" if ir.kind == "embeddings" else "usage: Usage | NotGiven")
    if ir.usage is not None:
        out.add(f"usage_obj = {_get('body', ir.usage_path)}")
        out.add("if type(usage_obj) is dict:")
        args = ", ".join(f"{c}=_w.usage_counter({_get('usage_obj', p)})" for c, p in ir.usage.items())
        out.add(f"    usage = Usage({args})")
        out.add("else:")
        out.add("    usage = Usage()" if ir.kind == "embeddings" else "    usage = NOT_GIVEN  # not reported (only some models report it)")
    else:
        out.add("usage = Usage()" if ir.kind == "embeddings" else "usage = NOT_GIVEN")
    if ir.kind == "embeddings":
        out.add(f"items = _w.ordered_by_index(_w.member_list(body, {lit(resp['list'])}, ''), {lit(resp['index'])}, {lit(resp['list'])})")
        out.add("vectors: list[list[float]] = []")
        out.add("for k, item in enumerate(items):")
        out.add(f"    vectors.append(_w.read_vector(item.get({lit(resp['vector'])}), f'{resp['list']}[{{k}}].{resp['vector']}'))")
        if "model" in resp:
            out.add(f"model = _w.optional_str(body, {lit(resp['model'])}, '')")
        else:
            out.add("model = NOT_GIVEN")
        out.add("return EmbeddingsResponse(embeddings=vectors, usage=usage, model=model, raw=body)")
    else:
        out.add(f"listed = body.get({lit(resp['list'])})")
        out.add(f"items = [] if listed is None else _w.expect_list(listed, {lit(resp['list'])})")
        out.add("media_type: str | NotGiven = NOT_GIVEN")
        if "media_type" in resp:
            mt = resp["media_type"]
            out.add(f"fmt = body.get({lit(mt['field'])})")
            out.add("if fmt is not None:")
            out.add(f"    media_type = _vm_{mt['map']}_reverse(_w.expect_str(fmt, {lit(mt['field'])}), {lit(mt['field'])})")
        out.add("images: list[GeneratedImage] = []")
        out.add("for k, raw_item in enumerate(items):")
        out.indent()
        out.add(f"path = f'{resp['list']}[{{k}}]'")
        out.add("item = _w.expect_dict(raw_item, path)")
        out.add(f"url = item.get({lit(resp['url'])})")
        out.add(f"data = item.get({lit(resp['base64'])})")
        out.add("source: UrlSource | InlineSource")
        out.add("if url is not None and data is not None:")
        out.add(f"    raise _w.WireShapeError(path, {lit('an image carries both ' + resp['url'] + ' and ' + resp['base64'])})")
        out.add("if url is not None:")
        out.add(f"    source = UrlSource(url=_w.expect_str(url, path + {lit('.' + resp['url'])}))")
        out.add("elif data is not None:")
        out.add(f"    source = InlineSource(base64_data=_w.expect_str(data, path + {lit('.' + resp['base64'])}))")
        out.add("else:")
        out.add(f"    raise _w.WireShapeError(path, {lit('expected ' + resp['url'] + ' or ' + resp['base64'])})")
        if "revised_prompt" in resp:
            out.add(f"revised = _w.optional_str(item, {lit(resp['revised_prompt'])}, path)")
        else:
            out.add("revised = NOT_GIVEN")
        out.add("images.append(GeneratedImage(source=source, media_type=media_type, revised_prompt=revised))")
        out.dedent()
        out.add("return ImagesResponse(images=images, usage=usage, raw=body)")
    em.func("_response_from_wire", f"(body: Any) -> {result}", "Wire response body -> canonical result.", out.lines)
    out = Lines()
    out.add("if response_schema is not None or structured_output is not None:")
    out.add(f"    raise InvalidRequestError({keyed(FORMAT_KEY + ' has no structured output (kind ' + ir.kind + ')')}, path='response_schema')")
    out.add("try:")
    out.add("    return _response_from_wire(body)")
    out.add("except _w.WireShapeError as exc:")
    out.add("    raise InvalidResponseError(exc.message, path=exc.path, body=body) from None")
    out.add("except RecursionError:")
    out.add("    raise InvalidResponseError('response nested too deeply', body=body) from None")
    em.func(
        "response_from_wire",
        f"(body: {wire_type(ir.key, 'Response')} | Mapping[str, Any], *, response_schema: dict[str, Any] | None = None, structured_output: str | None = None) -> {result}",
        f"{ir.title} response body -> canonical {result} (`raw` is the body).",
        out.lines,
    )
    em.parts.public.append("response_from_wire")

    # ---------------------------------------------------------------- response_to_wire
    out = Lines()
    conv = "as_embeddings_response" if ir.kind == "embeddings" else "as_images_response"
    out.add(f"resp: {result} = _w.{conv}(response)")
    out.add("raw = resp.raw if type(resp.raw) is dict else {}")
    out.add("body: dict[str, Any] = {}")
    for key, how, value, default, has_default in ir.envelope:
        if how == "literal":
            out.add(f"body[{lit(key)}] = {lit(value)}")
        elif has_default:
            out.add(f"body[{lit(key)}] = raw.get({lit(value)}, {lit(default)})")
        else:
            out.add(f"if {lit(value)} in raw:")
            out.add(f"    body[{lit(key)}] = raw[{lit(value)}]")
    if ir.kind == "embeddings":
        item = dict(resp.get("item", {}))
        out.add(
            f"body[{lit(resp['list'])}] = [{{**{lit(item)}, {lit(resp['index'])}: k, {lit(resp['vector'])}: list(vector)}} for k, vector in enumerate(resp.embeddings)]"
        )
        if "model" in resp:
            out.add("if resp.model is not NOT_GIVEN:")
            out.add(f"    body[{lit(resp['model'])}] = resp.model")
        out.add("u: Usage | NotGiven = resp.usage")
    else:
        out.add("data: list[dict[str, Any]] = []")
        out.add("for image in resp.images:")
        out.indent()
        out.add("item: dict[str, Any] = {}")
        out.add("if type(image.source) is UrlSource:")
        out.add(f"    item[{lit(resp['url'])}] = image.source.url")
        out.add("elif type(image.source) is InlineSource:")
        out.add(f"    item[{lit(resp['base64'])}] = image.source.base64_data")
        if "revised_prompt" in resp:
            out.add("if image.revised_prompt is not NOT_GIVEN:")
            out.add(f"    item[{lit(resp['revised_prompt'])}] = image.revised_prompt")
        out.add("data.append(item)")
        out.dedent()
        out.add(f"body[{lit(resp['list'])}] = data")
        if "media_type" in resp:
            mt = resp["media_type"]
            out.add("types = {image.media_type for image in resp.images}")
            out.add("if len(types) == 1:")
            out.add("    only = next(iter(types))")
            out.add("    if isinstance(only, str):  # one media type for all: the response-level field")
            out.add(f"        body[{lit(mt['field'])}] = _vm_{mt['map']}(only, 'images[0].media_type')")
            out.add("elif len(types) > 1:")
            out.add(f"    raise InvalidRequestError({lit(ir.title + ' states one media type per response; the images differ')}, path='images')")
        out.add("u = resp.usage")
    if ir.usage is not None:
        out.add("if isinstance(u, Usage) and u.prompt_tokens is not None and u.total_tokens is not None:")
        out.indent()
        out.add("# usage keys the table does not map (token details) come back from `raw`")
        out.add(f"raw_usage = {_get('raw', ir.usage_path)}")
        out.add("usage_wire: dict[str, Any] = dict(raw_usage) if type(raw_usage) is dict else {}")
        for counter, keys in ir.usage.items():
            target = "usage_wire"
            value = f"u.{counter}"
            if counter == "completion_tokens":
                out.add(f"if u.{counter} is not None:")
                out.indent()
            for k in keys[:-1]:
                out.add(f"{target}.setdefault({lit(k)}, {{}})")
                target = f"{target}[{lit(k)}]"
            out.add(f"{target}[{lit(keys[-1])}] = {value}")
            if counter == "completion_tokens":
                out.dedent()
        target = "body"
        for k in ir.usage_path[:-1]:
            out.add(f"{target}.setdefault({lit(k)}, {{}})")
            target = f"{target}[{lit(k)}]"
        out.add(f"{target}[{lit(ir.usage_path[-1])}] = usage_wire")
        out.dedent()
    wire_resp = wire_type(ir.key, "Response")  # generated/<module>_types.py, imported for type checkers only
    out.add(f"return cast({lit(wire_resp)}, body)")
    em.func(
        "response_to_wire",
        f"(response: {result} | Mapping[str, Any]) -> {wire_resp}",
        f"Canonical {result} -> {ir.title} response body (for gateways); envelope values come from `raw` when present.",
        out.lines,
    )
    em.parts.public.append("response_to_wire")

    emit_error_from_wire(em)

    emit_error_to_wire(em)
    return em.parts, em.regexes


# --------------------------------------------------------------------------------------------
# wire schema


def task_wire_schema(ir: TaskIR) -> dict[str, Any]:
    name = "".join(p.capitalize() for p in re.split(r"[._]", ir.key))
    resp = ir.response
    inp = ir.input
    req_props: dict[str, Any] = {ir.model_field: {"type": "string"}}
    if ir.kind == "embeddings":
        req_props[inp["field"]] = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
    else:
        req_props[inp["field"]] = {"type": "string"}
    for p in ir.params:
        schema: dict[str, Any] = {}
        if p.type is not None:
            schema["type"] = p.type
        if p.enum is not None:
            schema["enum"] = list(p.enum)
        req_props[p.name] = schema
    defs: dict[str, Any] = {
        f"{name}Request": {"type": "object", "properties": req_props, "required": [ir.model_field, inp["field"]], "additionalProperties": True}
    }
    usage_schema: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": True}
    for counter, keys in (ir.usage or {}).items():
        node = usage_schema
        for k in keys[:-1]:
            node = node["properties"].setdefault(str(k), {"type": "object", "properties": {}})
        node["properties"][str(keys[-1])] = {"type": "integer"}
    props: dict[str, Any] = {}
    for key, how, value, default, has_default in ir.envelope:
        props[key] = {"const": value} if how == "literal" else {}
    if ir.kind == "embeddings":
        item_props: dict[str, Any] = {k: {"const": v} for k, v in resp.get("item", {}).items()}
        item_props[resp["index"]] = {"type": "integer"}
        item_props[resp["vector"]] = {"type": "array", "items": {"type": "number"}}
        defs[f"{name}Item"] = {"type": "object", "properties": item_props, "required": list(item_props), "additionalProperties": False}
        props[resp["list"]] = {"type": "array", "items": {"$ref": f"#/$defs/{name}Item"}}
        if "model" in resp:
            props[resp["model"]] = {"type": "string"}
    else:
        item_props = {resp["url"]: {"type": "string"}, resp["base64"]: {"type": "string"}}
        if "revised_prompt" in resp:
            item_props[resp["revised_prompt"]] = {"type": "string"}
        defs[f"{name}Image"] = {"type": "object", "properties": item_props, "additionalProperties": False}
        props[resp["list"]] = {"type": "array", "items": {"$ref": f"#/$defs/{name}Image"}}
        if "media_type" in resp:
            vm = ir.value_maps[resp["media_type"]["map"]]
            props[resp["media_type"]["field"]] = {"enum": sorted({w for _, w in vm.pairs})}
    if ir.usage is not None:
        props[str(ir.usage_path[0])] = usage_schema if len(ir.usage_path) == 1 else {"type": "object"}
    defs[f"{name}Response"] = {
        "type": "object",
        "properties": props,
        "required": [resp["list"]],
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{name}Wire",
        "description": f"Wire shapes of {ir.key} (kind {ir.kind}), derived from {ir.source}",
        "$defs": defs,
        "anyOf": [{"$ref": f"#/$defs/{name}Request"}, {"$ref": f"#/$defs/{name}Response"}],
    }

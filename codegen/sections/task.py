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
    each: bool = False  # written in every object of input.each (and read back from them)


@dataclass
class OptionIR:
    """One canonical embeddings option (config.input_type, .dimensions, .encoding_format) and how
    the mapping writes it (mappings/README.md "request (non-chat kinds)")."""

    name: str
    wire: tuple[str, ...] | None  # None: the API has no such field
    map: str | None  # a value map: canonical -> wire spelling
    pass_other: bool  # the map's "*" row is pass (else: an unlisted value is `unsupported`)
    as_list: bool
    default: Any  # sent when the request does not set it (None: nothing)
    unsupported: str  # drop | warn | reject
    pairs: list[tuple[str, str]] = field(default_factory=list)  # the value map's rows
    each: bool = False  # written in every object of input.each


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
    options: list[OptionIR] = field(default_factory=list)  # embeddings only


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
            each = bool(spec.get("each", False))
            if each and (kind != "embeddings" or "each" not in inp):
                raise self.err(pointer + "/each", "`each` writes the param into every object of input.each, which this mapping does not have")
            if each and isinstance(inp.get("each"), dict) and name in inp["each"]:
                raise self.err(pointer + "/each", f"{name!r} is a key of input.each's template; a param cannot write there")
            params.append(ParamIR(name, spec.get("type"), list(enum) if enum is not None else None, rules, each))

        value_maps: dict[str, ValueMapIR] = {}
        for name, table in d.get("value_maps", {}).items():
            if name.startswith("x-"):
                continue
            pairs = [(k, v) for k, v in table.items() if k != "*" and not k.startswith("x-")]
            value_maps[name] = ValueMapIR(name, pairs, table["*"])

        options: list[OptionIR] = []
        if kind == "embeddings":
            if "each" in inp:
                self.each_template(inp)
            options = self.embedding_options(req, inp, params, value_maps)
            for p in params:  # an `each` param and an `each` option would write one key of the objects
                if p.each and any(o.each and o.wire is not None and o.wire[0] == p.name for o in options):
                    raise self.err(f"/request/params/{p.name}/each", f"{p.name!r} is the wire field of an `each` option; a param cannot write there too")
            inp.setdefault("texts", "many")
            if "item" in inp and "." in inp["item"]:
                raise self.err("/request/input/item", f"{inp['item']!r}: the item key of a text is one key, not a dotted path")

        resp = d["response"]
        if kind == "embeddings":
            self.embedding_response_shape(resp)
        if kind == "images" and "media_type" in resp and resp["media_type"]["map"] not in value_maps:
            known = ", ".join(sorted(value_maps)) or "(none declared)"
            raise self.err("/response/media_type/map", f"unknown value map {resp['media_type']['map']!r}; expected one of: {known}")
        if kind == "images" and resp["url"] == resp["base64"]:
            raise self.err("/response/base64", "the url and base64 fields must differ, or an image could not be told apart")
        usage = None
        usage_path: tuple[str | int, ...] = ()
        if "usage" in resp:
            u = resp["usage"]
            usage_path = parse_path(u["path"]) if u["path"] else ()  # "": the counters are at the root
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
                # the retry hint in the error body (was ignored for the non-chat kinds)
                retry_delay=(
                    {"list": parse_path(errs["retry_delay"]["list"]), "match": dict(errs["retry_delay"]["match"]), "field": errs["retry_delay"]["field"]}
                    if "retry_delay" in errs
                    else None
                ),
            ),
            fixtures=fixtures,
            fixture_lines=lines,
            options=options,
        )

    def embedding_options(self, req: dict[str, Any], inp: dict[str, Any], params: list[ParamIR], value_maps: dict[str, ValueMapIR]) -> list[OptionIR]:
        """`request.options`: the canonical embeddings options, each a wire field (through an
        optional value map) or `unsupported`."""
        from wiremap.runtime.canonical import EMBEDDING_ENCODINGS, EMBEDDING_INPUT_TYPES

        allowed = {"input_type": EMBEDDING_INPUT_TYPES, "encoding_format": EMBEDDING_ENCODINGS}
        taken = {req["model"]: "the model field", inp["field"].split(".")[0]: "the input field"}
        out: list[OptionIR] = []
        from ..load.schema import EMBEDDING_OPTIONS

        rows = req.get("options", {})
        for name in EMBEDDING_OPTIONS:
            row = rows.get(name, {"unsupported": "warn"})  # not stated: the API has no such field
            pointer = f"/request/options/{name}"
            if isinstance(row, str):
                row = {"wire": row}
            wire = row.get("wire")
            if wire is None:
                for key in ("map", "list", "default"):
                    if key in row:
                        raise self.err(f"{pointer}/{key}", f"`{key}` needs a `wire` field to write to")
                out.append(OptionIR(name, None, None, False, False, None, row.get("unsupported", "warn")))
                continue
            keys = tuple(wire.split("."))
            if keys[0] in taken:
                raise self.err(pointer + "/wire", f"{wire!r} is {taken[keys[0]]}, which the mapping fills; an option cannot write there")
            taken[keys[0]] = f"the wire field of options.{name}"
            vm_name = row.get("map")
            pass_other = False
            if vm_name is not None:
                if name == "dimensions":
                    raise self.err(pointer + "/map", "dimensions is a number; a value map maps strings")
                if vm_name not in value_maps:
                    known = ", ".join(sorted(value_maps)) or "(none declared)"
                    raise self.err(pointer + "/map", f"unknown value map {vm_name!r}; expected one of: {known}")
                vm = value_maps[vm_name]
                if vm.default not in ("reject", "pass"):
                    raise self.err(pointer + "/map", f"value map {vm_name!r}: an option map's \"*\" row is reject (an unlisted value is `unsupported`) or pass")
                pass_other = vm.default == "pass"
                for canonical, _ in vm.pairs:
                    if canonical not in allowed[name]:
                        raise self.err(f"/value_maps/{vm_name}", f"{canonical!r} is not a canonical {name}; expected one of: {', '.join(allowed[name])}")
            default = row.get("default")
            if default is not None:
                if name == "dimensions" and (type(default) is not int or default < 1):
                    raise self.err(pointer + "/default", f"{default!r}: dimensions is a positive integer")
                if name != "dimensions" and default not in allowed[name]:
                    raise self.err(pointer + "/default", f"{default!r} is not a canonical {name}; expected one of: {', '.join(allowed[name])}")
                if vm_name is not None and not pass_other and default not in dict(value_maps[vm_name].pairs):
                    raise self.err(pointer + "/default", f"{default!r} is not listed in value map {vm_name!r}, so it could not be sent")
            pairs = list(value_maps[vm_name].pairs) if vm_name is not None else []
            each = bool(row.get("each", False))
            if each and "each" not in inp:
                raise self.err(pointer + "/each", "`each` writes the field into every object of input.each, which this mapping does not have")
            if each and isinstance(inp.get("each"), dict) and keys[0] in inp["each"]:
                raise self.err(pointer + "/wire", f"{wire!r} is a key of input.each's template; an option cannot write there")
            out.append(OptionIR(name, keys, vm_name, pass_other, bool(row.get("list", False)), default, row.get("unsupported", "warn"), pairs, each))
        return out

    def each_template(self, inp: dict[str, Any]) -> None:
        """`input.each`: `{text}` once, `{model}` at most once, one placeholder per string, none in keys."""
        pointer = "/request/input/each"
        for key in ("item",):
            if key in inp:
                raise self.err(pointer, "`each` and `item` both say how a text is written; give one")
        if inp.get("one") != "array" or inp.get("texts", "many") != "many":
            raise self.err(pointer, "`each` writes an array of request objects: it needs `one: array` and `texts: many`")
        seen: list[str] = []

        def walk(node: Any, where: str) -> None:
            if isinstance(node, str):
                names = re.findall(r"\{([^{}]*)\}", node)
                if len(names) > 1:
                    raise self.err(where, f"{node!r}: one placeholder per string")
                for name in names:
                    if name not in ("text", "model"):
                        raise self.err(where, f"{{{name}}}: unknown placeholder; expected {{text}} or {{model}}")
                    seen.append(name)
            elif isinstance(node, dict):
                for k, v in node.items():
                    if "{" in k:
                        raise self.err(f"{where}/{k}", f"{k!r}: a placeholder cannot be an object key")
                    walk(v, f"{where}/{k}")
            elif isinstance(node, list):
                for i, v in enumerate(node):
                    walk(v, f"{where}/{i}")

        walk(inp["each"], pointer)
        if seen.count("text") != 1 or seen.count("model") > 1:
            raise self.err(pointer, "the template places {text} exactly once and {model} at most once")

    def embedding_response_shape(self, resp: dict[str, Any]) -> None:
        """Where the vectors are: `list` (+ `vector`, `index?`, `item?`), `by_type`, or one `vector`."""
        if "list" in resp and "by_type" in resp:
            raise self.err("/response/by_type", "the vectors are in `list` or in `by_type`, not both")
        if "by_type" in resp:
            for key in ("vector", "index", "item"):
                if key in resp:
                    raise self.err(f"/response/{key}", f"`{key}` applies to `list`; `by_type` holds the vector arrays themselves")
        elif "list" in resp:
            if "vector" not in resp:
                raise self.err("/response", "`list` needs `vector`: the field of each item that holds its vector")
        else:
            if "vector" not in resp:
                raise self.err("/response", "an embeddings response names its vectors: `list` with `vector`, `by_type`, or one `vector`")
            for key in ("index", "item"):
                if key in resp:
                    raise self.err(f"/response/{key}", f"`{key}` applies to `list`; this response holds one vector")


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
    if ir.kind == "images":
        em.emit_value_maps()  # media types; the embeddings option maps are lookup tables (emit_option_maps)
    emit_option_maps(em, ir)
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
        if inp.get("texts") == "one":
            out.add("if len(texts) > 1:")
            out.add(f"    raise InvalidRequestError({keyed(FORMAT_KEY + ' embeds one text per call (input.texts: one); the messages hold ')} + str(len(texts)) + ' texts', path='messages')")
        values = "texts" if "item" not in inp else f"[{{{lit(inp['item'])}: text}} for text in texts]"
        if "each" in inp:  # one request object per text
            values = f"[_w.fill_template({lit(inp['each'])}, {{'text': text, 'model': req.model}}) for text in texts]"
        if inp["one"] == "string":
            value = f"{values}[0] if len(texts) == 1 else {values}"
        else:
            value = values
        out.add(f"_w.set_in(body, {lit(tuple(inp['field'].split('.')))}, {value})  # one: {inp['one']}")
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
    if ir.kind != "embeddings":  # embeddings options: no row of this kind sends them
        out.add("if config.input_type is not NOT_GIVEN or config.dimensions is not NOT_GIVEN or config.encoding_format is not NOT_GIVEN:")
        out.add(f"    _w.refuse_embedding_options(config, KEY, {lit(ir.kind)})")
    for name in _OPTIONS:
        out.add(f"if config.{name} is not NOT_GIVEN:")
        out.indent()
        emit_unsupported(out, ir.config_action, name, f"config.{name}", FORMAT_KEY)
        out.dedent()
    for opt in ir.options:
        emit_option_to_wire(out, opt, tuple(inp["field"].split(".")))
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
        if p.each:  # in every request object of input.each, not at the root
            out.add(f"for each_item in _w.get_in(body, {lit(tuple(inp['field'].split('.')))}):")
            out.add("    each_item[key] = _w.canonical_json(value)  # params.each: one value for every text")
            out.add("continue")
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
    if ir.kind == "embeddings":
        out.add("rest = dict(body)")
        out.add(f"rest.pop({lit(ir.model_field)}, None)")
        out.add(f"value: Any = _w.take_in(rest, {lit(tuple(field_.split('.')))}, '')")
        if "item" in inp:
            out.add(f"value = _w.item_texts(value, {lit(inp['item'])}, {lit(field_)})")
        if "each" in inp:  # one request object per text: the options common to all, then the template
            out.add(f"each_items = [dict(_w.expect_dict(item, f'{field_}[{{k}}]')) for k, item in enumerate(_w.expect_list(value, {lit(field_)}))]")
            for opt in ir.options:
                if opt.each and opt.wire is not None:
                    out.add(f"each_{opt.name} = _w.same_in_each(each_items, {lit(opt.wire)}, {lit(field_)})")
            for p in ir.params:
                if p.each:  # params.each: read back from the objects into config.extras
                    var = f"each_param_{p.name}"
                    out.add(f"{var} = _w.same_in_each(each_items, {lit((p.name,))}, {lit(field_)})")
                    out.add(f"if {var} is not None:")
                    out.add(f"    if {lit(p.name)} in rest:")
                    out.add(f"        raise _w.WireShapeError({lit(p.name)}, 'is at the root and in the request objects: one call takes it once')")
                    out.add(f"    rest[{lit(p.name)}] = {var}")
            out.add("value = []")
            out.add("for k, item in enumerate(each_items):")
            out.add("    found: dict[str, str] = {}")
            out.add(f"    _w.match_template({lit(inp['each'])}, item, f'{field_}[{{k}}]', found)")
            if "{model}" in repr(inp["each"]):
                out.add("    if found.get('model', model) != model:")
                out.add(f"        raise _w.WireShapeError(f'{field_}[{{k}}].model', 'names model ' + repr(found['model']) + ', not the one of the whole request, ' + repr(model))")
            out.add("    value.append(found['text'])")
    else:
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
        if inp.get("texts") == "one":
            out.add("if len(texts) > 1:")
            out.add(f"    raise _w.WireShapeError({lit(field_)}, 'this call embeds one text; got ' + str(len(texts)))")
            out.add("content: str | list[Block] = texts[0]  # one text per call")
        else:
            out.add("content: str | list[Block] = texts[0] if type(value) is str else [TextBlock(text=t) for t in texts]")
        out.add("options: dict[str, Any] = {}")
        for opt in ir.options:
            emit_option_from_wire(out, opt, field_)
        out.add("config: Config | NotGiven = Config(**options, extras=rest) if rest else (Config(**options) if options else NOT_GIVEN)")
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
        out.add(f"usage_obj = {_get('body', ir.usage_path) if ir.usage_path else 'body'}")
        out.add("if type(usage_obj) is dict:")
        args = ", ".join(f"{c}=_w.usage_counter({_get('usage_obj', p)})" for c, p in ir.usage.items())
        out.add(f"    usage = Usage({args})")
        out.add("else:")
        out.add("    usage = Usage()" if ir.kind == "embeddings" else "    usage = NOT_GIVEN  # not reported (only some models report it)")
    else:
        out.add("usage = Usage()" if ir.kind == "embeddings" else "usage = NOT_GIVEN")
    if ir.kind == "embeddings":
        out.add("vectors: list[list[float]] = []")
        if "list" in resp:
            if "index" in resp:
                out.add(f"items = _w.ordered_by_index(_w.member_list(body, {lit(resp['list'])}, ''), {lit(resp['index'])}, {lit(resp['list'])})")
            else:  # in array order
                out.add(f"items = [_w.expect_dict(item, f'{resp['list']}[{{k}}]') for k, item in enumerate(_w.member_list(body, {lit(resp['list'])}, ''))]")
            out.add("for k, item in enumerate(items):")
            out.add(f"    vectors.append(_w.read_vector({_get('item', tuple(resp['vector'].split('.')))}, f'{resp['list']}[{{k}}].{resp['vector']}'))")
        elif "by_type" in resp:
            out.add(f"kind, listed = _w.vectors_by_type(body, {lit(resp['by_type'])})")
            out.add("for k, vector in enumerate(listed):")
            out.add(f"    vectors.append(_w.read_vector(vector, f'{resp['by_type']}.{{kind}}[{{k}}]'))")
        else:  # one vector
            out.add(f"vectors.append(_w.read_vector({_get('body', tuple(resp['vector'].split('.')))}, {lit(resp['vector'])}))")
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
        # the encodings this wire writes vectors in: its encoding_format row's canonical values
        # (a request that asked for base64 gets base64 of float32 where the row takes it)
        enc = next((o for o in ir.options if o.name == "encoding_format" and o.wire is not None), None)
        spellings = dict(enc.pairs) if enc is not None else {}
        em.parts.constants.append(f"VECTOR_ENCODINGS: Final = {lit(('float', 'base64') if 'base64' in spellings else ('float',))}  # what response_to_wire writes vectors in")
        one = "_w.write_vector({v}, encoding_format)" if "base64" in spellings else "list({v})"
        if "list" in resp:
            vkeys = tuple(resp["vector"].split("."))
            out.add("items: list[dict[str, Any]] = []")
            out.add("for k, vector in enumerate(resp.embeddings):")
            out.add(f"    entry: dict[str, Any] = {lit(item)}")
            if "index" in resp:
                out.add(f"    entry[{lit(resp['index'])}] = k")
            out.add(f"    _w.set_in(entry, {lit(vkeys)}, {one.format(v='vector')})")
            out.add("    items.append(entry)")
            out.add(f"_w.set_in(body, {lit(tuple(resp['list'].split('.')))}, items)")
        elif "by_type" in resp:
            # keyed by the type written, in the wire's spelling: base64 when asked for and taken, else
            # float (canonical vectors are floats: a quantized type is not made up from them)
            if "base64" in spellings:
                out.add("asked = 'base64' if encoding_format == 'base64' else 'float'")
            else:
                out.add("asked = 'float'")
            out.add(f"_w.set_in(body, {lit(tuple(resp['by_type'].split('.')))}, {{{lit(spellings)}.get(asked, 'float'): [_w.write_vector(vector, asked) for vector in resp.embeddings]}})")
        else:
            out.add("if len(resp.embeddings) != 1:")
            out.add(f"    raise InvalidRequestError({lit(ir.title + ' carries one vector per response; got ')} + str(len(resp.embeddings)), path='embeddings')")
            out.add(f"_w.set_in(body, {lit(tuple(resp['vector'].split('.')))}, {one.format(v='resp.embeddings[0]')})")
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
        if ir.usage_path:
            out.add(f"raw_usage = {_get('raw', ir.usage_path)}")
            out.add("usage_wire: dict[str, Any] = dict(raw_usage) if type(raw_usage) is dict else {}")
        else:
            out.add("usage_wire: dict[str, Any] = {}  # the counters are root keys")
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
        if not ir.usage_path:
            out.add("body.update(usage_wire)")
        else:
            for k in ir.usage_path[:-1]:
                out.add(f"{target}.setdefault({lit(k)}, {{}})")
                target = f"{target}[{lit(k)}]"
            out.add(f"{target}[{lit(ir.usage_path[-1])}] = usage_wire")
        out.dedent()
    wire_resp = wire_type(ir.key, "Response")  # generated/<module>_types.py, imported for type checkers only
    out.add(f"return cast({lit(wire_resp)}, body)")
    if ir.kind == "embeddings":
        signature = f"(response: {result} | Mapping[str, Any], encoding_format: str | None = None) -> {wire_resp}"
        doc = (f"Canonical {result} -> {ir.title} response body (for gateways); envelope values come from `raw` when present. "
               "`encoding_format`: the request's (canonical) encoding, which the vectors are written in where this wire takes it.")
    else:
        signature = f"(response: {result} | Mapping[str, Any]) -> {wire_resp}"
        doc = f"Canonical {result} -> {ir.title} response body (for gateways); envelope values come from `raw` when present."
    em.func("response_to_wire", signature, doc, out.lines)
    em.parts.public.append("response_to_wire")

    emit_error_from_wire(em)

    emit_error_to_wire(em)
    return em.parts, em.regexes


def _option_maps(opt: OptionIR) -> str:
    return f"_OPTION_{opt.name.upper()}"


def emit_option_to_wire(out: Lines, opt: OptionIR, input_keys: tuple[str, ...] = ()) -> None:
    """config.<option> -> its wire field (mappings/README.md "request (non-chat kinds)")."""
    path = f"config.{opt.name}"
    if opt.wire is None:
        out.add(f"if config.{opt.name} is not NOT_GIVEN:  # options.{opt.name}: the API has no such field")
        out.indent()
        emit_unsupported(out, opt.unsupported, opt.name, path, FORMAT_KEY)
        out.dedent()
        return
    var = f"option_{opt.name}"
    out.add(f"{var}: Any = config.{opt.name}")
    if opt.default is not None:
        # the default, unless the extras give the field themselves (a body read back keeps a
        # value with no canonical form there, Cohere `input_type: image`)
        out.add(f"if {var} is NOT_GIVEN and not (isinstance(config.extras, dict) and {lit(opt.wire[0])} in config.extras):")
        out.add(f"    {var} = {lit(opt.default)}  # options.{opt.name}.default: the API requires it")
    put = f"_w.set_in(body, {lit(opt.wire)}, {{}})"
    if opt.each:  # in every request object of input.each
        put = f"for each_item in _w.get_in(body, {lit(input_keys)}): _w.set_in(each_item, {lit(opt.wire)}, {{}})"
    if opt.map is None:
        out.add(f"if {var} is not NOT_GIVEN:")
        out.add("    " + put.format(f"[{var}]" if opt.as_list else var))
        return
    sent = f"sent_{opt.name}"
    out.add(f"if {var} is not NOT_GIVEN:")
    out.indent()
    out.add(f"{sent} = {_option_maps(opt)}[0].get({var})  # value map {opt.map}")
    if opt.pass_other:
        out.add(f"{put.format(f'[{sent} or {var}]' if opt.as_list else f'{sent} or {var}')}  # the map's \"*\" row: pass")
    else:
        out.add(f"if {sent} is not None:")
        out.add("    " + put.format(f"[{sent}]" if opt.as_list else sent))
        if opt.default is not None and opt.unsupported != "reject":
            # a field the API requires: the default goes out instead of the unlisted value
            wire_default = dict(opt.pairs).get(opt.default, opt.default)
            out.add("else:")
            out.add("    " + put.format(lit([wire_default]) if opt.as_list else lit(wire_default)))
            if opt.unsupported == "warn":
                out.add(f"    _w.warn_dropped({lit(opt.name + ' ')} + repr({var}) + {keyed(' is not supported by ' + FORMAT_KEY + '; sent ' + repr(opt.default) + ' instead')})")
        elif opt.unsupported == "reject":
            out.add("else:")
            out.add(f"    raise InvalidRequestError({lit(opt.name + ' ')} + repr({var}) + {keyed(' is not supported by ' + FORMAT_KEY)}, path={lit(path)})")
        elif opt.unsupported == "warn":
            out.add("else:")
            out.add(f"    _w.warn_dropped({lit(opt.name + ' ')} + repr({var}) + {keyed(' is not supported by ' + FORMAT_KEY + '; dropped')})")
        else:
            out.add(f"# an unlisted {opt.name} is silently dropped, as the mapping declares")
    out.dedent()


def emit_option_from_wire(out: Lines, opt: OptionIR, input_field: str = "") -> None:
    """The option's wire field -> config.<option> when it reads as one canonical value; any other
    value stays in `rest` (config.extras), so nothing is lost. An `each` option has no place in
    extras: a value that is not canonical is an error naming it."""
    if opt.wire is None:
        return
    got, one, canonical = f"got_{opt.name}", f"one_{opt.name}", f"canonical_{opt.name}"
    out.add(f"{got} = {'each_' + opt.name if opt.each else f'_w.get_in(rest, {lit(opt.wire)})'}")
    if opt.as_list:
        out.add(f"{one} = {got}[0] if type({got}) is list and len({got}) == 1 else None  # several values have no canonical form")
    else:
        one = got
    if opt.name == "dimensions":
        out.add(f"{canonical}: Any = {one} if type({one}) is int and {one} > 0 else None")
    elif opt.map is not None:
        out.add(f"{canonical}: Any = {_option_maps(opt)}[1].get({one}) if type({one}) is str else None")
        if opt.pass_other:
            out.add(f"if {canonical} is None and {one} in {lit(tuple(_allowed(opt.name)))}:")
            out.add(f"    {canonical} = {one}")
    else:
        out.add(f"{canonical}: Any = {one} if {one} in {lit(tuple(_allowed(opt.name)))} else None")
    out.add(f"if {canonical} is not None:")
    out.add(f"    options[{lit(opt.name)}] = {canonical}")
    if opt.each:
        where = f"{input_field}[0].{'.'.join(opt.wire)}"
        out.add(f"elif {got} is not None:")
        out.add(f"    raise _w.WireShapeError({lit(where)}, repr({got}) + ' has no canonical form (config.{opt.name})')")
    else:
        out.add(f"    _w.take_in(rest, {lit(opt.wire)}, '')")


def _allowed(name: str) -> tuple[str, ...]:
    from wiremap.runtime.canonical import EMBEDDING_ENCODINGS, EMBEDDING_INPUT_TYPES

    return EMBEDDING_INPUT_TYPES if name == "input_type" else EMBEDDING_ENCODINGS


def emit_option_maps(em: Emitter, ir: TaskIR) -> None:
    """Each mapped option's lookup pair (canonical -> wire, wire -> first canonical listed)."""
    for opt in ir.options:
        if opt.map is None:
            continue
        vm = ir.value_maps[opt.map]
        forward = dict(vm.pairs)
        reverse: dict[str, str] = {}
        for canonical, wire in vm.pairs:
            reverse.setdefault(wire, canonical)
        em.parts.constants.append(f"{_option_maps(opt)}: Final = ({forward!r}, {reverse!r})  # options.{opt.name}: value map {opt.map}")


# --------------------------------------------------------------------------------------------
# wire schema


def task_wire_schema(ir: TaskIR) -> dict[str, Any]:
    name = "".join(p.capitalize() for p in re.split(r"[._]", ir.key))
    resp = ir.response
    inp = ir.input
    req_props: dict[str, Any] = {ir.model_field: {"type": "string"}}
    if ir.kind == "embeddings":
        text: dict[str, Any] = {"type": "string"}
        if "item" in inp:
            text = {"type": "object", "properties": {inp["item"]: {"type": "string"}}, "required": [inp["item"]], "additionalProperties": False}
        if "each" in inp:  # one request object per text (its own shape is the template's)
            text = {"type": "object"}
        texts: dict[str, Any] = {"type": "array", "items": text}
        _nest(req_props, inp["field"].split("."), {"anyOf": [text, texts]} if inp["one"] == "string" else texts)
        for opt in ir.options:
            if opt.wire is None or opt.each:
                continue
            value: dict[str, Any] = {"type": "integer"} if opt.name == "dimensions" else {"type": "string"}
            if opt.map is not None and not opt.pass_other:
                value = {"enum": sorted({w for _, w in ir.value_maps[opt.map].pairs})}
            _nest(req_props, list(opt.wire), {"type": "array", "items": value} if opt.as_list else value)
    else:
        req_props[inp["field"]] = {"type": "string"}
    for p in ir.params:
        if p.each:  # inside each request object, whose own shape is the template's
            continue
        schema: dict[str, Any] = {}
        if p.type is not None:
            schema["type"] = p.type
        if p.enum is not None:
            schema["enum"] = list(p.enum)
        req_props[p.name] = schema
    defs: dict[str, Any] = {
        f"{name}Request": {"type": "object", "properties": req_props, "required": [ir.model_field, inp["field"].split(".")[0]], "additionalProperties": True}
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
        vector = {"type": "array", "items": {"type": "number"}}
        if "list" in resp:
            item_props: dict[str, Any] = {k: {"const": v} for k, v in resp.get("item", {}).items()}
            if "index" in resp:
                item_props[resp["index"]] = {"type": "integer"}
            _nest(item_props, resp["vector"].split("."), vector)
            defs[f"{name}Item"] = {"type": "object", "properties": item_props, "required": list(item_props), "additionalProperties": False}
            _nest(props, resp["list"].split("."), {"type": "array", "items": {"$ref": f"#/$defs/{name}Item"}})
        elif "by_type" in resp:
            # the vector arrays keyed by encoding type (int8 / binary vectors are integers, base64 strings)
            typed = {"type": "array", "items": {"anyOf": [vector, {"type": "string"}]}}
            _nest(props, resp["by_type"].split("."), {"type": "object", "additionalProperties": typed})
        else:
            _nest(props, resp["vector"].split("."), vector)
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
    if ir.usage is not None and not ir.usage_path:  # counters at the root
        for counter in usage_schema["properties"]:
            props.setdefault(counter, {"type": "integer"})
    elif ir.usage is not None:
        props.setdefault(str(ir.usage_path[0]), usage_schema if len(ir.usage_path) == 1 else {"type": "object"})
    first = str(resp.get("list") or resp.get("by_type") or resp.get("vector"))
    defs[f"{name}Response"] = {
        "type": "object",
        "properties": props,
        "required": [first.split(".")[0]],
        "additionalProperties": False,
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": f"{name}Wire",
        "description": f"Wire shapes of {ir.key} (kind {ir.kind}), derived from {ir.source}",
        "$defs": defs,
        "anyOf": [{"$ref": f"#/$defs/{name}Request"}, {"$ref": f"#/$defs/{name}Response"}],
    }


def _nest(props: dict[str, Any], keys: list[str], schema: dict[str, Any]) -> None:
    """Place `schema` at a dotted field of an object schema's `properties`."""
    for key in keys[:-1]:
        node = props.setdefault(key, {"type": "object", "properties": {}})
        props = node.setdefault("properties", {})
    props[keys[-1]] = schema

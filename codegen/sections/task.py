"""The non-chat kinds (`kind: embeddings`, `kind: images`): IR, emission and wire schema.

A chat mapping describes a conversation; these kinds describe one-shot calls whose request is a
text (or texts) extracted from the canonical messages by a named strategy, plus declared API
parameters, and whose response is a canonical `EmbeddingsResponse` / `ImagesResponse`
(docs/canonical.md). They share `meta`, `errors`, `transport` and `fixtures` with chat mappings,
and compile to the same module API (request_to_wire, response_from_wire, error_from_wire,
request_from_wire, response_to_wire and the constants). mappings/README.md "kind" documents the
tables. The functions' shapes are the macros of codegen/emit/templates/functions/task.jinja.
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
from ..emit.lines import FORMAT_KEY, Lines, wire_type
from ..emit.shapes import shape, shaped, shaped_part
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
    input_value = ""
    if inp["strategy"] == "every_text":
        values = "texts" if "item" not in inp else f"[{{{lit(inp['item'])}: text}} for text in texts]"
        if "each" in inp:  # one request object per text
            values = f"[_w.fill_template({lit(inp['each'])}, {{'text': text, 'model': req.model}}) for text in texts]"
        input_value = f"{values}[0] if len(texts) == 1 else {values}" if inp["one"] == "string" else values
    chat_options = []
    for name in _OPTIONS:
        refusal = out.part()
        emit_unsupported(refusal, ir.config_action, name, f"config.{name}", FORMAT_KEY)
        chat_options.append((name, refusal))
    option_rows = out.part()
    for opt in ir.options:
        emit_option_to_wire(option_rows, opt, tuple(inp["field"].split(".")))
    params = []
    for p in ir.params:
        rules = []
        for regex, action, patterns in p.rules:
            var = em.regex(regex)
            refusal = out.part()
            emit_unsupported(refusal, action, p.name, "config.extras." + p.name, FORMAT_KEY, scoped=True)
            rules.append((var, patterns, refusal, action != "reject"))
        params.append(shaped_part(out, "task", "param", p=p, rules=rules, each_field=tuple(inp["field"].split(".")) if p.each else None))
    shape(
        out, "task", "request_to_wire",
        kind=ir.kind, model_field=ir.model_field, inp=inp, strip=strip, every=inp["strategy"] == "every_text", input_value=input_value,
        first=inp["strategy"] == "last_user_first_text", others=inp.get("others") == "ignore",
        refuse_embedding=ir.kind != "embeddings",  # embeddings options: no row of this kind sends them
        chat_options=chat_options, option_rows=option_rows, params=params,
    )
    em.func("_request_to_wire", "(request: Request | Mapping[str, Any]) -> dict[str, Any]", "The body of request_to_wire.", out.lines)
    wire_req = wire_type(ir.key, "Request")  # generated/<module>_types.py, imported for type checkers only
    em.func(
        "request_to_wire",
        f"(request: Request | Mapping[str, Any], *, structured_output: str | None = None) -> {wire_req}",
        f"Canonical request -> {ir.title} request body (kind {ir.kind}). Validates first; never mutates its input.",
        shaped("task", "request_to_wire_public", kind=ir.kind, wire_request=wire_req),
    )
    em.parts.public.append("request_to_wire")

    # ---------------------------------------------------------------- request_from_wire
    out = Lines()
    field_ = inp["field"]
    option_reads = out.part()
    if ir.kind == "embeddings":
        for opt in ir.options:
            emit_option_from_wire(option_reads, opt, field_)
    shape(
        out, "task", "request_from_wire",
        embeddings=ir.kind == "embeddings", model_field=ir.model_field, inp=inp,
        # one request object per text: the options common to all, then the template
        each_options=[(opt.name, opt.wire) for opt in ir.options if opt.each and opt.wire is not None],
        each_params=[p.name for p in ir.params if p.each],  # params.each: read back into config.extras
        each_model="{model}" in repr(inp.get("each")), option_reads=option_reads,
    )
    em.func("_request_from_wire", "(body: Any) -> Request", "The body of request_from_wire.", out.lines)
    em.func(
        "request_from_wire",
        f"(body: {wire_type(ir.key, 'Request')} | Mapping[str, Any]) -> Request",
        f"{ir.title} request body -> canonical Request: the input as one user message, the other keys as config.extras.",
        shaped("task", "request_from_wire_public"),
    )
    em.parts.public.append("request_from_wire")

    # ---------------------------------------------------------------- response_from_wire
    resp = ir.response
    items = item_vector = one_vector = None
    if "list" in resp and "index" in resp:
        items = f"_w.ordered_by_index(_w.member_list(body, {lit(resp['list'])}, ''), {lit(resp['index'])}, {lit(resp['list'])})"
    elif "list" in resp:  # in array order
        items = f"[_w.expect_dict(item, f'{resp['list']}[{{k}}]') for k, item in enumerate(_w.member_list(body, {lit(resp['list'])}, ''))]"
    if "vector" in resp:
        item_vector = _get("item", tuple(resp["vector"].split(".")))
        one_vector = _get("body", tuple(resp["vector"].split(".")))
    em.func(
        "_response_from_wire",
        f"(body: Any) -> {result}",
        "Wire response body -> canonical result.",
        shaped(
            "task", "response_from_wire",
            embeddings=ir.kind == "embeddings", resp=resp,
            usage_at=(_get("body", ir.usage_path) if ir.usage_path else "body") if ir.usage is not None else None,
            counters=", ".join(f"{c}=_w.usage_counter({_get('usage_obj', p)})" for c, p in (ir.usage or {}).items()),
            items=items, item_vector=item_vector, one_vector=one_vector,
        ),
    )
    em.func(
        "response_from_wire",
        f"(body: {wire_type(ir.key, 'Response')} | Mapping[str, Any], *, response_schema: dict[str, Any] | None = None, structured_output: str | None = None) -> {result}",
        f"{ir.title} response body -> canonical {result} (`raw` is the body).",
        shaped("task", "response_from_wire_public", kind=ir.kind),
    )
    em.parts.public.append("response_from_wire")

    # ---------------------------------------------------------------- response_to_wire
    out = Lines()
    spellings: dict[str, str] = {}
    if ir.kind == "embeddings":
        # the encodings this wire writes vectors in: its encoding_format row's canonical values
        # (a request that asked for base64 gets base64 of float32 where the row takes it)
        enc = next((o for o in ir.options if o.name == "encoding_format" and o.wire is not None), None)
        spellings = dict(enc.pairs) if enc is not None else {}
        em.parts.constants.append(f"VECTOR_ENCODINGS: Final = {lit(('float', 'base64') if 'base64' in spellings else ('float',))}  # what response_to_wire writes vectors in")
    one = "_w.write_vector({v}, encoding_format)" if "base64" in spellings else "list({v})"
    usage = None
    if ir.usage is not None:
        usage = out.part()
        _emit_usage_writer(usage, ir)
    wire_resp = wire_type(ir.key, "Response")  # generated/<module>_types.py, imported for type checkers only
    shape(
        out, "task", "response_to_wire",
        embeddings=ir.kind == "embeddings", result=result,
        conv="as_embeddings_response" if ir.kind == "embeddings" else "as_images_response",
        envelope=ir.envelope, resp=resp, title=ir.title, item=dict(resp.get("item", {})), vector_of=lambda v: one.format(v=v),
        base64="base64" in spellings, spellings=spellings, usage=usage, wire_response=wire_resp,
    )
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


def _emit_usage_writer(out: Lines, ir: TaskIR) -> None:
    """Inside response_to_wire, when the usage is reported: the table's counters written back
    at their wire paths, over what `raw` holds there."""
    assert ir.usage is not None
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


def _option_maps(opt: OptionIR) -> str:
    return f"_OPTION_{opt.name.upper()}"


def emit_option_to_wire(out: Lines, opt: OptionIR, input_keys: tuple[str, ...] = ()) -> None:
    """config.<option> -> its wire field (mappings/README.md "request (non-chat kinds)")."""
    unsupported = None
    if opt.wire is None:
        unsupported = out.part()
        emit_unsupported(unsupported, opt.unsupported, opt.name, f"config.{opt.name}", FORMAT_KEY)
    put = f"_w.set_in(body, {lit(opt.wire)}, {{}})"
    if opt.each:  # in every request object of input.each
        put = f"for each_item in _w.get_in(body, {lit(input_keys)}): _w.set_in(each_item, {lit(opt.wire)}, {{}})"
    sent_default = None
    if opt.default is not None and opt.unsupported != "reject":
        # a field the API requires: the default goes out instead of the unlisted value
        wire_default = dict(opt.pairs).get(opt.default, opt.default)
        sent_default = lit([wire_default]) if opt.as_list else lit(wire_default)
    shape(
        out, "task", "option_to_wire",
        o=opt, put=lambda value, as_list: put.format(f"[{value}]" if as_list else value), unsupported=unsupported,
        maps=_option_maps(opt) if opt.map is not None else None, sent_default=sent_default,
    )


def emit_option_from_wire(out: Lines, opt: OptionIR, input_field: str = "") -> None:
    """The option's wire field -> config.<option> when it reads as one canonical value; any other
    value stays in `rest` (config.extras), so nothing is lost. An `each` option has no place in
    extras: a value that is not canonical is an error naming it."""
    if opt.wire is None:
        return
    allowed = lit(tuple(_allowed(opt.name)))
    if opt.name == "dimensions":
        canonical = "{0} if type({0}) is int and {0} > 0 else None"
    elif opt.map is not None:
        canonical = _option_maps(opt) + "[1].get({0}) if type({0}) is str else None"
    else:
        canonical = "{0} in " + allowed.replace("{", "{{").replace("}", "}}") + " else None"
        canonical = "{0} if " + canonical
    shape(
        out, "task", "option_from_wire",
        o=opt, got_expr=f"each_{opt.name}" if opt.each else f"_w.get_in(rest, {lit(opt.wire)})",
        canonical_expr=canonical.format,
        passed=tuple(_allowed(opt.name)) if opt.map is not None and opt.pass_other and opt.name != "dimensions" else None,
        where=f"{input_field}[0].{'.'.join(opt.wire)}",
    )


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

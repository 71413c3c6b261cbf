"""Stage 2 (ir): the intermediate representation. Every decision about a format is made here.

The IR is plain dataclasses built from a validated, resolved mapping. Templates are parsed and
checked against the canonical field catalog; scoped option rules whose API-version condition is
static are decided here; what is left for call time (model-name rules) is kept as patterns.

`FormatIR` holds the format's identity and one record per section of the mapping, as the YAML
nests them: `ir.system.strategy`, `ir.tool_results.template`, `ir.finish.map`, `ir.errors.rules`.
Every strategy is a `Literal` of the values the mapping schema allows, so `mypy --strict` checks
each emitter's branches against them (a misspelt `ir.system.strategy == "hoisted"` is an error).
"""

from __future__ import annotations

import dataclasses
import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from .catalog import CONTEXTS, FINISH_REASONS, SCHEME_VARIANT, Field, context_for_part
from ..sections.items import ItemsIR, build_items_ir
from ..load.source import MappingError
from ..load.schema import OPTION_NAMES, PART_KINDS
from ..load.resolve import Resolved
from ..sections.reasoning import build_reasoning
from ..sections.wire_rules import build_tool_name_rule, build_wire_rules
from ..sections.stream import compile_stream
from ..sections.transport_rows import COUNT_ANSWER, COUNT_REQUEST, MODELS_MODEL, MODELS_PAGE, TransportRowError, check_template
from ..sections.usage import build_usage, check_usage_fallback
from .wire_path import parse_path
from ..wiretemplate import Arr, Lit, Node, Obj, Slot, TemplateSyntaxError, parse_template, slot_path, slots_of

__all__ = [
    "Builder", "FormatIR", "OptionIR", "DeriveIR", "ValueMapIR", "build_ir", "INTEGER_OPTIONS", "BOOLEAN_OPTIONS", "STRING_OPTIONS", "OBJECT_OPTIONS",
    "SystemIR", "UserIR", "AssistantIR", "ToolResultsIR", "ToolCallsIR", "ToolsIR", "ToolChoiceIR", "ExtrasIR", "RulesIR",
    "FinishIR", "UsageIR", "ResponseIR", "ErrorsIR",
]

#: the canonical options typed int (runtime/canonical.py Config): `maximum` applies to them, and
#: a reader takes an integer-valued float for them
INTEGER_OPTIONS = frozenset({"max_tokens", "top_k", "seed", "n", "top_logprobs", "reasoning_budget"})
#: the canonical options typed float: with the integer ones, the options a `range` row bounds
NUMBER_OPTIONS = frozenset({"temperature", "top_p", "frequency_penalty", "presence_penalty"})
#: the options typed bool and str (the rest are numbers, and stop_sequences a list)
BOOLEAN_OPTIONS = frozenset({"parallel_tool_calls", "logprobs", "json_mode", "schema_strict"})
STRING_OPTIONS = frozenset({"user", "reasoning_effort", "schema_name", "schema_description", "prompt_cache_key"})
#: options whose value is a JSON object (copied when written, never shared with the caller)
OBJECT_OPTIONS = frozenset({"metadata"})
#: headers no option row may claim: HTTP framing and auth (request.options `header:`)
_PROTOCOL_HEADERS = frozenset({"authorization", "content-type", "content-length", "host", "accept", "user-agent", "x-api-key", "x-goog-api-key", "api-key"})
#: the options that are lists of strings
LIST_OPTIONS = frozenset({"stop_sequences", "betas"})


@dataclass
class ValueMapIR:
    name: str
    pairs: list[tuple[str, str]]  # canonical -> wire, author order
    default: Any  # "reject" | "pass" | {"strip_prefix": "..."}
    # canonical side true/false (YAML booleans): maps a boolean field (`{is_error?|result_status}`)
    boolean: bool = False


@dataclass
class ModelRule:
    regex: str
    action: str  # drop | warn | reject | rename (to `wire`)
    patterns: list[str]
    wire: str | None = None  # rename: the wire name for these models
    excepted: bool = False  # `models_except`: the rule is for every model but `patterns`


@dataclass
class OptionIR:
    name: str
    wire: str | None
    default: Any = None
    has_default: bool = False
    required: bool = False
    merge: bool = False
    merge_coerce_string: bool = False
    read_also: list[str] = field(default_factory=list)  # other wire names read as this option
    maximum: int | None = None  # the largest value the wire field takes (refused above it)
    # the values the provider takes, (lowest, highest), None: that end is open (a direct request
    # past them is refused; a translation clamps into them, runtime/translate.py fit_ranges)
    range: tuple[float | int | None, float | int | None] | None = None
    unsupported: str | None = None  # static action when the option cannot be sent at all
    model_rules: list[ModelRule] = field(default_factory=list)
    negate: bool = False  # a boolean the wire states the other way round
    with_keys: dict[str, Any] = field(default_factory=dict)  # written beside the value in its wire object
    requires: str | None = None  # tools | response_schema: sent only beside them
    derive: "DeriveIR | None" = None  # the value from another option this mapping cannot send
    values: list[tuple[str, str]] = field(default_factory=list)  # (wire value, canonical value)
    header: str | None = None  # sent as this request header, not in the body (HEADER_OPTIONS)


@dataclass
class DeriveIR:
    source: str  # the option it is derived from
    table: list[tuple[Any, Any]]  # (source value, value) for a string source
    steps: list[tuple[int, Any]]  # (upto, value) for a numeric source, first match wins
    below: str | None = None  # a derived integer stays below this option's value
    minimum: int | None = None  # ... and is not sent when that leaves it under `minimum`
    unless_forced: bool = False  # ... nor when tool_choice forces a tool (required or a named tool)


@dataclass
class ErrorRuleIR:
    statuses: list[int] | None  # None = any
    status_class: int | None  # 5 for "5xx"
    types: list[str]
    codes: list[str]
    body_pattern: str | None
    category: str


@dataclass
class EnvelopeItem:
    key: str
    kind: str  # literal | from_raw | slot | choice | tree (an object or array holding placeholders)
    value: Any = None  # literal value / raw key
    default: Any = None
    slot: str | None = None
    optional: bool = False


SystemStrategy = Literal["inline", "hoist"]
ContentStrategy = Literal["string_or_parts", "always_parts", "as_given", "joined_text"]


@dataclass
class SystemIR:
    """`request.system`: where system messages go."""

    strategy: SystemStrategy
    template: Obj | None  # inline: the wire message
    field: str | None  # hoist: the wire field
    join: str
    read_also: list[str]
    hoist_template: Node | None = None  # hoist with `wire:`: the hoisted object
    content_steps: tuple[Any, ...] = ()  # where {content} sits in it: keys, and "*" for a one-item array
    blocks: Obj | None = None  # one system message as a text block


@dataclass
class UserIR:
    """`request.user`: the user turn."""

    template: Obj
    content: ContentStrategy
    bare_string: Literal["reject", "read"] = "reject"  # the messages field given as a bare string


@dataclass
class AssistantIR:
    """`request.assistant`: the assistant turn."""

    template: Obj
    content: ContentStrategy
    text_part: Node | None  # the role's own text part (Responses output_text)
    order: Literal["as_given", "thinking_first"]


@dataclass
class ToolResultsIR:
    """`request.tool_results`: how tool messages travel."""

    strategy: Literal["message", "group_into_user_message"]
    template: Node
    name: Literal["given", "from_call"] = "given"
    other_content: Literal["reject", "json"] = "reject"
    content: Literal["text", "parts", "always_parts"] = "text"
    media: tuple[str, ...] = ()  # where non-text parts go
    media_parts: tuple[str, ...] = ()  # the kinds `media` takes (): every kind)
    error_template: Node | None = None  # error_wire: a failed result's form
    content_paths: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # {content} in wire, error_wire


@dataclass
class ToolCallsIR:
    """`request.tool_calls`: where an assistant turn's tool calls go."""

    placement: Literal["field", "content_blocks", "items"]
    template: Node
    missing_id: Literal["reject", "synthesize"] = "reject"
    unique_ids: bool = False
    # a call without its arguments key reads as one with no arguments ({}): `empty`
    missing_arguments: Literal["reject", "empty"] = "reject"


@dataclass
class ToolsIR:
    """`request.tools`: the tool definitions."""

    field: str
    template: Node
    strict: Literal["as_given", "close_object_schema", "close_all_object_schemas"]
    group: str | None = None  # tools: [{<group>: [...]}]
    strict_all: str | None = None  # a top-level boolean field that makes every tool strict (Cohere strict_tools)
    name_rule: dict[str, Any] | None = None  # the API's tool-name rule
    lone_object: bool = False  # the API takes one object for the array too: read as a one-item array
    # tools.schema_also: (its wire field, the form, the template's own field for {parameters}):
    # the parameters read from that field, in that schema language, when the template's is absent
    schema_also: tuple[str, str, str] | None = None


@dataclass
class ToolChoiceIR:
    """`request.tool_choice`: the modes with a wire form, and those left out or refused."""

    field: str
    modes: dict[str, Node]
    special: dict[str, str] = dataclasses.field(default_factory=dict)  # mode -> omit | omit_tools | reject
    requires_tools: bool = False  # `requires: tools`: the field is left out when the request has no tools


@dataclass
class ExtrasIR:
    """`request.extras`: where config.extras go and how they meet mapped keys."""

    collision: Literal["managed", "mapped_wins"]
    reserved: dict[str, Any]
    under: tuple[str, ...] = ()  # placement {under: a.b}: () = root
    root: tuple[str, ...] = ()  # placement {under, root: [...]}: keys sent at the root instead


@dataclass
class RulesIR:
    """`request.rules`: the API's own rules, or OpenArmature's."""

    ordering: Literal["api", "openarmature"] = "api"
    json_keys: Literal["as_given", "sorted"] = "as_given"
    content: Literal["api", "openarmature"] = "api"
    structure: Literal["api", "openarmature"] = "api"


@dataclass
class FinishIR:
    """`response.finish_reason`."""

    path: tuple[str | int, ...]
    map: list[tuple[str, str]]
    default: str
    emit: dict[str, str]
    with_tool_calls: str | None = None


@dataclass
class UsageIR:
    """`response.usage`."""

    path: tuple[str | int, ...]
    counters: dict[str, Any]  # canonical counter -> tuple path | usage.UsageSum
    unreported: Literal["omit", "zero"]  # what response_to_wire writes for unreported counters
    fallback: dict[str, str] = field(default_factory=dict)  # usage-object key -> the key read in its place when it holds no object


@dataclass
class ResponseIR:
    """`response`: where the message is and what surrounds it."""

    message: tuple[str | int, ...]
    envelope: list[EnvelopeItem]
    refusal_field: str | None
    content: Literal["as_request", "joined_text"]
    message_missing: Literal["error", "empty"] = "error"


@dataclass
class ErrorsIR:
    """`errors`: how an HTTP error is read and answered."""

    message: tuple[str | int, ...]
    type: tuple[str | int, ...] | None
    type_header: str | None  # the type from a response header
    code: tuple[str | int, ...] | None
    rules: list[ErrorRuleIR]
    retry_after_headers: list[str]
    emit: dict[str, Any] | None  # error_to_wire's envelope and category rows
    retry_delay: dict[str, Any] | None = None


@dataclass
class FormatIR:
    """A chat format, every decision made: its identity, then one record per section of the
    mapping (`ir.system.strategy`, `ir.tool_results.template`), each strategy a Literal."""

    key: str
    provider: str
    wire: str
    title: str
    doc_ref: str
    api_version: str | None
    source: str
    endpoint: dict[str, str] | None
    transport: dict[str, Any] | None
    model_field: str
    messages_field: str
    system: SystemIR
    user: UserIR
    assistant: AssistantIR
    parts: dict[str, Node | str]
    tool_calls: ToolCallsIR
    tool_results: ToolResultsIR
    tools: ToolsIR
    tool_choice: ToolChoiceIR
    options: list[OptionIR]
    extras: ExtrasIR
    unmodeled: dict[str, dict[str, str]]
    signatures: Literal["strip_foreign", "strip_all"]
    value_maps: dict[str, ValueMapIR]
    response: ResponseIR
    finish: FinishIR
    usage: UsageIR
    errors: ErrorsIR
    structured: dict[str, Any] | None
    structured_template: Node | None
    fixtures: list[dict[str, Any]]
    fixture_lines: dict[str, int]
    rules: RulesIR = field(default_factory=RulesIR)
    part_dispatch: Literal["literals", "keys"] = "literals"
    unknown: Literal["reject", "carry"] = "reject"  # request.unknown
    wire_keys: frozenset[str] = frozenset()  # every wire key the tables name (runtime/carry.py)
    # request.field_names (also: proto): proto field name -> the tables' JSON name, and the keys
    # whose values are the caller's JSON (runtime/wire.py ProtoNames); None: the tables' names only
    proto_names: tuple[dict[str, str], frozenset[str]] | None = None
    path_params: tuple[str, ...] = ()  # `{field}` placeholders of transport.endpoint.path
    items: ItemsIR = field(default_factory=ItemsIR)  # item-list rows (codegen/sections/items.py)
    wire_rules: dict[str, Any] | None = None  # mapping `wire_rules:` (codegen/sections/wire_rules.py)
    reasoning: dict[str, Any] | None = None  # request.reasoning (codegen/sections/reasoning.py)
    stream: dict[str, Any] | None = None  # the compiled `stream:` table (codegen/sections/stream.py)
    strategy_hooks: tuple[str, ...] = ()  # `strategies:` hooks the converter calls (codegen/sections/strategies.py)
    # `request.cache_points`: a prompt-cache breakpoint as its own item after the one it marks
    cache_point: Obj | None = None


def _as_list(value: str | list[str] | None) -> list[str]:
    """A rule's `type` / `code`: one string or a list of them."""
    return [value] if isinstance(value, str) else list(value or [])


def build_error_rules(errs: dict[str, Any], err: Callable[[str, str], MappingError]) -> list[ErrorRuleIR]:
    """The `errors.rules` table, checked (every kind of mapping has one)."""
    rules: list[ErrorRuleIR] = []
    for i, rule in enumerate(errs["rules"]):
        status = rule.get("status", "*")
        statuses = None
        status_class = None
        if isinstance(status, int):
            statuses = [status]
        elif isinstance(status, list):
            statuses = list(status)
        elif status != "*":
            status_class = int(status[0])
        body = rule.get("body_matches")
        if body is not None:
            try:
                re.compile(body)
            except re.error as exc:
                raise err(f"/errors/rules/{i}/body_matches", f"not a valid regular expression: {exc}") from None
        rules.append(ErrorRuleIR(statuses, status_class, _as_list(rule.get("type")), _as_list(rule.get("code")), body, rule["category"]))
    return rules


_PATH_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


MAX_ERROR_PATH = 16  # keys in an errors.message / type / code path (providers use 1-3)


class Builder:
    def __init__(self, resolved: Resolved) -> None:
        self.r = resolved
        self.data = resolved.data
        # value maps by the kind of field they map: a boolean map ("true"/"false" rows) maps
        # `{is_error?|...}`; a map serves one kind
        self.map_kinds: dict[str, str] = {}

    def _range(self, pointer: str, name: str, spec: dict[str, Any], opt: OptionIR) -> tuple[Any, Any]:
        """A `range: [lowest, highest]` row (null: that end open), checked against the option."""
        if name not in NUMBER_OPTIONS | INTEGER_OPTIONS:
            raise self.err(pointer, f"`range` bounds the numeric options ({', '.join(sorted(NUMBER_OPTIONS | INTEGER_OPTIONS))}), not {name}")
        if opt.wire is None:
            raise self.err(pointer, "`range` bounds a value that is sent: the row needs a `wire:` (an unsupported option is never sent)")
        if opt.maximum is not None:
            raise self.err(pointer, "`range` and `maximum` exclude each other (write the largest value as the range's upper end)")
        lo, hi = spec["range"]
        for end, bound in (("lowest", lo), ("highest", hi)):
            if bound is not None and name in INTEGER_OPTIONS and (type(bound) is not int and not (isinstance(bound, float) and bound.is_integer())):
                raise self.err(pointer, f"{name} is an integer option: its {end} value {bound!r} must be an integer")
        if name in INTEGER_OPTIONS:
            lo, hi = (None if lo is None else int(lo)), (None if hi is None else int(hi))
        if lo is None and hi is None:
            raise self.err(pointer, "a range bounds at least one end: [lowest, highest], null for an open end")
        if lo is not None and hi is not None and lo > hi:
            raise self.err(pointer, f"the lowest value {lo!r} is more than the highest {hi!r}")
        default = spec.get("default")
        if "default" in spec and isinstance(default, (int, float)) and not isinstance(default, bool):
            if (lo is not None and default < lo) or (hi is not None and default > hi):
                raise self.err(pointer, f"the row's default {default!r} is outside its own range")
        return lo, hi

    def _derive(self, pointer: str, name: str, spec: dict[str, Any]) -> DeriveIR:
        """An option row's `derive`: checked here so the generated table is always total."""
        source = spec["from"]
        if source == name:
            raise self.err(pointer + "/from", "an option cannot be derived from itself")
        kinds = {"map": source in STRING_OPTIONS, "steps": source in INTEGER_OPTIONS}
        given = [k for k in ("map", "steps") if k in spec]
        if len(given) != 1:
            raise self.err(pointer, "`derive` takes exactly one of `map` (a string option) and `steps` (an integer option)")
        if not kinds[given[0]]:
            raise self.err(pointer + "/" + given[0], f"`{given[0]}` does not fit {source}: `map` derives from {', '.join(sorted(STRING_OPTIONS))}, `steps` from {', '.join(sorted(INTEGER_OPTIONS))}")
        values = list(spec.get("map", {}).values()) + [step["value"] for step in spec.get("steps", [])]
        for value in values:
            ok = (
                type(value) is int if name in INTEGER_OPTIONS
                else type(value) is bool if name in BOOLEAN_OPTIONS
                else type(value) is str if name in STRING_OPTIONS
                else isinstance(value, (int, float)) and not isinstance(value, bool)
            )
            if not ok:
                raise self.err(pointer, f"derived value {value!r} is not a valid {name}")
        steps = [(step["upto"], step["value"]) for step in spec.get("steps", [])]
        if [u for u, _ in steps] != sorted(u for u, _ in steps):
            raise self.err(pointer + "/steps", "steps must be in increasing `upto` order (the first match wins)")
        below = spec.get("below")
        if below is not None and (below not in INTEGER_OPTIONS or name not in INTEGER_OPTIONS):
            raise self.err(pointer + "/below", "`below` keeps an integer option under another integer option")
        if "minimum" in spec and name not in INTEGER_OPTIONS:
            raise self.err(pointer + "/minimum", "`minimum` applies to a derived integer option")
        return DeriveIR(source, [(k, v) for k, v in spec.get("map", {}).items() if not k.startswith("x-")], steps, below, spec.get("minimum"), bool(spec.get("unless_forced", False)))

    def err(self, pointer: str, message: str) -> MappingError:
        return self.r.error(pointer, message)

    def proto_names(self, req: dict[str, Any], wire_keys: frozenset[str]) -> tuple[dict[str, str], frozenset[str]] | None:
        """request.field_names: each lowerCamelCase key the tables name, by its proto field name
        (snake_case), where that is another name no table uses; the opaque keys must be keys the
        tables name (a misspelt one would let the reader rename inside the caller's JSON)."""
        spec = req.get("field_names")
        if spec is None:
            return None
        opaque = frozenset(spec["opaque"])
        for i, key in enumerate(spec["opaque"]):
            if key not in wire_keys:
                raise self.err(f"/request/field_names/opaque/{i}", f"{key!r} is not a key the tables name, so the reader never meets it: opaque lists the keys whose values are the caller's JSON")
        names = {}
        for key in sorted(wire_keys):
            if not _CAMEL.match(key):  # lowerCamelCase names only (not a value: `ANY`, `STOP`)
                continue
            proto = re.sub(r"([A-Z])", r"_\1", key).lower()
            if proto != key and proto not in wire_keys:
                names[proto] = key
        return names, opaque

    def parse(self, pointer: str, value: Any) -> Node:
        """A template's syntax tree; a syntax error is a MappingError at its place."""
        try:
            return parse_template(value, pointer)
        except TemplateSyntaxError as exc:
            raise self.err(exc.pointer, str(exc)) from None

    def template(self, pointer: str, value: Any, context: str) -> Node:
        node = self.parse(pointer, value)
        fields = CONTEXTS[context]
        for slot in slots_of(node):
            self.check_slot(slot, fields, context)
        return node

    def error_path(self, pointer: str, text: str) -> tuple[str | int, ...]:
        """An error body path (`error.message`): error_to_wire builds the body as nested literals."""
        path = parse_path(text)
        if len(path) > MAX_ERROR_PATH:
            raise self.err(pointer, f"a path of {len(path)} keys; an error body path has at most {MAX_ERROR_PATH}")
        return path

    def usage_path(self, pointer: str, text: str) -> tuple[str | int, ...]:
        """A usage counter's wire path: it is written into the usage object, so never empty."""
        path = parse_path(text)
        if not path:
            raise self.err(pointer, f"{text!r} names no wire field; write a path such as `total_tokens`")
        return path

    def message_template(self, pointer: str, value: Any, context: str) -> Obj:
        """A role's message template (system inline, user, assistant): the wire message object."""
        node = self.template(pointer, value, context)
        if not isinstance(node, Obj):
            raise self.err(pointer, f"the {context} template must be an object (the wire message)")
        return node

    def tool_result_media_parts(self, tr: dict[str, Any]) -> tuple[str, ...]:
        kinds = tr.get("media_parts")
        if kinds is None:
            return ()
        pointer = "/request/tool_results/media_parts"
        if "media" not in tr and tr.get("content", "text") == "text":
            raise self.err(pointer, "media_parts lists the part kinds `media` (or `content: parts`, `always_parts`) takes; give one of them too")
        known = ("image.url", "image.inline", "audio.url", "audio.inline", "file.url", "file.inline")
        for i, kind in enumerate(kinds):
            if kind not in known:
                raise self.err(f"{pointer}/{i}", f"{kind!r} is not a media part kind ({', '.join(known)})")
        return tuple(kinds)

    def cache_point(self, parts: dict[str, Node | str], result: Node, tool: Node, system_blocks: Obj | None) -> Obj | None:
        """`request.cache_points`: the breakpoint item's template, checked. It is told apart from
        the items beside it on reading, so it needs a literal or a key of its own; and a table
        writes a breakpoint one way, so no other template places {cache_control?}."""
        spec = self.data["request"].get("cache_points")
        if spec is None:
            return None
        pointer = "/request/cache_points/wire"
        node = self.template(pointer, spec["wire"], "cache_point")
        self.readable_arrays(node)
        if not isinstance(node, Obj) or not node.items:
            raise self.err(pointer, "a cache point is an object ({cachePoint: {type: \"{type}\"}})")
        self.require_slot(node, pointer, "type", "cache_point")
        own = {k for k, _ in node.items}
        if self.data["request"].get("part_dispatch", "literals") == "keys" or not any(isinstance(c, Lit) for _, c in node.items):
            for where, other in [*((f"/request/content_parts/{k}", n) for k, n in parts.items()), ("/request/tool_results/wire", result), ("/request/tools/wire", tool)]:
                if isinstance(other, Obj) and own <= {k for k, _ in other.items}:
                    raise self.err(pointer, f"its keys ({', '.join(sorted(own))}) are all keys of {where} too: give the cache point a key of its own, to be told apart when read")
        placed: list[tuple[str, Node | str | None]] = [*((f"/request/content_parts/{k}", n) for k, n in parts.items()), ("/request/tool_results/wire", result), ("/request/tools/wire", tool), ("/request/system/blocks", system_blocks)]
        for at, template in placed:
            if template is not None and not isinstance(template, str) and any(s.field == "cache_control" for s in slots_of(template)):
                raise self.err(at, "places {cache_control?} beside request.cache_points: a breakpoint is written one way; leave it to cache_points")
        return node

    def error_emit(self, emit: dict[str, Any] | None) -> dict[str, Any] | None:
        """`errors.emit`, its `headers` checked: a header value is a literal or a whole {type},
        {code}, {code?} or {status} (never the message: free text has no place in a header)."""
        for name, value in ((emit or {}).get("headers") or {}).items():
            pointer = f"/errors/emit/headers/{name}"
            if not re.fullmatch(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+", name):
                raise self.err(pointer, f"{name!r} is not an HTTP header name")
            if "{" in value or "}" in value:
                if value not in ("{type}", "{code}", "{code?}", "{status}"):
                    raise self.err(pointer, f"a header value is a literal or one of {{type}}, {{code}}, {{code?}}, {{status}}, the whole value; not {value!r} (the message is free text, which a header cannot carry)")
            elif any(ord(c) < 32 or ord(c) == 127 for c in value):
                raise self.err(pointer, "a header value may not hold control characters")
        return emit

    def tool_result_media(self, tr: dict[str, Any]) -> tuple[str, ...]:
        """`request.tool_results.media`, checked: a key path beside {content}, with `content: text`."""
        if tr.get("content") == "always_parts" and self.data["request"].get("user", {}).get("content", "string_or_parts") not in ("always_parts", "as_given"):
            # the parts are written by the user turn's writer, which folds one text part into a string
            raise self.err("/request/tool_results/content", "`always_parts` writes a result's parts as a user turn's, so user.content must be `always_parts` or `as_given` (string_or_parts folds one text part into a string); write `parts`")
        media = tr.get("media")
        if media is None:
            return ()
        pointer = "/request/tool_results/media"
        if tr.get("content", "text") != "text":
            raise self.err(pointer, "media places the non-text parts beside a text {content}; it excludes `content: parts`")
        keys = tuple(media.split("."))
        wire = tr["wire"]
        if not isinstance(wire, dict) or not isinstance(wire.get(keys[0]), dict) or len(keys) < 2:
            raise self.err(pointer, f"{media!r} must lead into an object of the result template (e.g. functionResponse.parts)")
        return keys

    def template_with(self, pointer: str, value: Any, context: str, required: tuple[str, ...]) -> Node:
        """A template that its reader reads back whole: each field in `required` needs a slot, and
        an array inside it can only be a one-placeholder array (`["{name}"]`)."""
        node = self.template(pointer, value, context)
        self.readable_arrays(node)
        have = {slot.field for slot in slots_of(node)}
        missing = [f"{{{name}}}" for name in required if name not in have]
        if missing:
            raise self.err(pointer, f"the {context} template must place {', '.join(missing)} (the reader reads it back)")
        return node

    def readable_arrays(self, node: Node) -> None:
        """The reader (emit.read_node) reads an array inside an object as one placeholder
        (["{field}"]) or as chunks: one object placing one required string placeholder (Mistral's
        `thinking: [{type: text, text: "{text}"}]`), read back as a list of such objects whose
        texts are joined."""
        if isinstance(node, Obj):
            for _key, child in node.items:
                if isinstance(child, Arr) and len(child.items) >= 2 and all(isinstance(n, Obj) for n in child.items):
                    self.keyed_items(child)
                    for item in child.items:
                        self.readable_arrays(item)
                    continue
                if isinstance(child, Arr) and not (len(child.items) == 1 and isinstance(child.items[0], Slot)) and not _text_chunks(child):
                    raise self.err(
                        child.pointer,
                        'an array in this template holds one placeholder (["{field}"]), one object placing one '
                        'required string placeholder ([{type: text, text: "{text}"}]), or several objects each with '
                        'a key no other item has ([{text: "{text}"}, {cachePoint: "{cache_control?}"}]): it is read back',
                    )
                if not isinstance(child, Arr):
                    self.readable_arrays(child)

    def keyed_items(self, arr: Arr) -> None:
        """An array of several objects (Bedrock `[{text: "{text}"}, {cachePoint: "{cache_control?}"}]`):
        each item is told apart on read-back by its first key that no other item has; an item of
        optional placeholders only ({key: "{field?}"}) is written when one of them is present."""
        for i, item in enumerate(arr.items):
            assert isinstance(item, Obj)
            others = {k for j, other in enumerate(arr.items) if j != i and isinstance(other, Obj) for k, _ in other.items}
            if not any(k not in others for k, _ in item.items):
                raise self.err(
                    item.pointer,
                    f"item {i} of this array has no key that the other items lack, so it cannot be told apart "
                    "from them when read back; give each item a key of its own",
                )
            slots = slots_of(item)
            if slots and all(s.optional for s in slots) and not all(isinstance(n, Slot) for _, n in item.items):
                raise self.err(
                    item.pointer,
                    "an array item whose placeholders are all optional is written only when one is present: "
                    'it holds optional placeholders only, each a whole value ({cachePoint: "{cache_control?}"})',
                )

    def check_slot(self, slot: Slot, fields: dict[str, Field], context: str) -> None:
        spec = fields.get(slot.field)
        if spec is None:
            raise self.err(
                slot.pointer,
                f"{{{slot.field}}} is not a field of {context}; expected one of: {', '.join(sorted(fields))}",
            )
        if slot.codec == "from_url":
            if slot.field != "media_type" or not context.endswith(".url"):
                raise self.err(slot.pointer, "the from_url codec applies to {media_type} of a url part (image.url, audio.url, file.url)")
            if not slot.optional:
                raise self.err(slot.pointer, "{media_type|from_url} may find no media type; write {media_type?|from_url}")
            return
        if slot.codec is not None and slot.codec != "json":
            if slot.codec not in self.data.get("value_maps", {}):
                known = ", ".join(["from_url", "json", *sorted(self.data.get("value_maps", {}))])
                raise self.err(slot.pointer, f"unknown codec {slot.codec!r}; expected one of: {known}")
            if spec.kind not in ("str", "bool"):
                raise self.err(slot.pointer, f"value map {slot.codec!r} applies to strings and booleans, not {spec.kind}")
            table = self.data["value_maps"][slot.codec]
            if spec.kind == "bool":
                rows = {k for k in table if k != "*" and not k.startswith("x-")}
                if rows != {"true", "false"} or table["*"] != "reject":
                    raise self.err(slot.pointer, f'{{{slot.field}}} is a boolean: value map {slot.codec!r} must list exactly "true" and "false" (quoted), with "*": reject (an unknown wire value is an error when read)')
            used = self.map_kinds.setdefault(slot.codec, spec.kind)
            if used != spec.kind:
                raise self.err(slot.pointer, f"value map {slot.codec!r} maps {used} fields elsewhere in this file; {{{slot.field}}} is {spec.kind}: give it a map of its own")
        if slot.codec == "json" and spec.kind not in ("object", "schema"):
            raise self.err(slot.pointer, "the json codec applies to objects (arguments, schemas)")
        if slot.optional and not spec.optional:
            raise self.err(slot.pointer, f"{{{slot.field}?}}: {slot.field} is always present in {context}; drop the '?'")
        if slot.has_default and not spec.optional:
            raise self.err(slot.pointer, f"{{{slot.field}=...}}: {slot.field} is always present in {context}; a default is never used")
        if slot.has_default and slot.codec is not None:
            raise self.err(slot.pointer, f"{{{slot.field}=...}}: a default cannot be combined with a codec")
        # In a content part, an optional field placed without `?` means "sent only for blocks that
        # carry it" (Anthropic thinking needs its signature). Elsewhere it must say what to do
        # when absent; tool parameters default to an empty object schema.
        resolved_name = (context, slot.field) == ("tool_result", "name") and self.data["request"]["tool_results"].get("name") == "from_call"
        if spec.optional and not slot.optional and not slot.has_default and not context.startswith(("part.", "message.")) and (context, slot.field) != ("tool", "parameters") and not resolved_name:
            raise self.err(slot.pointer, f"{{{slot.field}}}: {slot.field} may be absent in {context}; write {{{slot.field}?}}")

    def content_steps(self, node: Node, pointer: str) -> tuple[Any, ...]:
        """Where a hoisted system template places {content}: object keys, and "*" for an array
        of exactly one item (read back as a list whose items' contents are joined)."""
        if isinstance(node, Slot) and node.field == "content" and node.codec is None:
            return ()
        if isinstance(node, Obj):
            for key, child in node.items:
                if any(s.field == "content" for s in slots_of(child)):
                    return (key, *self.content_steps(child, pointer + "/" + key))
        if isinstance(node, Arr) and len(node.items) == 1:
            return ("*", *self.content_steps(node.items[0], pointer + "/0"))
        raise self.err(
            pointer,
            "a hoisted system template places {content} as a whole value, reached through objects "
            "and one-item arrays (e.g. {parts: [{text: \"{content}\"}]})",
        )

    def require_slot(self, node: Node, pointer: str, name: str, context: str) -> None:
        if not any(s.field == name for s in slots_of(node)):
            raise self.err(pointer, f"the {context} template must place {{{name}}}")

    def transport(self) -> dict[str, Any] | None:
        """The transport table, with `{api_version}` in header values filled in now."""
        t = self.data.get("transport")
        if t is None:
            return None
        auth = dict(t["auth"])
        if auth["scheme"] in ("header", "query") and "name" not in auth:
            raise self.err("/transport/auth", f"auth scheme {auth['scheme']} needs `name:` (the header or query parameter)")
        if auth.get("bearer_tokens") and auth["scheme"] not in ("header", "query"):
            raise self.err("/transport/auth/bearer_tokens", f"bearer_tokens says a bearer token may replace a key sent in a header or query parameter; auth scheme {auth['scheme']} has none")
        if auth.get("bearer_tokens") is False:
            del auth["bearer_tokens"]  # false is the default: the generated table stays as it was
        api_version = self.data["meta"].get("api_version") or ""
        headers = {k: v.replace("{api_version}", api_version) for k, v in t.get("headers", {}).items()}
        if "base_url" not in t and "base_url_env" not in t:
            raise self.err("/transport", "give `base_url:` (the provider's origin) or `base_url_env:` (the variable naming a per-resource one), or both")
        # `{api_version}` in a path is a query parameter or segment the version fills (Azure's
        # `?api-version=`), filled in now as in headers; a mapping without one cannot use it
        endpoint = dict(t["endpoint"])
        ready = dict(t["ready"]) if t.get("ready") is not None else None
        if t.get("ready_unavailable") is not None and ready is not None:
            raise self.err("/transport/ready_unavailable", "says the API has no ready() probe, but `ready:` gives one; set `ready: null` or drop this row")
        for pointer, row in (("/transport/endpoint/path", endpoint), ("/transport/ready/path", ready)):
            if row is not None and "{api_version}" in row["path"]:
                if not api_version:
                    raise self.err(pointer, "{api_version} needs meta.api_version")
                row["path"] = row["path"].replace("{api_version}", api_version)
        model_field = self.data["request"]["model"]
        params = {k: dict(v) for k, v in (t.get("params") or {}).items() if not k.startswith("x-")}
        if model_field in params:
            raise self.err(f"/transport/params/{model_field}", f"{model_field!r} is the request's model field (request.model), bound from the body; "
                           "a transport param names a placeholder that is no request field")
        for name in re.findall(r"\{([^{}]*)\}", t.get("base_url") or ""):  # absent where `base_url_env` alone gives it (Azure)
            if name not in params:
                raise self.err("/transport/base_url", f"{{{name}}}: a base_url placeholder must be a transport param "
                               f"(transport.params: {{{name}: {{env: VARIABLE}}}}); declared: {', '.join(sorted(params)) or 'none'}")
        by = {k: v for k, v in (t.get("base_url_by") or {}).items() if not k.startswith("x-")}
        for name, origins in by.items():  # another origin for some values of one param (Vertex AI's global)
            if name not in params:
                raise self.err(f"/transport/base_url_by/{name}", f"{name!r}: base_url_by picks an origin by a transport param's value; "
                               f"declared params: {', '.join(sorted(params)) or 'none'}")
            if not t.get("base_url"):
                raise self.err("/transport/base_url_by", "base_url_by replaces the table's `base_url` for some param values: give `base_url:` too")
            for value, origin in origins.items():
                for other in re.findall(r"\{([^{}]*)\}", origin):
                    if other not in params:
                        raise self.err(f"/transport/base_url_by/{name}/{value}", f"{{{other}}}: a base_url placeholder must be a transport param; "
                                       f"declared: {', '.join(sorted(params))}")
        self.path_placeholders("/transport/endpoint/path", endpoint["path"], model_field, params)
        stream_endpoint = (self.data.get("stream") or {}).get("endpoint")
        if isinstance(stream_endpoint, dict) and isinstance(stream_endpoint.get("path"), str):
            self.path_placeholders("/stream/endpoint/path", stream_endpoint["path"], model_field, params)
        fallback = auth.get("fallback")
        if isinstance(fallback, dict) and "aws_sigv4" in fallback and fallback["aws_sigv4"]["region"] not in params:
            raise self.err("/transport/auth/fallback/aws_sigv4/region", f"{fallback['aws_sigv4']['region']!r}: the signing region names a transport param "
                           f"(declared: {', '.join(sorted(params)) or 'none'})")
        if fallback is not None and auth["scheme"] != "bearer":
            raise self.err("/transport/auth/fallback", "a fallback replaces a missing bearer key: it needs `scheme: bearer`")
        out: dict[str, Any] = {
            "base_url": t.get("base_url"),
            "endpoint": endpoint,
            "auth": auth,
            "headers": headers,
            "api_key_env": t.get("api_key_env"),
            "ready": ready,
        }
        if "base_url_env" in t:  # present only where the mapping has it
            out["base_url_env"] = t["base_url_env"]
        if t.get("ready_unavailable") is not None:  # present only where the mapping has it
            out["ready_unavailable"] = t["ready_unavailable"]
        if by:  # present only where the mapping has it
            out["base_url_by"] = {name: dict(origins) for name, origins in by.items()}
        if "api_key_env_also" in t:  # only where the mapping has it, so other tables compile as before
            if "api_key_env" not in t:
                raise self.err("/transport/api_key_env_also", "names variables tried after `api_key_env`, which is missing")
            if t["api_key_env"] in t["api_key_env_also"]:
                raise self.err("/transport/api_key_env_also", f"{t['api_key_env']!r} is `api_key_env` itself")
            out["api_key_env_also"] = list(t["api_key_env_also"])
        # the rows added for the cloud-hosted dialects, present only where the mapping has them
        if params:
            out["params"] = params
        if t.get("body"):
            out["body"] = {k: v for k, v in t["body"].items()}
        # the gateway's rows, present only where the mapping has them
        if "models" in t:
            out["models"] = self.models_row(t["models"])
        if "count_tokens" in t:
            out["count_tokens"] = self.count_tokens_row(t["count_tokens"])
        return out

    def schema_also(self, tools: dict[str, Any], tool_t: Any) -> tuple[str, str, str] | None:
        """`tools.schema_also`: a tool's parameters also read from another top-level field of the
        tool, in another schema language, when the template's own `{parameters}` field is absent.
        That field is a top-level key of the template, and the other is not one of its keys."""
        also = tools.get("schema_also")
        if also is None:
            return None
        own = self.schema_also_beside(tool_t, "parameters", also["field"], "/request/tools/schema_also", ("tool template", "tool template", "another field of the tool"))
        return (str(also["field"]), str(also["form"]), own)

    def schema_also_beside(self, template: Any, slot: str, field_: str, pointer: str, names: tuple[str, str, str]) -> str:
        """A `schema_also` row's checks (request.tools, structured_output): the template places
        `{slot}` at a top-level key of its own (returned), and `field_` is not one of its keys.
        `names`: how the messages name the template (twice) and the field expected."""
        where, what, other = names
        own = slot_path(template, slot)
        if own is None or "." in own or own == ".":
            raise self.err(pointer, f"the {where} places no {{{slot}}} at a top-level key of its own; schema_also reads another field only beside that one")
        keys = {k for k, _ in template.items} if isinstance(template, Obj) else set()
        if field_ in keys:
            raise self.err(pointer + "/field", f"{field_!r} is a key of the {what}; expected {other}")
        return own

    def strict_all_field(self, tools: dict[str, Any], tool_t: Any) -> str | None:
        """`tools.strict_all`: one request-level boolean for every tool's `strict` (Cohere's
        strict_tools). The tool template then places no `{strict}` of its own, and the field is
        a top-level one no other row writes."""
        field_ = tools.get("strict_all")
        if field_ is None:
            return None
        if any(s.field == "strict" for s in slots_of(tool_t)):
            raise self.err("/request/tools/strict_all", "the tool template places {strict} itself; a tool's strict goes either in its template or in one request-level field, not both")
        others = {tools["field"], self.data["request"]["tool_choice"]["field"], self.data["request"]["model"], self.data["request"]["messages"]}
        others |= {o if isinstance(o, str) else o.get("wire") for o in (self.data["request"].get("options") or {}).values() if isinstance(o, (str, dict))}
        if "." in field_ or field_ in others:
            raise self.err("/request/tools/strict_all", f"{field_!r}: expected a top-level wire field no other row writes")
        return str(field_)

    def path_placeholders(self, pointer: str, path: str, model_field: str, params: dict[str, Any]) -> None:
        """Each `{name}` of an endpoint path is the request's model field (moved from the body into
        the URL) or a transport param."""
        for name in re.findall(r"\{([^{}]*)\}", path):
            if name != model_field and name not in params:
                raise self.err(
                    pointer,
                    f"{{{name}}}: a path placeholder names a top-level request field the transport moves into the URL "
                    f"or a transport param; expected {{{model_field}}} (request.model)"
                    + (f" or one of: {', '.join('{' + p + '}' for p in sorted(params))}" if params else ""),
                )

    def models_row(self, row: dict[str, Any]) -> dict[str, Any]:
        """`transport.models`: the gateway's list endpoint in this format (mappings/README.md)."""
        if _PATH_PLACEHOLDER.search(row["path"]):
            raise self.err("/transport/models/path", f"{row['path']!r}: the models path takes no placeholder")
        self.transport_template("/transport/models/page", row["page"], MODELS_PAGE, ("models",))
        self.transport_template("/transport/models/model", row["model"], MODELS_MODEL, ("id",))
        return {"path": row["path"], "page": row["page"], "model": row["model"]}

    def count_tokens_row(self, row: dict[str, Any]) -> dict[str, Any]:
        """`transport.count_tokens`: the format's own token counter (mappings/README.md)."""
        model_field = self.data["request"]["model"]
        params = {k: v for k, v in (self.data["transport"].get("params") or {}).items() if not k.startswith("x-")}
        self.path_placeholders("/transport/count_tokens/path", row["path"], model_field, params)
        request = row.get("request", "{request}")
        self.transport_template("/transport/count_tokens/request", request, COUNT_REQUEST, ("request",))
        self.transport_template("/transport/count_tokens/answer", row["answer"], COUNT_ANSWER, ("count",))
        model = row.get("model", "{model}")
        if _PATH_PLACEHOLDER.findall(model) != ["model"]:
            raise self.err("/transport/count_tokens/model", f"{model!r}: place {{model}} once (the model's id), e.g. \"models/{{model}}\"")
        return {"method": row["method"], "path": row["path"], "fields": list(row["fields"]), "request": request, "model": model, "answer": row["answer"]}

    def transport_template(self, pointer: str, value: Any, allowed: dict[str, bool], required: tuple[str, ...]) -> None:
        try:
            check_template(value, pointer, allowed, required)
        except TransportRowError as exc:
            raise self.err(exc.pointer, str(exc)) from None

    def build(self) -> FormatIR:
        d = self.data
        meta = d["meta"]
        req = d["request"]
        key = meta["id"]
        if key != self.r.key:
            message = f"meta.id {key!r} must equal the file's key {self.r.key!r}"
            file, line = self.r._origin("/meta/id")
            if file != self.r.display:  # inherited: the derived file must declare its own id
                raise MappingError(self.r.display, self.r.line_of("/extends"), "/meta/id", message)
            raise self.err("/meta/id", message)

        system = req["system"]
        system_template = None
        if system["strategy"] == "inline":
            if "wire" not in system:
                raise self.err("/request/system", "strategy inline needs `wire:` (the system message template)")
            system_template = self.message_template("/request/system/wire", system["wire"], "message.system")
        elif "field" not in system:
            raise self.err("/request/system", "strategy hoist needs `field:` (the top-level wire field)")
        system_hoist_template = None
        system_steps: tuple[Any, ...] = ()
        if system["strategy"] == "hoist" and "wire" in system:
            system_hoist_template = self.template("/request/system/wire", system["wire"], "message.system")
            system_steps = self.content_steps(system_hoist_template, "/request/system/wire")

        system_blocks: Obj | None = None
        if "blocks" in system:
            if system_hoist_template is not None:
                raise self.err("/request/system/blocks", "`blocks` goes with a hoisted field of its own (no `wire:`) or an inline system message")
            blocks = self.template("/request/system/blocks", system["blocks"], "message.system")
            if not isinstance(blocks, Obj) or not any(isinstance(c, Slot) and c.field == "content" and c.codec is None and not c.optional for _, c in blocks.items):
                raise self.err("/request/system/blocks", "a system block is an object that places {content} as one of its keys' value (e.g. {type: text, text: \"{content}\"})")
            if "cache_points" in req and system["strategy"] == "hoist":
                pass  # request.cache_points: the field is always the list of blocks, each breakpoint an item after its block
            elif not any(isinstance(c, Slot) and c.optional for _, c in blocks.items):
                raise self.err("/request/system/blocks", "a system block with no optional field ({cache_control?}) is never needed: the plain form says the same (with a hoisted field and request.cache_points, it is the field's form)")
            system_blocks = blocks

        user_t = self.message_template("/request/user/wire", req["user"]["wire"], "message.user")
        self.require_slot(user_t, "/request/user/wire", "content", "user")
        asst_t = self.message_template("/request/assistant/wire", req["assistant"]["wire"], "message.assistant")
        placement = req["tool_calls"]["placement"]
        if placement == "field" and not any(s.field == "tool_calls" for s in slots_of(asst_t)):
            raise self.err("/request/assistant/wire", "tool_calls placement `field` needs {tool_calls?} in the assistant template")
        if placement == "content_blocks" and any(s.field == "tool_calls" for s in slots_of(asst_t)):
            raise self.err("/request/assistant/wire", "tool_calls placement `content_blocks` puts tool calls in {content}; remove {tool_calls}")

        parts: dict[str, Node | str] = {}
        for kind in PART_KINDS:
            value = req["content_parts"][kind]
            pointer = f"/request/content_parts/{kind.replace('/', '~1')}"
            if isinstance(value, str):
                parts[kind] = value
            else:
                # the part reader builds the block's source from these slots
                source = tuple(name for name in CONTEXTS["part." + kind] if name.startswith("source."))
                parts[kind] = self.template_with(pointer, value, "part." + kind, source)
                if not isinstance(parts[kind], Obj):
                    raise self.err(pointer, "a content part template must be an object")
        for kind, value in req["content_parts"].items():
            variant = SCHEME_VARIANT.match(kind)
            if variant is None:
                continue
            # a url kind for one URL scheme (Bedrock `image.url@s3` -> s3Location): written when
            # the URL has that scheme, read back by its own keys like any other part
            pointer = f"/request/content_parts/{kind}"
            if isinstance(value, str):
                parts[kind] = value
                continue
            source = tuple(name for name in CONTEXTS[context_for_part(kind)] if name.startswith("source."))
            parts[kind] = self.template_with(pointer, value, context_for_part(kind), source)
            if not isinstance(parts[kind], Obj):
                raise self.err(pointer, "a content part template must be an object")
        if parts["text"] in ("strip", "reject"):
            raise self.err("/request/content_parts/text", "text parts cannot be stripped or rejected")
        assistant_text_part: Node | None = None
        if "text_part" in req["assistant"]:  # the assistant role's own text part (e.g. output_text)
            pointer = "/request/assistant/text_part"
            assistant_text_part = self.template_with(pointer, req["assistant"]["text_part"], "part.text", ("text",))
            if not isinstance(assistant_text_part, Obj):
                raise self.err(pointer, "a content part template must be an object")

        options: list[OptionIR] = []
        api_version = meta.get("api_version")
        for name in OPTION_NAMES:
            # a later option without a row is not sent (mapping_schema REQUIRED_OPTIONS)
            spec = req["options"].get(name, {"unsupported": "drop"})
            pointer = f"/request/options/{name}"
            if isinstance(spec, str):
                options.append(OptionIR(name, spec))
                continue
            opt = OptionIR(
                name,
                spec.get("wire"),
                default=spec.get("default"),
                has_default="default" in spec,
                required=bool(spec.get("required", False)),
                merge=spec.get("merge") in ("list", "list_or_string"),
                merge_coerce_string=spec.get("merge") == "list_or_string",
                unsupported=spec.get("unsupported"),
                read_also=list(spec.get("read_also", [])),
                maximum=spec.get("maximum"),
            )
            if opt.maximum is not None and name not in INTEGER_OPTIONS:
                raise self.err(pointer + "/maximum", f"`maximum` applies to the integer options ({', '.join(sorted(INTEGER_OPTIONS))}), not {name}")
            opt.negate = bool(spec.get("negate", False))
            if opt.negate and name not in BOOLEAN_OPTIONS:
                raise self.err(pointer + "/negate", f"`negate` applies to the boolean options ({', '.join(sorted(BOOLEAN_OPTIONS))}), not {name}")
            opt.requires = spec.get("requires")
            if "values" in spec:
                if name not in STRING_OPTIONS | BOOLEAN_OPTIONS:
                    raise self.err(pointer + "/values", f"`values` spells the string and boolean options, not {name}")
                value_type: type[str] | type[bool] = str if name in STRING_OPTIONS else bool
                opt.values = [(k, v) for k, v in spec["values"].items() if not k.startswith("x-")]
                for k, v in opt.values:
                    if type(v) is not value_type:
                        raise self.err(f"{pointer}/values/{k}", f"{name} is a {value_type.__name__}: {v!r} cannot be its value")
                if opt.negate:
                    raise self.err(pointer + "/values", "`values` and `negate` exclude each other (spell the values instead)")
            if "with" in spec:
                if opt.wire is None or "." not in opt.wire:
                    raise self.err(pointer + "/with", "`with` writes keys beside the value in its wire object: the `wire` must be a nested field (a.b)")
                leaf = opt.wire.rsplit(".", 1)[1]
                if leaf in spec["with"]:
                    raise self.err(pointer + "/with", f"`with` must not set the option's own key {leaf!r}")
                opt.with_keys = dict(spec["with"])
            if "derive" in spec:
                opt.derive = self._derive(pointer + "/derive", name, spec["derive"])
            if "header" in spec:
                # a request header, not a body field: a string option as it is, a list option
                # comma-separated (mappings/README.md "request.options"). Nothing else of a row
                # applies to a header: no body field, no default, no rules.
                if name not in STRING_OPTIONS | LIST_OPTIONS:
                    raise self.err(pointer + "/header", f"`header` sends a string or list option ({', '.join(sorted(STRING_OPTIONS | LIST_OPTIONS))}), not {name}")
                beside = sorted(set(spec) - {"header", "doc"} - {k for k in spec if k.startswith("x-")})
                if beside:
                    raise self.err(pointer + "/header", f"`header` is the whole row: {', '.join(beside)} cannot stand beside it")
                opt.header = str(spec["header"]).lower()
                auth_name = str(((self.data.get("transport") or {}).get("auth") or {}).get("name") or "").lower()
                if opt.header in _PROTOCOL_HEADERS or opt.header == auth_name:
                    raise self.err(pointer + "/header", f"{opt.header!r} is a header the transport writes itself (protocol or the key); an option needs its own")
                options.append(opt)
                continue
            if opt.wire is None and opt.unsupported is None:
                raise self.err(pointer, "an option needs `wire:` or `unsupported:` (or `header:`)")
            if opt.wire is not None and opt.unsupported is not None:
                raise self.err(pointer, "`wire:` and `unsupported:` exclude each other; scope the rule with `scoped:`")
            if opt.merge and name != "stop_sequences":
                raise self.err(pointer + "/merge", "only list-shaped options (stop_sequences) merge")
            if "range" in spec:
                opt.range = self._range(pointer + "/range", name, spec, opt)
            for r, rule in enumerate(spec.get("scoped", [])):
                if "models" in rule and "models_except" in rule:
                    raise self.err(f"{pointer}/scoped/{r}", "a scoped rule names `models` (the rule is for them) or `models_except` (for every other model), not both")
                since = rule.get("api_version_from")
                if since is not None and (api_version is None or api_version < since):
                    continue  # decided now: this mapping's API version predates the rule
                renamed = rule.get("wire")
                if renamed is not None:
                    if opt.wire is None:
                        raise self.err(pointer + "/scoped", "a scoped `wire:` renames an option that has a `wire:` of its own")
                    if opt.with_keys or opt.negate:
                        raise self.err(pointer + "/scoped", "a scoped `wire:` rename is for a plain option (no `with`, no `negate`)")
                    if renamed not in opt.read_also:
                        opt.read_also.append(renamed)  # what is written under it is read back from it
                if "models" not in rule and "models_except" not in rule:
                    # Applies to every model: the option cannot be sent (or goes out under
                    # another name) under this API version.
                    if renamed is not None:
                        opt.read_also = [w for w in [opt.wire, *opt.read_also] if w != renamed and w is not None]
                        opt.wire = renamed
                    else:
                        opt.unsupported = rule["unsupported"]
                    opt.model_rules = []
                    break
                patterns = list(rule.get("models") or rule["models_except"])
                regex = "|".join(fnmatch.translate(p) for p in patterns)
                if "models_except" in rule:  # every model that none of the patterns matches
                    regex = f"(?!{regex})(?s:.*)"
                opt.model_rules.append(ModelRule(regex, "rename" if renamed is not None else rule["unsupported"], patterns, renamed, "models_except" in rule))
            options.append(opt)

        value_maps: dict[str, ValueMapIR] = {}
        for name, table in d.get("value_maps", {}).items():
            if name.startswith("x-"):
                continue
            pairs = [(k, v) for k, v in table.items() if k != "*" and not k.startswith("x-")]
            value_maps[name] = ValueMapIR(name, pairs, table["*"])

        resp = d["response"]
        fr = resp["finish_reason"]
        finish_map = [(k, v) for k, v in fr["map"].items() if k != "*"]
        emits = fr.get("emit") or {}
        for reason in FINISH_REASONS:  # response_to_wire must have a wire value for each
            if reason not in emits and all(v != reason for _, v in finish_map):
                raise self.err(
                    "/response/finish_reason/map",
                    f"no wire value for the canonical finish reason {reason!r}: response_to_wire would "
                    f"write {reason!r} itself; add a map row that reads as {reason!r}, or an `emit` row for it",
                )
        usage = build_usage(resp["usage"], self.usage_path, self.err)  # codegen/sections/usage.py: counters, sums and their inverse
        usage_fallback = check_usage_fallback(resp["usage"], usage, self.err)

        envelope: list[EnvelopeItem] = []
        for k, v in resp["envelope"].items():
            pointer = f"/response/envelope/{k}"
            if isinstance(v, dict) and "from_raw" in v:
                unknown = set(v) - {"from_raw", "default"}
                if unknown:
                    raise self.err(pointer, f"unknown keys {sorted(unknown)}; expected from_raw, default")
                keys = v["from_raw"]  # a key, or keys tried in order (the same value under another format's name)
                if not (isinstance(keys, str) or (isinstance(keys, list) and keys and all(isinstance(x, str) for x in keys))):
                    raise self.err(f"{pointer}/from_raw", "from_raw is a raw key or a non-empty list of raw keys (the first present is used)")
                envelope.append(EnvelopeItem(k, "from_raw", keys, v.get("default")))
            elif isinstance(v, str) and v.startswith("{"):
                node = self.parse(pointer, v)
                if not isinstance(node, Slot) or node.field not in ("message", "finish_reason", "usage"):
                    raise self.err(pointer, "envelope placeholders are {message}, {finish_reason} and {usage}")
                envelope.append(EnvelopeItem(k, "slot", slot=node.field, optional=node.optional))
            elif isinstance(v, list) and len(v) == 1 and isinstance(v[0], dict):
                # One-choice array (OpenAI `choices`): an object of literals and slots.
                choice_node = self.parse(pointer + "/0", v[0])
                assert isinstance(choice_node, Obj)
                for name, child in choice_node.items:
                    if isinstance(child, Lit) or (
                        isinstance(child, Slot) and child.field in ("message", "finish_reason", "usage")
                    ):
                        continue
                    raise self.err(
                        f"{pointer}/0/{name.replace('~', '~0').replace('/', '~1')}",
                        "a one-choice envelope holds literals and the placeholders {message}, {finish_reason}, {usage}",
                    )
                envelope.append(EnvelopeItem(k, "choice", value=choice_node))
            elif isinstance(v, (dict, list)) and slots_of(tree := self.parse(pointer, v)):
                # an object or array that holds placeholders (Bedrock `output: {message: "{message}"}`)
                for node, where in _envelope_leaves(tree, pointer):
                    if not isinstance(node, Slot) or node.field not in ("message", "finish_reason", "usage"):
                        raise self.err(where, "envelope placeholders are {message}, {finish_reason} and {usage}, each a whole value")
                    if node.optional:
                        raise self.err(where, f"{{{node.field}?}} may only be a whole envelope value (a top-level key), where it is left out when empty")
                envelope.append(EnvelopeItem(k, "tree", value=tree))
            else:
                envelope.append(EnvelopeItem(k, "literal", v))

        errs = d["errors"]
        rules = build_error_rules(errs, self.err)

        structured = d.get("structured_output")
        structured_template = None
        if structured is not None:
            structured_template = self.template("/structured_output/wire", structured["wire"], "structured_output")
            self.require_slot(structured_template, "/structured_output/wire", "schema", "structured_output")
            if structured["mode"] == "tool_coercion" and "tool" not in structured:
                raise self.err("/structured_output", "mode tool_coercion needs `tool: {name, description}` (the synthetic tool)")
            also = structured.get("schema_also")
            if also is not None:
                if structured["mode"] != "native":
                    raise self.err("/structured_output/schema_also", f"mode {structured['mode']} writes no schema field of its own; schema_also reads another field only beside the native one")
                self.schema_also_beside(structured_template, "schema", also["field"], "/structured_output/schema_also", ("template", "structured-output template", "another field"))

        tools = req["tools"]
        tool_t = self.template_with("/request/tools/wire", tools["wire"], "tool", ("name",))
        choice = req["tool_choice"]
        # `omit`: the field is left out (the provider's default; Cohere means auto that way);
        # `omit_tools`: none only, the tools are left out with the field (Bedrock has no none mode);
        # `reject`: request_to_wire refuses the mode (a forced tool on Cohere)
        tool_choice_special = {mode: choice[mode] for mode in ("auto", "required", "none", "tool") if choice[mode] in ("omit", "omit_tools", "reject")}
        for mode, how in tool_choice_special.items():
            if how == "omit" and mode != "auto":
                raise self.err(f"/request/tool_choice/{mode}", f"only `auto` may be `omit` (a request without tool_choice is the provider's default, auto); `{mode}` would change meaning: write its form or `reject`")
            if how == "omit_tools" and mode != "none":
                raise self.err(f"/request/tool_choice/{mode}", f"only `none` may be `omit_tools` (a model shown no tools calls none); `{mode}` needs the tools: write its form or `reject`")
        tool_choice = {
            mode: self.template(f"/request/tool_choice/{mode}", choice[mode], "tool_choice.tool")
            for mode in ("auto", "required", "none", "tool") if mode not in tool_choice_special
        }
        if "tool" in tool_choice:
            for arr in _arrays(tool_choice["tool"]):
                if len(arr.items) != 1 or not isinstance(arr.items[0], Slot):
                    raise self.err(arr.pointer, "an array in the tool form holds exactly one placeholder ({name}), so it can be read back")
            self.require_slot(tool_choice["tool"], "/request/tool_choice/tool", "name", "tool_choice.tool")
        for mode in ("auto", "required", "none"):
            if mode in tool_choice and slots_of(tool_choice[mode]):
                raise self.err(f"/request/tool_choice/{mode}", "only the `tool` form may name {name}")

        fixtures = list(d.get("fixtures", []))
        seen: set[str] = set()
        fixture_lines: dict[str, int] = {}
        for i, fx in enumerate(fixtures):
            pointer = f"/fixtures/{i}"
            if fx["id"] in seen:
                raise self.err(pointer + "/id", f"duplicate fixture id {fx['id']!r}")
            if fx["id"].endswith("__round_trip"):
                raise self.err(pointer + "/id", f"fixture id {fx['id']!r} ends in __round_trip, which names the generated round-trip tests")
            seen.add(fx["id"])
            inputs = [k for k in ("to_wire", "from_wire", "request_from_wire", "response_to_wire", "error_from_wire", "stream_from_wire", "stream_to_wire") if k in fx]
            outcomes = [k for k in ("expect_wire", "expect_canonical", "expect_error", "expect_events", "expect_sse") if k in fx]
            if inputs and inputs[0].startswith("stream_"):
                if d.get("stream") is None:
                    raise self.err(pointer, f"a {inputs[0]} fixture needs a `stream:` table")
                wanted = "expect_events" if inputs[0] == "stream_from_wire" else "expect_sse"
                if outcomes != [wanted]:
                    raise self.err(pointer, f"a {inputs[0]} fixture's outcome is {wanted}; found {outcomes or 'none'}")
            elif any(o in ("expect_events", "expect_sse") for o in outcomes):
                raise self.err(pointer, "expect_events / expect_sse are the outcomes of stream_from_wire / stream_to_wire fixtures")
            if len(inputs) != 1:
                raise self.err(pointer, f"a fixture has exactly one input (to_wire, from_wire, request_from_wire, response_to_wire, error_from_wire); found {inputs or 'none'}")
            if len(outcomes) != 1:
                raise self.err(pointer, f"a fixture has exactly one expected outcome (expect_wire, expect_canonical, expect_error); found {outcomes or 'none'}")
            fixture_lines[fx["id"]] = self.r.line_of(pointer) or 0

        tr = req["tool_results"]
        tool_result_template = self.template_with("/request/tool_results/wire", tr["wire"], "tool_result", ("tool_call_id", "content"))
        if tr.get("name") == "from_call" and not any(s.field == "name" for s in slots_of(tool_result_template)):
            raise self.err("/request/tool_results/name", "name: from_call resolves {name} for the template, which does not place it")
        error_template = None
        content_paths: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
        if "error_wire" in tr:
            pointer = "/request/tool_results/error_wire"
            error_template = self.template_with(pointer, tr["error_wire"], "tool_result", ("tool_call_id", "content"))
            if any(s.field == "is_error" for s in slots_of(error_template)):
                raise self.err(pointer, "the failed result's own form says is_error: it does not place {is_error}")
            ok_path, err_path = slot_path(tool_result_template, "content"), slot_path(error_template, "content")

            def whole(node: Node, path: str | None) -> bool:  # {content} alone, reached through objects
                if path is None or "[" in path or path == ".":
                    return False
                for key in path.split("."):
                    if not isinstance(node, Obj):
                        return False
                    node = dict(node.items)[key]
                return isinstance(node, Slot)

            if not whole(tool_result_template, ok_path) or not whole(error_template, err_path) or ok_path == err_path:
                raise self.err(pointer, "error_wire places {content} at its own key path, reached through objects, where `wire` has none (how a reader tells a failed result apart)")

            def others(n: Node) -> list[tuple[str, bool]]:  # the fields besides {content} (and is_error)
                return sorted((s.field, s.optional) for s in slots_of(n) if s.field not in ("content", "is_error"))

            if others(error_template) != others(tool_result_template):
                raise self.err(pointer, "error_wire places the same fields as `wire` (only {content} moves)")
            assert ok_path is not None and err_path is not None
            content_paths = (tuple(ok_path.split(".")), tuple(err_path.split(".")))
        extras_placement = req["extras"]["placement"]
        extras_under: tuple[str, ...] = ()
        extras_root: tuple[str, ...] = ()
        if isinstance(extras_placement, dict):
            extras_under = tuple(extras_placement["under"].split("."))
            extras_root = tuple(extras_placement.get("root", ()))
            if extras_under[0] in extras_root:
                raise self.err("/request/extras/placement/root", f"{extras_under[0]} is the extras container itself, not a root key")
            if req["extras"]["collision"] != "managed":
                raise self.err("/request/extras/placement", "placement under an object needs collision: managed")
        if "group" in tools and "." in tools["field"]:
            raise self.err("/request/tools/group", "a grouped tools field is a top-level field")
        retry_delay = None
        if "retry_delay" in errs:
            rd = errs["retry_delay"]
            retry_delay = {"list": parse_path(rd["list"]), "match": dict(rd["match"]), "field": rd["field"]}
        transport = self.transport()
        return FormatIR(
                   key=key,
                   provider=meta["provider"],
                   wire=self.r.wire,
                   title=meta["title"],
                   doc_ref=meta["doc_ref"],
                   api_version=api_version,
                   source=self.r.display,
                   endpoint=transport["endpoint"] if transport is not None else None,
                   transport=transport,
                   model_field=req["model"],
                   messages_field=req["messages"],
                   parts=parts,
                   options=options,
                   unmodeled={k: dict(v) for k, v in req.get("unmodeled", {}).items() if not k.startswith("x-")},
                   signatures=req.get("signatures", "strip_foreign"),
                   value_maps={name: dataclasses.replace(vm, boolean=self.map_kinds.get(name) == "bool") for name, vm in value_maps.items()},
                   structured=structured,
                   structured_template=structured_template,
                   fixtures=fixtures,
                   fixture_lines=fixture_lines,
                   part_dispatch=req.get("part_dispatch", "literals"),
                   unknown=req.get("unknown", "reject"),
                   wire_keys=wire_keys_of(d),
                   proto_names=self.proto_names(req, wire_keys_of(d)),
                   path_params=tuple(n for n in re.findall(r"\{([^{}]*)\}", d["transport"]["endpoint"]["path"]) if n not in (d["transport"].get("params") or {})) if "transport" in d else (),
                   items=build_items_ir(self),
                   cache_point=self.cache_point(parts, tool_result_template, tool_t, system_blocks),
                   wire_rules=build_wire_rules(self),
                   reasoning=build_reasoning(self),
                   stream=compile_stream(
                d, usage, parse_path(resp["usage"]["path"]), resp["usage"].get("unreported", "omit"),
                parse_path(fr["path"]), finish_map, fr["map"]["*"], dict(fr.get("emit", {})),
                resp.get("content", "as_request"), self.err, fr.get("with_tool_calls"),
                ((d.get("request") or {}).get("tool_calls") or {}).get("missing_id"),
                {k: v for k, v in (fr.get("detail_map") or {}).items() if not k.startswith("x-")},
                usage_fallback,
            ),
                   strategy_hooks=tuple(sorted(d.get("strategies") or {})),
                   system=SystemIR(
                       strategy=system["strategy"],
                       template=system_template,
                       field=system.get("field"),
                       join=system.get("join", "\n\n"),
                       read_also=list(system.get("read_also", [])),
                       hoist_template=system_hoist_template,
                       content_steps=system_steps,
                       blocks=system_blocks,
                   ),
                   user=UserIR(
                       template=user_t,
                       content=req["user"].get("content", "string_or_parts"),
                       bare_string=req["user"].get("bare_string", "reject"),
                   ),
                   assistant=AssistantIR(
                       template=asst_t,
                       content=req["assistant"].get("content", "string_or_parts"),
                       text_part=assistant_text_part,
                       order=req["assistant"].get("order", "as_given"),
                   ),
                   tool_results=ToolResultsIR(
                       strategy=tr["strategy"],
                       template=tool_result_template,
                       name=tr.get("name", "given"),
                       other_content=tr.get("other_content", "reject"),
                       content=tr.get("content", "text"),
                       media=self.tool_result_media(tr),
                       media_parts=self.tool_result_media_parts(tr),
                       error_template=error_template,
                       content_paths=content_paths,
                   ),
                   tool_calls=ToolCallsIR(
                       placement=placement,
                       template=self.template_with("/request/tool_calls/wire", req["tool_calls"]["wire"], "tool_call", ("id", "name", "arguments")),
                       missing_id=req["tool_calls"].get("missing_id", "reject"),
                       unique_ids=bool(req["tool_calls"].get("unique_ids", False)),
                       missing_arguments=req["tool_calls"].get("missing_arguments", "reject"),
                   ),
                   tools=ToolsIR(
                       field=tools["field"],
                       template=tool_t,
                       strict=tools.get("strict", "as_given"),
                       group=tools.get("group"),
                       strict_all=self.strict_all_field(tools, tool_t),
                       name_rule=build_tool_name_rule(self),
                       lone_object=bool(tools.get("lone_object", False)),
                       schema_also=self.schema_also(tools, tool_t),
                   ),
                   tool_choice=ToolChoiceIR(
                       field=choice["field"],
                       modes=tool_choice,
                       special=tool_choice_special,
                       requires_tools=choice.get("requires") == "tools",
                   ),
                   extras=ExtrasIR(
                       collision=req["extras"]["collision"],
                       reserved=dict(req["extras"].get("reserved", {})),
                       under=extras_under,
                       root=extras_root,
                   ),
                   rules=RulesIR(
                       ordering=req.get("rules", {}).get("ordering", "api"),
                       json_keys=req.get("rules", {}).get("json_keys", "as_given"),
                       content=req.get("rules", {}).get("content", req.get("rules", {}).get("ordering", "api")),
                       structure=req.get("rules", {}).get("structure", req.get("rules", {}).get("ordering", "api")),
                   ),
                   finish=FinishIR(
                       path=parse_path(fr["path"]),
                       map=finish_map,
                       default=fr["map"]["*"],
                       emit=dict(fr.get("emit", {})),
                       with_tool_calls=fr.get("with_tool_calls"),
                   ),
                   usage=UsageIR(
                       path=parse_path(resp["usage"]["path"]),
                       counters=usage,
                       unreported=resp["usage"].get("unreported", "omit"),
                       fallback=usage_fallback,
                   ),
                   response=ResponseIR(
                       message=parse_path(resp["message"]),
                       envelope=envelope,
                       refusal_field=resp["refusal"]["field"] if resp.get("refusal", {}).get("strategy") == "as_content" else None,
                       content=resp.get("content", "as_request"),
                       message_missing=resp.get("message_missing", "error"),
                   ),
                   errors=ErrorsIR(
                       message=self.error_path("/errors/message", errs["message"]),
                       type=self.error_path("/errors/type", errs["type"]) if "type" in errs else None,
                       type_header=errs.get("type_header"),
                       code=self.error_path("/errors/code", errs["code"]) if "code" in errs else None,
                       rules=rules,
                       retry_after_headers=list(errs.get("retry_after", [])),
                       emit=self.error_emit(errs.get("emit")),
                       retry_delay=retry_delay,
                   ),
               )




def _text_chunks(node: Node) -> bool:
    """A one-item array of an object of literals and one required, codec-free placeholder
    (`[{type: text, text: "{text}"}]`): written as one chunk, read back as chunks joined."""
    if not (isinstance(node, Arr) and len(node.items) == 1 and isinstance(node.items[0], Obj)):
        return False
    children = [n for _k, n in node.items[0].items]
    slots = [n for n in children if isinstance(n, Slot)]
    return (len(slots) == 1 and not slots[0].optional and slots[0].codec is None and not slots[0].has_default
            and all(isinstance(n, (Lit, Slot)) for n in children))


def _arrays(node: Node) -> list[Arr]:
    if isinstance(node, Arr):
        return [node, *(a for n in node.items for a in _arrays(n))]
    if isinstance(node, Obj):
        return [a for _, n in node.items for a in _arrays(n)]
    return []


def build_ir(resolved: Resolved) -> FormatIR:
    return Builder(resolved).build()


_TEMPLATE_ROWS: Final = frozenset({"wire", "content_parts", "envelope", "tool_choice", "emit", "body"})
_PATH_TEXT: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|\[\d+\]\.?)[A-Za-z_][A-Za-z0-9_]*)*(?:\[\d+\])?$")
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_CAMEL: Final = re.compile(r"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$")


def wire_keys_of(data: Any) -> frozenset[str]:
    """Every wire key a mapping's tables name: the keys of its templates (under `wire`,
    `content_parts`, `envelope`, `tool_choice`, `emit`, `body`) and the names in its wire paths
    (`choices[0].message`, `usage.prompt_tokens_details.cached_tokens`). Over-inclusive by a few
    row words, never short of a key a table writes."""
    keys: set[str] = set()

    def walk(value: Any, in_template: bool) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                if k in ("fixtures", "field_names"):  # field_names names spellings, not keys
                    continue
                if in_template:
                    keys.add(str(k))
                walk(v, in_template or k in _TEMPLATE_ROWS)
        elif isinstance(value, list):
            for v in value:
                walk(v, in_template)
        elif isinstance(value, str) and _PATH_TEXT.match(value):
            keys.update(_NAME.findall(value))

    walk({k: v for k, v in data.items() if k not in ("fixtures", "meta")}, False)
    return frozenset(keys)


def _envelope_leaves(node: Node, pointer: str) -> list[tuple[Node, str]]:
    """The non-literal leaves of an envelope template, with their pointers."""
    if isinstance(node, Obj):
        return [leaf for k, child in node.items for leaf in _envelope_leaves(child, f"{pointer}/{k.replace('~', '~0').replace('/', '~1')}")]
    if isinstance(node, Arr):
        return [leaf for i, child in enumerate(node.items) for leaf in _envelope_leaves(child, f"{pointer}/{i}")]
    return [] if isinstance(node, Lit) else [(node, pointer)]

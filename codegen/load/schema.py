"""The JSON Schema every mapping file must satisfy (after `extends` is resolved).

Unknown keys are rejected everywhere; keys starting with `x-` are reserved for extensions and
ignored by the generator. Wire templates are free-form JSON here; their placeholders are
checked when the IR is built.
"""

from __future__ import annotations

from typing import Any

from ..sections.reasoning import REASONING_SCHEMA
from ..sections.wire_rules import FIXTURE_KEYS as WIRE_RULES_FIXTURE_KEYS
from ..sections.wire_rules import TOOL_NAME_SCHEMA, WIRE_RULES_SCHEMA
from ..sections.stream import STREAM_SCHEMA

__all__ = ["MAPPING_SCHEMA", "TASK_SCHEMAS", "KINDS", "schema_for", "CANONICAL_ROLES", "PART_KINDS", "OPTION_NAMES", "ERROR_CATEGORIES"]

EXT: dict[str, dict[str, Any]] = {"^x-": {}}  # x- extension keys: anything
CANONICAL_FINISH = ["content_filter", "error", "length", "stop", "tool_calls"]
ERROR_CATEGORIES = [
    "provider_authentication",
    "provider_invalid_model",
    "provider_invalid_request",
    "provider_invalid_response",
    "provider_model_not_loaded",
    "provider_rate_limit",
    "provider_unavailable",
    "provider_unsupported_content_block",
    "structured_output_invalid",
]
CANONICAL_ROLES = ["system", "user", "assistant", "tool"]
PART_KINDS = [
    "text",
    "thinking",
    "redacted_thinking",
    "image.url",
    "image.inline",
    "audio.url",
    "audio.inline",
    "file.url",
    "file.inline",
]
OPTION_NAMES = [
    "temperature",
    "max_tokens",
    "top_p",
    "top_k",
    "seed",
    "stop_sequences",
    "frequency_penalty",
    "presence_penalty",
    # issue 14 "model what crosses providers" (docs/canonical.md "Options that cross providers");
    # optional rows: a mapping without one does not send the option (`unsupported: drop`)
    "parallel_tool_calls",
    "n",
    "logprobs",
    "top_logprobs",
    "user",
    "reasoning_effort",
    "reasoning_budget",
    "json_mode",
    "schema_name",
    "schema_description",
    "schema_strict",
    "prompt_cache_key",
    "metadata",
    # issue 17: the provider's beta feature flags (a list of names; docs/canonical.md "Beta flags")
    "betas",
]
#: the options every chat mapping must state a row for (the later ones default to dropped)
REQUIRED_OPTIONS = OPTION_NAMES[:8]


def _obj(props: dict[str, Any], required: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "patternProperties": EXT,
        "additionalProperties": False,
    }
    if required:
        schema["required"] = required
    schema.update(extra)
    return schema


TEMPLATE: dict[str, Any] = {"description": "a wire template: JSON with {placeholders}"}
WIRE_FIELD = {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_\-]*(\.[A-Za-z_][A-Za-z0-9_\-]*)*$"}
# `schema_also` (request.tools and structured_output): the schema may also come under another
# field, in another schema language (`openapi`: Google's Schema, the OpenAPI 3.0 subset)
SCHEMA_ALSO = _obj({"field": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}, "form": {"enum": ["openapi"]}}, required=["field", "form"])
RESPONSE_PATH = {"type": "string", "pattern": r"^$|^[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?)*$"}
UNSUPPORTED = {"enum": ["drop", "warn", "reject"]}
STATUS = {
    "oneOf": [
        {"type": "integer", "minimum": 100, "maximum": 599},
        {"type": "string", "pattern": r"^([1-5]xx|\*)$"},
        {
            "type": "array",
            "minItems": 1,
            "items": {"type": "integer", "minimum": 100, "maximum": 599},
        },
    ]
}

_scoped_rule = {
    "allOf": [
        _obj(
            {
                "models": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
                # the rule is for every model but these (a field only some models take: Bedrock's
                # additionalModelRequestFields.top_k is Claude's)
                "models_except": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
                "api_version_from": {"type": "string", "minLength": 1},
                "unsupported": UNSUPPORTED,
                # the option goes out under another wire name (OpenAI reasoning models:
                # max_tokens -> max_completion_tokens), and is read back from it too
                "wire": WIRE_FIELD,
                "doc": {"type": "string"},
            },
        ),
        {"oneOf": [{"required": ["unsupported"]}, {"required": ["wire"]}]},
    ]
}

_option = {
    "oneOf": [
        WIRE_FIELD,
        _obj(
            {
                "wire": WIRE_FIELD,
                # the option goes out as this HTTP request header instead of a body field (a list
                # option comma-separated: Anthropic `anthropic-beta`); read from it by a gateway
                "header": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9\-]*$"},
                "default": {"type": ["number", "integer", "string", "boolean"]},
                "required": {"type": "boolean"},
                "merge": {"enum": ["list", "list_or_string"]},
                "read_also": {"type": "array", "items": WIRE_FIELD},
                # the largest value the wire field takes (an int32 field: 2147483647); a larger
                # integer option is refused at config.<name>, never sent out of range
                "maximum": {"type": "integer"},
                # the values the provider takes, [lowest, highest] (null: that end is open):
                # a direct request past them is refused at config.<name>; a translation clamps
                # into them and names the change as a loss (Cohere p: [0.01, 0.99])
                "range": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": ["number", "null"]}},
                "unsupported": UNSUPPORTED,
                "scoped": {"type": "array", "items": _scoped_rule},
                # a boolean option the wire states the other way round (Anthropic
                # disable_parallel_tool_use for parallel_tool_calls)
                "negate": {"type": "boolean"},
                # keys written beside the value in its wire object when the writer creates them
                # (thinking: {type: enabled, budget_tokens: ...}; tool_choice: {type: auto, ...})
                "with": {"type": "object"},
                # a string option's wire spellings: wire value -> canonical value (several wire
                # values may read as one; the first is written). A canonical value not listed is
                # not sent; a wire value not listed is read as given
                "values": {"type": "object", "minProperties": 1, "additionalProperties": {"type": ["string", "boolean"]}},
                # sent only in a request that declares tools (the APIs answer 400 otherwise) or
                # that sends its response schema natively (the structured-output object it names),
                # or one that does not (JSON mode: a schema's own object says JSON already)
                "requires": {"enum": ["tools", "response_schema", "no_response_schema"]},
                # the value, when the caller gave none, from another option this mapping cannot
                # send (for this model): an effort level -> a token budget or back
                "derive": _obj(
                    {
                        "from": {"enum": OPTION_NAMES},
                        # a string source: its value -> this option's value
                        "map": {"type": "object", "minProperties": 1},
                        # a numeric source: the first step whose `upto` is >= the value
                        "steps": {
                            "type": "array",
                            "minItems": 1,
                            "items": _obj({"upto": {"type": "integer"}, "value": {}, "doc": {"type": "string"}}, required=["upto", "value"]),
                        },
                        # a derived integer is kept below this option's value (Anthropic:
                        # budget_tokens < max_tokens); one that would fall under `minimum` is not sent
                        "below": {"enum": OPTION_NAMES},
                        "minimum": {"type": "integer"},
                        # a derived value is not sent when tool_choice forces a tool (Anthropic:
                        # thinking only with tool_choice auto or none)
                        "unless_forced": {"type": "boolean"},
                        "doc": {"type": "string"},
                    },
                    required=["from"],
                ),
            }
        ),
    ]
}

_content_strategy = {"enum": ["string_or_parts", "always_parts", "as_given"]}

_part = {"oneOf": [{"enum": ["strip", "reject"]}, {"type": "object"}]}

# A sum's addend: a wire path, optionally ending in `?` (absent or null counts as 0).
_USAGE_ADDEND = {"type": "string", "pattern": r"^[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?(\.[A-Za-z_][A-Za-z0-9_]*(\[[0-9]+\])?)*\??$"}
# A counter: a wire path, or `{sum: [...]}` (derived when reading; inverted by the generator for
# writing), or `{path, sum}` (read at `path`; the sum is the identity its free addend is written by).
_usage_source = {
    "oneOf": [
        RESPONSE_PATH,
        _obj({"sum": {"type": "array", "minItems": 2, "items": _USAGE_ADDEND}, "path": RESPONSE_PATH}, required=["sum"]),
    ]
}

_error_rule = _obj(
    {
        "status": STATUS,
        "type": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
        "code": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
        "body_matches": {"type": "string", "minLength": 1},
        "category": {"enum": ERROR_CATEGORIES},
        "doc": {"type": "string"},
    },
    required=["category"],
)

_fixture = _obj(
    {
        "id": {"type": "string", "pattern": r"^[a-z][a-z0-9_]*$"},
        "doc": {"type": "string", "minLength": 1, "pattern": r"^[^\n]*$"},
        "to_wire": {"description": "canonical request -> request_to_wire"},
        "from_wire": {"type": "object", "description": "wire response body -> response_from_wire"},
        "request_from_wire": {"type": "object", "description": "wire request body -> request_from_wire"},
        "response_to_wire": {"type": "object", "description": "canonical response -> response_to_wire"},
        "error_from_wire": _obj(
            {"status": {"type": "integer"}, "body": {}, "headers": {"type": "object"}},
            required=["status"],
        ),
        "stream_from_wire": {"type": "string", "description": "a streamed body (SSE text) -> canonical stream events"},
        "stream_to_wire": {"type": "array", "items": {"type": "object"}, "description": "canonical stream events -> the format's SSE text"},
        "stream_request": {"type": "object", "description": "with stream_to_wire: the client's streaming request body the emitter is given (`stream.emit.usage_when`)"},
        "expect_events": {"type": "array", "items": {"type": "object"}},
        "expect_sse": {"type": "string"},
        "response_schema": {"type": "object"},
        "expect_wire": {"type": "object"},
        "expect_canonical": {"type": "object"},
        "expect_error": _obj(
            {
                "category": {"enum": ERROR_CATEGORIES},
                "path": {"type": "string"},
                "retry_after": {"type": ["number", "null"]},
                "message_contains": {"type": "string"},
            },
            required=["category"],
        ),
        "lossy": {"type": "string", "minLength": 1},
        "key_order": {"enum": ["exact"], "description": "the result's keys must come in the expected order (user JSON is sent in the caller's order)"},
        "expect_warning": {"type": "string", "minLength": 1, "description": "a warning the call must emit (text it contains)"},
        **WIRE_RULES_FIXTURE_KEYS,
    },
    required=["id", "doc"],
)

MAPPING_SCHEMA: dict[str, Any] = _obj(
    {
        "kind": {"enum": ["chat", "embeddings", "images"]},  # = KINDS; the others route to TASK_SCHEMAS
        "extends": {"type": "string", "minLength": 1},
        "meta": _obj(
            {
                "id": {"type": "string", "pattern": r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$"},
                "provider": {"type": "string", "pattern": r"^[a-z][a-z0-9_\-]*$"},
                "title": {"type": "string", "minLength": 1},
                "doc_ref": {"type": "string", "minLength": 1},
                "api_version": {"type": "string", "minLength": 1},
                "notes": {"type": "string"},
                # the wire family carried data goes back to (runtime/carry.py); default: the key
                # at the root of the `extends` chain
                "wire": {"type": "string", "pattern": r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$"},
            },
            required=["id", "provider", "title", "doc_ref"],
        ),
        "request": _obj(
            {
                "model": WIRE_FIELD,
                "messages": WIRE_FIELD,
                "system": _obj(
                    {
                        "strategy": {"enum": ["inline", "hoist"]},
                        "wire": TEMPLATE,
                        "field": WIRE_FIELD,
                        "join": {"type": "string"},
                        "read_also": {"type": "array", "items": {"type": "string", "minLength": 1}},
                        # one system message as a text block, for what the plain form cannot carry
                        # (a cache breakpoint): hoisted, the field becomes a list of them; inline,
                        # the message's content a one-block list
                        "blocks": TEMPLATE,
                    },
                    required=["strategy"],
                ),
                "user": _obj(
                    {
                        "wire": TEMPLATE,
                        "content": _content_strategy,
                        # request_from_wire: the messages field given as a bare string instead
                        # of a list is one user turn with that text (read only).
                        "bare_string": {"enum": ["reject", "read"]},
                    },
                    required=["wire"],
                ),
                "assistant": _obj(
                    {
                        "wire": TEMPLATE,
                        "content": {"enum": [*_content_strategy["enum"], "joined_text"]},
                        "order": {"enum": ["as_given", "thinking_first"]},
                        "text_part": TEMPLATE,
                    },
                    required=["wire"],
                ),
                "tool_results": _obj(
                    {
                        "strategy": {"enum": ["message", "group_into_user_message"]},
                        "wire": TEMPLATE,
                        "name": {"enum": ["given", "from_call"]},
                        # a result whose {content} member is missing or not text: refused, or
                        # read as the JSON text of the object that holds it
                        "other_content": {"enum": ["reject", "json"]},
                        # a result with parts (image, audio, file: issue 20): `text` (default),
                        # the text parts joined and the others left to the loss report; `parts`,
                        # {content} written and read as a user turn's parts (content_parts)
                        "content": {"enum": ["text", "parts", "always_parts"]},
                        # `text`, with the non-text parts written by content_parts at this key
                        # path of the result (Gemini functionResponse.parts)
                        "media": WIRE_FIELD,
                        # the content_parts kinds `media` takes (default: every non-text one);
                        # the others are left to the loss report (Gemini: inline data only)
                        "media_parts": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"type": "string"}},
                        # a failed result (is_error: true) in its own form (Gemini
                        # functionResponse.response.error), read back as is_error: true
                        "error_wire": TEMPLATE,
                    },
                    required=["strategy", "wire"],
                ),
                "content_parts": _obj(
                    {kind: _part for kind in PART_KINDS}, required=list(PART_KINDS),
                    # a url kind for one URL scheme (`image.url@s3`): catalog.SCHEME_VARIANT
                    patternProperties={**EXT, r"^(image|audio|file)\.url@[a-z][a-z0-9+.-]*$": _part},
                ),
                "tool_calls": _obj(
                    {
                        "placement": {"enum": ["field", "content_blocks", "items"]},
                        "wire": TEMPLATE,
                        "missing_id": {"enum": ["reject", "synthesize"]},
                        # a call the API sends without its arguments key (a call with no
                        # arguments): `empty` reads it as {} (the writer always sends the key)
                        "missing_arguments": {"enum": ["reject", "empty"]},
                        # the API refuses a tool-call id used twice in one conversation: a
                        # translation into this format renames reused ids (and says so)
                        "unique_ids": {"type": "boolean"},
                    },
                    required=["placement", "wire"],
                ),
                "tools": _obj(
                    {
                        "field": WIRE_FIELD,
                        "wire": TEMPLATE,
                        "strict": {"enum": ["as_given", "close_object_schema", "close_all_object_schemas"]},
                        "group": WIRE_FIELD,
                        # a top-level boolean that says every tool is strict (Cohere strict_tools)
                        "strict_all": WIRE_FIELD,
                        # the API also takes one tool object where the array goes (Gemini: its JSON
                        # parsing takes a repeated field's lone value): read as a one-item array
                        "lone_object": {"type": "boolean"},
                        # the tool's parameters also come under another field, in another schema
                        # language (Gemini `parameters`: the OpenAPI 3.0 subset): read as the
                        # canonical JSON Schema when the template's own field is absent
                        "schema_also": SCHEMA_ALSO,
                        # the API's rule for a tool's name (codegen/sections/wire_rules.py TOOL_NAME_SCHEMA):
                        # declared, not applied by the converter; wiremap.tools fits names to it
                        "name": TOOL_NAME_SCHEMA,
                    },
                    required=["field", "wire"],
                ),
                "tool_choice": _obj(
                    {
                        "field": WIRE_FIELD,
                        "auto": TEMPLATE,
                        "required": TEMPLATE,
                        "none": TEMPLATE,
                        "tool": TEMPLATE,
                        # the field is left out when the request has no tools (Bedrock:
                        # ToolConfiguration.tools is required beside toolChoice)
                        "requires": {"enum": ["tools"]},
                    },
                    required=["field", "auto", "required", "none", "tool"],
                ),
                "options": _obj({name: _option for name in OPTION_NAMES}, required=list(REQUIRED_OPTIONS)),
                "extras": _obj(
                    {
                        "placement": {
                            "oneOf": [
                                {"enum": ["root"]},
                                _obj(
                                    {
                                        "under": WIRE_FIELD,
                                        "root": {"type": "array", "items": {"type": "string", "pattern": "^[^.]+$"}, "minItems": 1, "uniqueItems": True},
                                    },
                                    required=["under"],
                                ),
                            ]
                        },
                        "collision": {"enum": ["managed", "mapped_wins"]},
                        "reserved": {"type": "object", "additionalProperties": {}},
                    },
                    required=["placement", "collision"],
                ),
                "signatures": {"enum": ["strip_foreign", "strip_all"]},
                "part_dispatch": {"enum": ["literals", "keys"]},
                # pre-send validation (runtime/validate.py): the provider API's (the default) or
                # OpenArmature's message order (§5) and sorted user JSON (§8)
                "rules": _obj(
                    {
                        "ordering": {"enum": ["api", "openarmature"]},
                        "json_keys": {"enum": ["as_given", "sorted"]},
                        # OpenArmature's content rules (§3 non-empty text and content) and
                        # structure rules (a result answers an earlier call, `required` needs
                        # tools, an object root schema): `ordering: openarmature` implies both; an
                        # API that enforces them itself declares them (validate.CONTENT/STRUCTURE)
                        "content": {"enum": ["api", "openarmature"]},
                        "structure": {"enum": ["api", "openarmature"]},
                    }
                ),
                # what no row reads (a content part, a tool of another kind, a root field):
                # refused (root fields: read into config.extras), or left out of the canonical
                # request and carried for the same provider's wire (runtime/carry.py)
                "unknown": {"enum": ["reject", "carry"]},
                # the key spellings the API parses besides the tables' (`proto`: protobuf's JSON
                # mapping also takes each field by its proto name, `inline_data` for `inlineData`);
                # `opaque`: the keys whose values are the caller's JSON, never renamed inside
                "field_names": _obj(
                    {"also": {"enum": ["proto"]}, "opaque": {"type": "array", "items": {"type": "string"}}},
                    required=["also", "opaque"],
                ),
                # a prompt-cache breakpoint as its own item after the part, tool result or tool
                # it marks, in the same list (Bedrock `{cachePoint: {type: default}}`)
                "cache_points": _obj({"wire": {"type": "object"}}, required=["wire"]),
                # Thinking blocks <-> reasoning items beside the messages, resent verbatim.
                "reasoning_items": _obj(
                    {"match": {"type": "object"}, "text": WIRE_FIELD, "join": {"type": "string"}},
                    required=["match", "text"],
                ),
                "reasoning": REASONING_SCHEMA,
                "unmodeled": _obj(
                    {
                        ctx: {"type": "object", "additionalProperties": {"enum": ["reject", "drop", "carry"]}}
                        for ctx in [*PART_KINDS, "tool_call", "tool_result", "tool", "tool_choice", "structured_output"]
                    }
                ),
            },
            required=[
                "model", "messages", "system", "user", "assistant", "tool_results",
                "content_parts", "tool_calls", "tools", "tool_choice", "options", "extras",
            ],
        ),
        "value_maps": {
            "type": "object",
            "patternProperties": {
                "^[a-z][a-z0-9_]*$": {
                    "type": "object",
                    "properties": {
                        "*": {
                            "oneOf": [
                                {"enum": ["reject", "pass"]},
                                _obj({"strip_prefix": {"type": "string"}}, required=["strip_prefix"]),
                            ]
                        }
                    },
                    "additionalProperties": {"type": "string"},
                    "required": ["*"],
                },
                "^x-": {},
            },
            "additionalProperties": False,
        },
        "response": _obj(
            {
                "message": RESPONSE_PATH,
                "finish_reason": _obj(
                    {
                        "path": RESPONSE_PATH,
                        "map": {
                            "type": "object",
                            "additionalProperties": {"enum": CANONICAL_FINISH},
                            "required": ["*"],
                        },
                        "emit": {
                            "type": "object",
                            "propertyNames": {"enum": CANONICAL_FINISH},
                            "additionalProperties": {"type": "string"},
                        },
                        "with_tool_calls": {"enum": CANONICAL_FINISH},
                        # A more specific wire reason beside `path` (looked up first when listed).
                        "detail_path": RESPONSE_PATH,
                        "detail_map": {"type": "object", "additionalProperties": {"enum": CANONICAL_FINISH}},
                        # always: the detail is written for the canonical values it lists; raw: only
                        # the same provider's detail, copied from `raw` when it means the same
                        "detail_write": {"enum": ["always", "raw"]},
                    },
                    required=["path", "map"],
                ),
                "usage": _obj(
                    {
                        "path": RESPONSE_PATH,
                        "prompt_tokens": _usage_source,
                        "completion_tokens": _usage_source,
                        "total_tokens": _usage_source,
                        "cached_tokens": _usage_source,
                        "cache_creation_tokens": _usage_source,
                        "reasoning_tokens": _usage_source,
                        "unreported": {"enum": ["omit", "zero"]},
                        "zero_fill": {"type": "array", "items": RESPONSE_PATH},
                        # a key of the usage object read from another key when it holds no object
                        # (Cohere: `tokens`, else `billed_units`)
                        "fallback": {"type": "object", "additionalProperties": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}, "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$"}},
                    },
                    required=["path", "prompt_tokens", "completion_tokens", "total_tokens"],
                ),
                "envelope": {"type": "object"},
                "message_missing": {"enum": ["error", "empty"]},
                # The message is assembled from a list of output items (`message` is its path).
                "items": _obj(
                    {
                        "message": TEMPLATE,
                        "text": TEMPLATE,
                        "refusal": TEMPLATE,
                        # literal keys response_to_wire adds to the message item / text parts; never
                        # read, never required when reading
                        "write_also": _obj({"message": {"type": "object"}, "text": {"type": "object"}}),
                    },
                    required=["message", "text"],
                ),
                "content": {"enum": ["as_request", "joined_text"]},
                "refusal": _obj(
                    {"field": {"type": "string", "minLength": 1}, "strategy": {"enum": ["as_content", "ignore"]}},
                    required=["field", "strategy"],
                ),
            },
            required=["message", "finish_reason", "usage", "envelope"],
        ),
        "errors": _obj(
            {
                "message": RESPONSE_PATH,
                "type": RESPONSE_PATH,
                # a response header holding the error type when the body has none (AWS
                # x-amzn-ErrorType; the part before a `:`)
                "type_header": {"type": "string", "pattern": r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"},
                "code": RESPONSE_PATH,
                "rules": {"type": "array", "minItems": 1, "items": _error_rule},
                "retry_after": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "emit": _obj(
                    {
                        "body": {"type": "object", "description": "error envelope; strings {message} {type} {code} {code?} {status} are filled in"},
                        # response headers beside the body (AWS names the error type in
                        # x-amzn-ErrorType): a literal or one of {type} {code} {code?} {status}
                        "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                        "categories": _obj(
                            {
                                c: _obj(
                                    {
                                        "status": {"type": "integer", "minimum": 400, "maximum": 599},
                                        "type": {"type": "string", "minLength": 1},
                                        "code": {"type": "string", "minLength": 1},
                                        # the upstream's own status picks another row (an
                                        # overloaded upstream stays "overloaded" for the client)
                                        "when_upstream": {
                                            "type": "array",
                                            "items": _obj(
                                                {
                                                    "statuses": {"type": "array", "minItems": 1, "items": {"type": "integer", "minimum": 400, "maximum": 599}},
                                                    "status": {"type": "integer", "minimum": 400, "maximum": 599},
                                                    "type": {"type": "string", "minLength": 1},
                                                    "code": {"type": "string", "minLength": 1},
                                                },
                                                required=["statuses", "status", "type"],
                                            ),
                                        },
                                    },
                                    required=["status", "type"],
                                )
                                for c in ERROR_CATEGORIES
                            },
                            required=list(ERROR_CATEGORIES),
                        ),
                    },
                    required=["body", "categories"],
                ),
                "retry_delay": _obj(
                    {
                        "list": RESPONSE_PATH,
                        "match": {"type": "object", "additionalProperties": {"type": "string"}},
                        "field": {"type": "string", "minLength": 1},
                    },
                    required=["list", "match", "field"],
                ),
            },
            required=["message", "rules"],
        ),
        "concurrency": _obj({"serialize": {"const": False}}),
        "transport": _obj(
            {
                "base_url": {"type": "string", "pattern": "^https?://"},
                # another origin for some values of one transport param: {param: {value: origin}}
                # (Vertex AI: location `global` is aiplatform.googleapis.com, the multi-regions
                # `us` / `eu` aiplatform.<location>.rep.googleapis.com, not <location>-aiplatform)
                "base_url_by": {
                    "type": "object",
                    "minProperties": 1,
                    "maxProperties": 1,
                    "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
                    "additionalProperties": {
                        "type": "object",
                        "minProperties": 1,
                        "propertyNames": {"pattern": "^[A-Za-z0-9_-]+$"},
                        "additionalProperties": {"type": "string", "pattern": "^https?://"},
                    },
                },
                # the variable holding a per-resource base URL (Azure's AZURE_OPENAI_ENDPOINT);
                # it wins over `base_url`, and `base_url=` wins over both
                "base_url_env": {"type": "string", "pattern": "^[A-Z_][A-Z0-9_]*$"},
                "endpoint": _obj(
                    {"method": {"enum": ["GET", "POST"]}, "path": {"type": "string", "pattern": "^/"}},
                    required=["method", "path"],
                ),
                "auth": _obj(
                    {
                        "scheme": {"enum": ["bearer", "header", "query", "none"]},
                        "name": {"type": "string", "minLength": 1},
                        # the API also takes `Authorization: Bearer <token>` in the key's place
                        # (Azure's Microsoft Entra ID tokens): a gateway forwards such a token as one
                        "bearer_tokens": {"type": "boolean"},
                        # without a key: sign the request with AWS Signature Version 4 (botocore,
                        # the `aws` extra) for this service, or take a Google OAuth token from the
                        # application-default credentials (google-auth, the `google` extra)
                        "fallback": {
                            "oneOf": [
                                _obj({"aws_sigv4": _obj({"service": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
                                                         "region": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}},
                                                        required=["service", "region"])}, required=["aws_sigv4"]),
                                _obj({"google_adc": _obj({"scopes": {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": "^https://"}}},
                                                         required=["scopes"])}, required=["google_adc"]),
                            ]
                        },
                    },
                    required=["scheme"],
                ),
                # placeholders of base_url and of the paths that are no request field: each filled
                # from Provider(params=), else its environment variable, else its default
                "params": {
                    "type": "object",
                    "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
                    "additionalProperties": _obj(
                        {"env": {"type": "string", "pattern": "^[A-Z_][A-Z0-9_]*$"}, "default": {"type": "string", "minLength": 1}},
                        required=["env"],
                    ),
                },
                # fixed top-level body fields the transport adds to every request (the protocol
                # version where it travels in the body, not in a header); a gateway reading this
                # format takes them out before its tables read the body
                "body": {"type": "object", "additionalProperties": {"type": "string"}},
                "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                "api_key_env": {"type": "string", "pattern": "^[A-Z_][A-Z0-9_]*$"},
                # other variables the provider's SDK reads the key from, tried in order after it
                "api_key_env_also": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"type": "string", "pattern": "^[A-Z_][A-Z0-9_]*$"}},
                "ready": _obj(
                    {
                        "method": {"enum": ["GET", "POST"]},
                        "path": {"type": "string", "pattern": "^/"},
                        "list": RESPONSE_PATH,
                        "id": {"type": "string", "minLength": 1},
                        "state": _obj(
                            {
                                "field": {"type": "string", "minLength": 1},
                                "not_loaded": {"type": "array", "items": {"type": "string"}},
                            },
                            required=["field", "not_loaded"],
                        ),
                    },
                    required=["method", "path"],
                ),
                # why the API has no probe a ready() could use (Azure: the model list names base
                # models, not the deployments a request names); only beside `ready: null`
                "ready_unavailable": {"type": "string", "minLength": 1},
                # the gateway's list endpoint in this format (GET path, page and model templates)
                "models": _obj(
                    {"path": {"type": "string", "pattern": "^/"}, "page": TEMPLATE, "model": TEMPLATE},
                    required=["path", "page", "model"],
                ),
                # the format's own token counter: where it is, what body it takes, how it answers
                "count_tokens": _obj(
                    {
                        "method": {"enum": ["POST"]},
                        "path": {"type": "string", "pattern": "^/"},
                        "fields": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1, "uniqueItems": True},
                        "request": TEMPLATE,
                        "model": {"type": "string", "minLength": 1},
                        "answer": TEMPLATE,
                    },
                    required=["method", "path", "fields", "answer"],
                ),
            },
            required=["endpoint", "auth"],
        ),
        "structured_output": _obj(
            {
                "mode": {"enum": ["native", "prompt_fallback", "tool_coercion"]},
                "directive": {"type": "string", "minLength": 1, "pattern": "\\{schema\\}"},
                "tool": _obj(
                    {"name": {"type": "string", "pattern": r"^[A-Za-z0-9_-]{1,64}$"}, "description": {"type": "string", "minLength": 1}},
                    required=["name", "description"],
                ),
                "field": WIRE_FIELD,
                "wire": TEMPLATE,
                "name": {
                    "oneOf": [
                        {"enum": ["derived"]},
                        _obj({"fixed": {"type": "string", "minLength": 1}}, required=["fixed"]),
                    ]
                },
                "strict": {"enum": ["always", "when_schema_qualifies", "never"]},
                "schema": {"enum": ["verbatim", "close_and_nullable_optional"]},
                # the schema may also come under another key of `field`, in another schema
                # language (Gemini responseSchema: the OpenAPI 3.0 subset), read as the JSON
                # Schema when the template's own key is absent (mode native)
                "schema_also": SCHEMA_ALSO,
            },
            required=["mode", "field", "wire", "directive"],
        ),
        "wire_rules": WIRE_RULES_SCHEMA,
        "stream": STREAM_SCHEMA,
        # named strategies: a Python function per hook (codegen/sections/strategies.py)
        "strategies": _obj({hook: {"type": "string", "minLength": 1} for hook in ("request_out", "request_in", "response_out", "response_in")}),
        # rows whose output does not read back as itself on purpose (codegen/check/prove.py skips
        # their probe and refuses an entry whose row does read back): pointer -> why
        "lossy_rows": {
            "type": "object",
            "propertyNames": {"pattern": r"^/(request/(content_parts/[a-z_.]+(@[a-z][a-z0-9+.-]*)?|tools|tool_calls|tool_results|tool_choice/(auto|required|none|tool))|response/(envelope|finish_reason/map)|errors/emit/categories/[a-z_]+)$"},
            "additionalProperties": {"type": "string", "minLength": 1},
        },
        # fused translators into this format (codegen/emit/fused.py); not inherited by `extends`
        "fuse": _obj(
            {
                "from": {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"type": "string", "pattern": r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$"}},
                "doc": {"type": "string"},
            },
            required=["from"],
        ),
        "fixtures": {"type": "array", "items": _fixture},
    },
    required=["meta", "request", "response", "errors"],
)


# --------------------------------------------------------------------------------------------
# Non-chat kinds (`kind: embeddings`, `kind: images`): the same meta, errors, transport and
# fixtures; their own small request and response tables (mappings/README.md "kind").

KINDS = ["chat", "embeddings", "images"]

_param = _obj(
    {
        "type": {"enum": ["string", "integer", "number", "boolean", "object", "array"]},
        "enum": {"type": "array", "minItems": 1, "items": {"type": ["string", "integer", "number", "boolean"]}},
        "scoped": {"type": "array", "items": _obj(
            {
                "models": {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}},
                "unsupported": UNSUPPORTED,
                "doc": {"type": "string"},
            },
            required=["models", "unsupported"],
        )},
        # embeddings with input.each: the param goes into every request object, not the root, and
        # is read back from them (they must agree) into config.extras (Gemini batch `title`)
        "each": {"type": "boolean"},
        "doc": {"type": "string"},
    }
)


def _task_request(input_props: dict[str, Any], input_required: list[str]) -> dict[str, Any]:
    return _obj(
        {
            "model": WIRE_FIELD,
            "input": _obj(
                {"field": WIRE_FIELD, "non_text": {"enum": ["reject", "strip"]}, "empty": {"enum": ["reject", "send"]}, **input_props},
                required=["field", "strategy", "non_text", "empty", *input_required],
            ),
            "config": {"enum": ["reject", "warn", "drop"]},
            "params": {"type": "object", "patternProperties": {"^x-": {}, "^[A-Za-z_][A-Za-z0-9_]*$": _param}, "additionalProperties": False},
            "extras": _obj({"placement": {"enum": ["root"]}, "collision": {"enum": ["managed"]}}, required=["placement", "collision"]),
        },
        required=["model", "input", "config", "extras"],
    )


_task_usage = _obj(
    {
        "path": RESPONSE_PATH,
        "prompt_tokens": RESPONSE_PATH,
        "completion_tokens": RESPONSE_PATH,
        "total_tokens": RESPONSE_PATH,
    },
    required=["path", "prompt_tokens", "total_tokens"],
)

_literals = {"type": "object", "additionalProperties": {"type": ["string", "integer", "number", "boolean", "null"]}}
_from_raw = {"type": "object", "additionalProperties": _obj({"from_raw": WIRE_FIELD, "default": {}}, required=["from_raw"])}


def _task_schema(kind: str, request: dict[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    props = dict(MAPPING_SCHEMA["properties"])
    for key in ("value_maps", "structured_output", "wire_rules", "request", "response", "stream", "fuse", "lossy_rows", "strategies"):  # wire_rules, stream, fuse, lossy_rows, strategies: chat only
        props.pop(key)
    props["kind"] = {"const": kind}
    props["request"] = request
    props["response"] = response
    props["value_maps"] = MAPPING_SCHEMA["properties"]["value_maps"]  # images: media types; embeddings: option values
    return _obj(props, required=["kind", "meta", "request", "response", "errors"])


#: the canonical embeddings options (config.input_type, config.dimensions, config.encoding_format)
#: and how a mapping writes each: a wire field, or `unsupported` when the API has none
EMBEDDING_OPTIONS = ["input_type", "dimensions", "encoding_format"]
_embedding_option = {
    "oneOf": [
        WIRE_FIELD,
        _obj(
            {
                "wire": WIRE_FIELD,
                # a value map (canonical -> wire spelling); a value it does not list is
                # `unsupported` (its "*" row must be reject) or passed (its "*" row is pass)
                "map": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
                # the wire field is an array holding the value (Cohere embedding_types)
                "list": {"type": "boolean"},
                # the field is written in every object of input.each (and read back from them)
                "each": {"type": "boolean"},
                # sent when the request does not set the option (a field the API requires)
                "default": {"type": ["string", "integer"]},
                # no wire field (or a value the map does not list): drop, warn or reject
                "unsupported": UNSUPPORTED,
                "doc": {"type": "string"},
            },
        ),
    ]
}

_embeddings_request = _task_request(
    {
        "strategy": {"enum": ["every_text"]},
        "one": {"enum": ["string", "array"]},
        # `one`: the call embeds exactly one text (Gemini embedContent, Titan); more is refused
        "texts": {"enum": ["many", "one"]},
        # each text is written as the object {<item>: text} (a Gemini Part {text})
        "item": WIRE_FIELD,
        # each text is one object of the `field` array, built from this template: `{text}` once,
        # `{model}` at most once (`models/{model}`), literals otherwise (Gemini batchEmbedContents
        # requests[]); options with `each: true` are written into every one
        "each": {"type": "object", "description": "a template for one text's request object"},
    },
    ["one"],
)
# optional, and so is each row: a row the table does not state is `{unsupported: warn}`
_embeddings_request["properties"]["options"] = _obj({name: _embedding_option for name in EMBEDDING_OPTIONS})
_embeddings_usage = _obj(
    {"path": RESPONSE_PATH, "prompt_tokens": RESPONSE_PATH, "completion_tokens": RESPONSE_PATH, "total_tokens": RESPONSE_PATH},
    required=["path", "prompt_tokens"],
)

TASK_SCHEMAS: dict[str, dict[str, Any]] = {
    "embeddings": _task_schema(
        "embeddings",
        _embeddings_request,
        _obj(
            {
                # the vectors: `list` (an array of items, each with its `vector`, in `index`
                # order or in array order), `by_type` (an object of vector arrays keyed by
                # encoding type: Cohere `embeddings`), or neither (one vector at `vector`)
                "list": WIRE_FIELD,
                "index": WIRE_FIELD,
                "vector": WIRE_FIELD,
                "by_type": WIRE_FIELD,
                "model": WIRE_FIELD,
                "usage": _embeddings_usage,
                "envelope": {"type": "object", "additionalProperties": {"oneOf": [
                    {"type": ["string", "integer", "number", "boolean", "null"]},
                    _obj({"from_raw": WIRE_FIELD, "default": {}}, required=["from_raw"]),
                ]}},
                "item": _literals,
            },
            required=["envelope"],
        ),
    ),
    "images": _task_schema(
        "images",
        _task_request(
            {
                "strategy": {"enum": ["last_user_text", "last_user_first_text"]},
                "join": {"type": "string"},
                "others": {"enum": ["reject", "ignore"]},
            },
            ["others"],
        ),
        _obj(
            {
                "list": WIRE_FIELD,
                "url": WIRE_FIELD,
                "base64": WIRE_FIELD,
                "revised_prompt": WIRE_FIELD,
                "media_type": _obj({"field": WIRE_FIELD, "map": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}}, required=["field", "map"]),
                "usage": _task_usage,
                "envelope": _from_raw,
            },
            required=["list", "url", "base64", "envelope"],
        ),
    ),
}


def schema_for(data: Any) -> dict[str, Any]:
    """The schema a mapping is validated against: its `kind` picks it (default `chat`)."""
    kind = data.get("kind", "chat") if isinstance(data, dict) else "chat"
    return TASK_SCHEMAS.get(kind, MAPPING_SCHEMA) if isinstance(kind, str) else MAPPING_SCHEMA

"""Small, hot-path functions the generated converters call.

Readers raise `WireShapeError(path, message)`; a converter's public entry point turns it into
`InvalidRequestError` (a wire *request* it was asked to read) or `InvalidResponseError` (a
provider body), keeping the path. Nothing here knows any provider.
"""

from __future__ import annotations

import json
import math
import re
import time
import types
from collections.abc import Mapping
from typing import Any, Callable, Final, Literal, Optional, TypeVar, cast, overload

from contextvars import ContextVar

from .canonical import NOT_GIVEN, AudioBlock, EmbeddingsResponse, FileBlock, ImageBlock, ImagesResponse, NotGiven, Request, Response, TextBlock, UrlSource, UserMessage
from .carry import ABSENT as _ABSENT, Carried, apply as apply_carried, path_text as _path_text, residual, value_at
from .errors import InvalidRequestError, InvalidResponseError, ProviderError, StructuredOutputInvalidError, UnsupportedOptionWarning, error_class
from .json_values import canonical_json, json_copy  # re-exported (__all__): generated code calls _w.canonical_json
from .validate import (
    shown,  # re-exported (__all__): generated error messages show user values with it
    KEEP_ORDER,
    HELD,
    EmptyTurnError,
    refuse_empty_turn,  # re-exported (__all__): the writers' empty-turn rule, held turns let through
    MAX_JSON_DEPTH,
    OPENARMATURE,
    TOO_DEEP as _TOO_DEEP,
    SORTED_JSON,
    USER_CONTENT_RULE,
    check_json_value,
    check_request_depth,
    check_response_depth,
    json_too_deep as _json_too_deep,
    validate_request,
)

__all__ = [
    "WireShapeError",
    "refuse_empty_turn",
    "says_text",
    "openapi_schema",
    "schema_also_paths",
    "structured_also_paths",
    "ErrorRead",
    "read_error",
    "rebind",
    "table_with",
    "shown",
    "member_json",
    "read_request",
    "options_to_wire",
    "options_from_wire",
    "read_response",
    "user_content",
    "assistant_content",
    "CachePoint",
    "attach_cache_point",
    "attach_cache_points",
    "as_request",
    "refuse_embedding_options",
    "write_vector",
    "float32_vectors",
    "check_request_depth",
    "check_response_depth",
    "as_response",
    "dumps",
    "wire_json",
    "loads_object",
    "canonical_json",
    "expect_dict",
    "expect_list",
    "lone_as_list",
    "expect_str",
    "expect_bool",
    "member",
    "member_dict",
    "member_list",
    "member_str",
    "member_text",
    "member_text_carry",
    "skip_part",
    "whole_number",
    "negated",
    "spelled",
    "derived_equal",
    "Skipped",
    "apply_carried",
    "read_value_or_skip",
    "json_copy",
    "dumps_kept",
    "encode_made_once",
    "new_memo",
    "KEEP_ORDER",
    "ProtoNames",
    "text_or_json",
    "json_as_given",
    "optional_str",
    "optional_bool",
    "optional_detail",
    "optional_json",
    "get_in",
    "member_arguments",
    "usage_addend",
    "usage_counter",
    "usage_rest",
    "usage_sum",
    "deep_equal",
    "merge_list",
    "retry_after",
    "status_code",
    "error_text",
    "error_words",
    "ERROR_MATCH_LIMIT",
    "schema_name",
    "schema_qualifies_for_strict",
    "close_object_schema",
    "close_all_object_schemas",
    "close_and_nullable_optional",
    "parse_structured",
    "with_schema_directive",
    "take_coerced_output",
    "as_embeddings_response",
    "as_images_response",
    "every_text",
    "last_user_text",
    "check_param",
    "read_vector",
    "ordered_by_index",
    "put_in",
    "put_in2",
    "guess_media_type",
    "retry_delay",
    "synthesized_call_id",
    "consume_in",
    "container_in",
    "leftover",
    "read_hoisted",
    "pair_tool_results",
    "lazy_pattern",
    "list_or_string",
    "bare_user_turn",
]


def strict_of_all(tools: Any) -> bool | None:
    """`tools.strict_all` when writing: the `strict` every tool states alike (True or False), or
    None when a tool leaves it out or they differ (then nothing is written, and a translation
    names the tools' strict as a loss)."""
    values = {tool.strict for tool in tools}
    if len(values) == 1:
        (value,) = values
        if type(value) is bool:
            return value
    return None


def with_strict(tools: Any, value: Any, path: str) -> Any:
    """`tools.strict_all` when reading: every tool gets the request-level boolean as its strict."""
    if type(value) is not bool:
        raise WireShapeError(path, f"expected a boolean, got {_kind(value)}")
    for tool in tools:
        tool.strict = value
    return tools


class WireShapeError(Exception):
    """A wire body does not have the shape the mapping declares."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}" if path else message)



_JSON_TYPES: Final = {
    dict: "an object",
    list: "an array",
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


def _kind(value: Any) -> str:
    return _JSON_TYPES.get(type(value), type(value).__name__)


def new_memo(rules: int) -> dict[int, Any]:
    """The memo a request writer hands validation (`as_request`) for its copies of user JSON:
    sorted under OpenArmature §8 (`SORTED_JSON`), else in the caller's key order."""
    return {} if rules & SORTED_JSON else {KEEP_ORDER: True}


def as_request(
    request: Request | Mapping[str, Any], memo: dict[int, Any] | None = None, rules: int = OPENARMATURE, origin: str | None = None
) -> Request:
    """A typed, validated canonical request from a dict or a `Request` (never mutated).
    `memo`: validate_request's, for `memo_json`; `rules`: the format's (validate.ORDERING, ...).
    `origin`: the writer's (`PROVIDER/wire`); a request carrying data of that origin has its held
    assistant turns (`Carried.held`) let through empty into `memo`, for the carried data to fill."""
    if type(request) is Request or isinstance(request, Request):
        req = request
    elif isinstance(request, Mapping):
        req = Request.from_dict(request)
    else:
        raise InvalidRequestError(f"expected a canonical request (a dict or Request), got {_kind(request)}")
    carried = req.carried
    if carried is not None and memo is not None and carried.__class__ is Carried and carried.held and carried.origin == origin:
        memo[HELD] = carried.held
    validate_request(req, memo, rules)
    return req


def refuse_embedding_options(config: Any, key: str, kind: str) -> None:
    """A chat or images request that sets an embeddings option (`config.input_type`,
    `dimensions`, `encoding_format`): no row of such a table sends it, so it is refused at its
    path rather than left out without a word."""
    for name in ("input_type", "dimensions", "encoding_format"):
        if getattr(config, name) is not NOT_GIVEN:
            raise InvalidRequestError(
                f"{name} is an embeddings option, which {key} ({kind}) has no field for",
                path=f"config.{name}",
            )


def as_response(response: Response | Mapping[str, Any]) -> Response:
    """A typed canonical response from a dict or a `Response`; tool-call arguments that are not
    plain JSON (NaN, a non-string key, nested deeper than MAX_JSON_DEPTH: the limit every
    direction applies) are InvalidRequestError naming the path, before the writer encodes them."""
    if isinstance(response, Response):
        resp = response
    elif isinstance(response, Mapping):
        resp = Response.from_dict(response)
    else:
        raise InvalidRequestError(f"expected a canonical response (a dict or Response), got {_kind(response)}")
    calls = getattr(getattr(resp, "message", None), "tool_calls", None)
    if type(calls) is list:  # one walk per arguments value: its depth is part of the check
        for j, call in enumerate(calls):
            args = getattr(call, "arguments", None)
            if args is not None:
                check_json_value(args, f"message.tool_calls[{j}].arguments")
    return resp


# One encoder, made once: json.dumps builds a new JSONEncoder on every call that passes options.
_ENCODER: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_KEPT_ENCODER: Final = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)
_STRICT_ENCODER: Final = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)




def encode_made_once(encoder: json.JSONEncoder) -> Callable[[Any], str]:
    """`encoder.encode`, with the C encoder `encode` builds on every call (about 0.8 µs of a small
    tool call's arguments) built once. It is made without the circular check (that check's
    record of the objects open would be shared by every caller, threads included), so a cycle
    recurses until Python's limit: on RecursionError, a value nested too deeply or a cycle, the
    encoder's own `encode` answers, with its own error (Circular reference detected, or the
    RecursionError). The same C code otherwise, so the same text and errors."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None or encoder.indent is not None:  # no C accelerator in this Python: as it was
        return encoder.encode
    scan = make(
        None, encoder.default, json.encoder.encode_basestring_ascii if encoder.ensure_ascii else json.encoder.encode_basestring,
        None, encoder.key_separator, encoder.item_separator, encoder.sort_keys, encoder.skipkeys, encoder.allow_nan,
    )
    join = "".join

    def encode(value: Any) -> str:
        try:
            return join(scan(value, 0))
        except RecursionError:
            return encoder.encode(value)

    return encode


_ENCODE: Final = encode_made_once(_ENCODER)
_KEPT_ENCODE: Final = encode_made_once(_KEPT_ENCODER)
_STRICT_ENCODE: Final = encode_made_once(_STRICT_ENCODER)


def dumps(value: Any) -> str:
    """Compact JSON with sorted keys: the byte-stable encoding (OpenArmature §8)."""
    return _ENCODE(value)


def wire_json(value: Any, path: str) -> str:
    """`dumps` of a value read from a wire body (a reasoning item kept whole as a signature): a
    body handed over as Python objects may hold what JSON has no form for (bytes, NaN), which is
    a WireShapeError at `path`, not a TypeError."""
    try:
        return _STRICT_ENCODE(value)
    except (TypeError, ValueError) as exc:
        raise WireShapeError(path, f"not JSON: {exc}") from None


def member_arguments(obj: dict[str, Any], key: str, path: str, lenient: bool | None) -> dict[str, Any] | None:
    """A tool call's object-valued arguments in a response: an object; JSON null is null arguments
    (how `response_to_wire` writes a degraded call's); under a degraded response (`lenient` True)
    anything else is null too (§3)."""
    value = obj.get(key)
    if type(value) is dict:
        return value
    if lenient or (lenient is None and key in obj and value is None):
        return None
    return member_dict(obj, key, path)


_DECODE: Final = json.JSONDecoder().decode  # what json.loads(text) calls for a str, made once


@overload
def loads_object(text: Any, path: str, lenient: Literal[False] = False) -> dict[str, Any]: ...
@overload
def loads_object(text: Any, path: str, lenient: bool | None) -> dict[str, Any] | None: ...
def loads_object(text: Any, path: str, lenient: bool | None = False) -> dict[str, Any] | None:
    """Decode a JSON-string object (tool arguments). Lenient: undecodable -> None (§3 degraded).
    `lenient` None (a response that is not degraded): the JSON text `null` -> None, the way
    `response_to_wire` writes a degraded call's null arguments; anything else as strict."""
    if not isinstance(text, str):
        if lenient:
            return None
        raise WireShapeError(path, f"expected a JSON string, got {_kind(text)}")
    try:
        # json.loads of a str without options is its default decoder's decode, after refusing a
        # leading byte-order mark (left to json.loads, for its own error)
        value = _DECODE(text) if type(text) is str and not text.startswith("\ufeff") else json.loads(text)
    except (ValueError, RecursionError) as exc:
        if lenient:
            return None
        raise WireShapeError(path, f"not valid JSON: {exc}") from None
    if type(value) is not dict:
        if lenient or (lenient is None and value is None):
            return None
        raise WireShapeError(path, f"expected a JSON object, got {_kind(value)}")
    return value


@overload
def member_json(obj: dict[str, Any], key: str, path: str, lenient: Literal[False] = False) -> dict[str, Any]: ...
@overload
def member_json(obj: dict[str, Any], key: str, path: str, lenient: bool | None) -> dict[str, Any] | None: ...
def member_json(obj: dict[str, Any], key: str, path: str, lenient: bool | None = False) -> dict[str, Any] | None:
    """`loads_object(member(obj, key, path), path + "." + key, lenient)` (a JSON-string object,
    e.g. tool-call arguments), answering the common case (a string holding a JSON object) first:
    the paths are built only on the way to an error, or to a lenient None."""
    text = obj.get(key)
    if type(text) is str and not text.startswith("\ufeff"):
        try:
            value = _DECODE(text)
        except (ValueError, RecursionError):
            value = None
        if type(value) is dict:
            return value
    return loads_object(member(obj, key, path), path + "." + key, lenient)


def derived_equal(value: Any, derive: Callable[[Any], Any], schema: Any) -> bool:
    """Whether an option read inside the structured-output object is what that row derives from
    the schema itself (its hashed name, strict): False when the schema cannot be derived from
    (a value no JSON holds: the schema's own check names it)."""
    try:
        return bool(value == derive(schema))
    except (TypeError, ValueError, RecursionError):
        return False


def spelled(value: Any, table: Mapping[str, Any], keep: bool) -> Any:
    """An option's wire spelling read as its canonical value (option row `values`). A value the
    row does not list is read as given when `keep` (a string option: the canonical check judges
    it), else it is not this option (None: a boolean option's other wire values, such as
    `response_format.type: json_schema` for json_mode, belong to other rows or are carried)."""
    if value is None:
        return None
    if type(value) is str and value in table:
        return table[value]
    return value if keep else None


def negated(value: Any) -> Any:
    """A boolean option the wire states the other way round (option row `negate`); any other
    value is left for the canonical check to refuse at its config path."""
    return (not value) if type(value) is bool else value


def whole_number(value: Any) -> Any:
    """An integer-valued float as the int it is (a wire that sends `40.0` for an integer field,
    as JSON allows); any other value as it is (validation judges it)."""
    if type(value) is float and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


def dumps_kept(value: Any) -> str:
    """Compact JSON text with object keys in the caller's order (tool-call arguments)."""
    return _KEPT_ENCODE(value)


_CONTAINERS: Final = frozenset((dict, list))
_MISS: Final[Any] = object()


def memo_json(value: Any, memo: dict[int, Any] | None) -> Any:
    """canonical_json(value), taken from the copy validation made of this very value while
    checking it (validate.sorted_json_value) when there is one. Taken out, not shared: a value
    written twice gets two copies, as canonical_json gives."""
    if memo:
        copy = memo.pop(id(value), _MISS)
        if copy is not _MISS:
            return copy
        if KEEP_ORDER in memo:
            return json_copy(value)
    return canonical_json(value)


def expect_dict(value: Any, path: str) -> dict[str, Any]:
    if type(value) is dict:
        return value
    raise WireShapeError(path, f"expected an object, got {_kind(value)}")


def expect_list(value: Any, path: str) -> list[Any]:
    if type(value) is list:
        return value
    raise WireShapeError(path, f"expected an array, got {_kind(value)}")


def expect_str(value: Any, path: str) -> str:
    if type(value) is str:
        return value
    raise WireShapeError(path, f"expected a string, got {_kind(value)}")


def expect_bool(value: Any, path: str) -> bool:
    if type(value) is bool:
        return value
    raise WireShapeError(path, f"expected a boolean, got {_kind(value)}")


def list_or_string(value: Any, path: str) -> list[Any] | str:
    """A field that is an array or a bare string (mapping: `user.bare_string: read`)."""
    if type(value) is list or type(value) is str:
        return value
    raise WireShapeError(path, f"expected an array or a string, got {_kind(value)}")


def bare_user_turn(text: str, path: str) -> UserMessage:
    """The messages field given as a bare string (mapping: `user.bare_string: read`): one user
    turn whose content is that text. An empty string is refused here, at the wire field, with the
    canonical rule for user content (request_to_wire would refuse the turn it stands for)."""
    if not text:
        raise WireShapeError(path, USER_CONTENT_RULE)
    return UserMessage(content=text)


def member(obj: dict[str, Any], key: str, path: str) -> Any:
    try:
        return obj[key]
    except KeyError:
        raise WireShapeError(f"{path}.{key}" if path else key, "required key is missing") from None


# The member_* and optional_* readers answer the common case (the key holds the expected type)
# first; the path of an error is built only when there is one.


def lone_as_list(value: Any, path: str) -> list[Any]:
    """An array, or one object given where the array goes, as a one-item array (mapping
    `tools.lone_object`: the API's JSON parsing takes a repeated field's lone value)."""
    if type(value) is dict:
        return [value]
    return expect_list(value, path)


def member_dict(obj: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    value = obj.get(key)
    if type(value) is dict:
        return value
    return expect_dict(member(obj, key, path), f"{path}.{key}" if path else key)


def member_list(obj: dict[str, Any], key: str, path: str) -> list[Any]:
    value = obj.get(key)
    if type(value) is list:
        return value
    return expect_list(member(obj, key, path), f"{path}.{key}" if path else key)


def member_str(obj: dict[str, Any], key: str, path: str) -> str:
    value = obj.get(key)
    if type(value) is str:
        return value
    return expect_str(member(obj, key, path), f"{path}.{key}" if path else key)


def text_or_json(obj: dict[str, Any], key: str, path: str) -> str:
    """A tool result's text (`member_text`); when `key` is missing or holds no text, the JSON
    text of `obj` itself, its keys in their order (mapping `tool_results.other_content: json`)."""
    value = obj.get(key)
    if type(value) is str:
        return value
    if type(value) is list and all(type(p) is dict and p.get("type") == "text" for p in value):
        return member_text(obj, key, path)
    return json_as_given(obj, path)


def json_as_given(value: Any, path: str) -> str:
    """Compact JSON text with object keys in their given order (the caller's JSON, kept)."""
    try:
        return _KEPT_ENCODE(value)
    except (TypeError, ValueError) as exc:
        raise WireShapeError(path, f"not JSON: {exc}") from None


def member_text_carry(obj: dict[str, Any], key: str, path: str) -> str:
    """`member_text`, where parts other than text (an image or a tool reference in a tool result)
    are left out: the same wire gets them back as carried data (request.unknown: carry)."""
    value = member(obj, key, path)
    if type(value) is list:
        where = f"{path}.{key}" if path else key
        texts = []
        for j, part in enumerate(value):
            if type(part) is dict and type(part.get("type")) is str and part["type"] in _TEXT_PART_TYPES:
                text = part.get("text")
                if type(text) is not str:
                    raise WireShapeError(f"{where}[{j}].text", f"expected a string, got {_kind(text)}")
                texts.append(text)
            else:  # carried: held to the depth limit of every direction here, where every path reads it
                deep = _json_too_deep(part, f"{where}[{j}]")
                if deep is not None:
                    raise WireShapeError(deep, _TOO_DEEP)
        return "".join(texts)
    return member_text(obj, key, path)


_TEXT_PART_TYPES: Final = frozenset(("text", "input_text", "output_text"))

#: the canonical blocks a tool result's parts may be (issue 20)
_RESULT_BLOCKS: Final = (TextBlock, ImageBlock, AudioBlock, FileBlock)


def member_tool_parts(obj: dict[str, Any], key: str, path: str, read_part: Any) -> str | list[Any]:
    """A tool result's content (`tool_results.content: parts`): a string, or an array of parts.
    An array with only text parts reads as its joined text (as `member_text_carry`); one with an
    image, audio or file part reads as parts, each by the format's user-part reader. Parts that
    are not content blocks (an Anthropic tool_reference) are left for the carried data."""
    value = member(obj, key, path)
    if type(value) is not list:
        return member_text_carry(obj, key, path)
    texts = []
    for part in value:  # the common case in one pass: text parts only, each text a string
        if type(part) is dict:
            kind = part.get("type")
            if type(kind) is str and kind in _TEXT_PART_TYPES:
                text = part.get("text")
                if type(text) is str:
                    texts.append(text)
                    continue
                if all(type(p) is dict and type(p.get("type")) is str and p["type"] in _TEXT_PART_TYPES for p in value):
                    return member_text_carry(obj, key, path)  # a text part whose text is not a string: its error
        break  # (a part that is not a text part: the parts are read one by one)
    else:
        return "".join(texts)
    where = f"{path}.{key}" if path else key
    blocks: list[Any] = []
    for j, part in enumerate(value):
        got = read_part(part, f"{where}[{j}]")
        if type(got) in _RESULT_BLOCKS:
            blocks.append(got)
        elif got is not SKIP and type(part) is dict:  # carried: held to the depth limit, as member_text_carry does (skip_part held it)
            deep = _json_too_deep(part, f"{where}[{j}]")
            if deep is not None:
                raise WireShapeError(deep, _TOO_DEEP)
    if not blocks:  # no content block (only a tool_reference: carried)
        return ""
    if all(type(b) is TextBlock for b in blocks):  # its text parts (a wire without a type tag too), joined
        return "".join(b.text for b in blocks)
    return blocks


def tool_media(text: str, parts: Any, path: str, read_part: Any) -> str | list[Any]:
    """A tool result whose media sit beside its text (`tool_results.media`: Gemini
    functionResponse.parts): the text, then each part read by the format's user-part reader."""
    if type(parts) is not list:
        raise WireShapeError(path, f"expected an array, got {_kind(parts)}")
    blocks: list[Any] = []
    for j, part in enumerate(parts):
        got = read_part(part, f"{path}[{j}]")
        if type(got) in _RESULT_BLOCKS:
            blocks.append(got)
    if not blocks:
        return text
    return ([TextBlock(text)] if text else []) + blocks


def block_kind(block: Any) -> str:
    """A content block's content_parts kind: `image.inline`, `file.url`, `text`, ..."""
    family = _BLOCK_FAMILY.get(type(block), "")
    source = getattr(block, "source", None)
    if source is None:
        return family
    return family + (".url" if type(source) is UrlSource else ".inline")


_BLOCK_FAMILY: Final[dict[type, str]] = {TextBlock: "text", ImageBlock: "image", AudioBlock: "audio", FileBlock: "file"}


def tool_text(content: Any, path: str = "") -> Any:
    """A tool result's content for a wire that holds text only: the text of its text blocks,
    joined. Each other part is dropped with an UnsupportedOptionWarning naming it (a translation
    names it in its loss report instead)."""
    if type(content) is list:
        for k, b in enumerate(content):
            if type(b) is not TextBlock:
                dropped_part(b, f"{path}[{k}]")
        return "".join(b.text for b in content if type(b) is TextBlock)
    return content


def dropped_part(block: Any, path: str) -> None:
    """A tool result's part the format cannot carry: dropped, with an UnsupportedOptionWarning."""
    import warnings  # only on the way to a drop

    warnings.warn(
        f"{path}: a tool result's {block_kind(block)} part is not carried by this format's tool results; dropped",
        UnsupportedOptionWarning,
        stacklevel=4,
    )


def set_in(obj: dict[str, Any], keys: tuple[str, ...], value: Any) -> None:
    """`obj[k0][k1]...[kn] = value`, making the objects on the way."""
    for key in keys[:-1]:
        nxt = obj.get(key)
        if type(nxt) is not dict:
            nxt = obj[key] = {}
        obj = nxt
    obj[keys[-1]] = value


def member_text(obj: dict[str, Any], key: str, path: str) -> str:
    """A text field the wire may also send as an array of text parts, which are joined."""
    value = member(obj, key, path)
    if type(value) is str:
        return value
    where = f"{path}.{key}" if path else key
    if type(value) is not list:
        raise WireShapeError(where, f"expected a string or an array of text parts, got {_kind(value)}")
    texts = []
    for j, part in enumerate(value):
        part = expect_dict(part, f"{where}[{j}]")
        if part.get("type") != "text":
            raise WireShapeError(f"{where}[{j}].type", f"only text parts can be read here, got {shown(part.get('type'))}")
        texts.append(member_str(part, "text", f"{where}[{j}]"))
    return "".join(texts)


def optional_str(obj: dict[str, Any], key: str, path: str) -> str | NotGiven:
    value = obj.get(key)
    if value is None:
        return NOT_GIVEN
    if type(value) is str:
        return value
    return expect_str(value, f"{path}.{key}" if path else key)


_DETAILS: Final = ("auto", "low", "high")


def optional_detail(obj: dict[str, Any], key: str, path: str) -> Literal["auto", "low", "high"] | NotGiven:
    value = obj.get(key)
    if value is None:
        return NOT_GIVEN
    if value == "auto" or value == "low" or value == "high":
        return value  # type: ignore[no-any-return]
    raise WireShapeError(f"{path}.{key}" if path else key, f"expected one of: auto, high, low; got {shown(value)}")


def optional_bool(obj: dict[str, Any], key: str, path: str) -> bool | NotGiven:
    value = obj.get(key)
    if value is None:
        return NOT_GIVEN
    if type(value) is bool:
        return value
    return expect_bool(value, f"{path}.{key}" if path else key)


def optional_json(obj: dict[str, Any], key: str, path: str) -> dict[str, Any] | NotGiven:
    value = obj.get(key)
    if value is None:
        return NOT_GIVEN
    if type(value) is dict:
        return value
    return expect_dict(value, f"{path}.{key}" if path else key)


def optional_cache(obj: dict[str, Any], key: str, path: str) -> dict[str, Any] | NotGiven:
    """A prompt-cache breakpoint (`cache_control`): absent, or an object with a string `type`."""
    value = obj.get(key)
    if value is None:
        return NOT_GIVEN
    where = f"{path}.{key}" if path else key
    value = expect_dict(value, where)
    if type(value.get("type")) is not str:
        raise WireShapeError(where + ".type", "expected a string, got " + _kind(value.get("type")))
    return value


def get_in(value: Any, keys: tuple[str | int, ...]) -> Any:
    """Follow keys/indexes; None when any step is missing or of the wrong kind."""
    for key in keys:
        if type(key) is int:
            if type(value) is not list:
                return None
            try:
                value = value[key]  # an index from the end too, as -len(value) <= key < len(value)
            except IndexError:
                return None
        elif type(value) is dict:
            value = value.get(key)
        else:
            return None
    return value


def usage_counter(value: Any) -> int | None:
    """A usage counter, or None when absent or malformed (OpenArmature §7 Malformed usage counter)."""
    if type(value) is int and value >= 0:
        return value
    return None


def usage_addend(value: Any) -> int | None:
    """An optional addend of a usage sum (`name?`): absent or null counts as 0, malformed as unreported."""
    if value is None:
        return 0
    return usage_counter(value)


def usage_rest(total: int | None, *parts: int | None) -> int | None:
    """The free addend of a usage sum when writing: the counter minus the other addends (unreported
    ones count as 0), never below 0; None when the counter itself is unreported."""
    if total is None:
        return None
    rest = total
    for part in parts:
        if part is not None:
            rest -= part
    return rest if rest > 0 else 0


def usage_sum(*values: int | None) -> int | None:
    """A derived total is not reported when any addend is not (OpenArmature §7)."""
    total = 0
    for value in values:
        if value is None:
            return None
        total += value
    return total


def deep_equal(a: Any, b: Any) -> bool:
    """Decoded-value deep equality (OpenArmature §6): 1 == 1.0, True != 1, arrays ordered."""
    if type(a) is bool or type(b) is bool:
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if type(a) is dict and type(b) is dict:
        return a.keys() == b.keys() and all(deep_equal(a[k], b[k]) for k in a)
    if type(a) is list and type(b) is list:
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and bool(a == b)


def merge_list(declared: list[Any], extra: Any, coerce_string: bool) -> list[Any]:
    """Additive managed field: declared values first, then the caller's, first occurrence wins.

    A malformed extra (not a list of strings) is treated as absent (OpenArmature §6).
    """
    if coerce_string and type(extra) is str:
        extra = [extra]
    if type(extra) is not list or any(type(v) is not str for v in extra):
        extra = []
    out: list[Any] = []
    for value in (*declared, *extra):
        if value not in out:
            out.append(value)
    return out


#: one `errors.rules` row as the generated ERROR_RULES tables hold it: (statuses, status class,
#: types, codes, body pattern, category); None: the rule does not test that
ErrorRule = tuple[Optional[tuple[int, ...]], Optional[int], Optional[tuple[str, ...]], Optional[tuple[str, ...]], Optional[str], str]


def classify_error(rules: tuple[ErrorRule, ...], status: int, error_type: Any, error_code: Any, text: str) -> str:
    """The category of the first rule an error matches (a generated module's ERROR_RULES). The
    pattern is searched in the error's own words (`error_words`), `re`'s cache compiling it once."""
    for statuses, status_class, types, codes, pattern, category in rules:
        if statuses is not None and status not in statuses:
            continue
        if status_class is not None and not status_class * 100 <= status < status_class * 100 + 100:
            continue
        if types is not None and error_type not in types:
            continue
        if codes is not None and error_code not in codes:
            continue
        if pattern is not None and re.search(pattern, text) is None:
            continue
        return category
    return "provider_invalid_request"


def error_row(
    rows: Mapping[str, tuple[int, str, str | None]],
    upstream: Mapping[str, Mapping[int, tuple[int, str, str | None]]],
    error: BaseException,
) -> tuple[int, str, str | None]:
    """error_to_wire's (status, type, code) for an error: its category's row (any other
    exception: provider_invalid_request's), or the row its upstream status picks."""
    category = getattr(error, "category", "")
    row = rows.get(category, rows["provider_invalid_request"])
    status = getattr(error, "status", None)
    if type(status) is int:
        row = upstream.get(category, {}).get(status, row)
    return row


def error_headers(error: BaseException) -> dict[str, str]:
    """error_to_wire's headers: JSON, and a Retry-After in whole seconds (rounded up, at least 1)
    when the error carries a retry delay."""
    headers = {"content-type": "application/json"}
    retry_after = getattr(error, "retry_after", None)
    if isinstance(retry_after, (int, float)) and not isinstance(retry_after, bool) and retry_after >= 0:
        headers["retry-after"] = str(max(1, int(-(-retry_after // 1))))
    return headers


def _lowered(headers: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Response headers by lower-case name; None when there are none or they are not a mapping."""
    if not headers:
        return None
    try:
        return {str(k).lower(): v for k, v in headers.items()}
    except (AttributeError, TypeError):
        return None


def header_error_type(headers: Mapping[str, Any] | None, name: str) -> str | None:
    """An error type a provider sends in a header (mapping `errors.type_header`): AWS
    `x-amzn-ErrorType: ValidationException:http://internal.amazon.com/...` is
    `ValidationException`, the part before the first colon. None when absent or empty."""
    lowered = _lowered(headers)
    if lowered is None:
        return None
    raw = lowered.get(name.lower())
    if isinstance(raw, bytes):
        raw = raw.decode("latin-1", "replace")
    if not isinstance(raw, str):
        return None
    text = raw.split(":", 1)[0].strip()
    return text or None


def retry_after(headers: Mapping[str, Any] | None, names: tuple[str, ...]) -> float | None:
    """Seconds to wait, from the first header present: `*-ms` headers in milliseconds, others in
    seconds or as an HTTP-date (RFC 9110 §10.2.3). Unparseable values count as absent."""
    lowered = _lowered(headers)
    if lowered is None:
        return None
    for name in names:
        raw = lowered.get(name.lower())
        if raw is None:
            continue
        if isinstance(raw, bytes):
            raw = raw.decode("latin-1", "replace")
        text = str(raw).strip()
        try:
            number = float(text)
        except ValueError:
            number = None
        if number is not None:
            if math.isfinite(number) and number >= 0:
                return number / 1000.0 if name.lower().endswith("-ms") else number
            continue
        import email.utils  # here: a date-valued Retry-After is rare, email.utils costly to import

        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            continue
        if when is None or when.tzinfo is None:
            continue
        return max(0.0, when.timestamp() - time.time())
    return None


def status_code(status: Any) -> int:
    """An HTTP status as an int; a numeric string is read, anything else is 0 (matches only `*`)."""
    if type(status) is int:
        return status
    try:
        return int(str(status).strip())
    except (TypeError, ValueError):
        return 0


def error_text(body: Any) -> str:
    """Everything searchable in an error body, as text (dict, str, bytes or None)."""
    if body is None:
        return ""
    if isinstance(body, (bytes, bytearray)):
        return bytes(body).decode("utf-8", "replace")
    if isinstance(body, str):
        return body
    try:
        return json.dumps(body, ensure_ascii=False, default=str)
    except (ValueError, TypeError, RecursionError):
        pass
    try:  # str() fails the same way on an int past Python's digit limit, or too deep a body
        return str(body)
    except (ValueError, RecursionError):
        return f"<an unprintable {type(body).__name__} error body>"


#: Characters of each of an error's message, type and code that the `errors` rules' patterns
#: search: error words are short, and a cap keeps a pattern linear on a huge body.
ERROR_MATCH_LIMIT: Final = 4096


def error_words(*values: Any) -> str:
    """The text the `errors` rules match: each given value as text, cut to ERROR_MATCH_LIMIT."""
    parts = []
    for value in values:
        if value is None:
            continue
        if type(value) is not str:
            try:
                value = str(value)
            except ValueError:  # an int past Python's digit limit
                value = type(value).__name__
        parts.append(value[:ERROR_MATCH_LIMIT])
    return "\n".join(parts)


#: a format's `errors` reading rows (the module's ERROR_READ): the message, type and code paths in
#: the decoded body (None: no row), the header a type is read from when the body has none, the
#: retry headers, and the body's retry hint (list path, match, field) or None
ErrorRead = tuple[
    tuple[str | int, ...],
    Optional[tuple[str | int, ...]],
    Optional[str],
    Optional[tuple[str | int, ...]],
    tuple[str, ...],
    Optional[tuple[tuple[str | int, ...], Mapping[str, Any], str]],
]


def read_error(read: ErrorRead, rules: tuple[ErrorRule, ...], status: int, body: Any, headers: Mapping[str, Any] | None) -> ProviderError:
    """An HTTP error -> the ProviderError of its category, by a format's tables (`read`: its
    ERROR_READ; `rules`: its ERROR_RULES, first match wins). The rules match the error's own
    words (message, type, code), not the whole body."""
    message_at, type_at, type_header, code_at, retry_headers, hint = read
    decoded = decode_error_body(body)
    is_dict = type(decoded) is dict
    message = get_in(decoded, message_at) if is_dict else None
    if type(message) is not str or not message:
        message = error_text(decoded)[:500] or f"HTTP {status}"
    error_type = get_in(decoded, type_at) if is_dict and type_at is not None else None
    if error_type is None and type_header is not None:  # errors.type_header
        error_type = header_error_type(headers, type_header)
    error_code = get_in(decoded, code_at) if is_dict and code_at is not None else None
    category = classify_error(rules, status, error_type, error_code, error_words(message, error_type, error_code))
    wait = retry_after(headers, retry_headers)
    if wait is None and hint is not None and is_dict:  # errors.retry_delay: a retry hint in the body
        wait = retry_delay(decoded, *hint)
    return error_class(category)(str(message), status=status, retry_after=wait, body=decoded, provider_type=error_type if type(error_type) is str else None)


def decode_error_body(body: Any) -> Any:
    """An error body as JSON when it is JSON text, else as given."""
    if isinstance(body, (bytes, bytearray)):
        body = bytes(body).decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            return json.loads(body)
        except (ValueError, RecursionError):
            return body
    return body


_NAME_SAFE: Final = re.compile(r"[^A-Za-z0-9_-]+")


def schema_name(schema: Mapping[str, Any]) -> str:
    """A stable structured-output name: the schema's title, else a digest of its canonical form."""
    title = schema.get("title")
    if isinstance(title, str):
        name = _NAME_SAFE.sub("_", title).strip("_")[:64]
        if name:
            return name
    import hashlib  # here, not at module level: hashlib loads OpenSSL (issue #6, cold import)

    digest = hashlib.sha256(dumps(schema).encode("utf-8")).hexdigest()[:16]
    return f"schema_{digest}"


def schema_qualifies_for_strict(schema: Any) -> bool:
    """OpenAI strict mode: every object closes (`additionalProperties: false`) and lists every
    property in `required` (OpenArmature §8.1.5)."""
    return _strict_ok(schema, root=True)


def _strict_ok(schema: Any, root: bool) -> bool:
    if type(schema) is list:
        return all(_strict_ok(s, False) for s in schema)
    if type(schema) is not dict:
        return True
    # Keywords strict mode does not take (oneOf, allOf, not, conditionals; anyOf at the root).
    if any(k in schema for k in ("oneOf", "allOf", "not", "if", "then", "else")) or (root and "anyOf" in schema):
        return False
    if schema.get("type") == "object" or "properties" in schema:
        if schema.get("additionalProperties") is not False:
            return False
        props = schema.get("properties", {})
        required = schema.get("required", [])
        if type(props) is not dict or type(required) is not list or any(type(r) is not str for r in required):
            return False
        if set(required) != set(props):
            return False
    for key, value in schema.items():
        if key in ("properties", "$defs", "definitions", "patternProperties"):
            if type(value) is dict and not all(_strict_ok(v, False) for v in value.values()):
                return False
        elif key in ("items", "anyOf", "prefixItems", "additionalProperties"):
            if not _strict_ok(value, False):
                return False
    return True


def close_object_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Strict tools (Prompty §7.1.3): the parameters object schema gets `additionalProperties: false`."""
    closed = dict(schema)
    closed["additionalProperties"] = False
    return closed


def close_all_object_schemas(schema: Any) -> Any:
    """Strict tools (current OpenAI API): every object schema, nested ones included, is closed."""
    if type(schema) is list:
        return [close_all_object_schemas(s) for s in schema]
    if type(schema) is not dict:
        return schema
    out = {k: close_all_object_schemas(v) if k in ("items", "anyOf", "prefixItems") else v for k, v in schema.items()}
    for key in ("properties", "$defs", "definitions"):
        if type(schema.get(key)) is dict:
            out[key] = {n: close_all_object_schemas(s) for n, s in schema[key].items()}
    if schema.get("type") == "object" or "properties" in schema:
        out["additionalProperties"] = False
    return out


def close_and_nullable_optional(schema: Any) -> Any:
    """Prompty §7.1.4/§7.1.6 structured output, recursively: every object closes and requires all
    its properties; the ones that were optional become nullable."""
    if type(schema) is list:
        return [close_and_nullable_optional(s) for s in schema]
    if type(schema) is not dict:
        return schema
    out = {k: close_and_nullable_optional(v) if k in ("items", "anyOf", "allOf", "oneOf", "$defs", "definitions") else v for k, v in schema.items()}
    for key in ("$defs", "definitions"):
        if type(schema.get(key)) is dict:
            out[key] = {n: close_and_nullable_optional(s) for n, s in schema[key].items()}
    props = schema.get("properties")
    if schema.get("type") == "object" or type(props) is dict:
        listed = schema.get("required", [])
        # a malformed `required` (not a list of strings) is sent as written elsewhere; here its
        # string entries are the ones that count
        required = {r for r in listed if type(r) is str} if type(listed) is list else set()
        if type(props) is dict:
            new_props = {}
            for name, prop in props.items():
                prop = close_and_nullable_optional(prop)
                if name not in required and type(prop) is dict and "type" in prop:
                    prop = dict(prop)
                    t = prop["type"]
                    if not (t == "null" or (type(t) is list and "null" in t)):
                        prop["type"] = [*t, "null"] if type(t) is list else [t, "null"]
                new_props[name] = prop
            out["properties"] = new_props
            out["required"] = list(props)
        out["additionalProperties"] = False
    return out


def with_schema_directive(messages: list[Any], directive: str, schema: Any) -> list[Any]:
    """OpenArmature §8.1.5.1 prompt augmentation: a copy of the messages whose system message
    carries the schema directive (extended, or prepended when there is none)."""
    from .canonical import SystemMessage

    text = directive.replace("{schema}", dumps(schema))
    if messages and isinstance(messages[0], SystemMessage):
        return [SystemMessage(content=messages[0].content + "\n\n" + text), *messages[1:]]
    return [SystemMessage(content=text), *messages]


def take_coerced_output(response: Response, tool_name: str) -> bool:
    """OpenArmature §8.2.5.1 tool-call coercion: the synthetic tool's input becomes the content
    (as JSON text) and the finish reason `stop`; other tool calls stay. False when absent."""
    calls = response.message.tool_calls
    if isinstance(calls, NotGiven):
        return False
    for i, call in enumerate(calls):
        if call.name == tool_name:
            rest = calls[:i] + calls[i + 1 :]
            response.message.tool_calls = rest if rest else NOT_GIVEN
            response.message.content = dumps(call.arguments) if call.arguments is not None else ""
            if response.finish_reason == "tool_calls" and not rest:
                response.finish_reason = "stop"
            return True
    return False


def parse_structured(
    content: Any, schema: dict[str, Any], finish_reason: str, usage: Any
) -> Any:
    """`Response.parsed`: the content decoded as JSON and validated against the schema (§6)."""
    if not isinstance(content, str):
        texts = [getattr(b, "text", "") for b in content or () if type(b).__name__ == "TextBlock"]
        content = "".join(texts)
    try:
        value = json.loads(content)
    except (ValueError, RecursionError) as exc:
        raise StructuredOutputInvalidError(
            f"structured output is not valid JSON: {exc}",
            response_schema=schema,
            output_content=content,
            error_message=str(exc),
            finish_reason=finish_reason,
            usage=usage,
        ) from exc
    import jsonschema  # a runtime dependency, imported only for structured output

    try:
        validator_cls = jsonschema.validators.validator_for(schema)
        validator_cls.check_schema(schema)
        errors = sorted(validator_cls(schema).iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    except RecursionError:
        raise
    except Exception as exc:  # jsonschema's and referencing's errors for a schema it cannot use
        detail = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        raise InvalidRequestError(f"not a usable JSON Schema: {detail}", path="response_schema") from exc
    if errors:
        first = errors[0]
        pointer = "/" + "/".join(str(p) for p in first.absolute_path)
        raise StructuredOutputInvalidError(
            f"structured output does not match the schema at {pointer}: {first.message}",
            response_schema=schema,
            output_content=content,
            error_message=f"{pointer}: {first.message}",
            finish_reason=finish_reason,
            usage=usage,
        )
    return value


# --- the non-chat kinds (mappings/README.md "kind") ------------------------------------------


def as_embeddings_response(response: Any) -> Any:
    from .canonical import EmbeddingsResponse

    if isinstance(response, EmbeddingsResponse):
        return response
    if isinstance(response, Mapping):
        return EmbeddingsResponse.from_dict(dict(response))
    raise InvalidRequestError(f"expected a canonical embeddings result (a dict or EmbeddingsResponse), got {_kind(response)}")


def as_images_response(response: Any) -> Any:
    from .canonical import ImagesResponse

    if isinstance(response, ImagesResponse):
        return response
    if isinstance(response, Mapping):
        return ImagesResponse.from_dict(dict(response))
    raise InvalidRequestError(f"expected a canonical images result (a dict or ImagesResponse), got {_kind(response)}")


def _not_text(strip: bool, what: str, path: str, key: str) -> None:
    from .errors import UnsupportedContentBlockError

    if not strip:
        raise UnsupportedContentBlockError(f"{what} cannot be sent to {key}, which takes text only", path=path)


def every_text(messages: list[Any], strip: bool, key: str) -> list[str]:
    """Strategy `every_text` (Prompty §7.2): the text of every message, in order.

    A string content is one text; a block list gives its text blocks. Anything else (images,
    thinking, tool calls) is refused naming its path, or skipped when `strip`.
    """
    from .canonical import AssistantMessage, TextBlock

    texts: list[str] = []
    for i, message in enumerate(messages):
        content = message.content
        if isinstance(content, str):
            if content:
                texts.append(content)
        elif isinstance(content, list):
            for j, block in enumerate(content):
                if type(block) is TextBlock:
                    texts.append(block.text)
                else:
                    _not_text(strip, f"a {type(block).__name__}", f"messages[{i}].content[{j}]", key)
        if isinstance(message, AssistantMessage) and message.tool_calls:
            _not_text(strip, "a tool call", f"messages[{i}].tool_calls", key)
    return texts


def last_user_text(messages: list[Any], first_only: bool, join: str, strip: bool, others: bool, key: str) -> str | None:
    """Strategies `last_user_text` / `last_user_first_text` (Prompty §7.3): the prompt is the last
    user message's text (all its text blocks joined, or only the first). None: no user message.
    `others` False refuses every other message (it would be lost), naming its path."""
    from .canonical import TextBlock, UserMessage

    last = None
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], UserMessage):
            last = i
            break
    if not others:
        for i in range(len(messages)):
            if i != last:
                raise InvalidRequestError(
                    f"{key} takes one prompt, the last user message; this {messages[i].role} message would be lost",
                    path=f"messages[{i}]",
                )
    if last is None:
        return None
    content = messages[last].content
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for j, block in enumerate(content):
        if type(block) is TextBlock:
            if not (first_only and texts):
                texts.append(block.text)
        else:
            _not_text(strip, f"a {type(block).__name__}", f"messages[{last}].content[{j}]", key)
    return join.join(texts)


_PARAM_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
}


def check_param(value: Any, kind: str | None, allowed: tuple[Any, ...] | None, path: str) -> None:
    """A declared API parameter (mapping `request.params`): its JSON type and allowed values."""
    if kind is not None:
        ok = isinstance(value, _PARAM_TYPES[kind]) and (kind == "boolean" or type(value) is not bool)
        if not ok:
            raise InvalidRequestError(f"expected {kind}, got {_kind(value)}", path=path)
    if allowed is not None and (type(value) is bool or value not in allowed):
        raise InvalidRequestError(f"{shown(value)} is not allowed; expected one of: {', '.join(map(str, allowed))}", path=path)


_FLOAT_MAX_INT: Final = int(1.7976931348623157e308)  # larger ints overflow float()


def write_vector(vector: Any, encoding_format: str | None) -> Any:
    """An embedding as a response writes it for the encoding its request asked for: base64 of
    little-endian float32 for `base64` (read back by read_vector), else the array of numbers."""
    if encoding_format != "base64":
        return list(vector)
    import base64
    import struct

    return base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")


def raw_vector_encoding(raw: Any, path: tuple[Any, ...], by_type: str | None = None) -> str | None:
    """`base64` when the body a response was read from (`raw`) holds its first vector in the
    wire's base64 form at `path` (a string; with `by_type`, an object keyed by type that holds that
    spelling), so that writing it back says it as it came; else None (arrays of numbers)."""
    value = value_at(raw, path)  # ABSENT where the path leads nowhere: neither test below holds
    if by_type is not None:
        return "base64" if type(value) is dict and by_type in value else None
    return "base64" if type(value) is str else None


def float32_vectors(vectors: Any) -> list[list[float]]:
    """The vectors at the float32 precision a base64 answer carries (what a client that asked for
    base64 gets by definition: not a loss)."""
    import struct

    return [list(struct.unpack(f"<{len(v)}f", struct.pack(f"<{len(v)}f", *v))) for v in vectors]


def read_vector(value: Any, path: str) -> list[float]:
    """An embedding: an array of numbers, or base64 of little-endian float32 (`encoding_format: base64`)."""
    if type(value) is list:
        out: list[float] = []
        for k, item in enumerate(value):
            if type(item) is float or (type(item) is int):
                if type(item) is int and abs(item) > _FLOAT_MAX_INT:
                    raise WireShapeError(f"{path}[{k}]", "number out of range for a float")
                if not math.isfinite(item):
                    raise WireShapeError(f"{path}[{k}]", "expected a finite number")
                out.append(float(item))
            else:
                raise WireShapeError(f"{path}[{k}]", f"expected a number, got {_kind(item)}")
        return out
    if type(value) is str:
        import base64
        import binascii
        import struct

        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise WireShapeError(path, "expected base64 (encoding_format base64)") from None
        if len(raw) % 4:
            raise WireShapeError(path, f"base64 vector of {len(raw)} bytes is not float32 data")
        floats = list(struct.unpack(f"<{len(raw) // 4}f", raw))
        if not all(math.isfinite(f) for f in floats):
            raise WireShapeError(path, "the base64 vector holds a non-finite float")
        return floats
    raise WireShapeError(path, f"expected an array of numbers or a base64 string, got {_kind(value)}")


def take_in(obj: dict[str, Any], keys: tuple[str, ...], path: str) -> Any:
    """Remove and return the value at a dotted field; an object it leaves empty is removed too
    (a request_from_wire consumes what it reads). `obj` is the reader's own copy: the objects on
    the way are copied before they change, so the caller's body is never mutated. Absent:
    WireShapeError naming the field."""
    where = ".".join(keys) if not path else f"{path}.{'.'.join(keys)}"
    trail: list[dict[str, Any]] = []
    node: Any = obj
    for key in keys[:-1]:
        trail.append(node)
        child = node.get(key) if type(node) is dict else None
        if type(child) is dict:
            child = node[key] = dict(child)
        node = child
    if type(node) is not dict or keys[-1] not in node:
        raise WireShapeError(where, "required field is missing")
    value = node.pop(keys[-1])
    for parent, key in zip(reversed(trail), reversed(keys[:-1])):
        child = parent.get(key)
        if type(child) is dict and not child:
            del parent[key]
        else:
            break
    return value


def item_texts(value: Any, key: str, path: str) -> list[str]:
    """An input written as one object per text ({key: text}, a Gemini Part) -> the texts."""
    items = expect_list(value, path)
    out: list[str] = []
    for k, item in enumerate(items):
        item = expect_dict(item, f"{path}[{k}]")
        if set(item) != {key}:
            others = sorted(set(item) - {key})
            raise WireShapeError(f"{path}[{k}]", f"only {key!r} can be read here, got {others or 'no text'}")
        out.append(expect_str(item[key], f"{path}[{k}].{key}"))
    return out


_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


def fill_template(template: Any, values: dict[str, str]) -> Any:
    """An `input.each` template with its placeholders (`{text}`, `models/{model}`) filled."""
    if type(template) is str:
        m = _PLACEHOLDER.search(template)
        return template if m is None else template[: m.start()] + values[m.group(1)] + template[m.end() :]
    if type(template) is dict:
        return {k: fill_template(v, values) for k, v in template.items()}
    if type(template) is list:
        return [fill_template(v, values) for v in template]
    return template


def match_template(template: Any, value: Any, path: str, found: dict[str, str]) -> None:
    """Read an object written by `fill_template` back: its placeholders' values go into `found`;
    a key the template does not have, a missing one or another literal is a WireShapeError."""
    if type(template) is str:
        m = _PLACEHOLDER.search(template)
        if m is None:
            if value != template:
                raise WireShapeError(path, f"expected {template!r}, got {shown(value)}")
            return
        head, tail = template[: m.start()], template[m.end() :]
        text = expect_str(value, path)
        if not (text.startswith(head) and text.endswith(tail)) or len(text) < len(head) + len(tail):
            raise WireShapeError(path, f"expected {template!r}, got {shown(text)}")
        found[m.group(1)] = text[len(head) : len(text) - len(tail)]
    elif type(template) is dict:
        obj = expect_dict(value, path)
        for key in obj:
            if key not in template:
                raise WireShapeError(f"{path}.{key}", "this key has no canonical form here")
        for key, sub in template.items():
            if key not in obj:
                raise WireShapeError(f"{path}.{key}", "required field is missing")
            match_template(sub, obj[key], f"{path}.{key}", found)
    elif type(template) is list:
        items = expect_list(value, path)
        if len(items) != len(template):
            raise WireShapeError(path, f"expected {len(template)} item(s), got {len(items)}")
        for k, (sub, item) in enumerate(zip(template, items)):
            match_template(sub, item, f"{path}[{k}]", found)
    elif value != template:
        raise WireShapeError(path, f"expected {template!r}, got {shown(value)}")


def same_in_each(items: list[dict[str, Any]], keys: tuple[str, ...], path: str) -> Any:
    """An option written in every request object (`each: true`): removed from each, and its one
    value returned (None when no object has it); objects that differ have no canonical form."""
    values = []
    for k, item in enumerate(items):
        values.append(take_in(item, keys, "") if get_in(item, keys) is not None else None)
    first = values[0] if values else None
    for k, v in enumerate(values):
        if v != first:
            raise WireShapeError(f"{path}[{k}].{'.'.join(keys)}", "the requests differ here; one call takes one value for all texts")
    return first


def vectors_by_type(body: dict[str, Any], field: str) -> tuple[str, list[Any]]:
    """The vectors of an object keyed by encoding type (Cohere `embeddings: {float: [...], int8:
    [...]}`): the float ones when present, else the first type listed."""
    groups = expect_dict(member(body, field, ""), field)
    given = [k for k, v in groups.items() if v is not None]  # an SDK may write the types not asked for as null
    kind = "float" if "float" in given else next(iter(given), None)
    if kind is None:
        raise WireShapeError(field, "expected at least one embedding type")
    return kind, expect_list(groups[kind], f"{field}.{kind}")


def ordered_by_index(items: list[Any], key: str, path: str) -> list[dict[str, Any]]:
    """Wire list items put in order by their `key` (0..n-1, each once)."""
    out: list[dict[str, Any] | None] = [None] * len(items)
    for i, item in enumerate(items):
        item = expect_dict(item, f"{path}[{i}]")
        index = item.get(key)
        if type(index) is not int or not 0 <= index < len(items):
            raise WireShapeError(f"{path}[{i}].{key}", f"expected an integer index from 0 to {len(items) - 1}, got {shown(index)}")
        if out[index] is not None:
            raise WireShapeError(f"{path}[{i}].{key}", f"index {index} appears twice")
        out[index] = item
    return [item for item in out if item is not None]
# --------------------------------------------------------------------------- nested wire fields
def put_in(body: dict[str, Any], keys: tuple[str, ...], value: Any) -> None:
    """Set a dotted wire field (`generationConfig.temperature`): objects on the way are created,
    and an object value merges into an object already there (key by key)."""
    target = body
    for key in keys[:-1]:
        child = target.get(key)
        if type(child) is not dict:
            child = {}
            target[key] = child
        target = child
    last = keys[-1]
    if type(value) is dict and type(target.get(last)) is dict:
        target[last].update(value)
    else:
        target[last] = value


def put_in1(body: dict[str, Any], key: str, value: Any) -> None:
    """`put_in(body, (key,), value)`: a top-level field that dotted fields share (Anthropic's
    `tool_choice`), an object value merged into the object already there."""
    if type(value) is dict and type(body.get(key)) is dict:
        body[key].update(value)
    else:
        body[key] = value


def put_in3(body: dict[str, Any], outer: str, middle: str, key: str, value: Any) -> None:
    """`put_in(body, (outer, middle, key), value)` without the loop over a tuple of keys
    (`generationConfig.thinkingConfig.thinkingLevel`)."""
    target = body.get(outer)
    if type(target) is not dict:
        target = body[outer] = {}
    put_in2(target, middle, key, value)


def put_in2(body: dict[str, Any], outer: str, key: str, value: Any) -> None:
    """`put_in(body, (outer, key), value)`, for the common two-level field (a generated writer's
    `generationConfig.temperature`) without the loop over a tuple of keys."""
    target = body.get(outer)
    if type(target) is not dict:
        target = body[outer] = {}
    if type(value) is dict and type(target.get(key)) is dict:
        target[key].update(value)
    else:
        target[key] = value


def consume_in(body: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Remove a dotted wire field a reader has consumed, and the objects it leaves empty."""
    target: Any = body
    trail: list[tuple[dict[str, Any], str]] = []
    for key in keys[:-1]:
        child = target.get(key) if type(target) is dict else None
        if type(child) is not dict:
            return
        trail.append((target, key))
        target = child
    if type(target) is dict:
        target.pop(keys[-1], None)
    for parent, key in reversed(trail):
        if parent.get(key) == {}:
            del parent[key]


# Fixed (platform-independent) extension table for media types inferred from a URL.
_MEDIA_TYPES: Final = {
    "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif",
    "webp": "image/webp", "heic": "image/heic", "heif": "image/heif", "bmp": "image/bmp",
    "wav": "audio/wav", "mp3": "audio/mp3", "aiff": "audio/aiff", "aac": "audio/aac",
    "ogg": "audio/ogg", "flac": "audio/flac", "m4a": "audio/mp4",
    "mp4": "video/mp4", "mpeg": "video/mpeg", "mov": "video/mov", "avi": "video/avi",
    "webm": "video/webm", "wmv": "video/wmv", "3gp": "video/3gpp",
    "pdf": "application/pdf", "txt": "text/plain", "html": "text/html", "htm": "text/html",
    "csv": "text/csv", "md": "text/md", "xml": "text/xml", "json": "application/json",
    "js": "text/javascript", "py": "text/x-python", "css": "text/css", "rtf": "text/rtf",
}


def guess_media_type(media_type: Any, url: str) -> str | NotGiven:
    """The block's media type, or one inferred from the URL's file extension (codec `from_url`);
    NOT_GIVEN when neither is known. `data:` URLs carry their own type."""
    if type(media_type) is str and media_type:
        return media_type
    if url.startswith("data:"):
        head = url[5:].split(",", 1)[0].split(";", 1)[0]
        return head if "/" in head else NOT_GIVEN
    tail = url.split("#", 1)[0].split("?", 1)[0].rsplit("/", 1)[-1]
    if "." not in tail:
        return NOT_GIVEN
    return _MEDIA_TYPES.get(tail.rsplit(".", 1)[-1].lower(), NOT_GIVEN)


_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)s\s*$")


def retry_delay(body: Any, list_keys: tuple[str | int, ...], match: Mapping[str, Any], field: str) -> float | None:
    """Seconds from a retry hint in an error body: the first object of the list at `list_keys`
    whose keys equal `match`, its `field` a protobuf Duration string ("30s", "1.5s")."""
    items = get_in(body, list_keys)
    if type(items) is not list:
        return None
    for item in items:
        if type(item) is not dict or any(item.get(k) != v for k, v in match.items()):
            continue
        value = item.get(field)
        if type(value) is str:
            m = _DURATION.match(value)
            if m is not None:
                number = float(m.group(1))
                if math.isfinite(number):
                    return number
        return None
    return None


def synthesized_call_id(name: Any, arguments: Any, index: int) -> str:
    """A deterministic id for a wire tool call that carries none: `call_` + 16 hex digits of the
    SHA-256 of [index, name, arguments] as canonical JSON (index = the call's position among the
    turn's tool calls)."""
    import hashlib  # (see schema_name)

    text = json.dumps([index, name, arguments], sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    # surrogatepass: a lone surrogate read from a JSON escape still gives the same id every time
    return "call_" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def container_in(body: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The object at a dotted wire field, created when absent (extras placement `under`)."""
    target = body
    for key in keys:
        child = target.get(key)
        if type(child) is not dict:
            child = {}
            target[key] = child
        target = child
    return target


def leftover(body: dict[str, Any], consumed: set[str], nested: list[tuple[str, ...]]) -> dict[str, Any]:
    """The keys of a wire request a reader did not consume: a copy of `body` without the
    top-level keys in `consumed` and the dotted fields in `nested` (emptied objects dropped).
    The caller's body is never touched: objects on a nested path are copied first."""
    rest = {k: v for k, v in body.items() if k not in consumed}
    for keys in nested:
        target: Any = rest
        for key in keys[:-1]:
            child = target.get(key) if type(target) is dict else None
            if type(child) is not dict:
                target = None
                break
            child = dict(child)
            target[key] = child
            target = child
        if type(target) is dict:
            target.pop(keys[-1], None)
        consume_in(rest, keys[:-1] + ("\x00",))  # drop the objects this left empty
    return rest


def consume_literals(body: dict[str, Any], nested: list[tuple[str, ...]], parent: tuple[str, ...], literals: tuple[tuple[str, Any], ...]) -> None:
    """An option row's `with` read back (Anthropic `thinking: {type: enabled, budget_tokens}`):
    where the row read its value, each key beside it in `parent` that holds the row's literal is
    the row's own, added to `nested` (not left as an extra the writer would clash with). A key
    holding anything else stays where it is."""
    obj = get_in(body, parent)
    if type(obj) is not dict:
        return
    for key, literal in literals:
        if key in obj and deep_equal(obj[key], literal):
            nested.append((*parent, key))


def unread_partial(
    body: dict[str, Any], config: dict[str, Any], nested: list[tuple[str, ...]], parent: tuple[str, ...], rows: tuple[tuple[str, tuple[str, ...]], ...]
) -> None:
    """For a reader that keeps unread fields as extras: where the option rows (`rows`: option
    name, its wire keys) read only part of the object at `parent` in `body` (it holds a key no
    row consumed), they read none of it: their options are taken back out of `config` and the
    object's paths out of `nested`, so the whole object is left as the extra it is."""
    obj = get_in(body, parent)
    if type(obj) is not dict:
        return
    depth = len(parent)
    done = {keys[depth] for keys in nested if len(keys) == depth + 1 and keys[:depth] == parent}
    if done.issuperset(obj):
        return
    for name, keys in rows:
        if keys in nested:
            config.pop(name, None)
    nested[:] = [keys for keys in nested if not (len(keys) > depth and keys[:depth] == parent)]


def read_hoisted(value: Any, steps: tuple[str, ...], path: str, join: str) -> str:
    """A hoisted system object read back: the strings at `steps` ("*" = each item of an array),
    joined with `join` (system hoist with a `wire:` template)."""
    texts: list[str] = []
    _hoisted_texts(value, steps, path, texts)
    return join.join(texts)


def _hoisted_texts(node: Any, rest: tuple[str, ...], where: str, texts: list[str]) -> None:
    # a module-level function, not a closure: a closure that calls itself is a reference cycle,
    # garbage that only the cyclic GC frees (the gateway runs it rarely: wiremap.gateway.tune_gc)
    if not rest:
        texts.append(expect_str(node, where))
        return
    step = rest[0]
    if step == "*":
        for j, item in enumerate(expect_list(node, where)):
            _hoisted_texts(item, rest[1:], f"{where}[{j}]", texts)
    else:
        _hoisted_texts(member(expect_dict(node, where), step, where), rest[1:], f"{where}.{step}", texts)


def pair_tool_results(messages: list[Any], path: str) -> None:
    """Tool results that arrived without a call id (`tool_calls.missing_id: synthesize`; their
    `tool_call_id` is "") take the id of the earliest unanswered earlier tool call of the same
    name. `path` names the wire message list, for the error when none matches."""
    answered: set[str] = set()
    for i, message in enumerate(messages):
        if getattr(message, "role", None) != "tool":
            continue
        if message.tool_call_id:
            answered.add(message.tool_call_id)
            continue
        match = None
        for earlier in messages[:i]:
            for call in getattr(earlier, "tool_calls", None) or ():
                if getattr(earlier, "role", None) == "assistant" and call.name == message.name and call.id not in answered:
                    match = call.id
                    break
            if match is not None:
                break
        if match is None:
            raise WireShapeError(path, f"a tool result without an id matches no earlier unanswered call of {message.name!r}")
        message.tool_call_id = match
        answered.add(match)


class _LazyPattern:
    """A generated converter's module-level pattern, compiled when first used (see lazy_pattern)."""

    __slots__ = ("_namespace", "_name", "_pattern")

    def __init__(self, namespace: dict[str, Any], name: str, pattern: str) -> None:
        self._namespace = namespace
        self._name = name
        self._pattern = pattern

    def __getattr__(self, attr: str) -> Any:  # `.search`, `.fullmatch`, ...: compile now
        compiled = re.compile(self._pattern)
        self._namespace[self._name] = compiled  # later lookups of the global find the pattern
        return getattr(compiled, attr)

    def __repr__(self) -> str:
        return f"lazy_pattern({self._pattern!r})"


def load_strategy(namespace: dict[str, Any], module: str, function: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A named strategy (mapping `strategies:`) from the module the generator copied beside the
    converter whose globals() are `namespace`: imported from the converter's package, or, for a
    converter loaded from its file alone (`load_format`, `wiremap generate --out`), from the file
    beside it. The generator checked its signature when it compiled the mapping."""
    import importlib
    import os
    import sys

    package = namespace.get("__package__")
    if package:
        loaded = importlib.import_module("." + module, package)
    else:
        import importlib.util  # only here: its import is 1.5 ms of a cold `import wiremap` + every format

        path = os.path.join(os.path.dirname(os.path.abspath(namespace["__file__"])), module + ".py")
        name = f"wiremap_strategy_{abs(hash(path)):x}_{module}"
        loaded = sys.modules.get(name)  # type: ignore[assignment]
        if loaded is None:
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load the strategy module {path}")
            loaded = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(loaded)
            sys.modules[name] = loaded
    return cast("Callable[[dict[str, Any]], dict[str, Any]]", getattr(loaded, function))


def lazy_pattern(namespace: dict[str, Any], name: str, pattern: str) -> re.Pattern[str]:
    """`re.compile(pattern)` deferred to first use, for the `_RE_n` globals of a generated module.

    Compiling a new pattern costs ~0.1-0.2 ms, and most of a converter's patterns serve error
    classification, so importing a module compiles none (issue #6, cold import). The first
    attribute access on the stand-in (`_RE_1.fullmatch(...)`) compiles the pattern and rebinds
    `namespace[name]` (the module's globals()) to the compiled `re.Pattern`: every later call in
    the module's functions, which read the global each time, goes straight to the pattern. Two
    threads racing through the first use compile it twice; both get the same result.
    """
    return cast("re.Pattern[str]", _LazyPattern(namespace, name, pattern))


_F = TypeVar("_F", bound=Callable[..., Any])


def rebind(fn: _F, namespace: dict[str, Any]) -> _F:
    """`fn`'s code run with `namespace` (a module's globals()) as its globals.

    A dialect's function whose source is its base's, letter for letter, but which reads names
    the dialect defines otherwise (its `KEY` and `ORIGIN`, its option rows, a function of its own)
    is bound here instead of compiled again (codegen/emit/share.py): the same bytecode, looking up
    every global in the dialect's module, behaves exactly as the dialect's own copy would.
    A traceback shows the base module's file, at lines holding that same text."""
    if not isinstance(fn, types.FunctionType) or fn.__closure__ is not None:
        raise TypeError(f"rebind takes a module-level function, not {fn!r}")
    bound = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__)
    bound.__kwdefaults__ = dict(fn.__kwdefaults__) if fn.__kwdefaults__ else None
    bound.__doc__ = fn.__doc__
    bound.__qualname__ = fn.__qualname__
    bound.__module__ = namespace["__name__"]
    bound.__annotations__ = fn.__annotations__
    return cast(_F, bound)


def table_with(base: Mapping[str, Any] | None, changes: Mapping[str, Any], drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """A dialect's module table (its `STREAM`, `TRANSPORT`...) written as its base's with the
    entries it changes (codegen/emit/share.py): the base's entries in their order, a changed one
    in its place, an added one after them, the `drop` ones left out. The generator writes a table
    this way only when the result equals the dialect's whole table, key order included."""
    if base is None:
        raise TypeError("table_with takes the base's table, not None")
    out = {key: value for key, value in base.items() if key not in drop}
    out.update(changes)
    return out


# --- carried wire data (runtime/carry.py) ---------------------------------------------------------

class Skipped:
    """The type of SKIP: what a reader returns for a value no table row reads."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "SKIP"


SKIP: Final[Skipped] = Skipped()  # a part no table row reads, left out (mapping request.unknown: carry)


def user_content(value: Any, path: str, read_part: Callable[[Any, str], Any], carry: bool, points: bool = False) -> str | list[Any]:
    """Wire user content -> canonical: a string as it is, a list read part by part by the
    format's `read_part`. With `carry` (mapping `request.unknown: carry`) a part no row reads
    (SKIP) is left out of the record; the carry step keeps it for the same provider's wire.
    With `points` (mapping `request.cache_points`) a cache point item marks the part before it."""
    if type(value) is str:
        return value
    items = expect_list(value, path)
    if points:
        return attach_cache_points([read_part(item, f"{path}[{j}]") for j, item in enumerate(items)], carry)
    if carry:
        return [p for p in (read_part(item, f"{path}[{j}]") for j, item in enumerate(items)) if p is not SKIP]
    return [read_part(item, f"{path}[{j}]") for j, item in enumerate(items)]


def assistant_content(value: Any, path: str, read_part: Callable[[Any, str], Any], carry: bool, points: bool = False) -> str | list[Any] | None:
    """Wire assistant content -> canonical: as `user_content`, and null (a turn of tool calls only)."""
    if value is None:
        return None
    return user_content(value, path, read_part, carry, points)


class CachePoint:
    """A wire cache point item as read (mapping `request.cache_points`, Bedrock `cachePoint`):
    the canonical `cache_control` of the part, tool result or tool before it."""

    __slots__ = ("value", "path")

    def __init__(self, value: dict[str, Any], path: str) -> None:
        self.value = value
        self.path = path


def attach_cache_point(before: Any, point: CachePoint, carry: bool) -> None:
    """Give `before` (the record read from the item before the point) the point's breakpoint.
    A point after nothing that takes one (a first item, a tool call, an audio part, a carried
    item, a second point) is carried for this wire (`carry`) or refused at its path."""
    if before is not None and before is not SKIP and getattr(before, "cache_control", None) is NOT_GIVEN:
        before.cache_control = point.value
    elif not carry:
        raise WireShapeError(point.path, "a cache point must follow a part, tool result or tool that takes a prompt-cache breakpoint")


def attach_cache_points(items: list[Any], carry: bool) -> list[Any]:
    """A list read item by item (parts, tools) with its cache points attached to the records
    before them and left out, as are the items no row reads (SKIP: carried)."""
    out: list[Any] = []
    before: Any = None
    for item in items:
        if type(item) is CachePoint:
            attach_cache_point(before, item, carry)
            before = None
            continue
        before = item
        if item is not SKIP:
            out.append(item)
    return out

_T = TypeVar("_T")
_R = TypeVar("_R", Request, Response, EmbeddingsResponse, ImagesResponse)


def skip_part(part: dict[str, Any], path: str) -> Skipped:
    """SKIP for a content part no row reads (request.unknown: carry), held to the depth limit of
    every direction here, where every reader (the fused translators too) meets it."""
    deep = _json_too_deep(part, path)
    if deep is not None:
        raise WireShapeError(deep, _TOO_DEEP)
    skipped = _SKIPPED.get()
    if skipped is not None:  # `carry` asks which parts were left out (a held turn's)
        skipped.append(path)
    return SKIP


_HELD_MARK: Final = "\x00wiremap: the held turn\x00"


def _fills_turn(record: Any, index: int, body: Any, rewritten: Any, rewrite: Callable[[Any], Any]) -> bool:
    """Whether the held assistant turn at `messages[index]` said something on the wire: the
    body differs from the re-write at the turn's wire element. That element is found by
    writing the turn once more with a marker text in it. A format that writes no text
    where the marker could be found answers True: the body has parts left out."""
    message = record.messages[index]
    content = message.content
    message.content = [TextBlock(text=_HELD_MARK)]
    try:
        marked = rewrite(record)
    except (ProviderError, RecursionError):
        return True
    finally:
        message.content = content
    where = _path_of(marked, _HELD_MARK, ())
    if where is None:
        return True
    cut = next((k for k, step in enumerate(where) if type(step) is int), None)
    turn = where if cut is None else where[: cut + 1]
    return bool(value_at(body, turn) != value_at(rewritten, turn))


def _path_of(value: Any, mark: str, path: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The path of the first string in `value` that holds `mark`, or None."""
    if type(value) is str:
        return path if mark in value else None
    items = value.items() if type(value) is dict else enumerate(value) if type(value) is list else ()
    for key, item in items:
        found = _path_of(item, mark, path + (key,))
        if found is not None:
            return found
    return None


def _skips_parts(read: Callable[[], Any]) -> bool:
    """Whether the reader, run again, leaves out a content part of the body (`skip_part`)."""
    token = _SKIPPED.set([])
    try:
        read()
        return bool(_SKIPPED.get())
    except (WireShapeError, ProviderError, RecursionError):
        return False
    finally:
        _SKIPPED.reset(token)


_OPENAPI_TYPES: Final = {
    "STRING": "string", "NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean",
    "ARRAY": "array", "OBJECT": "object", "NULL": "null",
}


_OPENAPI_PROTO_NAMES: Final = {
    "any_of": "anyOf", "property_ordering": "propertyOrdering", "min_items": "minItems", "max_items": "maxItems",
    "min_length": "minLength", "max_length": "maxLength", "min_properties": "minProperties", "max_properties": "maxProperties",
}


def openapi_schema(value: Any, path: str) -> dict[str, Any]:
    """A tool's parameters in Google's Schema (the OpenAPI 3.0 subset: Gemini's
    `FunctionDeclaration.parameters`) as the JSON Schema that says the same (tools.schema_also):
    the type names in capitals as JSON Schema's (`TYPE_UNSPECIFIED`: no type), `nullable: true`
    as `null` among the types, `example` as `examples`, and `propertyOrdering` as the order of
    `properties` (the order a model generates them in); every other keyword is JSON Schema's own
    (`format`, `enum`, `required`, `minItems`, ...) and stays as given, in the caller's key order.
    A shape the Schema cannot have is a WireShapeError at its path."""
    if type(value) is not dict:
        raise WireShapeError(path, f"expected a Schema object, got {_kind(value)}")
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in _OPENAPI_PROTO_NAMES:  # the proto field name (`any_of`), as the API parses it
            key = _OPENAPI_PROTO_NAMES[key]
        if key == "type":
            if type(item) is not str:
                raise WireShapeError(f"{path}.type", f"expected a Schema type name, got {_kind(item)}")
            name = _OPENAPI_TYPES.get(item.upper())
            if name is not None:
                out["type"] = name
            elif item.upper() != "TYPE_UNSPECIFIED":
                raise WireShapeError(f"{path}.type", f"unknown Schema type {shown(item)}; expected one of: {', '.join(_OPENAPI_TYPES)}")
        elif key == "properties":
            if type(item) is not dict:
                raise WireShapeError(f"{path}.properties", f"expected an object of Schemas, got {_kind(item)}")
            out[key] = {name: openapi_schema(sub, f"{path}.properties.{name}") for name, sub in item.items()}
        elif key == "items":
            out[key] = openapi_schema(item, f"{path}.items")
        elif key == "anyOf":
            if type(item) is not list:
                raise WireShapeError(f"{path}.anyOf", f"expected an array of Schemas, got {_kind(item)}")
            out[key] = [openapi_schema(sub, f"{path}.anyOf[{i}]") for i, sub in enumerate(item)]
        elif key == "nullable":
            if type(item) is not bool:
                raise WireShapeError(f"{path}.nullable", f"expected a boolean, got {_kind(item)}")
        elif key == "example":
            if "examples" not in value:  # (JSON Schema's keyword: an array of examples)
                out["examples"] = [json_copy(item)]
        elif key == "propertyOrdering":
            if type(item) is not list or not all(type(n) is str for n in item):
                raise WireShapeError(f"{path}.propertyOrdering", f"expected an array of property names, got {_kind(item)}")
        else:
            out[key] = json_copy(item)
    if value.get("nullable") is True:  # (a proto spelling of it is the same word)
        kind = out.get("type")
        if type(kind) is str and kind != "null":
            out["type"] = [kind, "null"]
        elif type(out.get("anyOf")) is list:
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
    order = value.get("propertyOrdering", value.get("property_ordering"))
    props = out.get("properties")
    if order and type(props) is dict:
        ranked = [n for n in dict.fromkeys(order) if n in props]
        out["properties"] = {**{n: props[n] for n in ranked}, **{n: v for n, v in props.items() if n not in ranked}}
    return out


def schema_also_paths(body: Any, spec: tuple[str, str | None, str, str]) -> frozenset[tuple[Any, ...]]:
    """The wire paths of the tools whose parameters the reader takes from their other field
    (tools.schema_also; `spec`: the tools field, its group, that field, the template's own):
    each is in the canonical model, so the loss report does not name it. Tools given as one
    object (tools.lone_object) too."""
    tools_field, group, field_, own = spec
    steps: tuple[Any, ...] = tuple(tools_field.split("."))
    tools = value_at(body, steps)
    listed: list[tuple[tuple[Any, ...], Any]]
    if type(tools) is list:
        listed = [(steps + (i,), t) for i, t in enumerate(tools)]
    elif type(tools) is dict:
        listed = [(steps, tools)]
    else:
        return frozenset()
    if group is not None:
        grouped: list[tuple[tuple[Any, ...], Any]] = []
        for where, tool in listed:
            members = tool.get(group) if type(tool) is dict else None
            if type(members) is list:
                grouped.extend((where + (group, j), m) for j, m in enumerate(members))
        listed = grouped
    return frozenset(
        where + (field_,) for where, tool in listed
        if type(tool) is dict and tool.get(field_) is not None and tool.get(own) is None
    )


def structured_also_paths(body: Any, spec: tuple[tuple[str, ...], str, str, tuple[tuple[str, Any], ...]]) -> frozenset[tuple[Any, ...]]:
    """The wire path of a structured-output schema the reader takes from its other field
    (structured_output.schema_also; `spec`: the section's field, that field, the template's own,
    the template's literals), when it does: in the canonical model, so not named lost."""
    steps, field_, own, literals = spec
    section = value_at(body, steps)
    if (
        type(section) is dict and section.get(field_) is not None and section.get(own) is None
        and all(section.get(k) == v for k, v in literals)
    ):
        return frozenset([steps + (field_,)])
    return frozenset()


def says_text(content: Any) -> bool:
    """Whether an assistant turn's canonical content states text, an empty one included (a
    string, or a list with a text block): a writer that leaves out a turn without text still
    writes this one (a Responses message item whose output_text is "" is the API's)."""
    return type(content) is str or (type(content) is list and any(type(b) is TextBlock for b in content))


def read_value_or_skip(reader: Callable[[Any], _T], value: Any) -> _T | Skipped:
    """`reader(value)`, or SKIP for a value no row reads (a tool_choice mode the canonical model
    has no form for, carried for its own wire: request.unknown: carry)."""
    try:
        return reader(value)
    except WireShapeError:
        return SKIP


def read_or_skip(reader: Callable[[Any, str], _T], value: Any, path: str, needs: frozenset[str] = frozenset()) -> _T | Skipped:
    """`reader(value, path)` for an object the tables can read, else SKIP (a tool of a kind no
    row names, carried for its own wire: mapping request.unknown: carry). `needs`: keys without
    which the reader raises (the module's `_TOOL_NEEDS`): an object lacking one is SKIP at once,
    the reader's answer without its call and its exception."""
    if type(value) is not dict:
        raise WireShapeError(path, f"expected an object, got {_kind(value)}")
    if not value.keys() >= needs:
        return SKIP
    try:
        return reader(value, path)
    except WireShapeError:
        return SKIP


_QUIET: Final[ContextVar[bool]] = ContextVar("wiremap_quiet", default=False)


_NO_CARRY: Final[ContextVar[bool]] = ContextVar("wiremap_no_carry", default=False)
# the wire paths of the content parts `skip_part` leaves out, while `carry` re-reads a body
_SKIPPED: Final[ContextVar[list[str] | None]] = ContextVar("wiremap_skipped", default=None)
_SCALARS: Final = frozenset((str, int, float, bool, type(None)))


def carried_only(body: dict[str, Any], read: frozenset[str], named: frozenset[str]) -> bool:
    """Whether a fused translator into another provider's wire (where carried data never goes)
    may leave out every top-level key of `body` outside `read` (the keys it reads): each is one
    the source's reader does not read at the top level (`named`: the fused module's
    `_SOURCE_READS`), so it carries it (runtime/carry.py), and its value is plain JSON at most
    two levels deep (`stream: true`, `stream_options: {...}`, a top-level `cache_control`),
    which carrying it cannot fail on. The two-step answer is then the same with those keys left
    out."""
    scalars = _SCALARS
    for key, value in body.items():
        if key in read:
            continue
        if type(key) is not str or key in named:
            return False
        t = type(value)
        if t is dict:
            for k, v in value.items():
                if type(k) is not str or type(v) not in scalars:
                    return False
        elif t is list:
            for v in value:
                if type(v) not in scalars:
                    return False
        elif t not in scalars:
            return False
    return True


def read_without_carry(read: Callable[..., _T], body: Any, **kwargs: Any) -> _T:
    """`read(body, **kwargs)` (a format's `request_from_wire` / `response_from_wire`) without the
    carried-data residual (`carry`: a re-write and a diff of the whole body), for a caller that
    drops `carried` from what it reads: the loss report's read-back of the body it just wrote
    (runtime/translate.py). Every other field, warning and error is the same."""
    token = _NO_CARRY.set(True)
    try:
        return read(body, **kwargs)
    finally:
        _NO_CARRY.reset(token)


def warn_dropped(text: str) -> None:
    """An option a mapping drops with a warning (UnsupportedOptionWarning), except while a reader
    re-writes what it read to find the residual (`carry`): that write is no call of the user's."""
    if not _QUIET.get():
        import warnings

        warnings.warn(text, UnsupportedOptionWarning, stacklevel=3)


def options_to_wire(config: Any, body: dict[str, Any], rows: tuple[tuple[str, str, str], ...], tools: Any, key: str) -> None:
    """The option rows a table sends with no code of their own (codegen/emit/messages.py
    `_plain_row`), in order, into `body`: `(option, wire field, how)`, how "" (the value as it
    is), "dict" (a copy of the object), "tools" (only beside a non-empty tools list: the API
    refuses it without them) or "warn" (not sent: UnsupportedOptionWarning, naming format `key`)."""
    for name, wire, how in rows:
        value = getattr(config, name)
        if value is NOT_GIVEN:
            continue
        if how == "warn":
            if not _QUIET.get():
                import warnings

                # the frame warn_dropped names when the converter calls it (the same depth)
                warnings.warn(name + " is not supported by " + key + "; dropped", UnsupportedOptionWarning, stacklevel=3)
        elif how == "dict":
            body[wire] = dict(value)
        elif how != "tools" or (isinstance(tools, list) and tools):
            body[wire] = value


#: per option table (by id: the tables are module constants), once: top-level field -> the rows
#: that read it; the rows with a dotted field; each row's fields, a dotted one split into keys
_FROM_PLANS: dict[int, tuple[dict[str, tuple[int, ...]], tuple[int, ...], tuple[tuple[tuple[str, tuple[str, ...] | None], ...], ...]]] = {}


def options_from_wire(
    body: dict[str, Any], config: dict[str, Any], consumed: set[str], nested: list[tuple[str, ...]], rows: tuple[tuple[str, tuple[str, ...], str], ...]
) -> None:
    """The option rows a table reads with no code of their own (codegen/emit/messages.py), in
    order, from `body` into `config`: `(option, wire fields, how)`, the first wire field present
    (a dotted one is nested, and present when not None), how "" (as it is), "whole" (an
    integer option: an integer-valued float reads as the integer), "negate" (the wire says it
    the other way round) or "list" (a top-level field's scalar form read as a one-item list).
    The fields read are added to `consumed` (dotted: `nested`). Only the rows one of whose
    top-level fields the body holds (and those with a dotted one) are looked at: most are absent."""
    plan = _FROM_PLANS.get(id(rows))
    if plan is None:
        by_field: dict[str, tuple[int, ...]] = {}
        for i, (_, wires, _) in enumerate(rows):
            for wire in wires:
                if "." not in wire:
                    by_field[wire] = (*by_field.get(wire, ()), i)
        dotted = tuple(i for i, (_, wires, _) in enumerate(rows) if any("." in w for w in wires))
        parsed = tuple(tuple((w, tuple(w.split(".")) if "." in w else None) for w in wires) for _, wires, _ in rows)
        plan = _FROM_PLANS[id(rows)] = (by_field, dotted, parsed)
    by_field, dotted, parsed = plan
    hits = body.keys() & by_field.keys()
    if not hits and not dotted:
        return
    if dotted or len(hits) > 1:
        touched = set(dotted)
        for key in hits:
            touched.update(by_field[key])
        order: Any = sorted(touched)
    else:
        order = by_field[hits.pop()]
    for i in order:
        name, _, how = rows[i]
        for wire, keys in parsed[i]:
            if keys is not None:
                value = get_in(body, keys)
                if value is None:
                    continue
                config[name] = whole_number(value) if how == "whole" else negated(value) if how == "negate" else value
                nested.append(keys)
                break
            if wire in body:
                value = body[wire]
                config[name] = whole_number(value) if how == "whole" else negated(value) if how == "negate" else value
                if how == "list" and type(config[name]) is str:  # the wire's scalar form
                    config[name] = [config[name]]
                consumed.add(wire)
                break


class ProtoNames:
    """`request.field_names: proto` (mapping): the API parses JSON by protobuf's JSON mapping,
    which takes each field by its lowerCamelCase JSON name and by its proto field name
    (`inline_data` for `inlineData`). `names`: proto name -> JSON name, for each key the tables
    name; `descend`: the keys whose values are the message's structure (the tables' wire keys);
    `opaque`: those whose values are the caller's JSON (tool arguments, schemas), never renamed."""

    __slots__ = ("names", "descend", "opaque", "known", "opaque_names")

    def __init__(self, names: dict[str, str], descend: frozenset[str], opaque: frozenset[str]) -> None:
        self.names = names
        self.descend = descend
        self.opaque = opaque
        self.known = frozenset(names)  # the proto names: keys the tables name, for the loss report
        # the opaque keys in both spellings: the loss report never walks their values
        self.opaque_names = opaque | frozenset(k for k, v in names.items() if v in opaque)

    def spelled(self, body: Any) -> tuple[Any, frozenset[tuple[Any, ...]], frozenset[tuple[Any, ...]]]:
        """(`body` with each proto field name of its structure read as its JSON name, the wire
        paths of the renamed keys, those of them whose values are structure, not opaque):
        `body` itself when it has none. A key given in both spellings is left as it is (the JSON
        name is read; the other is carried)."""
        if not self._any(body, 0):  # the common case, the JSON names only: nothing built
            return body, frozenset(), frozenset()
        renamed: list[tuple[Any, ...]] = []
        out = self._walk(body, (), renamed, 0)
        opaque, names = self.opaque, self.names
        return out, frozenset(renamed), frozenset(p for p in renamed if names[p[-1]] not in opaque)

    def _any(self, node: Any, depth: int) -> bool:
        """Whether `_walk` renames anything in `node`, found without building a copy."""
        if depth > MAX_JSON_DEPTH:
            return False
        t = type(node)
        if t is list:
            return any(self._any(v, depth + 1) for v in node if type(v) in _CONTAINERS)
        if t is not dict:
            return False
        names, descend, opaque = self.names, self.descend, self.opaque
        for key, value in node.items():
            name = names.get(key) if type(key) is str else None
            if name is not None and name not in node:
                return True
            if key in descend and key not in opaque and type(value) in _CONTAINERS and self._any(value, depth + 1):
                return True
        return False

    def _walk(self, node: Any, path: tuple[Any, ...], renamed: list[tuple[Any, ...]], depth: int) -> Any:
        if depth > MAX_JSON_DEPTH:  # the depth limit is the reader's to report
            return node
        t = type(node)
        if t is list:
            items = [self._walk(v, path + (i,), renamed, depth + 1) for i, v in enumerate(node)]
            return items if any(a is not b for a, b in zip(items, node)) else node
        if t is not dict:
            return node
        changed = False
        out: dict[Any, Any] = {}
        names, descend, opaque = self.names, self.descend, self.opaque
        for key, value in node.items():
            name = names.get(key) if type(key) is str else None
            if name is not None and name not in node:
                renamed.append(path + (key,))
                changed = True
            else:
                name = key
            if name in descend and name not in opaque and type(value) in _CONTAINERS:
                walked = self._walk(value, path + (key,), renamed, depth + 1)
                if walked is not value:
                    changed = True
                value = walked
            out[name] = value
        return out if changed else node


def read_request(
    body: Any,
    read: Callable[[Any], Request],
    origin: str,
    rewrite: Callable[[Request], Any],
    known: frozenset[str],
    options: frozenset[tuple[str, ...]],
    aliases: frozenset[tuple[Any, ...]],
    reader: str | None = None,
    proto: ProtoNames | None = None,
) -> Request:
    """A generated `request_from_wire`: the format's reader (`read`) on `body`, a wire shape it
    refuses an InvalidRequestError naming the path; the depth limit that request_to_wire applies;
    then what the tables do not model carried for the same provider's wire (`carry`), named as
    read by `reader` (the format's key). With `proto` (`request.field_names: proto`), the reader
    reads each proto field name as its JSON name; the carried data then restores the caller's
    spelling on the same wire, and the loss report counts those keys as read (`aliases`)."""
    read_body = body
    spelled: frozenset[tuple[Any, ...]] = frozenset()
    opaque: frozenset[str] = frozenset()
    if proto is not None:
        opaque = proto.opaque_names  # the caller's JSON: the loss report never walks into it
        read_body, renamed, spelled = proto.spelled(body)
        if renamed:
            aliases = aliases | renamed
            known = known | proto.known  # inside a renamed value, its proto names are the tables' too
    try:
        request = read(read_body)
    except WireShapeError as exc:
        raise InvalidRequestError(exc.message, path=exc.path) from None
    except RecursionError:
        raise InvalidRequestError("request nested too deeply") from None
    check_request_depth(request)  # MAX_JSON_DEPTH, as request_to_wire applies it
    try:  # what no row reads may be nested past Python's limit (a value the diff walks)
        return carry(
            request, body, origin, rewrite, known, InvalidRequestError, options, aliases, reader, spelled, opaque,
            lambda: read(read_body),
        )
    except RecursionError:
        raise InvalidRequestError("request nested too deeply") from None


def read_response(
    body: Any,
    read: Callable[[Any], Response],
    origin: str,
    write: Callable[[Response], Any],
    known: frozenset[str],
    response_schema: dict[str, Any] | None,
    coerced_tool: str | None = None,
    reader: str | None = None,
) -> Response:
    """A generated `response_from_wire`: the format's reader (`read`) on `body`, a wire shape it
    refuses an InvalidResponseError naming the path (and holding the body); the depth limit;
    what the tables do not model carried; then, with a `response_schema`, `parsed` (from the
    forced tool's arguments when `coerced_tool` names it: OpenArmature §8.2.5.1 coercion)."""
    try:
        response = read(body)
    except WireShapeError as exc:
        raise InvalidResponseError(exc.message, path=exc.path, body=body) from None
    except RecursionError:
        raise InvalidResponseError("response nested too deeply", body=body) from None
    check_response_depth(response, InvalidResponseError, body)  # the same limit, every direction
    try:  # what no row reads (an `id`) may be nested past Python's limit: the diff walks it
        carry(response, body, origin, write, known, InvalidResponseError, reader=reader)
    except RecursionError:
        raise InvalidResponseError("response nested too deeply", body=body) from None
    if response_schema is not None:
        if coerced_tool is not None:
            take_coerced_output(response, coerced_tool)
        if response.finish_reason != "tool_calls" and response.message.content:
            try:
                response.parsed = parse_structured(response.message.content, response_schema, response.finish_reason, response.usage)
            except RecursionError:
                raise InvalidResponseError("structured output nested too deeply", body=body) from None
    return response


def carry(
    record: _R,
    body: Any,
    origin: str,
    rewrite: Callable[[_R], Any],
    known: frozenset[str] = frozenset(),
    error: type[ProviderError] = InvalidRequestError,
    options: frozenset[tuple[str, ...]] = frozenset(),
    aliases: frozenset[tuple[Any, ...]] = frozenset(),
    reader: str | None = None,
    spelled: frozenset[tuple[Any, ...]] = frozenset(),
    opaque: frozenset[str] = frozenset(),
    reread: Callable[[], Any] | None = None,
) -> _R:
    """`record` (a Request or Response just read from `body`), carrying what the same format's
    re-write of it does not say as `body` does (runtime/carry.py). A record the format cannot
    write back (its own rules refuse it) carries nothing: writing it fails anyway. Inside
    `read_without_carry` nothing is computed: the caller drops the carried data anyway.
    `reread`: the reader again on the body (requests): an assistant turn that reads as empty is
    held (`Carried.held`) when the body has parts the reader leaves out (`skip_part`) and the
    turn's own wire element says something the re-write does not (`_fills_turn`)."""
    if _NO_CARRY.get():
        return record
    held: set[int] = set()  # assistant turns held for the carried data (Carried.held)
    rewritten: Any = None
    token = _QUIET.set(True)
    try:
        while True:
            try:
                rewritten = rewrite(record)
                break
            except EmptyTurnError as exc:
                # an assistant turn that reads as empty: when the reader left parts of the body
                # out (blocks no row reads, Anthropic's server-tool blocks), they are what the
                # turn said. It is held, written empty, and the carried data fills it back.
                if reread is None or exc.index in held or (not held and not _skips_parts(reread)):
                    rewritten = None
                    break
                held.add(exc.index)
                record.carried = Carried(origin, [], [], [], held=frozenset(held))
            except (ProviderError, RecursionError):
                # the format's own rules refuse to write it back: its top-level keys no table names are
                # still carried (a translation names each as lost), against an empty re-write
                rewritten = None
                break
        if held and rewritten is not None and not all(_fills_turn(record, i, body, rewritten, rewrite) for i in held):
            rewritten = None  # a turn empty on the wire itself: refused when written, as before
    finally:
        _QUIET.reset(token)
        if held:
            record.carried = None  # the re-write's own; the residual's is set below
    if rewritten is None:
        held.clear()
    if rewritten is None:
        if type(body) is not dict or not known:
            return record
        config = getattr(record, "config", None)
        extras = getattr(config, "extras", None)  # read into config.extras (request.unknown: extras): not carried
        said = known | frozenset(extras) if type(extras) is dict else known
        ops = [((k,), v) for k, v in body.items() if k not in said]
        if not ops:
            return record
        carried: Carried | None = Carried(origin, ops, [_ABSENT] * len(ops), [_ABSENT] * len(ops), known, aliases, spelled, opaque)
    else:
        carried = residual(origin, body, rewritten, known, options, aliases, spelled, opaque)
        if carried is not None and held:
            carried.held = frozenset(held)
    if carried is not None:
        carried.reader = reader  # the reading format's key (the dict form names it: runtime/translate.py)
    if carried is not None:  # the depth limit of every direction (validate.MAX_JSON_DEPTH), carried data too
        keep = []
        for i, (path, value) in enumerate(carried.ops):
            deep = _json_too_deep(value, _path_text(path)) if value is not _ABSENT and type(value) in _CONTAINERS else None
            if deep is None:
                keep.append(i)
            else:  # not carried (no code may recurse into it); named as a loss by translate_*
                carried.too_deep.append(deep)
        if len(keep) != len(carried.ops):
            carried.ops = [carried.ops[i] for i in keep]
            carried.anchors = [carried.anchors[i] for i in keep]
            carried.rewritten = [carried.rewritten[i] for i in keep]
    record.carried = carried
    return record


# ------------------------------------------------------------------------------------------
# options sent as request headers (request.options `header:`; the module's HEADER_OPTIONS)


def option_headers(module: Any, request: Any) -> dict[str, str]:
    """The request headers that carry `request`'s options under `module`'s HEADER_OPTIONS
    (option -> header name): a string as it is, a list comma-separated (Anthropic
    `anthropic-beta: a,b`). {} when the format has no header row or the request sets none.
    `request` is a canonical Request or its dict form."""
    rows: Mapping[str, str] = getattr(module, "HEADER_OPTIONS", None) or {}
    if not rows:
        return {}
    config = request.get("config") if isinstance(request, Mapping) else getattr(request, "config", None)
    out: dict[str, str] = {}
    for name, header in rows.items():
        value = config.get(name) if isinstance(config, Mapping) else getattr(config, name, NOT_GIVEN)
        if isinstance(value, list):
            if value:
                out[header] = ",".join(str(item) for item in value)
        elif isinstance(value, str) and value:
            out[header] = value
    return out


def merge_option_headers(headers: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
    """`headers` with `extra` added; a header both name (any case) gets both values,
    comma-separated, each once (a Provider's fixed `anthropic-beta` and a call's betas)."""
    out = dict(headers)
    for name, value in extra.items():
        same = next((k for k in out if k.lower() == name), None)
        if same is None:
            out[name] = value
            continue
        items = [v.strip() for v in f"{out[same]},{value}".split(",") if v.strip()]
        out[same] = ",".join(dict.fromkeys(items))
    return out


def options_from_headers(module: Any, headers: Mapping[str, str], list_options: Any = ("betas", "stop_sequences")) -> dict[str, Any]:
    """The options a client sent in `module`'s HEADER_OPTIONS headers (a gateway reading a
    client of this format): a list option split on commas, blanks left out."""
    rows: Mapping[str, str] = getattr(module, "HEADER_OPTIONS", None) or {}
    out: dict[str, Any] = {}
    for name, header in rows.items():
        value = headers.get(header)
        if not value:
            continue
        if name in list_options:
            items = [item.strip() for item in value.split(",") if item.strip()]
            if items:
                out[name] = items
        else:
            out[name] = value
    return out

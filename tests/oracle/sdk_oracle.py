"""Strict test oracle: validate wire bodies against the official provider SDK types.

Test-only.  Nothing under ``wiremap`` imports this module, and it imports nothing from
``wiremap``; it depends on the ``openai`` and ``anthropic`` SDKs (and pydantic, which they
bring along).

Why not just ``pydantic.TypeAdapter(SomeParams).validate_python(body)``?
    The SDK request types are ``TypedDict``s.  pydantic validates TypedDicts leniently:
    undeclared keys are silently dropped (a misspelled ``detial`` passes), and fields typed
    ``Iterable[...]`` are validated *lazily* (pydantic wraps them in a generator-backed
    validator; a misspelled key inside ``messages[1].content[0]`` only errors if something
    iterates the result).  The SDK response models are pydantic ``BaseModel``s configured
    with ``extra="allow"``, so a misspelled response key becomes an "extra" attribute
    instead of an error.  Neither behaviour is acceptable for checking the bodies *we* build,
    so this module walks the SDK type hints itself:

    * unknown keys are rejected, with the allowed keys listed (and a "did you mean");
    * required keys must be present;
    * ``Literal`` values are checked (type-aware: ``True`` does not match ``Literal[1]``);
    * unions are tried member by member; unions of objects are narrowed first by their
      ``type``/``role`` literal (or the SDK's own discriminator annotation) so the error
      points inside the variant that was meant, e.g.
      ``messages[2].content[0].image_url.detial: unknown key; expected one of: detail, url``;
    * ``Iterable``/``Sequence``/``List`` are checked element by element (JSON arrays only,
      a string is never accepted as an array);
    * scalars: ``bool`` is not an ``int``; an ``int`` is accepted where ``float`` is
      declared; non-finite floats are rejected (not JSON);
    * ``Dict[str, X]`` checks every value against ``X``; ``object``/``Any`` accept any JSON
      value (still checked to *be* JSON: str keys, lists, finite numbers ...).

Requiredness of TypedDict keys is computed here from the ``Required``/``NotRequired``
wrappers and each class's own ``total=``: the SDK modules use
``from __future__ import annotations``, and under that ``__required_keys__`` is WRONG
(it reports ``frozenset()`` for ``CompletionCreateParamsBase``, whose ``messages`` and
``model`` are ``Required``).

Public API
    check_typed(value, tp, path="", *, allow_extra_root_keys=frozenset())
    check_openai_chat_request(body, allow_extra_root_keys=frozenset(), *, allow_stream=False)
    check_openai_chat_response(body, allow_extra_root_keys=frozenset())
    check_anthropic_messages_request(body, allow_extra_root_keys=frozenset(), *,
                                     allow_stream=False, use_extensions=True)
    check_anthropic_messages_response(body, allow_extra_root_keys=frozenset())
    check_openai_embeddings_request(body, allow_extra_root_keys=frozenset())
    check_openai_embeddings_response(body, allow_extra_root_keys=frozenset())
    check_openai_images_request(body, allow_extra_root_keys=frozenset())
    check_openai_images_response(body, allow_extra_root_keys=frozenset())
All raise :class:`OracleError` (an ``AssertionError``) naming the JSON path.
"""

from __future__ import annotations

import collections.abc as cabc
import dataclasses
import datetime as _dt
import difflib
import functools
import io
import math
import os
import types
import typing
from typing import Any, Collection, Mapping, get_args, get_origin

import pydantic
import typing_extensions as te

import anthropic
import openai
from anthropic.types import Message as AnthropicMessage
from anthropic.types.message_create_params import (
    MessageCreateParamsNonStreaming as AnthropicCreateParamsNonStreaming,
)
from anthropic.types.message_create_params import (
    MessageCreateParamsStreaming as AnthropicCreateParamsStreaming,
)
from openai.types import CreateEmbeddingResponse, EmbeddingCreateParams, ImagesResponse
from openai.types.chat import ChatCompletion
from openai.types.image_generate_params import (
    ImageGenerateParamsNonStreaming as OpenAIImageGenerateParamsNonStreaming,
)
from openai.types.chat.completion_create_params import (
    CompletionCreateParamsNonStreaming as OpenAIChatCreateParamsNonStreaming,
)
from openai.types.chat.completion_create_params import (
    CompletionCreateParamsStreaming as OpenAIChatCreateParamsStreaming,
)
from openai.types.responses import Response as OpenAIResponse
from openai.types.responses.response_create_params import (
    ResponseCreateParamsNonStreaming as OpenAIResponsesCreateParamsNonStreaming,
)
from openai.types.responses.response_create_params import (
    ResponseCreateParamsStreaming as OpenAIResponsesCreateParamsStreaming,
)

__all__ = [
    "ANTHROPIC_HEADER_ONLY_PARAMS",
    "ANTHROPIC_REQUEST_ROOT_EXTENSIONS",
    "OracleError",
    "SDK_VERSIONS",
    "check_anthropic_messages_request",
    "check_anthropic_messages_response",
    "check_openai_chat_request",
    "check_openai_chat_response",
    "check_openai_embeddings_request",
    "check_openai_embeddings_response",
    "check_openai_images_request",
    "check_openai_images_response",
    "check_openai_responses_request",
    "check_openai_responses_response",
    "check_typed",
]

SDK_VERSIONS: dict[str, str] = {
    "openai": openai.__version__,
    "anthropic": anthropic.__version__,
    "pydantic": pydantic.VERSION,
}

# --------------------------------------------------------------------------------------
# Documented deviations from the SDK types (keep these small and explained).
# --------------------------------------------------------------------------------------

#: Keys of ``anthropic.types.message_create_params.MessageCreateParamsBase`` that the SDK's
#: ``Messages.create()`` does NOT put in the JSON body: it sends them as the HTTP headers
#: ``anthropic-user-profile-id`` / ``anthropic-workspace-id``.  A wire *body* containing
#: them is therefore wrong, so the oracle removes them from the body schema.
#: (``tests/oracle/test_sdk_oracle.py`` re-derives this set from the SDK source to detect
#: drift.)
ANTHROPIC_HEADER_ONLY_PARAMS: frozenset[str] = frozenset({"user_profile_id", "workspace_id"})

#: Root keys of the Anthropic Messages request body that the public API reference documents
#: but the installed ``anthropic`` SDK's ``MessageCreateParams`` does not declare.
#: anthropic 2.x dropped the sampling parameters from the generated params (there is no
#: ``temperature``/``top_p``/``top_k`` anywhere in ``anthropic.types``), while the Messages
#: API reference still lists them (some newer models reject them at runtime).  Used only
#: when ``use_extensions=True`` and only for keys the SDK does not itself declare, so an
#: SDK that re-adds them takes precedence automatically.
ANTHROPIC_REQUEST_ROOT_EXTENSIONS: Mapping[str, Any] = types.MappingProxyType(
    {
        "temperature": float,
        "top_p": float,
        "top_k": int,
    }
)


# --------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------


class OracleError(AssertionError):
    """A wire body does not conform to the SDK type.  ``path`` is a JSON path such as
    ``messages[2].content[0].image_url.detial`` (``""`` for the root)."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path or '<root>'}: {message}")

    def __reduce__(self):  # keep picklable (pytest-xdist etc.)
        return (type(self), (self.path, self.message))


class OracleTypeError(TypeError):
    """The oracle met a type hint it does not know how to check (an oracle bug, not a body
    error).  Raised instead of silently accepting."""


# --------------------------------------------------------------------------------------
# Type-hint plumbing
# --------------------------------------------------------------------------------------

_REQUIREDNESS_WRAPPERS = {typing.Required, typing.NotRequired, te.Required, te.NotRequired}
if hasattr(te, "ReadOnly"):
    _REQUIREDNESS_WRAPPERS.add(te.ReadOnly)
if hasattr(typing, "ReadOnly"):  # pragma: no cover - Python >= 3.13
    _REQUIREDNESS_WRAPPERS.add(typing.ReadOnly)
_REQUIRED = {typing.Required, te.Required}
_NOT_REQUIRED = {typing.NotRequired, te.NotRequired}
_LITERALS = {typing.Literal, te.Literal}
_UNIONS: set[Any] = {typing.Union, types.UnionType}
_TYPE_ALIAS_TYPES = tuple(
    t for t in (getattr(typing, "TypeAliasType", None), getattr(te, "TypeAliasType", None)) if t
)
_ARRAY_ORIGINS = {
    list,
    tuple,
    cabc.Iterable,
    cabc.Sequence,
    cabc.MutableSequence,
    cabc.Collection,
    cabc.Iterator,
}
_MAPPING_ORIGINS = {dict, cabc.Mapping, cabc.MutableMapping}
# SDK-side conveniences (file paths, open files, raw bytes) that the SDK turns into JSON
# strings before sending.  A JSON wire body can never contain them.
_NON_JSON_CLASSES: tuple[type, ...] = (bytes, bytearray, os.PathLike, io.IOBase)

_ALL_KINDS = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})


@dataclasses.dataclass(frozen=True)
class _Field:
    tp: Any  # the declared type, requiredness wrappers removed (Annotated kept)
    required: bool


@dataclasses.dataclass(frozen=True)
class _Shape:
    """An object type (TypedDict or pydantic model) reduced to its wire fields."""

    name: str
    fields: Mapping[str, _Field]  # keyed by WIRE name (aliases applied)
    open: bool  # undeclared keys allowed (SDK explicitly configured extra="allow")


def _strip(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    """Remove Required/NotRequired/ReadOnly/Annotated/TypeAliasType/NewType layers;
    return the bare type and the Annotated metadata collected on the way."""
    meta: list[Any] = []
    while True:
        origin = get_origin(tp)
        if origin in _REQUIREDNESS_WRAPPERS:
            tp = get_args(tp)[0]
        elif origin is typing.Annotated:
            meta.extend(tp.__metadata__)
            tp = get_args(tp)[0]
        elif _TYPE_ALIAS_TYPES and isinstance(tp, _TYPE_ALIAS_TYPES):
            tp = tp.__value__
        elif _TYPE_ALIAS_TYPES and isinstance(origin, _TYPE_ALIAS_TYPES) and origin.__type_params__:
            # a generic alias applied to arguments (mistralai's Nullable[X] = Union[X, None])
            tp = origin.__value__[get_args(tp)]
        elif isinstance(tp, typing.NewType):
            tp = tp.__supertype__
        elif isinstance(tp, typing.TypeVar):
            tp = tp.__bound__ if tp.__bound__ is not None else Any
        else:
            return tp, tuple(meta)


def _alias_from_meta(meta: tuple[Any, ...]) -> str | None:
    for m in meta:
        alias = getattr(m, "alias", None)
        if isinstance(alias, str) and alias:
            return alias
    return None


def _discriminators_from_meta(meta: tuple[Any, ...]) -> list[str]:
    out = []
    for m in meta:
        # openai: PropertyInfo(discriminator="type"); anthropic: UnionDiscriminator("type");
        # pydantic: Field(discriminator="type") / Discriminator("type")
        for attr in ("discriminator", "field_name"):
            d = getattr(m, attr, None)
            if isinstance(d, str) and d:
                out.append(d)
        if isinstance(m, pydantic.Discriminator) and isinstance(m.discriminator, str):
            out.append(m.discriminator)
    return out


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and te.is_typeddict(tp)


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, pydantic.BaseModel)


def _typeddict_bases(td: type) -> list[type]:
    return [b for b in getattr(td, "__orig_bases__", ()) if _is_typeddict(b)]


def _typeddict_requiredness(td: type, hints: Mapping[str, Any]) -> dict[str, bool]:
    """Requiredness per key, computed from the class chain instead of trusting
    ``__required_keys__`` (broken under ``from __future__ import annotations``)."""
    result: dict[str, bool] = {}

    def visit(klass: type) -> None:
        bases = _typeddict_bases(klass)
        for base in bases:  # bases first, so redeclarations in subclasses win
            visit(base)
        inherited: dict[str, Any] = {}
        for base in bases:
            inherited.update(getattr(base, "__annotations__", {}))
        total = getattr(klass, "__total__", True)
        for key, raw in getattr(klass, "__annotations__", {}).items():
            if key in inherited and inherited[key] is raw:
                continue  # inherited, not (re)declared here
            hint = hints.get(key, raw)
            origin = get_origin(hint)
            # Annotated[Required[X], ...] / Required[Annotated[X, ...]]: look through
            while origin is typing.Annotated:
                hint = get_args(hint)[0]
                origin = get_origin(hint)
            if origin in _REQUIRED:
                result[key] = True
            elif origin in _NOT_REQUIRED:
                result[key] = False
            else:
                result[key] = bool(total)

    visit(td)
    return result


@functools.lru_cache(maxsize=None)
def _shape_of_typeddict(td: type) -> _Shape:
    hints = typing.get_type_hints(td, include_extras=True)
    required = _typeddict_requiredness(td, hints)
    fields: dict[str, _Field] = {}
    for key, hint in hints.items():
        # keep Annotated (discriminators) but drop requiredness wrappers
        tp = hint
        while get_origin(tp) in _REQUIREDNESS_WRAPPERS:
            tp = get_args(tp)[0]
        _, meta = _strip(hint)
        wire = _alias_from_meta(meta) or key
        fields[wire] = _Field(tp, required.get(key, bool(getattr(td, "__total__", True))))
    config = getattr(td, "__pydantic_config__", None) or {}
    return _Shape(td.__name__, types.MappingProxyType(fields), config.get("extra") == "allow")


@functools.lru_cache(maxsize=None)
def _shape_of_model(model: type[pydantic.BaseModel]) -> _Shape:
    if not getattr(model, "__pydantic_complete__", True):
        model.model_rebuild()
    fields: dict[str, _Field] = {}
    hints: Mapping[str, Any] | None = None
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, (str, typing.ForwardRef)):
            if hints is None:
                hints = typing.get_type_hints(model, include_extras=True)
            annotation = hints[name]
        tp = typing.Annotated[(annotation, *info.metadata)] if info.metadata else annotation
        wire = info.validation_alias if isinstance(info.validation_alias, str) else None
        wire = wire or info.alias or name
        fields[wire] = _Field(tp, info.is_required())
    # SDK response models all use extra="allow"; strictness is the point of the oracle, so
    # undeclared response keys are rejected regardless of the model config.
    return _Shape(model.__name__, types.MappingProxyType(fields), False)


def _shape(tp: Any) -> _Shape | None:
    if _is_typeddict(tp):
        return _shape_of_typeddict(tp)
    if _is_model(tp):
        return _shape_of_model(tp)
    return None


def _kinds(tp: Any) -> frozenset[str]:
    """JSON kinds a type can accept."""
    tp, _ = _strip(tp)
    origin = get_origin(tp)
    if tp is Any or tp is object:
        return _ALL_KINDS
    if origin in _UNIONS:
        out: frozenset[str] = frozenset()
        for arg in get_args(tp):
            out |= _kinds(arg)
        return out
    if origin in _LITERALS:
        return frozenset(_value_kind(v) or "?" for v in get_args(tp))
    if origin in _ARRAY_ORIGINS:
        return frozenset({"array"})
    if origin in _MAPPING_ORIGINS or _shape(tp) is not None:
        return frozenset({"object"})
    if tp is type(None) or tp is None:
        return frozenset({"null"})
    if tp is bool:
        return frozenset({"boolean"})
    if tp is int:
        return frozenset({"integer"})
    if tp is float:
        return frozenset({"integer", "number"})
    if tp is str or tp in (_dt.datetime, _dt.date):
        return frozenset({"string"})
    if isinstance(tp, type) and issubclass(tp, _NON_JSON_CLASSES):
        return frozenset()
    if origin is not None and isinstance(origin, type) and issubclass(origin, _NON_JSON_CLASSES):
        return frozenset()  # IO[bytes], PathLike[str]
    if origin is typing.IO or tp is typing.IO:
        return frozenset()
    raise OracleTypeError(f"sdk_oracle does not know how to check type {tp!r}")


def _value_kind(value: Any) -> str | None:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return None


def _type_name(tp: Any) -> str:
    tp, _ = _strip(tp)
    shape = _shape(tp)
    if shape is not None:
        return shape.name
    origin = get_origin(tp)
    if origin in _LITERALS:
        return "Literal[" + ", ".join(repr(a) for a in get_args(tp)) + "]"
    if origin in _UNIONS:
        return " | ".join(_type_name(a) for a in get_args(tp))
    if origin in _ARRAY_ORIGINS:
        args = get_args(tp)
        return f"array of {_type_name(args[0])}" if args else "array"
    if origin in _MAPPING_ORIGINS:
        return "object"
    if tp is type(None):
        return "null"
    return getattr(tp, "__name__", repr(tp))


# --------------------------------------------------------------------------------------
# Path helpers
# --------------------------------------------------------------------------------------


def _key_path(path: str, key: Any) -> str:
    key = str(key)
    if key.isidentifier():
        return f"{path}.{key}" if path else key
    return f"{path}[{key!r}]"


def _index_path(path: str, index: int) -> str:
    return f"{path}[{index}]"


def _depth(path: str) -> int:
    return path.count(".") + path.count("[") + (1 if path else 0)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------------------
# The walker
# --------------------------------------------------------------------------------------


def check_typed(
    value: Any,
    tp: Any,
    path: str = "",
    *,
    allow_extra_root_keys: Collection[str] = frozenset(),
) -> None:
    """Check a JSON-like ``value`` strictly against a typing type ``tp`` (TypedDict,
    pydantic model, Union, Literal, Iterable/List/Sequence, Dict, scalars ...).

    ``allow_extra_root_keys`` whitelists undeclared keys of the object at ``path`` itself
    (their values are only checked to be JSON).  Raises :class:`OracleError`.
    """
    _check(value, tp, path, frozenset(allow_extra_root_keys))


def _check(value: Any, tp: Any, path: str, extra_keys: frozenset[str] = frozenset()) -> None:
    bare, meta = _strip(tp)
    origin = get_origin(bare)

    if bare is Any or bare is object:
        _check_json(value, path)
        return

    if origin in _UNIONS:
        _check_union(value, bare, meta, path, extra_keys)
        return

    if origin in _LITERALS:
        allowed = get_args(bare)
        if not any(type(value) is type(a) and value == a for a in allowed):
            raise OracleError(
                path, f"{_short(value)} is not one of: {', '.join(repr(a) for a in allowed)}"
            )
        return

    shape = _shape(bare)
    if shape is not None:
        _check_object(value, shape, path, extra_keys)
        return

    if origin in _ARRAY_ORIGINS:
        if not isinstance(value, (list, tuple)):
            raise OracleError(path, f"expected a JSON array, got {_describe_value(value)}")
        args = get_args(bare)
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            if len(value) != len(args):
                raise OracleError(path, f"expected an array of length {len(args)}, got {len(value)}")
            for i, (item, item_tp) in enumerate(zip(value, args)):
                _check(item, item_tp, _index_path(path, i))
            return
        item_tp = args[0] if args else Any
        for i, item in enumerate(value):
            _check(item, item_tp, _index_path(path, i))
        return

    if origin in _MAPPING_ORIGINS:
        if not isinstance(value, dict):
            raise OracleError(path, f"expected a JSON object, got {_describe_value(value)}")
        args = get_args(bare)
        key_tp, val_tp = (args[0], args[1]) if args else (str, Any)
        for k, v in value.items():
            if not isinstance(k, str):
                raise OracleError(path, f"object key {k!r} is not a string")
            if _strip(key_tp)[0] is not str:
                _check(k, key_tp, _key_path(path, k))
            _check(v, val_tp, _key_path(path, k))
        return

    _check_scalar(value, bare, path)


def _describe_value(value: Any) -> str:
    kind = _value_kind(value)
    if kind is None:
        return f"non-JSON value of type {type(value).__name__}"
    if kind in ("object", "array"):
        return f"{kind}"
    return f"{kind} {_short(value)}"


def _check_scalar(value: Any, tp: Any, path: str) -> None:
    kind = _value_kind(value)
    if tp is type(None) or tp is None:
        ok = value is None
        want = "null"
    elif tp is bool:
        ok = kind == "boolean"
        want = "boolean"
    elif tp is int:
        ok = kind == "integer"
        want = "integer"
    elif tp is float:
        ok = kind in ("integer", "number")
        want = "number"
        if ok and isinstance(value, float) and not math.isfinite(value):
            raise OracleError(path, f"{value!r} is not a finite JSON number")
    elif tp is str:
        ok = kind == "string"
        want = "string"
    elif tp in (_dt.datetime, _dt.date):
        want = f"ISO 8601 {tp.__name__} string"
        ok = kind == "string"
        if ok:
            try:
                tp.fromisoformat(value)
            except ValueError:
                ok = False
    elif not _kinds(tp):
        raise OracleError(
            path,
            f"expected {_type_name(tp)} (an SDK-side input type with no JSON form), "
            f"got {_describe_value(value)}",
        )
    else:  # pragma: no cover - _kinds raises for unknown types
        raise OracleTypeError(f"sdk_oracle does not know how to check type {tp!r}")
    if not ok:
        raise OracleError(path, f"expected {want}, got {_describe_value(value)}")


def _check_json(value: Any, path: str) -> None:
    """``object``/``Any``: anything, as long as it is JSON."""
    kind = _value_kind(value)
    if kind is None:
        raise OracleError(path, f"not a JSON value: {type(value).__name__}")
    if kind == "number" and not math.isfinite(value):
        raise OracleError(path, f"{value!r} is not a finite JSON number")
    if kind == "object":
        for k, v in value.items():
            if not isinstance(k, str):
                raise OracleError(path, f"object key {k!r} is not a string")
            _check_json(v, _key_path(path, k))
    elif kind == "array":
        for i, item in enumerate(value):
            _check_json(item, _index_path(path, i))


def _check_object(value: Any, shape: _Shape, path: str, extra_keys: frozenset[str]) -> None:
    if not isinstance(value, dict):
        raise OracleError(path, f"expected a JSON object ({shape.name}), got {_describe_value(value)}")
    fields = shape.fields
    for key in value:
        if not isinstance(key, str):
            raise OracleError(path, f"object key {key!r} is not a string")
        if key not in fields and key not in extra_keys and not shape.open:
            allowed = sorted(fields)
            message = f"unknown key; expected one of: {', '.join(allowed)}"
            close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.75)
            if close:
                message += f"; did you mean {close[0]!r}?"
            raise OracleError(_key_path(path, key), message)
    for key, spec in fields.items():
        if spec.required and key not in value:
            raise OracleError(_key_path(path, key), f"required key missing (in {shape.name})")
    for key, item in value.items():
        spec = fields.get(key)
        if spec is None:
            _check_json(item, _key_path(path, key))
        else:
            _check(item, spec.tp, _key_path(path, key))


# -- unions ----------------------------------------------------------------------------

_ANY = object()  # "this member accepts any value for the discriminator key"


def _flatten_union(tp: Any, meta: tuple[Any, ...]) -> tuple[list[Any], list[str]]:
    members: list[Any] = []
    discriminators = _discriminators_from_meta(meta)
    for arg in get_args(tp):
        bare, inner_meta = _strip(arg)
        if get_origin(bare) in _UNIONS:
            sub, sub_disc = _flatten_union(bare, inner_meta)
            members.extend(sub)
            discriminators.extend(d for d in sub_disc if d not in discriminators)
        else:
            members.append(arg)
    return members, discriminators


def _discriminator_info(member: Any, key: str) -> tuple[Any, bool] | None:
    """For an object member: (allowed literal values or _ANY, required?) for ``key``;
    None if the member does not declare ``key`` (and is closed)."""
    bare, _ = _strip(member)
    shape = _shape(bare)
    if shape is None:
        return (_ANY, False)  # Dict[str, X] etc.: cannot be narrowed
    spec = shape.fields.get(key)
    if spec is None:
        return (_ANY, False) if shape.open else None
    values: list[Any] = []
    stack = [spec.tp]
    while stack:
        t, _ = _strip(stack.pop())
        o = get_origin(t)
        if o in _UNIONS:
            stack.extend(get_args(t))
        elif o in _LITERALS:
            values.extend(get_args(t))
        elif t is type(None):
            continue
        else:
            return (_ANY, spec.required)
    return (tuple(values), spec.required)


def _names(members: list[Any], limit: int = 6) -> str:
    names = list(dict.fromkeys(_type_name(m) for m in members))
    if len(names) > limit:
        return " | ".join(names[:limit]) + f" | ... ({len(names) - limit} more)"
    return " | ".join(names)


def _literal_match(value: Any, allowed: tuple[Any, ...]) -> bool:
    return any(type(value) is type(a) and value == a for a in allowed)


def _narrow_objects(value: dict, members: list[Any], discriminators: list[str], path: str) -> list[Any]:
    keys = list(dict.fromkeys([*discriminators, "type", "role"]))
    for key in keys:
        infos = [(m, _discriminator_info(m, key)) for m in members]
        if not any(info is not None and info[0] is not _ANY for _, info in infos):
            continue  # key does not discriminate these members
        if key in value:
            v = value[key]
            cands = [
                m
                for m, info in infos
                if info is not None and (info[0] is _ANY or _literal_match(v, info[0]))
            ]
            if not cands:
                known = sorted(
                    {repr(a) for _, info in infos if info is not None and info[0] is not _ANY for a in info[0]}
                )
                raise OracleError(
                    _key_path(path, key),
                    f"{_short(v)} is not one of: {', '.join(known)} "
                    f"(selects the variant of {_names(members)})",
                )
        else:
            cands = [m for m, info in infos if info is None or not info[1]]
            if not cands:
                raise OracleError(
                    _key_path(path, key),
                    f"required key missing (every variant of {_names(members)} requires it)",
                )
        return cands
    return members


def _check_union(value: Any, tp: Any, meta: tuple[Any, ...], path: str, extra_keys: frozenset[str]) -> None:
    members, discriminators = _flatten_union(tp, meta)
    kind = _value_kind(value)
    if kind is None:
        raise OracleError(path, f"not a JSON value: {type(value).__name__}")
    compatible = [m for m in members if kind in _kinds(m)]
    if not compatible:
        wanted = " or ".join(sorted(set().union(*(_kinds(m) for m in members))))
        if any(_kinds(m) & {"object", "array"} for m in members):
            wanted += f" ({_type_name(tp)})"
        raise OracleError(path, f"expected {wanted}, got {_describe_value(value)}")
    if kind == "object" and len(compatible) > 1:
        compatible = _narrow_objects(value, compatible, discriminators, path)
    errors: list[OracleError] = []
    for member in compatible:
        try:
            _check(value, member, path, extra_keys)
            return
        except OracleError as exc:
            errors.append(exc)
    if len(errors) == 1:
        raise errors[0]
    best = max(errors, key=lambda e: _depth(e.path))  # max() keeps the first of equals
    tried = _names(compatible)
    raise OracleError(best.path, f"{best.message} [no variant matched; tried: {tried}]")


# --------------------------------------------------------------------------------------
# Provider entry points
# --------------------------------------------------------------------------------------


def _root_dict(body: Any, what: str) -> dict:
    if not isinstance(body, dict):
        raise OracleError("", f"{what} must be a JSON object, got {_describe_value(body)}")
    return body


def check_openai_chat_request(
    body: Any,
    allow_extra_root_keys: Collection[str] = frozenset(),
    *,
    allow_stream: bool = False,
) -> None:
    """Validate an OpenAI Chat Completions request body against
    ``openai.types.chat.completion_create_params.CompletionCreateParamsNonStreaming``.

    ``allow_extra_root_keys``: undeclared root keys to tolerate (pass-through extras).
    ``allow_stream``: if true and ``body["stream"] is True``, validate against
    ``CompletionCreateParamsStreaming`` instead (by default ``stream: true`` is an error).
    """
    body = _root_dict(body, "OpenAI chat request")
    tp = OpenAIChatCreateParamsNonStreaming
    if allow_stream and body.get("stream") is True:
        tp = OpenAIChatCreateParamsStreaming
    _check(body, tp, "", frozenset(allow_extra_root_keys))


@functools.lru_cache(maxsize=None)
def _anthropic_request_shape(streaming: bool, use_extensions: bool) -> _Shape:
    base = _shape_of_typeddict(
        AnthropicCreateParamsStreaming if streaming else AnthropicCreateParamsNonStreaming
    )
    fields = {k: v for k, v in base.fields.items() if k not in ANTHROPIC_HEADER_ONLY_PARAMS}
    if use_extensions:
        for key, tp in ANTHROPIC_REQUEST_ROOT_EXTENSIONS.items():
            fields.setdefault(key, _Field(tp, False))
    return _Shape(base.name, types.MappingProxyType(fields), False)


def check_anthropic_messages_request(
    body: Any,
    allow_extra_root_keys: Collection[str] = frozenset(),
    *,
    allow_stream: bool = False,
    use_extensions: bool = True,
) -> None:
    """Validate an Anthropic Messages request body against
    ``anthropic.types.message_create_params.MessageCreateParamsNonStreaming``, minus
    :data:`ANTHROPIC_HEADER_ONLY_PARAMS`, plus (if ``use_extensions``)
    :data:`ANTHROPIC_REQUEST_ROOT_EXTENSIONS`.
    """
    body = _root_dict(body, "Anthropic messages request")
    streaming = allow_stream and body.get("stream") is True
    shape = _anthropic_request_shape(streaming, use_extensions)
    _check_object(body, shape, "", frozenset(allow_extra_root_keys))


def _sdk_parse(model: type[pydantic.BaseModel], body: dict) -> None:
    """Second opinion: the SDK's own response parsing must accept the body too."""
    try:
        model.model_validate(body)
    except pydantic.ValidationError as exc:
        err = exc.errors()[0]
        path = ""
        for part in err.get("loc", ()):
            path = _index_path(path, part) if isinstance(part, int) else _key_path(path, part)
        raise OracleError(path, f"SDK {model.__name__}.model_validate rejected it: {err.get('msg')}") from exc


def check_openai_chat_response(
    body: Any, allow_extra_root_keys: Collection[str] = frozenset()
) -> None:
    """Validate an OpenAI Chat Completions response body against
    ``openai.types.chat.ChatCompletion`` (undeclared keys rejected at every level)."""
    body = _root_dict(body, "OpenAI chat response")
    _check(body, ChatCompletion, "", frozenset(allow_extra_root_keys))
    _sdk_parse(ChatCompletion, body)


def check_anthropic_messages_response(
    body: Any, allow_extra_root_keys: Collection[str] = frozenset()
) -> None:
    """Validate an Anthropic Messages response body against ``anthropic.types.Message``
    (undeclared keys rejected at every level)."""
    body = _root_dict(body, "Anthropic messages response")
    _check(body, AnthropicMessage, "", frozenset(allow_extra_root_keys))
    _sdk_parse(AnthropicMessage, body)


def check_openai_embeddings_request(
    body: Any, allow_extra_root_keys: Collection[str] = frozenset()
) -> None:
    """Validate an OpenAI Embeddings request body against ``openai.types.EmbeddingCreateParams``."""
    body = _root_dict(body, "OpenAI embeddings request")
    _check(body, EmbeddingCreateParams, "", frozenset(allow_extra_root_keys))


def check_openai_embeddings_response(
    body: Any, allow_extra_root_keys: Collection[str] = frozenset()
) -> None:
    """Validate an OpenAI Embeddings response body against
    ``openai.types.CreateEmbeddingResponse`` (float vectors: the SDK types ``embedding`` as
    ``List[float]`` and decodes ``encoding_format: base64`` itself before validating)."""
    body = _root_dict(body, "OpenAI embeddings response")
    _check(body, CreateEmbeddingResponse, "", frozenset(allow_extra_root_keys))
    _sdk_parse(CreateEmbeddingResponse, body)


def check_openai_images_request(
    body: Any, allow_extra_root_keys: Collection[str] = frozenset()
) -> None:
    """Validate an OpenAI Images generate request body against
    ``openai.types.image_generate_params.ImageGenerateParamsNonStreaming``."""
    body = _root_dict(body, "OpenAI images request")
    _check(body, OpenAIImageGenerateParamsNonStreaming, "", frozenset(allow_extra_root_keys))


def check_openai_images_response(
    body: Any, allow_extra_root_keys: Collection[str] = frozenset()
) -> None:
    """Validate an OpenAI Images response body against ``openai.types.ImagesResponse``."""
    body = _root_dict(body, "OpenAI images response")
    _check(body, ImagesResponse, "", frozenset(allow_extra_root_keys))
    _sdk_parse(ImagesResponse, body)
def check_openai_responses_request(
    body: Any,
    allow_extra_root_keys: Collection[str] = frozenset(),
    *,
    allow_stream: bool = False,
) -> None:
    """Validate an OpenAI Responses request body against
    ``openai.types.responses.response_create_params.ResponseCreateParamsNonStreaming``
    (``ResponseCreateParamsStreaming`` when ``allow_stream`` and ``stream: true``)."""
    body = _root_dict(body, "OpenAI responses request")
    tp = OpenAIResponsesCreateParamsNonStreaming
    if allow_stream and body.get("stream") is True:
        tp = OpenAIResponsesCreateParamsStreaming
    _check(body, tp, "", frozenset(allow_extra_root_keys))


def check_openai_responses_response(
    body: Any, allow_extra_root_keys: Collection[str] = frozenset()
) -> None:
    """Validate an OpenAI Responses response body against ``openai.types.responses.Response``
    (undeclared keys rejected at every level), then parse it with the SDK."""
    body = _root_dict(body, "OpenAI responses response")
    _check(body, OpenAIResponse, "", frozenset(allow_extra_root_keys))
    _sdk_parse(OpenAIResponse, body)

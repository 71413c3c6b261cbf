"""Hypothesis strategies shared by tests/test_properties.py and tests/test_oracle_fixtures.py.

Everything here builds *plain data* (the public dict forms of CANONICAL.md and the two wire
formats); nothing imports the converters. Each strategy is parametrised by a format key and
draws only what that format carries -- or at least accepts -- so that a property failure points
at the converter, not at the generator. What a format accepts but does not carry back exactly
(a string that comes back as a one-block list, a dropped option, ...) is *not* filtered out here:
tests/test_properties.py `normalise()` states those equivalences explicitly.

Deliberately excluded (each is a known converter bug with its own xfail test in
tests/test_properties.py, see `test_bug_*`):
- an assistant turn without tool calls whose blocks are all stripped by the target format
  (every such turn here has at least one text block);
- JSON values nested deeper than a few levels (error_from_wire still overflows on those).

The strategies are built once and reused (functools.lru_cache): building a strategy object
costs more than drawing from it, and the generators are the bulk of the run time.
"""

from __future__ import annotations

import base64
import copy
import functools
import operator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

FORMATS = ("openai_chat", "anthropic_messages", "gemini_generate_content", "openai_responses")


@dataclass(frozen=True)
class Profile:
    """What a format's base mapping sends (mappings/<key>.yaml `content_parts`, `value_maps`)."""

    key: str
    image_inline_types: tuple[str, ...]
    audio_types: tuple[str, ...]  # () = no audio at all (anthropic: audio.* reject)
    file_url: bool  # openai: file.url reject
    file_inline_types: tuple[str, ...]
    strict_closes_schemas: bool  # openai: tools.strict close_all_object_schemas
    extras_known: tuple[tuple[str, Any], ...]  # SDK-declared root keys safe to pass through
    # The wire's numeric types: "json" (any finite double, the SDKs' int/float) or "proto32"
    # (Gemini GenerationConfig: float and int32 fields; out-of-range values are the API's to refuse,
    # oa §8.3.1, so the generator stays inside them).
    numbers: str = "json"
    # canonical options (issue 14) this format reads back as themselves
    options_known: tuple[tuple[str, Any], ...] = ()


PROFILES: dict[str, Profile] = {
    "openai_chat": Profile(
        key="openai_chat",
        # image.inline: any media type goes into the data URL; these are the API's image types.
        image_inline_types=("image/png", "image/jpeg", "image/gif", "image/webp"),
        # value_maps.audio_format: wav (audio/wav, audio/x-wav) and mp3 (audio/mpeg, audio/mp3).
        audio_types=("audio/wav", "audio/x-wav", "audio/mpeg", "audio/mp3"),
        file_url=False,
        # file.inline: file_data is a data URL of any media type.
        file_inline_types=("application/pdf", "text/plain", "text/csv"),
        strict_closes_schemas=True,
        # user, logprobs, parallel_tool_calls and metadata are canonical options now (issue 14):
        # drawn by `options_known`, not as extras
        extras_known=(
            ("store", st.booleans()),
            ("service_tier", st.sampled_from(["auto", "flex"])),
        ),
        options_known=(
            ("user", st.text(min_size=1, max_size=8)),
            ("logprobs", st.booleans()),
            ("n", st.integers(1, 4)),
            ("top_logprobs", st.integers(0, 20)),
            ("prompt_cache_key", st.text(min_size=1, max_size=8)),
            ("metadata", st.dictionaries(st.text(alphabet="abcdef", min_size=1, max_size=6), st.text(max_size=6), max_size=2)),
        ),
    ),
    "anthropic_messages": Profile(
        key="anthropic_messages",
        # value_maps.image_type: jpeg, png, gif, webp; anything else is rejected.
        image_inline_types=("image/jpeg", "image/png", "image/gif", "image/webp"),
        audio_types=(),
        file_url=True,
        # value_maps.document_type: base64 documents are PDFs only.
        file_inline_types=("application/pdf",),
        strict_closes_schemas=False,
        extras_known=(("service_tier", st.sampled_from(["auto", "standard_only"])),),
        options_known=(("user", st.text(min_size=1, max_size=8)),),  # metadata.user_id
    ),
    "gemini_generate_content": Profile(
        key="gemini_generate_content",
        # inlineData / fileData take any IANA type (no value map); these are the documented ones.
        image_inline_types=("image/png", "image/jpeg", "image/webp", "image/heic"),
        audio_types=("audio/wav", "audio/mp3", "audio/ogg", "audio/flac"),
        file_url=True,
        file_inline_types=("application/pdf", "text/plain", "text/csv"),
        strict_closes_schemas=False,
        # extras go under generationConfig (oa §8.3.1): GenerationConfig fields.
        extras_known=(("responseModalities", st.just(["TEXT"])),),
        options_known=(
            ("n", st.integers(1, 4)),
            ("logprobs", st.booleans()),
            ("top_logprobs", st.integers(0, 20)),
            ("reasoning_budget", st.integers(-1, 4096)),
        ),
        numbers="proto32",
    ),
    "openai_responses": Profile(
        key="openai_responses",
        # image.inline: input_image.image_url is a data URL of any image type.
        image_inline_types=("image/png", "image/jpeg", "image/gif", "image/webp"),
        audio_types=(),  # audio.*: reject (no audio input part)
        file_url=True,  # file.url: input_file.file_url
        file_inline_types=("application/pdf", "text/plain", "text/csv"),
        strict_closes_schemas=True,  # tools.strict close_all_object_schemas
        extras_known=(
            ("store", st.booleans()),
            ("truncation", st.sampled_from(["auto", "disabled"])),
        ),
        options_known=(
            ("user", st.text(min_size=1, max_size=8)),
            ("parallel_tool_calls", st.booleans()),
            ("top_logprobs", st.integers(0, 20)),
            ("prompt_cache_key", st.text(min_size=1, max_size=8)),
        ),
    ),
}

# --- scalars ----------------------------------------------------------------------------------

nonempty_text = st.text(min_size=1, max_size=12)
any_text = st.text(max_size=12)
# (st.from_regex is several times slower to draw from than st.text with an alphabet.)
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
_ID_CHARS = _LETTERS + "0123456789_-"
identifiers = st.text(alphabet=_ID_CHARS, min_size=1, max_size=12)
tool_names = st.builds(
    operator.add, st.sampled_from(_LETTERS), st.text(alphabet=_ID_CHARS, max_size=15)
)
# Valid base64 (what every wire's data fields and Gemini's `bytes` fields decode).
base64_data = st.binary(min_size=1, max_size=18).map(lambda b: base64.b64encode(b).decode("ascii"))
# Reasoning signatures are opaque strings; providers issue base64 (Gemini's thoughtSignature is a
# protobuf `bytes` field, so the v1beta oracle accepts nothing else).
signatures = base64_data
https_urls = st.builds(
    lambda stem, ext: f"https://example.com/{stem}.{ext}",
    st.text(alphabet=_LOWER, min_size=1, max_size=10),
    st.sampled_from(["png", "jpg", "pdf", "gif"]),
)
origins = st.sampled_from(["anthropic", "openai", "google"])
finite_floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
numbers = st.one_of(st.integers(-5, 5), finite_floats)

#: Valid JSON values (finite floats, str keys), shallow: the payloads of tool arguments, extras,
#: raw bodies.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | finite_floats | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=3)


def _maybe(draw: Any, d: dict[str, Any], key: str, strategy: Any) -> None:
    """Set d[key] to a drawn value about half of the time (absent keys stay absent)."""
    if draw(st.booleans()):
        d[key] = draw(strategy)


# --- JSON Schemas (tool parameters, response_schema) --------------------------------------------

_LEAF_SCHEMAS = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "string", "enum": ["a", "b"]},
        {"type": ["string", "null"]},
        {"type": "string", "description": "free text"},
    ]
)
_PROP_NAMES = st.builds(
    operator.add,
    st.sampled_from("abcdefghijklmnopqrstuvwxyz"),
    st.text(alphabet=_LOWER + "_", max_size=7),
)


@functools.cache
def object_schemas(closed: bool, depth: int = 0) -> Any:
    """(Strategy objects are built once and reused: building them per draw costs more than
    drawing from them.)"""
    return _object_schemas(closed, depth)


@st.composite
def _object_schemas(draw: Any, closed: bool, depth: int = 0) -> dict[str, Any]:
    """An object JSON Schema. `closed`: every object node, nested ones included, says
    `additionalProperties: false` (the fixed point of OpenAI strict tools' close_all_object_schemas).
    """
    names = draw(st.lists(_PROP_NAMES, max_size=3, unique=True))
    props: dict[str, Any] = {}
    for name in names:
        kind = draw(st.integers(0, 5)) if depth < 2 else 0
        if kind == 4:
            props[name] = draw(object_schemas(closed, depth + 1))
        elif kind == 5:
            items = draw(_items(closed, depth + 1))
            props[name] = {"type": "array", "items": items}
        else:
            props[name] = dict(draw(_LEAF_SCHEMAS))
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if names and draw(st.booleans()):
        schema["required"] = draw(st.lists(st.sampled_from(names), unique=True, min_size=1))
    if closed or draw(st.booleans()):
        schema["additionalProperties"] = False
    if depth == 0 and draw(st.integers(0, 4)) == 0:
        schema["title"] = draw(any_text)
    if draw(st.integers(0, 3)) == 0:
        schema["description"] = draw(any_text)
    return schema


@functools.cache
def _items(closed: bool, depth: int) -> Any:
    return object_schemas(closed, depth) | _LEAF_SCHEMAS


# --- content blocks -----------------------------------------------------------------------------


@functools.cache
def text_blocks(signed: bool = True) -> Any:
    return _text_blocks(signed)


@st.composite
def _text_blocks(draw: Any, signed: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": draw(nonempty_text)}
    if signed and draw(st.integers(0, 4)) == 0:
        block["signature"] = draw(signatures)
        _maybe(draw, block, "origin", origins)
    return block


@functools.cache
def thinking_blocks() -> Any:
    return _thinking_blocks()


@st.composite
def _thinking_blocks(draw: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "thinking"}
    signed = draw(st.booleans())
    # CANONICAL.md: thinking text may be empty only when a signature is present.
    block["text"] = draw(any_text if signed else nonempty_text)
    if signed:
        block["signature"] = draw(signatures)
    _maybe(draw, block, "origin", origins)
    return block


@functools.cache
def redacted_thinking_blocks() -> Any:
    return _redacted_thinking_blocks()


@st.composite
def _redacted_thinking_blocks(draw: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "redacted_thinking", "data": draw(identifiers)}
    _maybe(draw, block, "origin", origins)
    return block


@functools.cache
def media_blocks(prof: Profile) -> Any:
    return _media_blocks(prof)


@st.composite
def _media_blocks(draw: Any, prof: Profile) -> dict[str, Any]:
    kinds = ["image_url", "image_inline"]
    if prof.file_inline_types:  # () = no inline files (cohere_chat: file.* reject)
        kinds.append("file_inline")
    if prof.audio_types:
        kinds.append("audio_inline")
    if prof.file_url:
        kinds.append("file_url")
    kind = draw(st.sampled_from(kinds))
    if kind == "image_url":
        block = {"type": "image", "source": {"type": "url", "url": draw(https_urls)}}
        _maybe(draw, block, "media_type", st.sampled_from(prof.image_inline_types))
        _maybe(draw, block, "detail", st.sampled_from(["auto", "low", "high"]))
    elif kind == "image_inline":
        block = {
            "type": "image",
            "source": {"type": "inline", "base64_data": draw(base64_data)},
            "media_type": draw(st.sampled_from(prof.image_inline_types)),
        }
        _maybe(draw, block, "detail", st.sampled_from(["auto", "low", "high"]))
    elif kind == "audio_inline":
        block = {
            "type": "audio",
            "source": {"type": "inline", "base64_data": draw(base64_data)},
            "media_type": draw(st.sampled_from(prof.audio_types)),
        }
    elif kind == "file_url":
        block = {"type": "file", "source": {"type": "url", "url": draw(https_urls)}}
        _maybe(draw, block, "media_type", st.just("application/pdf"))
        _maybe(draw, block, "filename", nonempty_text)
    else:
        block = {
            "type": "file",
            "source": {"type": "inline", "base64_data": draw(base64_data)},
            "media_type": draw(st.sampled_from(prof.file_inline_types)),
        }
        _maybe(draw, block, "filename", nonempty_text)
    return block


# --- messages -----------------------------------------------------------------------------------

_REASONING = thinking_blocks() | redacted_thinking_blocks()


@functools.cache
def user_messages(prof: Profile) -> Any:
    return st.fixed_dictionaries(
        {
            "role": st.just("user"),
            "content": nonempty_text
            | st.lists(text_blocks() | media_blocks(prof), min_size=1, max_size=3),
        }
    )


_SIGNED_EXTRA = (
    st.none()
    | st.none()
    | st.none()
    | st.fixed_dictionaries({"signature": signatures}, optional={"origin": origins})
)
_CALL_BODIES = st.tuples(tool_names, json_objects, _SIGNED_EXTRA)


@st.composite
def tool_calls(draw: Any, ids: list[str]) -> list[dict[str, Any]]:
    calls = []
    for call_id in ids:
        name, arguments, signed = draw(_CALL_BODIES)
        call: dict[str, Any] = {"id": call_id, "name": name, "arguments": arguments}
        if signed:
            call.update(signed)
        calls.append(call)
    return calls


@st.composite
def assistant_messages(draw: Any, ids: list[str]) -> dict[str, Any]:
    """With `ids`, an assistant turn carrying those tool calls (content anything the canonical
    model allows beside tool calls); without, one whose content survives every format."""
    message: dict[str, Any] = {"role": "assistant"}
    reasoning = _REASONING
    if ids:
        message["tool_calls"] = draw(tool_calls(ids))
        choice = draw(st.integers(0, 5))
        if choice == 1:
            message["content"] = None
        elif choice == 2:
            message["content"] = ""
        elif choice == 3:
            message["content"] = draw(nonempty_text)
        elif choice == 4:
            message["content"] = draw(st.lists(text_blocks() | reasoning, max_size=4))
        elif choice == 5:
            message["content"] = draw(st.lists(reasoning, min_size=1, max_size=2))
    elif draw(st.booleans()):
        message["content"] = draw(nonempty_text)
    else:
        # At least one text block, so no format strips the turn to nothing (known bug, see
        # test_properties.py::test_bug_assistant_turn_stripped_to_nothing_*).
        blocks = draw(st.lists(text_blocks() | reasoning, max_size=3))
        blocks.insert(draw(st.integers(0, len(blocks))), draw(text_blocks()))
        message["content"] = blocks
    return message


@st.composite
def conversations(draw: Any, prof: Profile) -> list[dict[str, Any]]:
    """A valid message list (OpenArmature §3/§5): optional system first, then user; tool results
    answer earlier calls (some calls stay unanswered, results may come out of order); the last
    message is user or tool."""
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(nonempty_text)})
    messages.append(draw(user_messages(prof)))
    prefix = draw(st.sampled_from(["call_", "toolu_", "", "x-"]))
    counter = 0
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["user", "assistant", "calls", "calls"]))
        if kind == "user":
            messages.append(draw(user_messages(prof)))
        elif kind == "assistant":
            messages.append(draw(assistant_messages([])))
        else:
            n = draw(st.integers(1, 3))
            ids = [f"{prefix}{counter + k}" for k in range(n)]
            counter += n
            messages.append(draw(assistant_messages(ids)))
            answered = draw(st.permutations(ids))[: draw(st.integers(1, n))]
            for call_id in answered:
                result: dict[str, Any] = {
                    "role": "tool",
                    "tool_call_id": call_id,
                    "content": draw(any_text),
                }
                _maybe(draw, result, "name", tool_names)
                messages.append(result)
    if messages[-1]["role"] not in ("user", "tool"):
        messages.append(draw(user_messages(prof)))
    return messages


# --- requests -----------------------------------------------------------------------------------

_CONFIG_FIELDS = {
    "temperature": numbers,
    "max_tokens": st.integers(1, 10**6),
    "top_p": numbers,
    "top_k": st.integers(0, 500),
    "seed": st.integers(-(2**31), 2**31),
    "stop_sequences": st.lists(nonempty_text, max_size=3),
    "frequency_penalty": numbers,
    "presence_penalty": numbers,
}

_numbers32 = st.one_of(st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False, width=32))
_CONFIG_FIELDS_PROTO32 = {
    **_CONFIG_FIELDS,
    "temperature": _numbers32,
    "top_p": _numbers32,
    "seed": st.integers(-(2**31), 2**31 - 1),
    "frequency_penalty": _numbers32,
    "presence_penalty": _numbers32,
}

#: extras keys no mapping declares (`x_` is nobody's wire field), so they ride untouched and
#: read back as extras.
extras_keys = st.text(alphabet=_LOWER + "_", min_size=1, max_size=8).map(lambda tail: "x_" + tail)


@st.composite
def configs(draw: Any, prof: Profile) -> dict[str, Any]:
    config: dict[str, Any] = {}
    fields = _CONFIG_FIELDS if prof.numbers == "json" else _CONFIG_FIELDS_PROTO32
    for name, strategy in fields.items():
        choice = draw(st.integers(0, 3))
        if choice == 0:
            config[name] = draw(strategy)
        elif choice == 1:
            config[name] = None  # OpenArmature §6 null-skip: same as absent
    for name, strategy in prof.options_known:  # the options that cross providers (issue 14)
        if draw(st.integers(0, 3)) == 0:
            config[name] = draw(strategy)
    if draw(st.booleans()):
        extras = draw(st.dictionaries(extras_keys, json_values, max_size=3))
        for key, strategy in prof.extras_known:
            if draw(st.integers(0, 3)) == 0:
                extras[key] = draw(strategy)
        config["extras"] = extras
    return config


@st.composite
def canonical_requests(draw: Any, key: str) -> dict[str, Any]:
    """A valid canonical request dict for format `key` (CANONICAL.md, runtime/validate.py)."""
    prof = PROFILES[key]
    request: dict[str, Any] = {
        "model": draw(st.sampled_from(["gpt-4o", "claude-sonnet-4-5", "m"]) | nonempty_text),
        "messages": draw(conversations(prof)),
    }
    names = draw(st.lists(tool_names, max_size=3, unique=True))
    if names or draw(st.integers(0, 5)) == 0:
        tools = []
        for name in names:
            tool: dict[str, Any] = {"name": name}
            _maybe(draw, tool, "description", any_text)
            _maybe(draw, tool, "strict", st.booleans())
            closed = prof.strict_closes_schemas and tool.get("strict") is True
            _maybe(draw, tool, "parameters", object_schemas(closed))
            tools.append(tool)
        request["tools"] = tools
    choices: list[Any] = ["auto", "none"]
    if names:
        choices += ["required", *({"type": "tool", "name": n} for n in names)]
    if draw(st.booleans()):
        request["tool_choice"] = draw(st.sampled_from(choices))
    if draw(st.booleans()):
        request["config"] = in_ranges(draw(configs(prof)), key)
    if draw(st.integers(0, 3)) == 0:
        request["response_schema"] = draw(object_schemas(draw(st.booleans())))
    return request


def in_ranges(config: dict[str, Any], key: str) -> dict[str, Any]:
    """The drawn options inside the format's `range` rows (its module's OPTION_RANGES): a value
    past them is refused by request_to_wire at config.<name>, so a valid request stays within."""
    import wiremap

    try:
        ranges = getattr(wiremap.get_format(key).module, "OPTION_RANGES", {})
    except KeyError:
        return config
    for name, (lo, hi) in ranges.items():
        value = config.get(name)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if lo is not None and value < lo:
                config[name] = lo
            elif hi is not None and value > hi:
                config[name] = hi
    return config


# --- responses ----------------------------------------------------------------------------------


@st.composite
def canonical_responses(draw: Any, key: str) -> dict[str, Any]:
    """A canonical response dict (what a gateway hands response_to_wire)."""
    message: dict[str, Any] = {"role": "assistant"}
    n_calls = draw(st.integers(0, 2))
    if n_calls:
        message["tool_calls"] = draw(tool_calls([f"call_{k}" for k in range(n_calls)]))
    reasoning = _REASONING
    choice = draw(st.integers(0, 4))
    if choice == 0:
        message["content"] = None
    elif choice == 1:
        message["content"] = draw(any_text)
    elif choice == 2:
        message["content"] = draw(st.lists(text_blocks(signed=False) | reasoning, max_size=4))
    else:
        blocks = draw(st.lists(reasoning, max_size=2))
        blocks.insert(draw(st.integers(0, len(blocks))), draw(text_blocks(signed=False)))
        message["content"] = blocks
    counters = st.integers(0, 10**7)
    maybe_counter = st.none() | counters
    # Any mix of null counters: response_to_wire sends usage all-or-nothing (openai) or
    # zero-filled (anthropic, where Message.usage and its two counters are required).
    usage: dict[str, Any] = {
        "prompt_tokens": draw(maybe_counter),
        "completion_tokens": draw(maybe_counter),
        "total_tokens": draw(maybe_counter),
    }
    if key in ("openai_chat", "openai_responses") and draw(st.integers(0, 3)) == 0:
        usage["cached_tokens"] = draw(counters)
    if key == "openai_responses" and draw(st.integers(0, 3)) == 0:
        usage["cache_creation_tokens"] = draw(counters)
    response: dict[str, Any] = {
        "message": message,
        "finish_reason": draw(
            st.sampled_from(["stop", "length", "tool_calls", "content_filter", "error"])
        ),
        "usage": usage,
    }
    if draw(st.booleans()):
        raw: dict[str, Any] = {}
        _maybe(draw, raw, "id", identifiers)
        _maybe(draw, raw, "model", identifiers)
        if key == "openai_chat":
            _maybe(draw, raw, "created", st.integers(0, 2**31))
        response["raw"] = raw
    return response


# --- arbitrary and mutated input (totality) ------------------------------------------------------

#: Keys the converters look for, so arbitrary objects often get past the first lookup.
_INTERESTING_KEYS = st.sampled_from(
    [
        "model",
        "messages",
        "role",
        "content",
        "type",
        "text",
        "tool_calls",
        "function",
        "arguments",
        "name",
        "id",
        "choices",
        "message",
        "finish_reason",
        "usage",
        "stop_reason",
        "input",
        "source",
        "url",
        "image_url",
        "error",
        "tools",
        "tool_choice",
        "config",
        "extras",
        "system",
        "max_tokens",
        "stop",
        "response_format",
        "json_schema",
        "schema",
        "output_config",
        "format",
        "thinking",
        "signature",
        "data",
        "media_type",
        "tool_use_id",
        "tool_call_id",
        "prompt_tokens",
        "input_tokens",
        "output_tokens",
        "file",
        "file_data",
        "input_audio",
        "parameters",
        "input_schema",
        "detail",
        "base64_data",
        "stop_sequences",
        "temperature",
        "raw",
        "parsed",
        "origin",
        "strict",
        "user",
        "assistant",
        "tool",
    ]
)
_ROLES_AND_TYPES = st.sampled_from(
    [
        "user",
        "assistant",
        "system",
        "tool",
        "developer",
        "text",
        "image",
        "image_url",
        "thinking",
        "redacted_thinking",
        "tool_use",
        "tool_result",
        "document",
        "base64",
        "url",
        "inline",
        "function",
        "input_audio",
        "file",
        "audio",
        "json_schema",
        "auto",
        "any",
        "required",
        "none",
        "stop",
        "end_turn",
        "tool_use",
        "length",
        "data:image/png;base64,AA",
        "{}",
        '{"a":1}',
        "[1]",
        "",
        "wav",
        "mp3",
        "image/png",
        "application/pdf",
    ]
)
_ANY_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()  # NaN and infinities included: json.loads accepts them
    | st.text(max_size=10)
    | _ROLES_AND_TYPES
)

#: Arbitrary JSON-like values (what json.loads can return, NaN included).
arbitrary_json = st.recursive(
    _ANY_SCALARS,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(_INTERESTING_KEYS | st.text(max_size=5), inner, max_size=5),
    max_leaves=25,
)


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if type(value) is dict:
        for k, v in value.items():
            out.extend(_nodes(v, (*path, k)))
    elif type(value) is list:
        for i, v in enumerate(value):
            out.extend(_nodes(v, (*path, i)))
    return out


@st.composite
def mutated(draw: Any, documents: Any) -> Any:
    """A valid document with one to three nodes replaced by arbitrary JSON, or deleted."""
    doc = copy.deepcopy(draw(documents))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_nodes(doc)))
        replacement = draw(arbitrary_json)
        if not path:
            doc = replacement
            continue
        parent = doc
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        odds = 2 if type(parent) is dict else 3  # delete a key 1 in 3, a list item 1 in 4
        if draw(st.integers(0, odds)) == 0:
            del parent[last]
        else:
            parent[last] = replacement
    return doc


# --- results of the non-chat kinds (docs/canonical.md) ------------------------------------------

#: formats of kind embeddings / images (mappings/README.md "kind")
EMBEDDINGS_FORMATS = ("openai_embeddings", "prompty.openai_embeddings")
IMAGES_FORMATS = ("openai_images", "prompty.openai_images")
IMAGE_MEDIA_TYPES = ("image/png", "image/webp", "image/jpeg", "image/gif", "image/svg+xml")
counters = st.integers(0, 10**9)


@st.composite
def embeddings_results(draw: Any) -> dict[str, Any]:
    """A canonical EmbeddingsResponse dict an OpenAI embeddings body can carry: the wire has no
    completion counter, and its usage is reported whole or not at all."""
    vectors = draw(st.lists(st.lists(finite_floats, max_size=5), max_size=4))
    result: dict[str, Any] = {"embeddings": vectors}
    _maybe(draw, result, "model", nonempty_text)
    if draw(st.booleans()):
        result["usage"] = {"prompt_tokens": draw(counters), "completion_tokens": None, "total_tokens": draw(counters)}
    else:
        result["usage"] = {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}
    return result


@st.composite
def images_results(draw: Any) -> dict[str, Any]:
    """A canonical ImagesResponse dict: one media type for every image or none (the wire states
    one output_format per response), usage absent or reported."""
    media_type = draw(st.none() | st.sampled_from(IMAGE_MEDIA_TYPES))
    images = []
    for _ in range(draw(st.integers(0, 3))):
        source = draw(
            st.builds(lambda u: {"type": "url", "url": u}, https_urls)
            | st.builds(lambda b: {"type": "inline", "base64_data": b}, nonempty_text)
        )
        image: dict[str, Any] = {"source": source}
        if media_type is not None:
            image["media_type"] = media_type
        _maybe(draw, image, "revised_prompt", any_text)
        images.append(image)
    result: dict[str, Any] = {"images": images}
    if draw(st.booleans()):
        result["usage"] = {
            "prompt_tokens": draw(counters),
            "completion_tokens": draw(st.none() | counters),
            "total_tokens": draw(counters),
        }
    return result

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
- JSON values nested deeper than a few levels.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

FORMATS = ("openai_chat", "anthropic_messages")


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
        extras_known=(
            ("user", st.text(min_size=1, max_size=8)),
            ("logprobs", st.booleans()),
            ("parallel_tool_calls", st.booleans()),
            ("store", st.booleans()),
            ("metadata", st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), st.text(max_size=6), max_size=2)),
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
        extras_known=(
            ("metadata", st.fixed_dictionaries({"user_id": st.text(min_size=1, max_size=8)})),
            ("service_tier", st.sampled_from(["auto", "standard_only"])),
        ),
    ),
}

# --- scalars ----------------------------------------------------------------------------------

nonempty_text = st.text(min_size=1, max_size=12)
any_text = st.text(max_size=12)
identifiers = st.from_regex(r"[A-Za-z0-9_\-]{1,12}", fullmatch=True)
tool_names = st.from_regex(r"[A-Za-z][A-Za-z0-9_\-]{0,15}", fullmatch=True)
base64_data = st.from_regex(r"[A-Za-z0-9+/]{4,24}={0,2}", fullmatch=True)
https_urls = st.from_regex(r"[a-z0-9]{1,10}\.(png|jpg|pdf|gif)", fullmatch=True).map(
    lambda tail: "https://example.com/" + tail
)
origins = st.sampled_from(["anthropic", "openai", "google"])
finite_floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
numbers = st.one_of(st.integers(-5, 5), finite_floats)

#: Valid JSON values (finite floats, str keys), shallow: the payloads of tool arguments, extras,
#: raw bodies.
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | finite_floats | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=4)


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
_PROP_NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)


@st.composite
def object_schemas(draw: Any, closed: bool, depth: int = 0) -> dict[str, Any]:
    """An object JSON Schema. `closed`: every object node, nested ones included, says
    `additionalProperties: false` (the fixed point of OpenAI strict tools' close_all_object_schemas)."""
    names = draw(st.lists(_PROP_NAMES, max_size=3, unique=True))
    props: dict[str, Any] = {}
    for name in names:
        kind = draw(st.integers(0, 5)) if depth < 2 else 0
        if kind == 4:
            props[name] = draw(object_schemas(closed, depth + 1))
        elif kind == 5:
            items = draw(object_schemas(closed, depth + 1) | _LEAF_SCHEMAS)
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


# --- content blocks -----------------------------------------------------------------------------


@st.composite
def text_blocks(draw: Any, signed: bool = True) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": draw(nonempty_text)}
    if signed and draw(st.integers(0, 4)) == 0:
        block["signature"] = draw(identifiers)
        _maybe(draw, block, "origin", origins)
    return block


@st.composite
def thinking_blocks(draw: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "thinking"}
    signed = draw(st.booleans())
    # CANONICAL.md: thinking text may be empty only when a signature is present.
    block["text"] = draw(any_text if signed else nonempty_text)
    if signed:
        block["signature"] = draw(identifiers)
    _maybe(draw, block, "origin", origins)
    return block


@st.composite
def redacted_thinking_blocks(draw: Any) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "redacted_thinking", "data": draw(identifiers)}
    _maybe(draw, block, "origin", origins)
    return block


@st.composite
def media_blocks(draw: Any, prof: Profile) -> dict[str, Any]:
    kinds = ["image_url", "image_inline", "file_inline"]
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


@st.composite
def user_messages(draw: Any, prof: Profile) -> dict[str, Any]:
    if draw(st.booleans()):
        return {"role": "user", "content": draw(nonempty_text)}
    blocks = draw(st.lists(text_blocks() | media_blocks(prof), min_size=1, max_size=4))
    return {"role": "user", "content": blocks}


@st.composite
def tool_calls(draw: Any, ids: list[str]) -> list[dict[str, Any]]:
    calls = []
    for call_id in ids:
        call: dict[str, Any] = {
            "id": call_id,
            "name": draw(tool_names),
            "arguments": draw(json_objects),
        }
        if draw(st.integers(0, 4)) == 0:
            call["signature"] = draw(identifiers)
            _maybe(draw, call, "origin", origins)
        calls.append(call)
    return calls


@st.composite
def assistant_messages(draw: Any, ids: list[str]) -> dict[str, Any]:
    """With `ids`, an assistant turn carrying those tool calls (content anything the canonical
    model allows beside tool calls); without, one whose content survives every format."""
    message: dict[str, Any] = {"role": "assistant"}
    reasoning = thinking_blocks() | redacted_thinking_blocks()
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
    for _ in range(draw(st.integers(0, 4))):
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
                result: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "content": draw(any_text)}
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

#: extras keys no mapping declares (`x_` is nobody's wire field), so they ride untouched and
#: read back as extras.
extras_keys = st.from_regex(r"x_[a-z0-9_]{1,8}", fullmatch=True)


@st.composite
def configs(draw: Any, prof: Profile) -> dict[str, Any]:
    config: dict[str, Any] = {}
    for name, strategy in _CONFIG_FIELDS.items():
        choice = draw(st.integers(0, 3))
        if choice == 0:
            config[name] = draw(strategy)
        elif choice == 1:
            config[name] = None  # OpenArmature §6 null-skip: same as absent
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
        request["config"] = draw(configs(prof))
    if draw(st.integers(0, 3)) == 0:
        request["response_schema"] = draw(object_schemas(draw(st.booleans())))
    return request


# --- responses ----------------------------------------------------------------------------------


@st.composite
def canonical_responses(draw: Any, key: str, oracle_safe: bool = False) -> dict[str, Any]:
    """A canonical response dict. `oracle_safe`: only what the format renders as a body its
    official SDK accepts (steers clear of the known response_to_wire bugs: partial usage, and
    for openai_chat a content list of several text blocks)."""
    message: dict[str, Any] = {"role": "assistant"}
    n_calls = draw(st.integers(0, 2))
    if n_calls:
        message["tool_calls"] = draw(tool_calls([f"call_{k}" for k in range(n_calls)]))
    reasoning = thinking_blocks() | redacted_thinking_blocks()
    choice = draw(st.integers(0, 4))
    if choice == 0:
        message["content"] = None
    elif choice == 1:
        message["content"] = draw(any_text)
    elif choice == 2 and not (oracle_safe and key == "openai_chat"):
        message["content"] = draw(st.lists(text_blocks(signed=False) | reasoning, max_size=4))
    else:
        blocks = draw(st.lists(reasoning, max_size=2))
        blocks.insert(draw(st.integers(0, len(blocks))), draw(text_blocks(signed=False)))
        message["content"] = blocks
    counters = st.integers(0, 10**7)
    if oracle_safe:
        # openai: CompletionUsage needs all three counters (or no usage at all);
        # anthropic: Message.usage is required with input_tokens and output_tokens.
        if key == "anthropic_messages" or draw(st.booleans()):
            prompt, completion = draw(counters), draw(counters)
            usage: dict[str, Any] = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
        else:
            usage = {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}
    else:
        maybe_counter = st.none() | counters
        usage = {
            "prompt_tokens": draw(maybe_counter),
            "completion_tokens": draw(maybe_counter),
            "total_tokens": draw(maybe_counter),
        }
    if key == "openai_chat" and draw(st.integers(0, 3)) == 0:
        usage["cached_tokens"] = draw(counters)
    response: dict[str, Any] = {
        "message": message,
        "finish_reason": draw(st.sampled_from(["stop", "length", "tool_calls", "content_filter", "error"])),
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
        "model", "messages", "role", "content", "type", "text", "tool_calls", "function",
        "arguments", "name", "id", "choices", "message", "finish_reason", "usage", "stop_reason",
        "input", "source", "url", "image_url", "error", "tools", "tool_choice", "config",
        "extras", "system", "max_tokens", "stop", "response_format", "json_schema", "schema",
        "output_config", "format", "thinking", "signature", "data", "media_type", "tool_use_id",
        "tool_call_id", "prompt_tokens", "input_tokens", "output_tokens", "file", "file_data",
        "input_audio", "parameters", "input_schema", "detail", "base64_data", "stop_sequences",
        "temperature", "raw", "parsed", "origin", "strict", "user", "assistant", "tool",
    ]
)
_ROLES_AND_TYPES = st.sampled_from(
    [
        "user", "assistant", "system", "tool", "developer", "text", "image", "image_url",
        "thinking", "redacted_thinking", "tool_use", "tool_result", "document", "base64", "url",
        "inline", "function", "input_audio", "file", "audio", "json_schema", "auto", "any",
        "required", "none", "stop", "end_turn", "tool_use", "length", "data:image/png;base64,AA",
        "{}", "{\"a\":1}", "[1]", "", "wav", "mp3", "image/png", "application/pdf",
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
        if type(parent) is dict and draw(st.integers(0, 2)) == 0:
            del parent[last]
        elif type(parent) is list and draw(st.integers(0, 3)) == 0:
            del parent[last]
        else:
            parent[last] = replacement
    return doc

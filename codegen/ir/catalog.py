"""What the generator knows about the canonical model: the fields each template context may name.

A context is where a wire template stands (`part.image.inline`, `tool_call`, `message.user`…).
Each field has the Python expression that reads it from the context's object(s), a kind that
tells the emitter how to convert it, and whether the canonical model lets it be absent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Field", "CONTEXTS", "FINISH_REASONS", "PART_CLASS", "SCHEME_VARIANT", "base_kind", "context_for_part", "part_ident"]

#: the canonical finish reasons (runtime/canonical.py FINISH_REASONS)
FINISH_REASONS = ("stop", "length", "tool_calls", "content_filter", "error")


@dataclass(frozen=True)
class Field:
    attr: str  # expression relative to the context's variables (e.g. "source.url")
    kind: str  # str | detail | bool | schema | object | cache | content | tool_calls | any
    optional: bool = False
    # Present whenever this context applies although the record types it as optional
    # (an inline source's media_type, which validation requires).
    narrowed: bool = False


# A prompt-cache breakpoint after the block, result, tool or system message (issue 14:
# Anthropic and OpenRouter `cache_control`; docs/canonical.md "Prompt-cache breakpoints").
_CACHE = {"cache_control": Field("cache_control", "cache", True)}
# The participant's name on a system, user or assistant message (OpenAI Chat `name`, issue 14).
_NAME = {"name": Field("name", "str", True)}
_SOURCE_URL = {"source.url": Field("source.url", "str")}
_SOURCE_INLINE = {"source.base64_data": Field("source.base64_data", "str")}

CONTEXTS: dict[str, dict[str, Field]] = {
    "part.text": {"text": Field("text", "str"), "signature": Field("signature", "str", True), **_CACHE},
    "part.thinking": {"text": Field("text", "str"), "signature": Field("signature", "str", True)},
    "part.redacted_thinking": {"data": Field("data", "str")},
    "part.image.url": {
        **_SOURCE_URL,
        "media_type": Field("media_type", "str", True),
        "detail": Field("detail", "detail", True),
        **_CACHE,
    },
    "part.image.inline": {
        **_SOURCE_INLINE,
        "media_type": Field("media_type", "str", narrowed=True),
        "detail": Field("detail", "detail", True),
        **_CACHE,
    },
    "part.audio.url": {**_SOURCE_URL, "media_type": Field("media_type", "str", True)},
    "part.audio.inline": {**_SOURCE_INLINE, "media_type": Field("media_type", "str", narrowed=True)},
    "part.file.url": {
        **_SOURCE_URL,
        "media_type": Field("media_type", "str", True),
        "filename": Field("filename", "str", True),
        **_CACHE,
    },
    "part.file.inline": {
        **_SOURCE_INLINE,
        "media_type": Field("media_type", "str", narrowed=True),
        "filename": Field("filename", "str", True),
        **_CACHE,
    },
    "tool_call": {
        "id": Field("id", "str"),
        "name": Field("name", "str"),
        "arguments": Field("arguments", "object"),
        "signature": Field("signature", "str", True),
    },
    # `request.cache_points`: a breakpoint as its own item after the one it marks (Bedrock
    # cachePoint); the canonical cache_control's `type` and `ttl`
    "cache_point": {"type": Field("type", "str"), "ttl": Field("ttl", "str", True)},
    "tool_result": {
        "tool_call_id": Field("tool_call_id", "str"),
        "content": Field("content", "text"),
        "name": Field("name", "str", True),
        "is_error": Field("is_error", "bool", True),  # the tool failed (issue 14)
        **_CACHE,
    },
    "tool": {
        "name": Field("name", "str"),
        "description": Field("description", "str", True),
        "parameters": Field("parameters", "schema", True),
        "strict": Field("strict", "bool", True),
        **_CACHE,
    },
    "tool_choice.tool": {"name": Field("name", "str")},
    "message.system": {"content": Field("content", "str"), **_CACHE, **_NAME},
    "item.message": {"content": Field("content", "content")},  # response.items.message
    "item.refusal": {"refusal": Field("refusal", "str")},  # response.items.refusal
    "message.user": {"content": Field("content", "content"), **_NAME},
    "message.assistant": {
        "content": Field("content", "content", True),
        "tool_calls": Field("tool_calls", "tool_calls", True),
        **_NAME,
    },
    "structured_output": {
        "name": Field("name", "str"),
        "schema": Field("schema", "schema"),
        "strict": Field("strict", "bool"),
    },
}

# Part kind -> (canonical class, source class or None)
PART_CLASS: dict[str, tuple[str, str | None]] = {
    "text": ("TextBlock", None),
    "thinking": ("ThinkingBlock", None),
    "redacted_thinking": ("RedactedThinkingBlock", None),
    "image.url": ("ImageBlock", "UrlSource"),
    "image.inline": ("ImageBlock", "InlineSource"),
    "audio.url": ("AudioBlock", "UrlSource"),
    "audio.inline": ("AudioBlock", "InlineSource"),
    "file.url": ("FileBlock", "UrlSource"),
    "file.inline": ("FileBlock", "InlineSource"),
}


def base_kind(kind: str) -> str:
    """A part kind without its URL-scheme qualifier: `image.url@s3` -> `image.url`."""
    return kind.partition("@")[0]


def context_for_part(kind: str) -> str:
    """The field context of a part kind; a scheme variant (`image.url@s3`) has its url kind's."""
    return "part." + base_kind(kind)


def part_ident(kind: str) -> str:
    """A part kind as a Python name fragment: `image.url@s3` -> `image_url_at_s3`."""
    return re.sub(r"[^A-Za-z0-9_]", "_", kind.replace("@", "_at_"))


#: a URL-scheme variant of a url part kind (`image.url@s3`): the scheme as RFC 3986 spells one
SCHEME_VARIANT = re.compile(r"^(image|audio|file)\.url@([a-z][a-z0-9+.-]*)$")

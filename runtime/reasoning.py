"""Reasoning carried beside an assistant message's content (mapping row `request.reasoning`).

OpenAI-compatible servers put the model's reasoning in a message field next to `content`:
a string (`reasoning_content` for DeepSeek and vLLM, `reasoning` for OpenRouter, Groq, Ollama)
or, on OpenRouter, an ordered array of typed entries (`reasoning_details`). The generated
converters call `read` on every assistant message they read and `write` on every one they build.

Canonical form (CANONICAL.md thinking blocks, stamped `origin: <meta.provider>`):
- a reasoning string is one `ThinkingBlock(text)` without a signature;
- each `reasoning_details` entry is one block, in order: `reasoning.text` and `reasoning.summary`
  entries with text are `ThinkingBlock(text=<text or summary>, signature=<the entry>)`, any other
  entry (`reasoning.encrypted`, an empty text, a type this code does not know) is
  `RedactedThinkingBlock(data=<the entry>)`. <the entry> is the entry's canonical JSON (keys
  sorted, compact, non-ASCII kept), so it does not depend on the key order a client happened to
  parse; resending decodes it back to an equal object whose every value (text, signature, data,
  id, format, index) is byte-identical to what was received, in the entries' original order.
  A `ThinkingBlock` of this
  provider without such a signature (written by the caller) goes out as
  `{"type": "reasoning.text", "text": ...}`.
The blocks come first in the turn's content, before its text (OpenArmature §3.1.6 order).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .canonical import NOT_GIVEN, RedactedThinkingBlock, TextBlock, ThinkingBlock
from .wire import WireShapeError

__all__ = ["read", "write"]

_TEXT_KEY = {"reasoning.text": "text", "reasoning.summary": "summary"}


def _entry_json(entry: Mapping[str, Any]) -> str:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)


def _entry_of(raw: Any) -> dict[str, Any] | None:
    """The details entry a block carries (its signature or data), or None if it carries none."""
    if not isinstance(raw, str) or not raw.startswith("{"):
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("type"), str) and value["type"].startswith("reasoning."):
        return value
    return None


def read(message: Mapping[str, Any], content: Any, spec: Mapping[str, Any], provider: str, path: str) -> Any:
    """`content` with the message's reasoning prepended as thinking blocks."""
    blocks: list[Any] = []
    details = spec.get("details")
    raw_details = message.get(details) if details else None
    if raw_details is not None:
        where = f"{path}.{details}" if path else str(details)
        if type(raw_details) is not list:
            raise WireShapeError(where, "expected an array of reasoning entries")
        for j, entry in enumerate(raw_details):
            if type(entry) is not dict or type(entry.get("type")) is not str:
                raise WireShapeError(f"{where}[{j}]", "expected a reasoning entry (an object with a string `type`)")
            try:
                raw = _entry_json(entry)
            except (ValueError, TypeError):  # NaN, or a value JSON has no form for (bytes, ...)
                raise WireShapeError(f"{where}[{j}]", "not JSON (a non-finite number or a value JSON has no form for)") from None
            text = entry.get(_TEXT_KEY.get(entry["type"], ""))
            if type(text) is str and text:
                blocks.append(ThinkingBlock(text=text, signature=raw, origin=provider))
            else:
                blocks.append(RedactedThinkingBlock(data=raw, origin=provider))
    else:
        for key in (spec["field"], *spec.get("read_also", ())):
            value = message.get(key)
            if value is None:
                continue
            if type(value) is not str:
                raise WireShapeError(f"{path}.{key}" if path else key, "expected a string (the reasoning text)")
            if value:
                blocks.append(ThinkingBlock(text=value, origin=provider))
            break
    if not blocks:
        return content
    if content is NOT_GIVEN or content is None or content == "":
        return blocks
    if isinstance(content, str):
        return [*blocks, TextBlock(text=content)]
    return [*blocks, *content]


def write(content: Any, has_calls: bool, spec: Mapping[str, Any], provider: str, for_request: bool) -> dict[str, Any]:
    """The reasoning keys of a wire assistant message built from canonical `content`.

    Requests follow `spec["send"]`: `never`, `tool_call_turns` (only turns with tool calls:
    the interleaved-thinking rule) or `always`. Responses always carry the reasoning. Only
    blocks of this provider (or without origin) are sent: reasoning is provider-bound."""
    if for_request and (spec["send"] == "never" or (spec["send"] == "tool_call_turns" and not has_calls)):
        return {}
    if not isinstance(content, list):
        return {}
    mine = [
        b for b in content
        if (type(b) is ThinkingBlock or type(b) is RedactedThinkingBlock) and (b.origin is NOT_GIVEN or b.origin == provider)
    ]
    out: dict[str, Any] = {}
    details = spec.get("details")
    if details:
        entries: list[dict[str, Any]] = []
        for b in mine:
            entry = _entry_of(b.signature if isinstance(b, ThinkingBlock) else b.data)
            if entry is None and type(b) is ThinkingBlock and for_request:
                # keys in canonical (sorted) order, as a read-back entry has them: byte-stable resends
                entry = {"text": b.text, "type": "reasoning.text"}  # (a response says it as `field` text only)
            if entry is not None:
                entries.append(entry)
        if entries:
            out[details] = entries
        if for_request:
            return out
    text = "".join(b.text for b in mine if type(b) is ThinkingBlock)
    if text:
        out[spec["field"]] = text
    return out

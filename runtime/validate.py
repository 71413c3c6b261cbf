"""Pre-send validation of a canonical request (OpenArmature §3, §3.1, §4, §5, §6).

`validate_request` runs once per request, before any mapping touches it, in a single pass over
the messages. A violation raises `InvalidRequestError` (category `provider_invalid_request`)
whose `path` names the offending value the way the plain-dict form spells it
(`messages[3].content[1].text`, `tools[1].name`, `tool_choice.name`, `config.max_tokens`).

`Request.from_dict` has already checked shape and types for dict input; the type checks here are
repeated (cheaply, folded into the emptiness checks) because a `Request` built directly from the
classes bypasses `from_dict`.

Decisions where the spec leaves room:
- A `system` message is allowed only at index 0 (§5: "The first message MAY be system";
  conformance fixture 003 `system_message_in_middle` requires rejecting a later one).
- §5 "otherwise the message list begins with user" is read as: `messages[0]` is system or user;
  what follows a leading system message is not constrained beyond the last-message rule.
- An assistant message with non-empty `tool_calls` may carry content that is absent, null, "" or
  an empty block list (§3: "content MAY be empty").
- `Tool.parameters`, when given, is an object whose root `type`, if present, is "object" (§4);
  `response_schema` must say `"type": "object"` at its root (§5).
- Thinking text may be empty only when the block carries a signature (CANONICAL.md).
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

from .canonical import (
    EMBEDDING_ENCODINGS,
    EMBEDDING_INPUT_TYPES,
    NOT_GIVEN,
    AssistantMessage,
    AudioBlock,
    Config,
    FileBlock,
    ForcedTool,
    ImageBlock,
    InlineSource,
    RedactedThinkingBlock,
    Request,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    Tool,
    ToolCall,
    ToolMessage,
    UrlSource,
    UserMessage,
)
from .errors import InvalidRequestError, ProviderError
from .json_values import canonical_json, json_copy

__all__ = [
    "validate_request",
    "ORDERING",
    "CONTENT",
    "STRUCTURE",
    "SORTED_JSON",
    "OPENARMATURE",
    "API_RULES",
    "KEEP_ORDER",
    "EmptyTurnError",
    "MAX_JSON_DEPTH",
    "check_json_value",
    "is_plain_json",
    "json_too_deep",
    "check_request_depth",
    "check_response_depth",
    "sorted_json_value",
    # the per-part rules, for converters that validate as they go (the fused translators)
    "check_user_content",
    "check_system_message",
    "check_assistant",
    "check_tool_message",
    "check_tools",
    "check_tool_choice",
    "check_config",
]

#: Rule sets a format's pre-send validation applies (mapping `request.rules`; generated `RULES`).
#: ORDERING: OpenArmature §5's message order (first system or user, last user or tool, a system
#: message only first). SORTED_JSON: OpenArmature §8's byte stability (user JSON sent with sorted
#: keys). The provider APIs impose neither: their base formats validate with API_RULES.
#: CONTENT: OpenArmature §3's non-empty rules (text, system, user and assistant content).
#: STRUCTURE: a tool result answers an earlier call of the same request, `required` only with
#: tools, an object-typed response schema (§3, §5). Each API decides these for itself (Gemini and
#: OpenAI take empty text; a Responses result may answer a call of `previous_response_id`), so a
#: base format checks only the ones its API enforces (mapping request.rules).
ORDERING: Final = 1
SORTED_JSON: Final = 2
CONTENT: Final = 4
STRUCTURE: Final = 8
OPENARMATURE: Final = ORDERING | SORTED_JSON | CONTENT | STRUCTURE
API_RULES: Final = 0
#: the memo key that says "keep the caller's key order" (ids of live objects are never negative)
KEEP_ORDER: Final = -1
#: the memo key of the canonical indexes of *held* assistant turns: turns read from a wire whose
#: blocks the canonical model does not model (Anthropic's server-tool blocks, a Responses
#: image_generation_call), so that they read as empty, and which the same-origin carried data
#: fills back (runtime/carry.py `Carried.held`). Only the writer of that origin is given them.
HELD: Final = -2


class EmptyTurnError(InvalidRequestError):
    """An assistant turn with nothing a writer can send (no content it writes, no tool calls):
    `index` is its canonical index. A reader's re-write that meets one holds the turn for its
    carried data (runtime/wire.py `carry`)."""

    def __init__(self, message: str, index: int) -> None:
        super().__init__(message, path=f"messages[{index}].content")
        self.index = index


def held(memo: dict[int, Any] | None, index: int) -> bool:
    """Whether the assistant turn at `messages[index]` is held for same-origin carried data
    (`HELD`): its writer lets it through empty, and the carried data fills it."""
    return memo is not None and index in memo.get(HELD, ())


def refuse_empty_turn(memo: dict[int, Any] | None, index: int, message: str) -> None:
    """Raise EmptyTurnError for the assistant turn at `messages[index]`, unless it is held."""
    if not held(memo, index):
        raise EmptyTurnError(message, index)

#: Deepest nesting accepted in a user JSON value (a tool's `parameters`, `response_schema`, a
#: tool call's `arguments`, an `extras` value), counted from that value. Deeper values are
#: refused with InvalidRequestError naming the path, before any recursive code sees them.
MAX_JSON_DEPTH: Final = 256

_JSON_SCALARS: Final = (str, int, float, bool, type(None))


def check_json_value(value: Any, path: str) -> None:
    """`value` is plain JSON (dicts with string keys, lists, strings that are valid Unicode,
    finite numbers, booleans, null) nested at most MAX_JSON_DEPTH deep; InvalidRequestError
    names the first offending path otherwise.

    The common case (plain JSON types throughout) is one quick recursive walk (`_plain_ok`, the
    test of `_plain_sorted` without the copy that `sorted_json_value` returns, bounded by
    MAX_JSON_DEPTH); anything it does not vouch for (a subclass of a JSON type, a bad value, too deep)
    goes to the exact, iterative check, which accepts subclasses and names the first offending
    path."""
    if _plain_ok(value, 0):
        return
    _check_json_value(value, path)


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def sorted_json_value(value: Any, path: str, sort: bool = True) -> Any:
    """check_json_value, and the value's wire form: a copy with object keys sorted
    (`wire.canonical_json`, OpenArmature §8), or with `sort=False` in the caller's order
    (`wire.json_copy`), in one walk in the common case. The request writers send user JSON
    in that form, so a writer that validates first takes the copy from here (a `memo`, below)
    instead of walking the value a second time."""
    copy = _plain_sorted(value, 0, sort)
    if copy is not _NOT_PLAIN:
        return copy
    _check_json_value(value, path)  # raises, naming the first offending node
    return _canonical(value, sort)  # subclasses of the JSON types: valid, copied the usual way


def _canonical(value: Any, sort: bool = True) -> Any:
    return canonical_json(value) if sort else json_copy(value)


_NOT_PLAIN: Final[Any] = object()


def _plain_sorted(node: Any, depth: int, sort: bool = True) -> Any:
    """Is `node` plain JSON of the exact built-in types, valid Unicode, finite, at most
    MAX_JSON_DEPTH deep? Then its sorted copy (`wire.canonical_json`), else _NOT_PLAIN ("not
    vouched for", not "invalid": the exact check decides)."""
    t = type(node)
    if t is dict:
        if depth >= MAX_JSON_DEPTH:
            return _NOT_PLAIN
        depth += 1
        if sort:
            try:
                keys = sorted(node)
            except TypeError:  # keys of mixed types: not plain JSON
                return _NOT_PLAIN
        else:
            keys = node
        out = {}
        for k in keys:
            if type(k) is not str or (not k.isascii() and _SURROGATE.search(k)):
                return _NOT_PLAIN
            v = node[k]
            tv = type(v)
            if tv is str:
                if not v.isascii() and _SURROGATE.search(v):
                    return _NOT_PLAIN
            elif tv is not int and tv is not bool and v is not None:
                v = _plain_sorted(v, depth, sort)
                if v is _NOT_PLAIN:
                    return _NOT_PLAIN
            out[k] = v
        return out
    if t is list:
        if depth >= MAX_JSON_DEPTH:
            return _NOT_PLAIN
        depth += 1
        items = []
        for v in node:
            tv = type(v)
            if tv is str:
                if not v.isascii() and _SURROGATE.search(v):
                    return _NOT_PLAIN
            elif tv is not int and tv is not bool and v is not None:
                v = _plain_sorted(v, depth, sort)
                if v is _NOT_PLAIN:
                    return _NOT_PLAIN
            items.append(v)
        return items
    if t is str:
        return node if node.isascii() or not _SURROGATE.search(node) else _NOT_PLAIN
    if t is float:
        return node if math.isfinite(node) else _NOT_PLAIN
    if t is int or t is bool or node is None:
        return node
    return _NOT_PLAIN


def is_plain_json(value: Any) -> bool:
    """Whether `check_json_value(value, ...)` passes on its quick test alone (exact built-in JSON
    types throughout): for generated code that takes its canonical path otherwise."""
    return _plain_ok(value, 0)


def _plain_ok(node: Any, depth: int) -> bool:
    """`_plain_sorted(node, depth) is not _NOT_PLAIN`, without making the copy: the same test
    (exact built-in types, string keys, valid Unicode, finite numbers, at most MAX_JSON_DEPTH
    deep), for a caller that only checks."""
    t = type(node)
    if t is dict:
        if depth >= MAX_JSON_DEPTH:
            return False
        depth += 1
        for k, v in node.items():
            if type(k) is not str or (not k.isascii() and _SURROGATE.search(k)):
                return False
            tv = type(v)
            if tv is str:
                if not v.isascii() and _SURROGATE.search(v):
                    return False
            elif tv is not int and tv is not bool and v is not None and not _plain_ok(v, depth):
                return False
        return True
    if t is list:
        if depth >= MAX_JSON_DEPTH:
            return False
        depth += 1
        for v in node:
            tv = type(v)
            if tv is str:
                if not v.isascii() and _SURROGATE.search(v):
                    return False
            elif tv is not int and tv is not bool and v is not None and not _plain_ok(v, depth):
                return False
        return True
    if t is str:
        return node.isascii() or not _SURROGATE.search(node)
    if t is float:
        return math.isfinite(node)
    return t is int or t is bool or node is None


def _check_into(value: Any, path: str, memo: dict[int, Any] | None) -> None:
    """check_json_value; with a `memo`, the sorted copy is kept under the value's id for the
    writer (`wire.memo_json`), which takes it out again."""
    if memo is None:
        check_json_value(value, path)
    else:
        memo[id(value)] = sorted_json_value(value, path, KEEP_ORDER not in memo)


def _check_json_value(value: Any, path: str) -> None:
    """The exact check behind check_json_value. Iterative: any depth is checked without recursion."""
    # (node, parent link, key or index, depth); a link is (its parent link, its key), so the
    # path string is built only when there is an error to report
    stack: list[tuple[Any, Any, Any, int]] = [(value, None, None, 0)]
    pop = stack.pop
    push = stack.append
    while stack:
        node, parent, key, depth = pop()
        t = type(node)
        if t is str:
            if not node.isascii():
                _unicode(node, _path(path, parent, key))
        elif t is dict:
            if depth >= MAX_JSON_DEPTH:
                raise InvalidRequestError(f"nested deeper than {MAX_JSON_DEPTH} levels", path=_path(path, parent, key))
            link = (parent, key)
            depth += 1
            for k, v in node.items():
                if type(k) is not str:
                    raise InvalidRequestError(f"object keys must be strings, got {type(k).__name__} {shown(k)}", path=_path(path, parent, key))
                if not k.isascii():
                    _unicode(k, _path(path, parent, key))
                tv = type(v)
                if tv is str:
                    if not v.isascii():
                        _unicode(v, _path(path, link, k))
                elif tv is not int and tv is not bool and v is not None:
                    push((v, link, k, depth))
        elif t is list:
            if depth >= MAX_JSON_DEPTH:
                raise InvalidRequestError(f"nested deeper than {MAX_JSON_DEPTH} levels", path=_path(path, parent, key))
            link = (parent, key)
            depth += 1
            for i, v in enumerate(node):
                push((v, link, i, depth))
        elif t is float:
            if not math.isfinite(node):
                raise InvalidRequestError(f"{shown(node)} is not a JSON number", path=_path(path, parent, key))
        elif t not in _JSON_SCALARS:
            if isinstance(node, (dict, list, str, int, float)):
                push((_plain(node), parent, key, depth))
            else:
                raise InvalidRequestError(f"expected a JSON value, got {t.__name__}", path=_path(path, parent, key))


def json_too_deep(value: Any, path: str) -> str | None:
    """None when `value` is nested at most MAX_JSON_DEPTH deep (counted as check_json_value
    counts: from `value` itself), else the path of the first object or array past the limit.
    Depth only (no other check, no copy), never recursing past the limit itself: the guard the
    readers and `response_to_wire` apply, so that every direction refuses what
    `request_to_wire` refuses, with a path, before any recursive code (JSON encoding, sorting,
    comparing) meets the value."""
    if _shallow(value):
        return None
    stack: list[tuple[Any, Any, Any, int]] = [(value, None, None, 0)]
    while stack:
        node, parent, key, depth = stack.pop()
        if isinstance(node, dict):
            if depth >= MAX_JSON_DEPTH:
                return _path(path, parent, key)
            link = (parent, key)
            for k, v in node.items():
                if isinstance(v, (dict, list)):
                    stack.append((v, link, k, depth + 1))
        elif isinstance(node, list):
            if depth >= MAX_JSON_DEPTH:
                return _path(path, parent, key)
            link = (parent, key)
            for i, v in enumerate(node):
                if isinstance(v, (dict, list)):
                    stack.append((v, link, i, depth + 1))
    return None  # pragma: no cover - _shallow said there is one


def _shallow(value: Any) -> bool:
    """Is `value` nested at most MAX_JSON_DEPTH deep? (Anything not an object or array is.)"""
    return not isinstance(value, (dict, list)) or _depth_ok(value, 0)


def _depth_ok(node: Any, depth: int) -> bool:
    """_shallow for an object or array at `depth` (recursive, bounded by the limit; the exact
    built-in types first, as the readers make them)."""
    if depth >= MAX_JSON_DEPTH:
        return False
    depth += 1
    for v in node.values() if isinstance(node, dict) else node:
        t = type(v)
        if t is dict or t is list:
            if not _depth_ok(v, depth):
                return False
        elif t is str or t is int or t is float or t is bool or v is None:
            continue
        elif isinstance(v, (dict, list)) and not _depth_ok(v, depth):
            return False
    return True


TOO_DEEP: Final = f"nested deeper than {MAX_JSON_DEPTH} levels"
_TOO_DEEP: Final = TOO_DEEP


def check_request_depth(req: Any, error: type[ProviderError] = InvalidRequestError) -> None:
    """Raise `error` naming the path when a user JSON value of a canonical request (a tool
    call's `arguments`, a tool's `parameters`, `response_schema`, `config.extras`) is nested
    deeper than MAX_JSON_DEPTH: the limit `validate_request` applies, for the readers
    (`request_from_wire`), which do not validate."""
    if not isinstance(req, Request):
        return
    for i, message in enumerate(req.messages):
        if isinstance(message, AssistantMessage):  # (getattr on the others would raise inside: slow)
            calls = message.tool_calls
            if type(calls) is list:
                for j, call in enumerate(calls):
                    args = call.arguments if isinstance(call, ToolCall) else None
                    if not _shallow(args):
                        raise error(_TOO_DEEP, path=json_too_deep(args, f"messages[{i}].tool_calls[{j}].arguments"))
    tools = req.tools
    if type(tools) is list:
        for i, tool in enumerate(tools):
            params = tool.parameters if isinstance(tool, Tool) else None
            if not _shallow(params):
                raise error(_TOO_DEEP, path=json_too_deep(params, f"tools[{i}].parameters"))
    schema = req.response_schema
    if not _shallow(schema):
        raise error(_TOO_DEEP, path=json_too_deep(schema, "response_schema"))
    config = req.config
    extras = config.extras if isinstance(config, Config) else None
    if not _shallow(extras):
        raise error(_TOO_DEEP, path=json_too_deep(extras, "config.extras"))


def check_response_depth(resp: Any, error: type[ProviderError] = InvalidRequestError, body: Any = None) -> None:
    """Raise `error` naming the path when a tool call's `arguments` in a canonical response is
    nested deeper than MAX_JSON_DEPTH (for `response_from_wire` and `response_to_wire`)."""
    message = getattr(resp, "message", None)
    calls = message.tool_calls if isinstance(message, AssistantMessage) else None
    if type(calls) is not list:
        return
    for j, call in enumerate(calls):
        args = call.arguments if isinstance(call, ToolCall) else None
        if not _shallow(args):
            raise error(_TOO_DEEP, path=json_too_deep(args, f"message.tool_calls[{j}].arguments"), body=body)


def shown(value: Any) -> str:
    """A user value in an error message: repr'd with limits (depth, length), so a deeply nested
    or huge value cannot make the message itself fail (RecursionError, an int past Python's
    digit limit) or grow without bound."""
    import reprlib

    shown = reprlib.Repr()
    shown.maxlevel, shown.maxstring, shown.maxother, shown.maxlong = 3, 80, 80, 40
    try:
        return shown.repr(value)
    except (RecursionError, ValueError):
        return f"<{type(value).__name__} too large to show>"


def _path(root: str, parent: Any, key: Any) -> str:
    """The path of a node from its parent link and key (see check_json_value)."""
    keys = []
    link = (parent, key)
    while link is not None and link[1] is not None:
        keys.append(link[1])
        link = link[0]
    out = root
    for k in reversed(keys):
        out = f"{out}[{k}]" if type(k) is int else (f"{out}.{k}" if out else k)
    return out


def _plain(node: Any) -> Any:
    """A subclass of a JSON type (an OrderedDict, an IntEnum, a str enum) as the plain type."""
    base: type[Any]
    for base in (bool, dict, list, str, int, float):
        if isinstance(node, base):
            return base(node)
    return node  # pragma: no cover - callers check isinstance first


def _unicode(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidRequestError(
            f"not valid Unicode text: a lone surrogate {text[exc.start]!r} at offset {exc.start}", path=where
        ) from None

_ROLE_OF: Final[dict[type, str]] = {
    SystemMessage: "system",
    UserMessage: "user",
    AssistantMessage: "assistant",
    ToolMessage: "tool",
}
_DETAILS: Final = ("auto", "low", "high")
_NO_NAMES: Final[frozenset[str]] = frozenset()
_NON_EMPTY: Final = "must be a non-empty string"
#: The rule for a user message's content; a reader of a wire form that stands for one user turn
#: (`wire.bare_user_turn`) states it in the same words.
USER_CONTENT_RULE: Final = f"{_NON_EMPTY} or a non-empty list of content blocks (a user turn must say something)"


def validate_request(req: Request, memo: dict[int, Any] | None = None, rules: int = OPENARMATURE) -> None:
    """Raise `InvalidRequestError` naming the first rule `req` breaks (OpenArmature §3-§6).
    `memo` (for the request writers): where to keep the sorted copies of the tools' parameters,
    the tool calls' arguments and the response schema made while checking them
    (`sorted_json_value`)."""
    if not isinstance(req, Request):
        raise InvalidRequestError(f"expected a Request, got {type(req).__name__}", path="")
    model = req.model
    if not isinstance(model, str) or not model:
        raise InvalidRequestError(_NON_EMPTY, path="model")

    messages = req.messages
    if not isinstance(messages, list) or not messages:
        raise InvalidRequestError(
            "must be a non-empty list of messages: the model needs at least one turn to answer",
            path="messages",
        )
    ordering = rules & ORDERING
    if ordering:  # OpenArmature §5 ordering: first message system or user, last one user or tool.
        first = _ROLE_OF.get(type(messages[0]))
        if first == "assistant" or first == "tool":
            raise InvalidRequestError(
                f"the first message must be system or user, got {first!r}: a conversation opens "
                "with the instructions or the user's turn, not the model's",
                path="messages[0].role",
            )
        last_index = len(messages) - 1
        last = _ROLE_OF.get(type(messages[last_index]))
        if last == "assistant" or last == "system":
            raise InvalidRequestError(
                f"the last message must be user or tool, got {last!r}: it is what the model "
                "answers (this format sends no assistant prefill)",
                path=f"messages[{last_index}].role",
            )

    call_ids: set[str] = set()  # ids of the tool calls seen so far (OpenArmature §3)
    for index, message in enumerate(messages):
        if isinstance(message, UserMessage):
            content = message.content
            if type(content) is not str or not content:  # a non-empty string passes inline
                check_user_content(content, index, rules)
            if message.name is not NOT_GIVEN:
                _participant(message.name, index)
        elif isinstance(message, AssistantMessage):
            check_assistant(message.content, message.tool_calls, index, call_ids, memo, rules)
            if message.name is not NOT_GIVEN:
                _participant(message.name, index)
        elif isinstance(message, ToolMessage):
            _tool_message(message, index, call_ids, rules)
        elif isinstance(message, SystemMessage):
            _system_message(message, index, rules)
        else:
            raise InvalidRequestError(
                "expected a SystemMessage, UserMessage, AssistantMessage or ToolMessage, "
                f"got {type(message).__name__}",
                path=f"messages[{index}]",
            )

    tools = req.tools
    tool_names: set[str] | frozenset[str] = _tools(tools, memo) if tools is not NOT_GIVEN else _NO_NAMES
    tool_choice = req.tool_choice
    if tool_choice is not NOT_GIVEN:
        _tool_choice(tool_choice, tool_names, rules)

    response_schema = req.response_schema
    if response_schema is not NOT_GIVEN:
        if not isinstance(response_schema, dict):
            raise InvalidRequestError(
                f"expected a JSON Schema object, got {type(response_schema).__name__}",
                path="response_schema",
            )
        if rules & STRUCTURE and response_schema.get("type") != "object":
            raise InvalidRequestError(
                "the top-level schema must be an object schema, 'type': 'object' (structured "
                "output is a JSON object, as OpenAI's strict mode and tool-based fallbacks require), "
                f"got {shown(response_schema.get('type'))}",
                path="response_schema.type",
            )
        _check_into(response_schema, "response_schema", memo)

    config = req.config
    if config is not NOT_GIVEN:
        _config(config)


# --- messages (OpenArmature §3) -----------------------------------------------------------


def _cache_control(value: object, path: str) -> None:
    """A prompt-cache breakpoint (docs/canonical.md): NOT_GIVEN, or an object whose `type` is a
    string (its other keys, `ttl`, go to the wire as given)."""
    if value is NOT_GIVEN:
        return
    if not isinstance(value, dict):
        raise InvalidRequestError(
            f"expected an object such as {{'type': 'ephemeral'}}, got {shown(value)}", path=path
        )
    if not isinstance(value.get("type"), str):
        raise InvalidRequestError(
            f"must be a string, got {shown(value.get('type'))}", path=f"{path}.type"
        )
    check_json_value(value, path)  # it is sent as given: plain JSON (no NaN, bytes, sets)


def check_system_message(message: SystemMessage, index: int, rules: int = OPENARMATURE) -> None:
    """The rules for the system message at `index` (for converters that validate as they go)."""
    _system_message(message, index, rules)


def _system_message(message: SystemMessage, index: int, rules: int = OPENARMATURE) -> None:
    if index and rules & ORDERING:
        raise InvalidRequestError(
            "a system message may only be the first message: the instructions come before the "
            "conversation (Anthropic and Gemini send them apart from the messages)",
            path=f"messages[{index}].role",
        )
    content = message.content
    if not isinstance(content, str) or (not content and rules & CONTENT):
        raise InvalidRequestError(
            f"{_NON_EMPTY} (system content is text-only: instructions are plain text)",
            path=f"messages[{index}].content",
        )
    if message.cache_control is not NOT_GIVEN:
        _cache_control(message.cache_control, f"messages[{index}].cache_control")
    _participant(message.name, index)


def _participant(name: object, index: int) -> None:
    """A message's optional `name` (OpenAI Chat): a non-empty string."""
    if name is not NOT_GIVEN and (not isinstance(name, str) or not name):
        raise InvalidRequestError(_NON_EMPTY, path=f"messages[{index}].name")


def _user_message(message: UserMessage, index: int) -> None:
    check_user_content(message.content, index)
    _participant(message.name, index)


def check_user_content(content: object, index: int, rules: int = OPENARMATURE) -> None:
    """The rules for the content of a user message at `messages[index]` (OpenArmature §3; the
    non-empty rules under CONTENT only)."""
    strict = rules & CONTENT
    if isinstance(content, str):
        if not content and strict:
            raise InvalidRequestError(USER_CONTENT_RULE, path=f"messages[{index}].content")
        return
    if not isinstance(content, list) or (not content and strict):
        raise InvalidRequestError(USER_CONTENT_RULE, path=f"messages[{index}].content")
    for position, block in enumerate(content):
        if isinstance(block, TextBlock):
            _text_block(block, index, position, strict)
        elif isinstance(block, (ImageBlock, AudioBlock, FileBlock)):
            _media_block(block, index, position)
        elif isinstance(block, (ThinkingBlock, RedactedThinkingBlock)):
            raise InvalidRequestError(
                "thinking blocks may only appear in assistant messages: they are the model's own "
                "reasoning, sent back with its turn",
                path=f"messages[{index}].content[{position}]",
            )
        else:
            raise InvalidRequestError(
                f"expected a content block, got {type(block).__name__}",
                path=f"messages[{index}].content[{position}]",
            )


def check_assistant(
    content: object,
    tool_calls: object,
    index: int,
    call_ids: set[str],
    memo: dict[int, Any] | None = None,
    rules: int = OPENARMATURE,
) -> None:
    """The rules for an assistant message at `messages[index]` given its content and tool calls
    (OpenArmature §3; the non-empty rules under CONTENT only); the calls' ids join `call_ids`,
    which later tool messages must answer. `memo`: as in validate_request."""
    strict = rules & CONTENT
    has_calls = False
    if tool_calls is not NOT_GIVEN:
        if not isinstance(tool_calls, list):
            raise InvalidRequestError(
                f"expected a list of tool calls, got {type(tool_calls).__name__}",
                path=f"messages[{index}].tool_calls",
            )
        ids_here: set[str] = set()
        for position, call in enumerate(tool_calls):
            _tool_call(call, index, position, ids_here, memo)
        call_ids |= ids_here
        has_calls = bool(tool_calls)

    if isinstance(content, str):
        if not content and not has_calls and strict:
            refuse_empty_turn(memo, index, f"{_NON_EMPTY} when the message has no tool_calls (an empty assistant turn says nothing)")
    elif isinstance(content, list):
        if not content and not has_calls and strict:
            refuse_empty_turn(
                memo, index, "must be a non-empty list of content blocks when the message has no "
                "tool_calls (an empty assistant turn says nothing)",
            )
        for position, block in enumerate(content):
            if isinstance(block, TextBlock):
                _text_block(block, index, position, strict)
            elif isinstance(block, ThinkingBlock):
                _thinking_block(block, index, position)
            elif isinstance(block, RedactedThinkingBlock):
                _redacted_thinking_block(block, index, position)
            elif isinstance(block, (ImageBlock, AudioBlock, FileBlock)):
                raise InvalidRequestError(
                    f"{block.to_dict()['type']} blocks may only appear in user messages: "
                    "the providers take media from the user, not in the model's turn",
                    path=f"messages[{index}].content[{position}]",
                )
            else:
                raise InvalidRequestError(
                    f"expected a content block, got {type(block).__name__}",
                    path=f"messages[{index}].content[{position}]",
                )
    elif content is None or content is NOT_GIVEN:
        if not has_calls:
            refuse_empty_turn(memo, index, "an assistant message needs content or tool_calls: an empty turn says nothing")
    else:
        raise InvalidRequestError(
            f"expected a string, None or a list of content blocks, got {type(content).__name__}",
            path=f"messages[{index}].content",
        )


def _tool_call(
    call: ToolCall, index: int, position: int, ids_here: set[str], memo: dict[int, Any] | None
) -> None:
    if type(call) is not ToolCall:
        raise InvalidRequestError(
            f"expected a ToolCall, got {type(call).__name__}",
            path=f"messages[{index}].tool_calls[{position}]",
        )
    call_id = call.id
    if not isinstance(call_id, str) or not call_id:
        raise InvalidRequestError(_NON_EMPTY, path=f"messages[{index}].tool_calls[{position}].id")
    if call_id in ids_here:
        raise InvalidRequestError(
            f"duplicate tool call id {call_id!r}; ids are unique within a message "
            "(each tool result names the call it answers by its id)",
            path=f"messages[{index}].tool_calls[{position}].id",
        )
    ids_here.add(call_id)
    name = call.name
    if not isinstance(name, str) or not name:
        raise InvalidRequestError(_NON_EMPTY, path=f"messages[{index}].tool_calls[{position}].name")
    arguments = call.arguments
    if not isinstance(arguments, dict):
        raise InvalidRequestError(
            "must be an object; null arguments come only from a degraded response "
            "(finish_reason 'error', arguments that did not parse) and cannot be sent back",
            path=f"messages[{index}].tool_calls[{position}].arguments",
        )
    if arguments:
        _check_into(arguments, f"messages[{index}].tool_calls[{position}].arguments", memo)
    _signed(call.signature, call.origin, f"messages[{index}].tool_calls[{position}]")


def _tool_message(message: ToolMessage, index: int, call_ids: set[str], rules: int = OPENARMATURE) -> None:
    """The rules for a tool message at `messages[index]`: a non-empty `tool_call_id` that, under the
    STRUCTURE rules, answers one of `call_ids` (the earlier assistant tool calls), and its content."""
    tool_call_id = message.tool_call_id
    if not isinstance(tool_call_id, str) or not tool_call_id:
        raise InvalidRequestError(_NON_EMPTY, path=f"messages[{index}].tool_call_id")
    if tool_call_id not in call_ids and rules & STRUCTURE:
        raise InvalidRequestError(
            f"{tool_call_id!r} answers no earlier assistant tool call: a tool result must "
            "follow the model's call with that id",
            path=f"messages[{index}].tool_call_id",
        )
    content = message.content
    if isinstance(content, list) and not rules & ORDERING:
        # tool-result parts (issue 20): text, image, audio and file blocks. OpenArmature §3 keeps
        # a tool result a string: its dialects (whose rules include §5's ORDERING) refuse parts
        if not content:
            raise InvalidRequestError("a tool result's parts must not be empty", path=f"messages[{index}].content")
        for position, block in enumerate(content):
            if isinstance(block, TextBlock):
                _text_block(block, index, position, False)
            elif isinstance(block, (ImageBlock, AudioBlock, FileBlock)):
                _media_block(block, index, position)
            else:
                raise InvalidRequestError(
                    f"a tool result holds text, image, audio and file blocks, got {type(block).__name__}",
                    path=f"messages[{index}].content[{position}]",
                )
    elif not isinstance(content, str):
        raise InvalidRequestError(
            "must be a string; serialise structured tool results (as JSON text, for example)",
            path=f"messages[{index}].content",
        )
    name = message.name
    if name is not NOT_GIVEN and (not isinstance(name, str) or not name):
        raise InvalidRequestError(_NON_EMPTY, path=f"messages[{index}].name")
    if message.is_error is not NOT_GIVEN and not isinstance(message.is_error, bool):
        raise InvalidRequestError(f"must be a boolean, got {shown(message.is_error)}", path=f"messages[{index}].is_error")
    _cache_control(message.cache_control, f"messages[{index}].cache_control")


# --- content blocks (OpenArmature §3.1) -----------------------------------------------------


def _text_block(block: TextBlock, index: int, position: int, strict: int = CONTENT) -> None:
    text = block.text
    if not isinstance(text, str) or (not text and strict):
        raise InvalidRequestError(
            f"{_NON_EMPTY} (an empty text block says nothing)",
            path=f"messages[{index}].content[{position}].text",
        )
    if block.signature is not NOT_GIVEN or block.origin is not NOT_GIVEN:
        _signed(block.signature, block.origin, f"messages[{index}].content[{position}]")
    if block.cache_control is not NOT_GIVEN:
        _cache_control(block.cache_control, f"messages[{index}].content[{position}].cache_control")


def _thinking_block(block: ThinkingBlock, index: int, position: int) -> None:
    text = block.text
    signature = block.signature
    if not isinstance(text, str):
        raise InvalidRequestError(
            "must be a string", path=f"messages[{index}].content[{position}].text"
        )
    if not text and signature is NOT_GIVEN:
        raise InvalidRequestError(
            "thinking text may be empty only when the block carries a signature "
            "(the signature is what the provider reads back)",
            path=f"messages[{index}].content[{position}].text",
        )
    _signed(signature, block.origin, f"messages[{index}].content[{position}]")


def _redacted_thinking_block(block: RedactedThinkingBlock, index: int, position: int) -> None:
    if not isinstance(block.data, str):
        raise InvalidRequestError(
            "must be a string (the provider's opaque redacted-thinking data, sent back as received)",
            path=f"messages[{index}].content[{position}].data",
        )
    _signed(NOT_GIVEN, block.origin, f"messages[{index}].content[{position}]")


def _signed(signature: object, origin: object, path: str) -> None:
    """Signatures are opaque strings; `origin` names the issuing provider (CANONICAL.md)."""
    if signature is not NOT_GIVEN and not isinstance(signature, str):
        raise InvalidRequestError("must be a string", path=f"{path}.signature")
    if origin is not NOT_GIVEN and (not isinstance(origin, str) or not origin):
        raise InvalidRequestError(_NON_EMPTY, path=f"{path}.origin")


def _media_block(block: ImageBlock | AudioBlock | FileBlock, index: int, position: int) -> None:
    source = block.source
    if isinstance(source, UrlSource):
        url = source.url
        if not isinstance(url, str) or not url:
            raise InvalidRequestError(
                f"{_NON_EMPTY} (the address of the media)",
                path=f"messages[{index}].content[{position}].source.url",
            )
    elif isinstance(source, InlineSource):
        data = source.base64_data
        if not isinstance(data, str) or not data:
            raise InvalidRequestError(
                f"{_NON_EMPTY} (the base64-encoded media)",
                path=f"messages[{index}].content[{position}].source.base64_data",
            )
        if block.media_type is NOT_GIVEN:
            raise InvalidRequestError(
                "required with an inline source: the provider cannot tell what base64 data is "
                "without its media type",
                path=f"messages[{index}].content[{position}].media_type",
            )
    else:
        raise InvalidRequestError(
            f"expected a UrlSource or InlineSource, got {type(source).__name__}",
            path=f"messages[{index}].content[{position}].source",
        )
    if not isinstance(block, AudioBlock) and block.cache_control is not NOT_GIVEN:
        _cache_control(block.cache_control, f"messages[{index}].content[{position}].cache_control")
    media_type = block.media_type
    if media_type is not NOT_GIVEN and (not isinstance(media_type, str) or not media_type):
        raise InvalidRequestError(
            _NON_EMPTY, path=f"messages[{index}].content[{position}].media_type"
        )
    if isinstance(block, ImageBlock):
        detail = block.detail
        if detail is not NOT_GIVEN and detail not in _DETAILS:
            raise InvalidRequestError(
                f"expected 'auto', 'low' or 'high' (the image detail levels), got {shown(detail)}",
                path=f"messages[{index}].content[{position}].detail",
            )
    elif isinstance(block, FileBlock):
        filename = block.filename
        if filename is not NOT_GIVEN and (not isinstance(filename, str) or not filename):
            raise InvalidRequestError(
                _NON_EMPTY, path=f"messages[{index}].content[{position}].filename"
            )


# --- tools and tool_choice (OpenArmature §4, §5) --------------------------------------------


def _tools(tools: object, memo: dict[int, Any] | None = None) -> set[str]:
    """The declared tool names; rejects empty, duplicate or malformed tools (§4). `memo`: as in
    validate_request."""
    names: set[str] = set()
    if tools is NOT_GIVEN:
        return names
    if not isinstance(tools, list):
        raise InvalidRequestError(
            f"expected a list of tools, got {type(tools).__name__}", path="tools"
        )
    for position, tool in enumerate(tools):
        if type(tool) is not Tool:
            raise InvalidRequestError(
                f"expected a Tool, got {type(tool).__name__}", path=f"tools[{position}]"
            )
        name = tool.name
        if not isinstance(name, str) or not name:
            raise InvalidRequestError(_NON_EMPTY, path=f"tools[{position}].name")
        if name in names:
            raise InvalidRequestError(
                f"duplicate tool name {name!r}; names are unique within tools (the model calls "
                "a tool by its name)",
                path=f"tools[{position}].name",
            )
        names.add(name)
        description = tool.description
        if description is not NOT_GIVEN and not isinstance(description, str):
            raise InvalidRequestError("must be a string", path=f"tools[{position}].description")
        parameters = tool.parameters
        if parameters is not NOT_GIVEN:
            if not isinstance(parameters, dict):
                raise InvalidRequestError(
                    f"expected a JSON Schema object, got {type(parameters).__name__}",
                    path=f"tools[{position}].parameters",
                )
            root_type = parameters.get("type", "object")
            if root_type != "object":
                raise InvalidRequestError(
                    "parameters must be an object schema, 'type': 'object' (a tool's "
                    f"arguments are a JSON object for every provider), got {shown(root_type)}",
                    path=f"tools[{position}].parameters.type",
                )
            _check_into(parameters, f"tools[{position}].parameters", memo)
        strict = tool.strict
        if strict is not NOT_GIVEN and not isinstance(strict, bool):
            raise InvalidRequestError("must be a boolean", path=f"tools[{position}].strict")
        if tool.cache_control is not NOT_GIVEN:
            _cache_control(tool.cache_control, f"tools[{position}].cache_control")
    return names


def _tool_choice(tool_choice: object, tool_names: set[str] | frozenset[str], rules: int = OPENARMATURE) -> None:
    """OpenArmature §5 tool_choice rules 1-3 (`required` with no tools: under STRUCTURE only)."""
    if tool_choice is NOT_GIVEN or tool_choice == "auto" or tool_choice == "none":
        return
    if tool_choice == "required":
        if not tool_names and rules & STRUCTURE:
            raise InvalidRequestError(
                "'required' needs a non-empty tools list: the model cannot be made to call a "
                "tool it is not given",
                path="tool_choice",
            )
        return
    if type(tool_choice) is ForcedTool:
        name = tool_choice.name
        if not isinstance(name, str) or not name:
            raise InvalidRequestError(_NON_EMPTY, path="tool_choice.name")
        if name not in tool_names:
            declared = ", ".join(sorted(tool_names)) if tool_names else "none"
            raise InvalidRequestError(
                f"forces tool {name!r}, which is not in tools (declared: {declared}): the "
                "model can only call a tool it is given",
                path="tool_choice.name",
            )
        return
    raise InvalidRequestError(
        "expected 'auto', 'required', 'none' or ForcedTool, got " f"{shown(tool_choice)}",
        path="tool_choice",
    )


# --- config (OpenArmature §6 RuntimeConfig) -------------------------------------------------


def _config(config: object) -> None:
    """The value rules for a `Config`: numbers finite, integers integral, each naming `config.<key>`."""
    if type(config) is not Config:
        raise InvalidRequestError(f"expected a Config, got {type(config).__name__}", path="config")
    # each check is called only for a value that is set (most configs set one or two)
    if config.temperature is not NOT_GIVEN:
        _number(config.temperature, "temperature")
    if config.top_p is not NOT_GIVEN:
        _number(config.top_p, "top_p")
    if config.frequency_penalty is not NOT_GIVEN:
        _number(config.frequency_penalty, "frequency_penalty")
    if config.presence_penalty is not NOT_GIVEN:
        _number(config.presence_penalty, "presence_penalty")
    max_tokens = config.max_tokens
    if max_tokens is not NOT_GIVEN and (
        not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1
    ):
        raise InvalidRequestError(
            f"must be a positive integer, got {shown(max_tokens)}", path="config.max_tokens"
        )
    if config.top_k is not NOT_GIVEN:
        _integer(config.top_k, "top_k")
    if config.seed is not NOT_GIVEN:
        _integer(config.seed, "seed")
    stop_sequences = config.stop_sequences
    if stop_sequences is not NOT_GIVEN:
        if not isinstance(stop_sequences, list):
            raise InvalidRequestError(
                f"expected a list of strings, got {type(stop_sequences).__name__}",
                path="config.stop_sequences",
            )
        for position, stop in enumerate(stop_sequences):
            if not isinstance(stop, str):
                raise InvalidRequestError(
                    f"expected a string, got {type(stop).__name__}",
                    path=f"config.stop_sequences[{position}]",
                )
    betas = config.betas
    if betas is not NOT_GIVEN:
        # a beta flag travels as one item of a list or of a comma-separated header (docs/canonical.md
        # "Beta flags"): a name with a comma, whitespace or a control character cannot be one
        if not isinstance(betas, list):
            raise InvalidRequestError(f"expected a list of strings, got {type(betas).__name__}", path="config.betas")
        for position, beta in enumerate(betas):
            if not isinstance(beta, str) or not beta or not beta.isprintable() or "," in beta or beta != beta.strip() or " " in beta:
                raise InvalidRequestError(
                    f"a beta flag is a non-empty name without commas or spaces, got {shown(beta)}",
                    path=f"config.betas[{position}]",
                )
    # the options issue 14 added (docs/canonical.md "Options that cross providers"); most
    # configs set none of them, so one look decides
    if (
        config.n is not NOT_GIVEN
        or config.top_logprobs is not NOT_GIVEN
        or config.reasoning_budget is not NOT_GIVEN
        or config.parallel_tool_calls is not NOT_GIVEN
        or config.logprobs is not NOT_GIVEN
        or config.user is not NOT_GIVEN
        or config.reasoning_effort is not NOT_GIVEN
        or config.json_mode is not NOT_GIVEN
        or config.schema_name is not NOT_GIVEN
        or config.schema_description is not NOT_GIVEN
        or config.schema_strict is not NOT_GIVEN
        or config.prompt_cache_key is not NOT_GIVEN
        or config.metadata is not NOT_GIVEN
        or config.input_type is not NOT_GIVEN
        or config.dimensions is not NOT_GIVEN
        or config.encoding_format is not NOT_GIVEN
    ):
        _crossing_options(config)
    extras = config.extras
    if extras is not NOT_GIVEN:
        if not isinstance(extras, dict):
            raise InvalidRequestError(
                f"expected a dict of undeclared wire fields, got {type(extras).__name__}",
                path="config.extras",
            )
        for key in extras:
            if not isinstance(key, str):
                raise InvalidRequestError(
                    f"extras keys must be strings, got {shown(key)}", path="config.extras"
                )
        check_json_value(extras, "config.extras")


def _crossing_options(config: Config) -> None:
    n = config.n
    if n is not NOT_GIVEN and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise InvalidRequestError(f"must be a positive integer, got {shown(n)}", path="config.n")
    top = config.top_logprobs
    if top is not NOT_GIVEN and (not isinstance(top, int) or isinstance(top, bool) or top < 0):
        raise InvalidRequestError(
            f"must be a non-negative integer, got {shown(top)}", path="config.top_logprobs"
        )
    # a token budget: Gemini's -1 means "dynamic" and 0 "off", so any integer is a budget
    _integer(config.reasoning_budget, "reasoning_budget")
    for key in ("parallel_tool_calls", "logprobs", "json_mode", "schema_strict"):
        value = getattr(config, key)
        if value is not NOT_GIVEN and not isinstance(value, bool):
            raise InvalidRequestError(f"must be a boolean, got {shown(value)}", path=f"config.{key}")
    for key in ("user", "reasoning_effort", "schema_name", "schema_description", "prompt_cache_key"):
        value = getattr(config, key)
        if value is not NOT_GIVEN and not isinstance(value, str):
            raise InvalidRequestError(f"must be a string, got {shown(value)}", path=f"config.{key}")
    # the embeddings options (docs/canonical.md "Embeddings options"): one canonical vocabulary
    for key, allowed in (("input_type", EMBEDDING_INPUT_TYPES), ("encoding_format", EMBEDDING_ENCODINGS)):
        value = getattr(config, key)
        if value is not NOT_GIVEN and value not in allowed:
            raise InvalidRequestError(f"expected one of: {', '.join(allowed)}; got {shown(value)}", path=f"config.{key}")
    dims = config.dimensions
    if dims is not NOT_GIVEN and (not isinstance(dims, int) or isinstance(dims, bool) or dims < 1):
        raise InvalidRequestError(f"must be a positive integer, got {shown(dims)}", path="config.dimensions")
    metadata = config.metadata
    if metadata is not NOT_GIVEN:
        if not isinstance(metadata, dict):
            raise InvalidRequestError(f"must be an object of strings, got {shown(metadata)}", path="config.metadata")
        for name, tag in metadata.items():
            if not isinstance(name, str) or not isinstance(tag, str):
                raise InvalidRequestError(f"must be a string, got {shown(tag)}", path=f"config.metadata.{name}")


def _number(value: Any, key: str) -> None:
    if value is NOT_GIVEN:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidRequestError(f"must be a number, got {shown(value)}", path=f"config.{key}")
    if type(value) is not int and not math.isfinite(value):  # an int of any size is finite
        raise InvalidRequestError(f"must be finite, got {shown(value)}", path=f"config.{key}")


def _integer(value: Any, key: str) -> None:
    if value is not NOT_GIVEN and (not isinstance(value, int) or isinstance(value, bool)):
        raise InvalidRequestError(f"must be an integer, got {shown(value)}", path=f"config.{key}")


# The per-part rules under public names, for converters that validate as they go.
check_tool_message = _tool_message
check_tools = _tools
check_tool_choice = _tool_choice
check_config = _config

"""Any-to-any translation through the canonical model, with a report of what did not survive.

    t = wiremap.translate_request(body, "openai_chat", "anthropic_messages")
    t.result        # the Anthropic request body
    t.losses        # [Loss(path='config.seed', kind='dropped', detail=...)]

How the report is derived (never written per pair): the source body is read with the source's
tables into a canonical record `a`; the target's tables build the target body; the target's own
tables then read that body back into `b`. Whatever differs between `a` and `b` is exactly what
the target cannot carry or changed on the way: an option its table drops, an image `detail` it
has no field for, a thinking block signed by another provider, a schema it closes, a tool
result it regroups. Each difference is one `Loss` naming the canonical path. Source wire fields
the canonical model does not declare (`config.extras`) are forwarded only between formats of
the same provider (or when asked), otherwise dropped and reported.

`strict=True` turns any loss into `TranslationLossError` (category `provider_invalid_request`)
naming the first one; the full list is on the exception.
"""

from __future__ import annotations

import difflib
import json
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .carry import ABSENT, Carried, losses as carry_losses, not_carried, path_text
from .json_values import json_copy
from .validate import EmptyTurnError
from .canonical import NOT_GIVEN, EmbeddingsResponse, ImagesResponse, Request, Response
from .errors import InvalidRequestError, InvalidResponseError, UnsupportedOptionWarning
from .format import Format, get_format, translator
from .wire import carried_only, float32_vectors, option_headers, read_without_carry
from .wire_rules import WireMap

__all__ = [
    "Loss",
    "Translation",
    "TranslationLossError",
    "translate_request",
    "translate_response",
    "translate_error",
    "request_losses",
    "response_losses",
    "error_translation",
    "unique_tool_call_ids",
]


@dataclass(frozen=True, slots=True)
class Loss:
    """One thing that did not arrive as it was sent: `kind` is dropped, changed or added."""

    path: str
    kind: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "kind": self.kind, "detail": self.detail}

    def __str__(self) -> str:
        return f"{self.path}: {self.kind}: {self.detail}"


@dataclass(slots=True)
class Translation:
    """A translated body (or for errors, `(status, body, headers)`) and what was lost on the way."""

    result: Any
    losses: list[Loss] = field(default_factory=list)
    source: str = ""
    target: str = ""
    #: a request translation's headers the target reads beside the body: the options its table
    #: sends as request headers (request.options `header:`: Anthropic `anthropic-beta`)
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def lossless(self) -> bool:
        return not self.losses

    def report(self) -> list[dict[str, str]]:
        return [loss.to_dict() for loss in self.losses]


class TranslationLossError(InvalidRequestError):
    """`strict=True` and something would not survive the translation; `.losses` lists all of it."""

    def __init__(self, losses: list[Loss], source: str, target: str) -> None:
        self.losses = losses
        first = losses[0]
        more = f" (and {len(losses) - 1} more)" if len(losses) > 1 else ""
        super().__init__(f"{source} -> {target} would lose this: {first.kind}: {first.detail}{more}", path=first.path)


def _format(key: str | Format) -> Format:
    return key if isinstance(key, Format) else get_format(key)


def _same_kind(src: Format, dst: Format) -> None:
    """Only formats of one kind translate (a chat request has no embeddings equivalent)."""
    if src.kind != dst.kind:
        raise InvalidRequestError(
            f"{src.key} is kind {src.kind} and {dst.key} is kind {dst.kind}: only formats of one kind translate"
        )


def _result_class(fmt: Format) -> Any:
    """The canonical result type of a format's kind (docs/canonical.md)."""
    return {"embeddings": EmbeddingsResponse, "images": ImagesResponse}.get(fmt.kind, Response)


# ------------------------------------------------------------------------------ the diff

_IGNORED = frozenset({"origin", "raw"})


def _describe(value: Any, key: str | None = None) -> str:
    if key == "cache_control":  # a breakpoint is an object with a type, not a block
        return "the prompt-cache breakpoint " + json.dumps(value, ensure_ascii=False, default=str)
    if isinstance(value, dict):
        kind = value.get("type") or value.get("role")
        if isinstance(kind, str):
            return f"{kind} {'block' if 'type' in value else 'message'}"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _normalize(value: Any, key: str | None = None) -> Any:
    """Spellings the canonical model treats as the same: a content string is one text block."""
    if isinstance(value, dict):
        out = {k: _normalize(v, k) for k, v in value.items() if k not in _IGNORED}
        if out.get("role") == "assistant" and "content" not in out:
            out["content"] = []  # absent content is empty content (a tool-call-only turn)
        return out
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    if key == "content" and (value is None or isinstance(value, str)):
        # "", null and [] are the same empty assistant content; a string is one text block
        return [{"type": "text", "text": value}] if value else []
    return value


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _diff(a: Any, b: Any, path: str, out: list[Loss]) -> None:
    if a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k, v in a.items():
            child = f"{path}.{k}" if path else k
            if k not in b:
                if isinstance(v, dict) and v and "type" not in v and "role" not in v:
                    _diff(v, {}, child, out)
                else:
                    out.append(Loss(child, "dropped", f"{_describe(v, k)} is not carried by the target"))
            else:
                _diff(v, b[k], child, out)
        for k, v in b.items():
            if k not in a:
                child = f"{path}.{k}" if path else k
                if isinstance(v, dict) and v and "type" not in v and "role" not in v:
                    _diff({}, v, child, out)  # name the leaves (`config.max_tokens`), not the record
                else:
                    out.append(Loss(child, "added", f"the target adds {_describe(v, k)}"))
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                _diff(x, y, f"{path}[{i}]", out)
            return
        matcher = difflib.SequenceMatcher(a=[_key(x) for x in a], b=[_key(y) for y in b], autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            if op == "replace" and i2 - i1 == j2 - j1:
                for k in range(i2 - i1):
                    _diff(a[i1 + k], b[j1 + k], f"{path}[{i1 + k}]", out)
                continue
            for k in range(i1, i2):
                out.append(Loss(f"{path}[{k}]", "dropped", f"{_describe(a[k])} is not carried by the target"))
            for k in range(j1, j2):
                out.append(Loss(f"{path}[{k}]", "added", f"the target adds {_describe(b[k])}"))
        return
    out.append(Loss(path, "changed", f"{_describe(a)} arrives as {_describe(b)}"))


def _implied_names(request: dict[str, Any]) -> dict[str, Any]:
    """A tool message without a `name` is named by the call it answers (a target that requires
    the name, Gemini's functionResponse.name, takes it from there: no change of meaning)."""
    messages = request.get("messages")
    if not isinstance(messages, list):
        return request
    names: dict[Any, Any] = {}
    out = []
    for m in messages:
        if isinstance(m, dict) and m.get("role") == "assistant" and isinstance(m.get("tool_calls"), list):
            names.update({c.get("id"): c.get("name") for c in m["tool_calls"] if isinstance(c, dict)})
        if isinstance(m, dict) and m.get("role") == "tool" and "name" not in m and names.get(m.get("tool_call_id")) is not None:
            m = {**m, "name": names[m.get("tool_call_id")]}
        out.append(m)
    return {**request, "messages": out}


def _implied_choice(request: dict[str, Any]) -> dict[str, Any]:
    """Tools without a tool_choice are tool_choice `auto` (every chat API's default; a target
    that must state it to carry another option, Anthropic's disable_parallel_tool_use, says
    `auto`: no change of meaning)."""
    if request.get("tools") and "tool_choice" not in request and "messages" in request:
        request = {**request, "tool_choice": "auto"}
    config = request.get("config")
    if "response_schema" in request and isinstance(config, dict) and "json_mode" in config:
        # a response schema is JSON output already (Gemini states both with one responseMimeType)
        request = {**request, "config": {k: v for k, v in config.items() if k != "json_mode"}}
        if not request["config"]:
            del request["config"]
    return request


def comparable(record: Mapping[str, Any]) -> Any:
    """A canonical record's plain form with the spellings the model treats as the same made one
    (what the loss report compares): a content string is one text block, absent assistant content
    is empty, a tool message is named by the call it answers, tools without a tool_choice are
    `auto`, and a response schema is JSON mode."""
    return _normalize(_implied_choice(_implied_names(dict(record))))


_TOO_DEEP_TO_COMPARE = "a value is nested too deeply to tell what the target carries of it"


def _canonical_diff(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Loss]:
    """`_diff(comparable(a), comparable(b))`, normalizing only where the two differ: a subtree
    equal as it is is equal normalized (`_normalize` is a function of the value and its key), so
    the tool schemas, options and messages a translation kept are compared once, by `==`."""
    out: list[Loss] = []
    _lazy_diff(_implied_choice(_implied_names(dict(a))), _implied_choice(_implied_names(dict(b))), None, "", out)
    return out


def _shallow(value: Any, key: str | None) -> Any:
    """`_normalize(value, key)` one level deep: a dict or list keeps its children as they are."""
    if isinstance(value, dict):
        out = {k: v for k, v in value.items() if k not in _IGNORED}
        if out.get("role") == "assistant" and "content" not in out:
            out["content"] = []
        return out
    if isinstance(value, list):
        return value
    return _normalize(value, key)


def _lazy_diff(a: Any, b: Any, key: str | None, path: str, out: list[Loss]) -> None:
    """`_diff(_normalize(a, key), _normalize(b, key), path, out)`, the same losses in the same order."""
    if a == b:
        return
    a, b = _shallow(a, key), _shallow(b, key)
    if isinstance(a, dict) and isinstance(b, dict):
        for k, v in a.items():
            child = f"{path}.{k}" if path else k
            if k not in b:
                v = _normalize(v, k)
                if isinstance(v, dict) and v and "type" not in v and "role" not in v:
                    _diff(v, {}, child, out)
                else:
                    out.append(Loss(child, "dropped", f"{_describe(v, k)} is not carried by the target"))
            else:
                _lazy_diff(v, b[k], k, child, out)
        for k, v in b.items():
            if k not in a:
                child = f"{path}.{k}" if path else k
                v = _normalize(v, k)
                if isinstance(v, dict) and v and "type" not in v and "role" not in v:
                    _diff({}, v, child, out)  # name the leaves (`config.max_tokens`), not the record
                else:
                    out.append(Loss(child, "added", f"the target adds {_describe(v, k)}"))
        return
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            _lazy_diff(x, y, None, f"{path}[{i}]", out)
        return
    _diff(_normalize(a, key), _normalize(b, key), path, out)  # lists of other lengths, or other kinds


# ------------------------------------------------------------------------------ requests


def origin_of(fmt: Format) -> str:
    """Where a format's carried wire data goes back: `provider/wire` (runtime/carry.py)."""
    return str(getattr(fmt.module, "ORIGIN", f"{fmt.provider}/{fmt.key}"))


def forward_carried_fields(request: Request, target: Format) -> Request:
    """keep_extras=True: the top-level wire fields the source's tables do not name, carried for
    its own wire, are sent to a target of another wire as config.extras (what the caller asked
    for); the rest of the carried data stays where it is."""
    carried = request.carried
    if carried is None or carried.origin == origin_of(target):
        return request
    fields = {
        path[0]: value
        for (path, value), was in zip(carried.ops, carried.rewritten)
        if len(path) == 1 and value is not ABSENT and was is ABSENT and path[0] not in _known(carried)
    }
    if not fields:
        return request
    d = request.to_dict()
    config = d.setdefault("config", {})
    config["extras"] = {**fields, **(config.get("extras") or {})}  # the caller's own win
    kept = [i for i, ((path, _), was) in enumerate(zip(carried.ops, carried.rewritten)) if not (len(path) == 1 and path[0] in fields and was is ABSENT)]
    d.pop("carried")
    out = Request.from_dict(d)
    if kept:
        out.carried = Carried(carried.origin, [carried.ops[i] for i in kept], [carried.anchors[i] for i in kept], [carried.rewritten[i] for i in kept], carried.known, carried.aliases)
        out.carried.reader, out.carried.too_deep = carried.reader, list(carried.too_deep)
    return out


def _split_extras(request: Request, source: Format, target: Format, keep_extras: bool | None) -> tuple[Request, list[Loss]]:
    if keep_extras:
        request = forward_carried_fields(request, target)
    config = request.config
    extras = getattr(config, "extras", None) if config is not None else None
    if not extras:
        return request, []
    # by default extras stay on their own wire: another format of the same provider may not take
    # them (`n` is no Responses field)
    keep = keep_extras if keep_extras is not None else (source.key == target.key or origin_of(source) == origin_of(target))
    if keep:
        return request, []
    losses = [
        Loss(f"config.extras.{k}", "dropped", f"{source.key} field {k!r} has no canonical meaning for {target.key} (keep_extras=True forwards it)")
        for k in sorted(extras)
    ]
    d = request.to_dict()
    d["config"].pop("extras", None)
    if not d["config"]:
        d.pop("config")
    return Request.from_dict(d), losses


def unique_tool_call_ids(request: Request) -> tuple[Request, list[Loss]]:
    """Tool-call ids reused across turns (some open models number every turn's calls from 0)
    made unique, deterministically: a reused id becomes `<id>_<n>`; each tool result is paired
    with the latest assistant turn's call of its id, which is what it answered."""
    seen: set[str] = set()
    current: dict[str, str] = {}
    losses: list[Loss] = []
    d: dict[str, Any] | None = None
    for i, message in enumerate(request.messages):
        role = getattr(message, "role", None)
        if role == "assistant":
            calls = getattr(message, "tool_calls", None)
            if not isinstance(calls, list) or not calls:
                continue
            current = {}
            for j, call in enumerate(calls):
                old = call.id
                new = old
                n = 1
                while new in seen:
                    n += 1
                    new = f"{old}_{n}"
                seen.add(new)
                current[old] = new
                if new != old:
                    if d is None:
                        d = request.to_dict()
                    d["messages"][i]["tool_calls"][j]["id"] = new
                    losses.append(Loss(f"messages[{i}].tool_calls[{j}].id", "changed", f"id {old!r} is reused from an earlier turn; sent as {new!r}"))
        elif role == "tool":
            old = message.tool_call_id  # type: ignore[union-attr]
            new = current.get(old, old)
            if new != old:
                if d is None:
                    d = request.to_dict()
                d["messages"][i]["tool_call_id"] = new
                losses.append(Loss(f"messages[{i}].tool_call_id", "changed", f"answers the latest call {old!r}, sent as {new!r}"))
    return (Request.from_dict(d), losses) if d is not None else (request, [])


def fit_ranges(request: Any, target: str | Format) -> tuple[Any, list[Loss]]:
    """The request with each option the target bounds (its mapping's `range:` rows, the module's
    OPTION_RANGES) clamped into the target's range, and one `changed` loss per clamped option.

    A translation calls it before the target's converter, which refuses a value past a range
    (a direct request gets that typed error at `config.<name>`): a top_p of 1.0 translated to
    Cohere (p at most 0.99) is sent as 0.99, and the report says so. `request` is a `Request`
    or its plain dict; the same type comes back, unchanged when nothing was out of range."""
    fmt = _format(target)
    ranges: Mapping[str, tuple[Any, Any]] = getattr(fmt.module, "OPTION_RANGES", None) or {}
    if not ranges:
        return request, []
    plain = isinstance(request, Mapping)
    config = request.get("config") if plain else request.config
    if not config or config is NOT_GIVEN:
        return request, []
    fixed: dict[str, Any] = {}
    losses: list[Loss] = []
    for name, (lo, hi) in ranges.items():
        value = config.get(name, NOT_GIVEN) if isinstance(config, Mapping) else getattr(config, name, NOT_GIVEN)
        if type(value) not in (int, float) or value != value:  # noqa: PLR0124 -- absent, another type or NaN: the converter's error
            continue
        new = max(value, lo) if lo is not None else value
        new = min(new, hi) if hi is not None else new
        if new != value:
            fixed[name] = new
            span = f"{'-inf' if lo is None else lo} to {'inf' if hi is None else hi}"
            losses.append(Loss(f"config.{name}", "changed", f"{_describe(value)} is outside {fmt.key}'s range ({span}); sent as {_describe(new)}"))
    if not fixed:
        return request, []
    if plain:
        return {**request, "config": {**config, **fixed}}, losses
    d = request.to_dict()
    d["config"].update(fixed)
    return Request.from_dict(d), losses


def _modelled(record: Any) -> dict[str, Any]:
    """The record's plain form without its carried wire data (compared on its own)."""
    d: dict[str, Any] = record.to_dict()
    d.pop("carried", None)
    return d


def _sent_extras(sent: dict[str, Any], got: dict[str, Any], wire: Any) -> list[Loss]:
    """config.extras (the caller's passthrough) are compared with the body, not the read-back:
    a target that carries what it does not model reads them back as carried data, not extras.
    Each key must stand in the body, at the root or in the object the format places extras in,
    or be read back by the target as that same extra (a param written into every request object,
    Gemini batch `title`)."""
    out: list[Loss] = []
    extras = (sent.get("config") or {}).pop("extras", None)
    back = (got.get("config") or {}).pop("extras", None)
    for d in (sent, got):
        if d.get("config") == {}:
            d.pop("config")
    if isinstance(extras, dict) and isinstance(wire, dict):
        for key in extras:
            if isinstance(back, dict) and key in back and back[key] == extras[key]:
                continue
            if key not in wire and not any(isinstance(v, dict) and key in v for v in wire.values()):
                out.append(Loss(f"config.extras.{key}", "dropped", f"{_describe(extras[key])} is not carried by the target"))
    return out


def _carried_losses(record: Any, fmt: Format, wire: Any) -> list[Loss]:
    """The carried wire data (runtime/carry.py) that did not reach `wire`: all of it for a target
    of another provider or wire, named at the source's wire path."""
    carried = getattr(record, "carried", None)
    if carried is None:
        return []
    return [Loss(path, "dropped", detail) for path, detail in carry_losses(carried, origin_of(fmt), wire, _known(carried))]


def _known(carried: Carried) -> frozenset[str]:
    """The wire keys the format that read `carried` names: kept on the record as read, looked up
    by the reader's key for one read back from a canonical dict (whose form does not hold them),
    so that both give the same report. A reader not registered here: none (every key reported)."""
    if carried.known or carried.reader is None:
        return carried.known
    try:
        return frozenset(getattr(get_format(carried.reader).module, "WIRE_KEYS", ()))
    except KeyError:
        return frozenset()


def request_losses(request: Request | Mapping[str, Any], target: str | Format) -> tuple[dict[str, Any], list[Loss]]:
    """`target.request_to_wire(request)` and what the target could not carry of it."""
    fmt = _format(target)
    req = request if isinstance(request, Request) else Request.from_dict(request)
    # A target with wire rules (Mistral's 9-character ids, ...) records its repairs on a WireMap;
    # each becomes a loss, and the read-back through the map shows nothing else changed.
    rules: dict[str, Any] = {"wire_map": WireMap()} if fmt.wire_rules is not None else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedOptionWarning)  # reported as losses instead
        try:
            wire = fmt.request_to_wire(req, **rules)
        except EmptyTurnError as exc:
            carried = req.carried
            if carried is None or exc.index not in carried.held:
                raise
            # a turn of wire parts only the source's own provider takes (Carried.held): said so
            raise InvalidRequestError(
                f"this assistant turn is only wire content that {carried.origin} carries for its "
                f"own wire (content no table models, a server tool's blocks), which {fmt.key} cannot "
                "take: drop the turn or give it text",
                path=exc.path,
            ) from None
    back = read_without_carry(fmt.request_from_wire, wire, **rules)  # its carried data is not compared (_modelled)
    repaired = [
        Loss(c.path, "dropped" if c.action == "drop" else "changed", f"wire_rules.{c.rule} {c.action}: {_describe(c.before)} -> {_describe(c.after)}")
        for c in (rules["wire_map"].changes if rules else [])
    ]
    sent, got = _modelled(req), _modelled(back)
    # an option the target sends as a request header (request.options `header:`) is not in the
    # body: it reaches the target beside it (Provider, the gateway), so it is not lost
    for name in getattr(fmt.module, "HEADER_OPTIONS", None) or {}:
        if name in (sent.get("config") or {}):
            got.setdefault("config", {})[name] = sent["config"][name]
    extras = _sent_extras(sent, got, wire)
    try:
        return wire, repaired + _canonical_diff(sent, got) + extras + _carried_losses(req, fmt, wire)
    except RecursionError:  # a value nested past what the comparison can walk (found by fuzzing)
        raise InvalidRequestError(_TOO_DEEP_TO_COMPARE) from None


def fused_losses(added: Sequence[tuple[str, Any]]) -> list[Loss]:
    """The loss report of a fused translator's proof (`Translator.request_with_losses`): each
    default the target adds, as `request_losses` reports it (kind `added`)."""
    return [Loss(path, "added", f"the target adds {_describe(value, path.rsplit('.', 1)[-1])}") for path, value in added]


def proven_losses(tr: Any, body: Any, carried: bool = True) -> tuple[dict[str, Any], list[Loss]] | None:
    """The target body and its loss report where the fused translator `tr` (a Translator) proves
    them (`request_with_losses`), else None: the two-step way says what is lost.

    With `carried` (the caller does not forward extras), a body whose top-level keys outside
    the source reader's (`tr.source_reads`) are carried wire data for the source's own provider
    (`stream: false`, `stream_options`, a top-level `cache_control`: plain values at most two
    levels deep, which never reach another provider's wire) is proven without them, and each is
    named `dropped` after what the proof reports, as the two-step report names it."""
    proof = tr.request_with_losses(body)
    if proof is not None:
        return proof[0], fused_losses(proof[1])
    return proven_without_carried(tr, body, carried)


def proven_without_carried(tr: Any, body: Any, carried: bool = True) -> tuple[dict[str, Any], list[Loss]] | None:
    """`proven_losses` of a body `tr.request_with_losses` has answered None already: proven
    without its top-level carried wire data (each named `dropped`), or None."""
    reads = getattr(tr, "source_reads", None)  # (a stand-in translator may have none)
    if not carried or reads is None or type(body) is not dict or reads.issuperset(body):
        return None
    kept = {k: v for k, v in body.items() if k in reads}
    dropped = [(k, v) for k, v in body.items() if k not in reads]
    if any(v is None for _, v in dropped) or not carried_only(dict(dropped), frozenset(), reads):
        return None
    proof = tr.request_with_losses(kept)
    if proof is None:
        return None
    provider = origin_of(tr.source).split("/")[0]
    return proof[0], fused_losses(proof[1]) + [Loss(path_text((k,)), "dropped", not_carried(v, provider)) for k, v in dropped]


def translate_request(
    body: Mapping[str, Any],
    source: str | Format,
    target: str | Format,
    *,
    strict: bool = False,
    keep_extras: bool | None = None,
) -> Translation:
    """A request body in `source`'s wire format -> the same request in `target`'s.

    Raises `InvalidRequestError` (naming the path) when the body is not a valid `source` request,
    and `TranslationLossError` under `strict=True` when anything would be lost.
    `keep_extras=True` forwards the source's top-level wire fields the canonical model does not
    declare; by default they stay with their own wire and are reported as losses elsewhere.

    >>> import wiremap
    >>> body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}]}
    >>> t = wiremap.translate_request(body, "openai_chat", "anthropic_messages")
    >>> t.result
    {'model': 'gpt-4o', 'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'Hi'}]}], 'max_tokens': 4096}
    >>> t.losses  # Anthropic requires max_tokens: the mapping's default is added, and said so
    [Loss(path='config.max_tokens', kind='added', detail='the target adds 4096')]
    >>> wiremap.translate_request(body, "openai_chat", "anthropic_messages", strict=True)
    Traceback (most recent call last):
      ...
    wiremap.runtime.translate.TranslationLossError: config.max_tokens: openai_chat -> anthropic_messages would lose this: added: the target adds 4096
    """
    src, dst = _format(source), _format(target)
    _same_kind(src, dst)
    # the fused translator's exact report: the body in one pass where it proves that nothing is
    # lost but a default the target adds (the loss report below would say just that); None sends
    # it the two-step way
    fused = proven_losses(translator(src, dst), body, carried=not keep_extras)
    if fused is not None:
        wire, losses = fused
        if strict and losses:
            raise TranslationLossError(losses, src.key, dst.key)
        return Translation(wire, losses, src.key, dst.key, {})
    request = src.request_from_wire(body)
    request, losses = _split_extras(request, src, dst, keep_extras)
    if getattr(dst.module, "UNIQUE_CALL_IDS", False):  # only a target that requires unique ids
        request, renamed = unique_tool_call_ids(request)
        losses += renamed
    request, clamped = fit_ranges(request, dst)  # a value past the target's range: clamped, and said so
    losses += clamped
    wire, more = request_losses(request, dst)
    losses += more
    if strict and losses:
        raise TranslationLossError(losses, src.key, dst.key)
    return Translation(wire, losses, src.key, dst.key, option_headers(dst.module, request))


# ------------------------------------------------------------------------------ responses


def response_losses(
    response: Response | Mapping[str, Any],
    target: str | Format,
    *,
    encoding_format: str | None = None,
    source: str | Format | None = None,
) -> tuple[dict[str, Any], list[Loss]]:
    """`target.response_to_wire(response)` and what the target could not carry of it.
    `encoding_format` (embeddings): the request's canonical `config.encoding_format`. Where the
    target writes vectors in it (its module's `VECTOR_ENCODINGS`), the answer is written so
    (`base64`: float32, which the client asked for, so float32 rounding is no loss); any other is a
    `changed` loss at `config.encoding_format`: the vectors go out as float arrays.
    `source`: the format the response was read from (its `raw`); given, the envelope values its
    writer takes from `raw` (RAW_ENVELOPE: an id, a model, a timestamp) that the target's body
    holds nowhere are named too (`_envelope_losses`)."""
    fmt = _format(target)
    cls = _result_class(fmt)
    resp = response if isinstance(response, cls) else cls.from_dict(response)
    encoded = fmt.kind == "embeddings" and encoding_format not in (None, "float")
    writes = getattr(fmt.module, "VECTOR_ENCODINGS", ("float",)) if encoded else ("float",)
    if encoded and encoding_format in writes:
        wire = fmt.response_to_wire(resp, encoding_format=encoding_format)
    else:
        wire = fmt.response_to_wire(resp)
    back = read_without_carry(fmt.response_from_wire, wire)  # its carried data is not compared (popped below)
    a = resp.to_dict()
    b = back.to_dict()
    for d in (a, b):
        d.pop("raw", None)
        d.pop("parsed", None)
        d.pop("carried", None)
    losses: list[Loss] = []
    if encoded:
        if encoding_format in writes:
            if encoding_format == "base64" and isinstance(a.get("embeddings"), list):
                a["embeddings"] = float32_vectors(a["embeddings"])
        else:
            losses.append(Loss("config.encoding_format", "changed",
                               f"the request asked for {encoding_format} vectors; {fmt.key} writes them as float arrays"))
    try:
        losses += _canonical_diff(a, b) + _carried_losses(resp, fmt, wire)
    except RecursionError:  # a value nested past what the comparison can walk
        raise InvalidResponseError(_TOO_DEEP_TO_COMPARE) from None
    if source is not None:
        losses += _envelope_losses(resp, _format(source), fmt, wire)
    return wire, losses


def _scalar_json(value: Any) -> bool:
    """A JSON scalar, or an array of them (Cohere's `texts`): what an envelope value is."""
    if type(value) is list:
        return all(type(v) in (str, int, float, bool) or v is None for v in value)
    return type(value) in (str, int, float, bool)


def _envelope_losses(resp: Any, src: Format, dst: Format, wire: Any) -> list[Loss]:
    """The envelope values of the body `resp` was read from (`raw`: the top-level keys `src`'s
    response writer takes from `raw`, its module's RAW_ENVELOPE: a response id, the model, a
    creation time) that the target's body holds nowhere at its top level: the target has no
    field for them (Bedrock Converse has no id or model; OpenAI embeddings no id), so they are
    lost. A value the target keeps under another name (Gemini's `responseId` for an Anthropic
    `id`) is no loss; the same wire keeps everything (carried data); a key carried is named by
    the carried-data report already."""
    raw = getattr(resp, "raw", None)
    keys = getattr(src.module, "RAW_ENVELOPE", None)
    if not keys or type(raw) is not dict or type(wire) is not dict or origin_of(src) == origin_of(dst):
        return []
    carried = getattr(resp, "carried", None)
    named = {path[0] for path, _ in carried.ops} if isinstance(carried, Carried) else set()
    kept: list[Any] | None = None
    out: list[Loss] = []
    for key, value in raw.items():
        if key not in keys or key in named or value is None or not _scalar_json(value):
            continue
        if kept is None:
            kept = list(wire.values())
        if any(_same_json(value, held) for held in kept):
            continue  # the target holds it (under its own name)
        out.append(Loss(path_text((key,)), "dropped", not_carried(value, origin_of(src).split("/")[0])))
    return out


def _same_json(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def translate_response(
    body: Mapping[str, Any],
    source: str | Format,
    target: str | Format,
    *,
    strict: bool = False,
) -> Translation:
    """A response body in `source`'s wire format -> the same response in `target`'s.

    Raises `InvalidResponseError` (naming the path) when the body is not a valid `source`
    response, and `TranslationLossError` under `strict=True` when anything would be lost.

    >>> import wiremap
    >>> message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    ...            "content": [{"type": "text", "text": "Hello!"}], "stop_reason": "end_turn",
    ...            "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 3}}
    >>> t = wiremap.translate_response(message, "anthropic_messages", "openai_chat")
    >>> t.result["choices"]
    [{'index': 0, 'message': {'role': 'assistant', 'content': 'Hello!'}, 'finish_reason': 'stop'}]
    >>> t.result["usage"], t.lossless
    ({'prompt_tokens': 9, 'completion_tokens': 3, 'total_tokens': 12}, True)
    """
    src, dst = _format(source), _format(target)
    _same_kind(src, dst)
    response = src.response_from_wire(body)
    if src.key == dst.key and src.kind != "chat":
        # the same format in and out is the identity: the body read (checked) is the answer as
        # given (its carried data would restore the same body; base64 vectors stay base64)
        return Translation(json_copy(body), [], src.key, dst.key)
    wire, losses = response_losses(response, dst, source=src)
    if strict and losses:
        raise TranslationLossError(losses, src.key, dst.key)
    return Translation(wire, losses, src.key, dst.key)


# ------------------------------------------------------------------------------ errors


def translate_error(
    status: int,
    body: Any,
    headers: Mapping[str, Any] | None,
    source: str | Format,
    target: str | Format,
) -> Translation:
    """An HTTP error from `source` -> `(status, body, headers)` in `target`'s own error envelope.

    The category survives when the target's own rules read the rendered error back as the same
    category; when the target's vocabulary has no such category (Anthropic has no "model not
    loaded"), the loss report says what the client will see instead. Never raises for a bad body:
    an unreadable error is classified by its status, as `error_from_wire` does.
    """
    src, dst = _format(source), _format(target)
    error = src.error_from_wire(status, body, headers)
    return error_translation(error, dst, source=src.key)


def error_translation(error: BaseException, target: str | Format, *, source: str = "") -> Translation:
    """A ProviderError (or any exception) rendered by `target.error_to_wire`, with its losses."""
    dst = _format(target)
    if dst.error_to_wire is None:
        raise NotImplementedError(f"{dst.key} was generated without error_to_wire; regenerate it")
    out_status, out_body, out_headers = dst.error_to_wire(error)
    category = getattr(error, "category", "provider_invalid_request")
    back = dst.error_from_wire(out_status, out_body, out_headers)
    losses: list[Loss] = []
    if back.category != category:
        losses.append(
            Loss("category", "changed", f"{category} has no {dst.key} equivalent; its client reads HTTP {out_status} as {back.category}")
        )
    return Translation((out_status, out_body, out_headers), losses, source or "", dst.key)


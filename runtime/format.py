"""Formats: the registry of generated converters, and the object users convert with.

`formats()` lists the keys generated in this tree plus those that third-party packages register
under the `wiremap.formats` entry-point group (each entry point names a generated converter
module). Modules are imported on first use. The runtime imports no generated code: `wiremap`
tells it where the generated formats are listed as it loads (`use_generated`, called with
wiremap/registry.py's functions).
"""

from __future__ import annotations

import importlib
from _thread import allocate_lock
from collections.abc import Callable
from types import ModuleType
from typing import Any


__all__ = ["Format", "UnknownFormatError", "formats", "get_format", "load_format", "Translator", "translator"]

_ENTRY_POINT_GROUP = "wiremap.formats"


class UnknownFormatError(KeyError):
    """No format is registered under that key; the message lists the known keys."""

    def __init__(self, key: str, known: list[str]) -> None:
        self.key = key
        self.known = known
        import difflib  # only on the way to an error

        close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        super().__init__(f"unknown format {key!r}{hint}; known formats: {', '.join(known) or '(none)'}")

    def __str__(self) -> str:
        return str(self.args[0])


class Format:
    """One wire format: its converters, bound from the generated module (`get_format(key)`).

    The converters, each a generated function:
    - `request_to_wire(request) -> dict`: a canonical request (dict or `Request`) as this
      format's request body, validated first (`InvalidRequestError` names the path);
    - `request_from_wire(body) -> Request`, `response_from_wire(body) -> Response` (or
      `EmbeddingsResponse` / `ImagesResponse` for those kinds), `response_to_wire(response) -> dict`;
    - `error_from_wire(status, body, headers) -> ProviderError` (returned, not raised) and
      `error_to_wire(error) -> (status, body, headers)`.

    And what the mapping file declares: `key`, `kind` (chat, embeddings or images), `provider`,
    `title`, `api_version`, `doc_ref`, `endpoint`, `transport`, `wire_rules`, `stream` (None when
    the format has no stream table), `structured_output_mode(s)`, and `module`, the generated module.
    """

    __slots__ = (
        "key", "kind", "provider", "title", "api_version", "doc_ref", "endpoint", "module",
        "request_to_wire", "response_from_wire", "error_from_wire", "request_from_wire",
        "response_to_wire", "error_to_wire", "structured_output_modes", "structured_output_mode", "transport",
        "wire_rules",
        "stream",
    )

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.key: str = module.KEY
        # chat (Response), embeddings (EmbeddingsResponse) or images (ImagesResponse): mapping
        # `kind:`; modules generated before kinds existed are chat.
        self.kind: str = getattr(module, "KIND", "chat")
        self.provider: str = module.PROVIDER
        self.title: str = module.TITLE
        self.api_version: str | None = module.API_VERSION
        self.doc_ref: str = module.DOC_REF
        self.endpoint: dict[str, str] | None = module.ENDPOINT
        self.transport: dict[str, Any] | None = getattr(module, "TRANSPORT", None)
        # Mapping `wire_rules:` (None without it): the converters then take `wire_map=`.
        self.wire_rules: dict[str, Any] | None = getattr(module, "WIRE_RULES", None)
        # the stream table (mapping `stream:`) the runtime's stream engine reads; None: no streaming
        self.stream: dict[str, Any] | None = getattr(module, "STREAM", None)
        self.structured_output_mode: str | None = module.STRUCTURED_OUTPUT_MODE
        self.structured_output_modes: tuple[str, ...] = module.STRUCTURED_OUTPUT_MODES
        # Bound straight to the generated functions: no indirection on the hot path.
        self.request_to_wire: Any = module.request_to_wire
        self.response_from_wire: Any = module.response_from_wire
        self.error_from_wire: Any = module.error_from_wire
        self.request_from_wire: Any = module.request_from_wire
        self.response_to_wire: Any = module.response_to_wire
        # error_to_wire: the inverse of error_from_wire (absent from modules generated before it)
        self.error_to_wire: Any = getattr(module, "error_to_wire", None)

    def __repr__(self) -> str:
        return f"<wiremap.Format {self.key!r} ({self.title})>"


_lock = allocate_lock()  # threading.Lock() without importing threading (cold import, issue #6)
_cache: dict[str, Format] = {}
_generated: dict[str, str] | None = None
_registry: dict[str, str] | None = None
_fused: dict[tuple[str, str], str] | None = None
_generated_source: Callable[[], dict[str, str]] = dict
_fused_source: Callable[[], dict[tuple[str, str], str]] = dict


def use_generated(formats: Callable[[], dict[str, str]], fused: Callable[[], dict[tuple[str, str], str]]) -> None:
    """Where the formats generated with this package are listed: `formats()` maps each key to
    its module's name, `fused()` each (source key, target key) to its fused translator's module.
    Both are called on first use, not here. `wiremap` calls this as it loads, with
    `wiremap.registry.generated_formats` and `fused_translators`."""
    global _generated_source, _fused_source, _generated, _registry, _fused
    with _lock:
        _generated_source, _fused_source = formats, fused
        _generated = _registry = _fused = None


def _generated_modules() -> dict[str, str]:
    """Key -> module of the formats generated in this tree (`use_generated`)."""
    global _generated
    if _generated is not None:
        return _generated
    _generated = dict(_generated_source())
    return _generated


def _load_registry() -> dict[str, str]:
    """The generated formats plus those registered under the entry-point group.

    Entry-point discovery imports `importlib.metadata` and reads every installed distribution's
    metadata (tens of milliseconds, growing with the environment: issue #6), so it runs only when
    the full list is asked for (`formats()`) or a key is not generated here.
    """
    global _registry
    if _registry is not None:
        return _registry
    registry = dict(_generated_modules())
    try:
        from importlib.metadata import entry_points

        for ep in entry_points(group=_ENTRY_POINT_GROUP):
            registry.setdefault(ep.name, ep.value)  # a generated key is never shadowed
    except Exception:  # pragma: no cover - broken third-party metadata must not break import
        pass
    _registry = registry
    return registry


def formats() -> list[str]:
    """The registered format keys, sorted: those generated in this package and those installed
    packages register under the `wiremap.formats` entry-point group.

    >>> import wiremap
    >>> "openai_chat" in wiremap.formats() and "anthropic_messages" in wiremap.formats()
    True
    """
    return sorted(_load_registry())


def get_format(key: str) -> Format:
    """The format registered under `key`; `UnknownFormatError` (a KeyError) lists the known ones.

    >>> import wiremap
    >>> fmt = wiremap.get_format("anthropic_messages")
    >>> request = {"model": "claude-sonnet-4-5", "messages": [{"role": "user", "content": "Hi"}],
    ...            "config": {"max_tokens": 100}}
    >>> fmt.request_to_wire(request)
    {'model': 'claude-sonnet-4-5', 'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'Hi'}]}], 'max_tokens': 100}
    >>> fmt.error_from_wire(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}},
    ...                     {"retry-after": "7"})
    RateLimitError('slow down', category='provider_rate_limit')
    >>> wiremap.get_format("open_chat")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    wiremap.runtime.format.UnknownFormatError: unknown format 'open_chat' (did you mean 'openai_chat'?); known formats: ...
    """
    fmt = _cache.get(key)
    if fmt is not None:
        return fmt
    module = _generated_modules().get(key) if isinstance(key, str) else None
    if module is None:  # not generated here: a third-party format (entry point), or unknown
        registry = _load_registry()
        if not isinstance(key, str) or key not in registry:
            raise UnknownFormatError(str(key), sorted(registry))
        module = registry[key]
    with _lock:
        fmt = _cache.get(key)
        if fmt is None:
            fmt = Format(importlib.import_module(module))
            _cache[key] = fmt
    return fmt


def load_format(source: ModuleType | str) -> Format:
    """A Format from a generated converter module, or from its file path.

    For converters generated outside this package (`wiremap generate --out DIR`), which need no
    registration to be used or tested.
    """
    if isinstance(source, ModuleType):
        return Format(source)
    import importlib.util
    import os

    import sys
    import types

    path = os.path.abspath(source)
    folder = os.path.dirname(path)
    # The folder is loaded as a package of its own, so a dialect's converter imports what it
    # shares with its base from the module beside it (codegen/emit/share.py), as it does in
    # wiremap.generated; one package per folder, whatever its name.
    package = f"wiremap_format_{abs(hash(folder)):x}"
    if package not in sys.modules:
        holder = types.ModuleType(package)
        holder.__path__ = [folder]
        sys.modules[package] = holder
    name = f"{package}.{os.path.splitext(os.path.basename(path))[0]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load a generated converter from {path}")
    module = importlib.util.module_from_spec(spec)  # read afresh on every call, as the file is now
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return Format(module)



class Translator:
    """Bodies of one format straight into another, without a loss report (`wiremap.translator`).

    `request(body)` returns exactly `target.request_to_wire(source.request_from_wire(body))`, and
    `response(body)` exactly `target.response_to_wire(source.response_from_wire(body))`: the same
    bodies, warnings and errors. Where a mapping asks for a fused translator from the source
    (its `fuse` row; `fused` is then True), `request` and `response` are its generated one-pass
    functions.
    For what the target cannot carry, use `translate_request` (it reports every loss).

    `request_with_losses(body)` is the fused translator's exact loss report: `(target body, added)`
    when the one-pass path takes `body` and can prove the translation loses nothing but, at most,
    the target's default for an absent option (`added`: its canonical path and value, which
    `translate_request` reports as that one `added` loss; else empty), or None (never raises, never
    warns; always None for a pair without a fused translator), and the two-step way says what is
    lost. `translate_request` and `wiremap convert` try it first (`translate.proven_losses`, which
    also takes a body whose top-level keys outside `source_reads` are the source's carried wire
    data, and names each `dropped`).
    """

    __slots__ = ("source", "target", "fused", "request", "response", "request_with_losses", "source_reads")

    def __init__(self, source: Format, target: Format) -> None:
        if source.kind != target.kind:
            from .errors import InvalidRequestError

            raise InvalidRequestError(
                f"{source.key} is kind {source.kind} and {target.key} is kind {target.kind}: only formats of one kind translate"
            )
        self.source = source
        self.target = target
        module = _fused_module(source.key, target.key)
        self.fused = module is not None
        src_request, dst_request = source.request_from_wire, target.request_to_wire
        src_response, dst_response = source.response_from_wire, target.response_to_wire
        # Carried wire data (runtime/carry.py) goes back only to a writer of the reader's own
        # ORIGIN; into any other, the reader's residual (a re-write and a diff of the whole body)
        # is computed and dropped. Between generated formats of two origins the source reads
        # without it: the same bodies, warnings and errors, without that work.
        s_origin = getattr(source.module, "ORIGIN", None)
        t_origin = getattr(target.module, "ORIGIN", None)
        if type(s_origin) is str and type(t_origin) is str and s_origin != t_origin:
            from .wire import read_without_carry

            def two_step_request(body: Any) -> Any:
                return dst_request(read_without_carry(src_request, body))

            def response(body: Any) -> Any:
                return dst_response(read_without_carry(src_response, body))

        else:

            def two_step_request(body: Any) -> Any:
                return dst_request(src_request(body))

            def response(body: Any) -> Any:
                return dst_response(src_response(body))

        self.request: Any = module.request if module is not None else two_step_request
        # the fused response (a module generated before it has none) answers the two-step way's
        # read_without_carry: only between two origins, and only for the modules it was made from
        fused_response = getattr(module, "response", None)
        if fused_response is not None and (
            getattr(module, "_src", None) is not source.module
            or getattr(module, "_dst", None) is not target.module
            or not (type(s_origin) is str and type(t_origin) is str and s_origin != t_origin)
        ):
            fused_response = None
        self.response: Any = fused_response if fused_response is not None else response
        exact = getattr(module, "request_with_losses", None)  # a module generated before it: none
        if exact is not None and (getattr(module, "_src", None) is not source.module or getattr(module, "_dst", None) is not target.module):
            exact = None  # a format of the same key from another module: its own tables decide
        self.request_with_losses: Callable[[Any], tuple[dict[str, Any], tuple[tuple[str, Any], ...]] | None] = (
            exact if exact is not None else _nothing_proven
        )
        # every top-level key the source's reader reads, where the rest (carried wire data)
        # never reaches the target: `translate.proven_losses` names those keys itself
        reads = getattr(module, "_SOURCE_READS", None) if exact is not None else None
        self.source_reads: frozenset[str] | None = (
            reads if type(s_origin) is str and type(t_origin) is str and s_origin != t_origin else None
        )

    def __repr__(self) -> str:
        return f"<wiremap.Translator {self.source.key!r} -> {self.target.key!r}{' (fused)' if self.fused else ''}>"


_translators: dict[tuple[str, str], Translator] = {}


def _nothing_proven(body: Any) -> None:
    """`Translator.request_with_losses` of a pair without a fused translator: nothing proven."""
    return None


def _fused_module(source: str, target: str) -> ModuleType | None:
    global _fused
    if _fused is None:
        _fused = dict(_fused_source())
    name = _fused.get((source, target))
    return None if name is None else importlib.import_module(name)


def translator(source: str | Format, target: str | Format) -> Translator:
    """The Translator from `source` to `target` (format keys or Formats); made once per pair.

    >>> import wiremap
    >>> to_anthropic = wiremap.translator("openai_chat", "anthropic_messages")
    >>> to_anthropic.request({"model": "gpt-4o", "messages": [{"role": "user", "content": "Hi"}], "max_completion_tokens": 50})
    {'model': 'gpt-4o', 'messages': [{'role': 'user', 'content': [{'type': 'text', 'text': 'Hi'}]}], 'max_tokens': 50}
    >>> wiremap.translator("openai_chat", "anthropic_messages") is to_anthropic
    True
    """
    src = source if isinstance(source, Format) else get_format(source)
    dst = target if isinstance(target, Format) else get_format(target)
    pair = (src.key, dst.key)
    found = _translators.get(pair)
    if found is None or found.source is not src or found.target is not dst:
        found = _translators[pair] = Translator(src, dst)
    return found

"""wiremap.runtime: the hand-written, stdlib-only runtime (docs/design.md).

Re-exports the canonical model, the error classes and request validation; `wiremap` re-exports
everything listed in `__all__`. Extend by appending imports and `__all__ +=` lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import canonical as _canonical
from . import errors as _errors
from . import validate as _validate
from .canonical import *  # noqa: F401,F403
from .errors import *  # noqa: F401,F403
from .validate import *  # noqa: F401,F403

__all__: list[str] = []
__all__ += _canonical.__all__
__all__ += _errors.__all__
__all__ += _validate.__all__

from . import format as _format  # noqa: E402
from .format import *  # noqa: E402,F401,F403

__all__ += _format.__all__

# Lazy (PEP 562): the HTTP Provider (asyncio, ssl, http.client), translation, wire rules and the
# stream engine load on first attribute access, so that `import wiremap` and `get_format` stay
# cheap. `from wiremap.runtime import Provider` works as before; the names are in `__all__`;
# type checkers see the real imports below. tests/test_lazy_import.py keeps LAZY in step
# with each module's own names.
LAZY: dict[str, tuple[str, ...]] = {
    "provider": ("Provider",),
    "retry": ("RetryPolicy", "RetryConfig"),
    "translate": (
        "Loss", "Translation", "TranslationLossError", "translate_request", "translate_response",
        "translate_error", "request_losses", "response_losses", "error_translation",
        "unique_tool_call_ids",
    ),
    "wire_rules": ("WireChange", "WireMap", "WireRepairWarning"),
    "stream": (
        "StreamAssembler", "StreamEmitter", "StreamParser", "StreamTranslation", "parse_stream",
        "stream_request_to_wire", "translate_stream",
    ),
}
LAZY_NAMES: dict[str, str] = {name: module for module, names in LAZY.items() for name in names}

for _names in LAZY.values():
    __all__ += _names
del _names

if TYPE_CHECKING:  # `X as X`: re-exported to type checkers (PEP 484)
    from .provider import Provider as Provider
    from .retry import RetryConfig as RetryConfig, RetryPolicy as RetryPolicy
    from .stream import (
        StreamAssembler as StreamAssembler,
        StreamEmitter as StreamEmitter,
        StreamParser as StreamParser,
        StreamTranslation as StreamTranslation,
        parse_stream as parse_stream,
        stream_request_to_wire as stream_request_to_wire,
        translate_stream as translate_stream,
    )
    from .translate import (
        Loss as Loss,
        Translation as Translation,
        TranslationLossError as TranslationLossError,
        error_translation as error_translation,
        request_losses as request_losses,
        response_losses as response_losses,
        translate_error as translate_error,
        translate_request as translate_request,
        translate_response as translate_response,
        unique_tool_call_ids as unique_tool_call_ids,
    )
    from .wire_rules import WireChange as WireChange, WireMap as WireMap, WireRepairWarning as WireRepairWarning


def __getattr__(name: str) -> Any:
    import importlib

    if name in LAZY:  # the submodule itself, as `import wiremap.runtime` used to bind it
        return importlib.import_module(f"{__name__}.{name}")
    module = LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(LAZY_NAMES))

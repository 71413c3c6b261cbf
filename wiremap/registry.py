"""The formats generated in this package, as the runtime's format registry reads them.

`wiremap.generated._index` lists every format generated in this tree (key -> module) and every
fused translator (source key, target key -> module). The runtime never imports generated code
itself: `wiremap` hands it these two functions as it loads (`runtime.format.use_generated`),
and `get_format` / `formats()` / `translator` call them on first use. Third-party formats come
in through the `wiremap.formats` entry-point group instead (runtime/format.py).
"""

from __future__ import annotations

__all__ = ["generated_formats", "fused_translators"]

_PACKAGE = "wiremap.generated"


def generated_formats() -> dict[str, str]:
    """Key -> module name of each format generated in this tree; {} before `wiremap generate`."""
    try:
        from wiremap.generated._index import FORMATS
    except ImportError:  # a tree whose generated/ has not been produced yet
        return {}
    return {key: f"{_PACKAGE}.{module}" for key, (module, _provider, _source) in FORMATS.items()}


def fused_translators() -> dict[tuple[str, str], str]:
    """(source key, target key) -> module name of each fused translator (mapping `fuse` rows)."""
    try:
        from wiremap.generated._index import FUSED
    except ImportError:  # a tree generated before fused translators
        return {}
    return {pair: f"{_PACKAGE}.{name}" for pair, name in FUSED.items()}

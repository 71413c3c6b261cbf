"""wiremap: LLM provider wire formats as declarative mapping tables, compiled to Python.

Public API (stable names):

    wiremap.formats()            -> list of registered format keys
    wiremap.get_format(key)      -> Format (request_to_wire, response_from_wire, ...)
    wiremap.Request / Response   -> typed canonical model (from_dict / to_dict)
    wiremap.ProviderError and one subclass per error category
"""

from __future__ import annotations

import os as _os

# In a source checkout the sub-packages (runtime/, codegen/, generated/) sit at the top
# level of the repository, beside this folder; an installed wheel places them inside it.
_here = _os.path.dirname(_os.path.abspath(__file__))
_root = _os.path.dirname(_here)
if not _os.path.isdir(_os.path.join(_here, "runtime")) and _os.path.isfile(
    _os.path.join(_root, "runtime", "__init__.py")
):
    __path__.append(_root)

from typing import TYPE_CHECKING, Any  # noqa: E402

from wiremap import runtime as _runtime  # noqa: E402
from wiremap.runtime import __all__ as _runtime_all  # noqa: E402

# Everything the runtime exports eagerly is bound here now; its lazy names (Provider,
# translation, wire rules, the stream engine: wiremap.runtime._LAZY) on first access (PEP 562).
globals().update({_n: getattr(_runtime, _n) for _n in _runtime_all if _n not in _runtime._LAZY_NAMES})

if TYPE_CHECKING:
    from wiremap.runtime import *  # noqa: F401,F403

__version__ = "0.1.0"
__all__ = [*_runtime_all, "__version__"]


def __getattr__(name: str) -> Any:
    if name in _runtime._LAZY_NAMES:
        value = getattr(_runtime, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_runtime._LAZY_NAMES))

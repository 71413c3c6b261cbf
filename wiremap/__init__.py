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

from wiremap.runtime import *  # noqa: E402,F401,F403
from wiremap.runtime import __all__ as _runtime_all  # noqa: E402

__version__ = "0.1.0"
__all__ = [*_runtime_all, "__version__"]

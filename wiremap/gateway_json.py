"""JSON parsing for the gateway's request bodies: orjson when it is installed (the
`gateway-fast` extra), the standard library otherwise, with the same result either way.

orjson differs from `json.loads` on a few inputs; each of them falls back to the standard
library, so the value (and so every byte the gateway sends) is the same:
- integers beyond 64 bits (orjson reads them as floats): a body holding a run of 19 or more
  digits is parsed by the standard library;
- `NaN`, `Infinity`, lone surrogate escapes (`"\\ud800"`), invalid UTF-8: orjson refuses them,
  the standard library is asked, and its answer (or its error) is the result.

Serialising stays with the standard library: the gateway's answers are small next to the
rest of a request's work (bench/NOTES.md), and orjson writes some floats differently
(`1e-7` for `1e-07`, `0.00001` for `1e-05`) and NaN as `null`.

`WIREMAP_GATEWAY_JSON=stdlib` in the environment turns the accelerator off.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from typing import Any

__all__ = ["ACCELERATOR", "loads", "stdlib_loads"]

_LONG_INT = re.compile(rb"\d{19}")


def stdlib_loads(raw: bytes) -> Any:
    """`json.loads` (the reference the accelerated path must equal)."""
    return json.loads(raw)


def _accelerated() -> tuple[str, Callable[[bytes], Any]]:
    if os.environ.get("WIREMAP_GATEWAY_JSON", "").strip().lower() == "stdlib":
        return "stdlib", stdlib_loads
    try:
        import orjson
    except ImportError:
        return "stdlib", stdlib_loads
    fast = orjson.loads
    fast_error = orjson.JSONDecodeError
    long_int = _LONG_INT.search

    def orjson_loads(raw: bytes) -> Any:
        if long_int(raw) is None:
            try:
                return fast(raw)
            except fast_error:
                pass  # the standard library decides (it accepts NaN, lone surrogates; or raises)
        return json.loads(raw)

    return "orjson", orjson_loads


ACCELERATOR, loads = _accelerated()

"""A content-addressed cache for the generator's two costly pure steps (issue 16: the edit loop).

`black` formatting and datamodel-code-generator's TypedDicts take most of a `wiremap generate`
run (~60 s for every mapping). Both are pure functions of their input text and the pinned tool
versions, so their output is kept under the SHA-256 of (step, tool version, options, input):
after a one-file edit only the modules whose text changed are formatted again, and the output
is byte-identical to an uncached run (`make check` in a fresh clone has no cache and gives the
same tree).

Where: `$WIREMAP_CODEGEN_CACHE`, else `$XDG_CACHE_HOME/wiremap-codegen`, else
`~/.cache/wiremap-codegen`; `WIREMAP_CODEGEN_CACHE=off` turns it off. A cache that cannot be
read or written is skipped, never an error.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable

__all__ = ["cached"]


def _folder() -> str | None:
    setting = os.environ.get("WIREMAP_CODEGEN_CACHE")
    if setting is not None:
        return None if setting.strip().lower() in ("", "off", "0", "no") else setting
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "wiremap-codegen")


def cached(step: str, version: str, text: str, compute: Callable[[str], str]) -> str:
    """`compute(text)`, from the cache when this step has seen this text under this version."""
    folder = _folder()
    if folder is None:
        return compute(text)
    key = hashlib.sha256(f"{step}\0{version}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
    path = os.path.join(folder, key[:2], key)
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        pass
    result = compute(text)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(result)
        os.replace(tmp, path)  # whole or not at all: a reader never sees half a file
    except OSError:
        pass
    return result

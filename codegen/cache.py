"""A content-addressed cache for the generator's two costly pure steps (issue 16: the edit loop).

`black` formatting and datamodel-code-generator's TypedDicts take most of a `wiremap generate`
run (~60 s for every mapping). Both are pure functions of their input text and the pinned tool
versions, so their output is kept under the SHA-256 of (step, tool version, options, input):
after a one-file edit only the modules whose text changed are formatted again, and the output
is byte-identical to an uncached run (`make check` in a fresh clone has no cache and gives the
same tree). `generate` also keeps each format's finished files here (`load`/`store`, step
"format"), keyed by everything they depend on (codegen/generate.py `_format_key`).
The function-shape templates' compiled bytecode is kept in its `jinja/` folder
(codegen/emit/shapes.py).

Where: `$WIREMAP_CODEGEN_CACHE`, else `$XDG_CACHE_HOME/wiremap-codegen`, else
`~/.cache/wiremap-codegen`; `WIREMAP_CODEGEN_CACHE=off` turns it off. A cache that cannot be
read or written is skipped, never an error.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable

__all__ = ["ahead", "cached", "folder", "forget_ahead", "load", "store"]


def _folder() -> str | None:
    setting = os.environ.get("WIREMAP_CODEGEN_CACHE")
    if setting is not None:
        return None if setting.strip().lower() in ("", "off", "0", "no") else setting
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "wiremap-codegen")


def folder() -> str | None:
    """The cache's folder (None when the cache is off); other caches of the generator live in it."""
    return _folder()


def _path(step: str, version: str, text: str) -> str | None:
    folder = _folder()
    if folder is None:
        return None
    key = hashlib.sha256(f"{step}\0{version}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()
    return os.path.join(folder, key[:2], key)


def load(step: str, version: str, text: str) -> str | None:
    """What `store` kept for this step, version and input; None when absent (or the cache is off)."""
    path = _path(step, version, text)
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError):
        return None


def store(step: str, version: str, text: str, result: str) -> None:
    """Keep `result` for this step, version and input (skipped when the cache is off or unwritable)."""
    path = _path(step, version, text)
    if path is None:
        return
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path))
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(result)
        os.replace(tmp, path)  # whole or not at all: a reader never sees half a file
    except OSError:
        pass


#: results `ahead` computed in other processes, by (step, version, text); each taken once
_READY: dict[tuple[str, str, str], str] = {}


def ahead(step: str, version: str, texts: list[str], compute: Callable[[str], str], workers: int) -> int:
    """Run `compute` on `workers` processes over the texts this step has not seen yet, into the
    cache, so that the `cached` calls that want them (in order, in this process) return at once;
    `compute` must be a module-level function (it is sent to the processes). Nothing is started
    for fewer than two processes or texts. Returns how many it computed."""
    todo = list(dict.fromkeys(text for text in texts if (step, version, text) not in _READY and load(step, version, text) is None))
    workers = min(workers, len(todo))
    if workers < 2:
        return 0
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)  # fork: the tools are imported already
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        for text, result in zip(todo, pool.map(compute, todo, chunksize=1)):
            _READY[(step, version, text)] = result
            store(step, version, text, result)
    return len(todo)


def forget_ahead() -> None:
    """Drop what `ahead` computed that no `cached` call took (a run that failed)."""
    _READY.clear()


def cached(step: str, version: str, text: str, compute: Callable[[str], str]) -> str:
    """`compute(text)`, from the cache when this step has seen this text under this version."""
    ready = _READY.pop((step, version, text), None)
    if ready is not None:
        return ready
    hit = load(step, version, text)
    if hit is not None:
        return hit
    result = compute(text)
    store(step, version, text, result)
    return result

"""Function shapes: the layout of generated functions lives in jinja2 templates (issue 16).

A converter function is a fixed shape with a few holes that depend on the mapping. The shape is
a macro in codegen/emit/templates/functions/*.jinja; the Python beside it (codegen/emit/messages.py,
codegen/sections/task.py) computes the holes, the small per-construct hooks: an expression, a
condition, a list of rows, or a fragment of statements (a `Lines.part()`, written by the shared
builders such as `Emitter.build_node`). `shape` renders one macro and appends its lines to a
function body, so a template and `Lines.add` can write the same body one after the other.

Templates see the hooks and two filters: `lit` (a Python literal for a mapping value: the only
way mapping text enters generated code, as in codegen/emit/lines.py) and `keyed` (a message
naming the format's key, the global `FORMAT_KEY` in it). `code(width)` places a fragment: its first line where the placeholder
stands, the rest `width` columns in. A line that renders blank (an empty fragment, an unused
hole) is left out, so no generated body holds a blank line.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import jinja2
from jinja2.bccache import Bucket

from ..cache import folder
from .lines import FORMAT_KEY, Lines, keyed, lit

__all__ = ["shape", "shaped", "shaped_part"]


def _code(fragment: "Lines | list[str] | str", width: int = 0) -> str:
    """A fragment's lines as template text: the first line where the placeholder stands, the
    others indented by `width` (the placeholder's column)."""
    if isinstance(fragment, str):
        lines = fragment.split("\n")
    else:
        lines = fragment.lines if isinstance(fragment, Lines) else fragment
    return ("\n" + " " * width).join(lines)


class _Bytecode(jinja2.FileSystemBytecodeCache):
    """The compiled templates, kept in the generator's cache (codegen/cache.py: keyed by each
    template's source, so an edited template compiles again); one that cannot be read or written
    is compiled as without it, never an error."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, EOFError, ValueError, TypeError):
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _bytecode() -> _Bytecode | None:
    where = folder()
    return None if where is None else _Bytecode(os.path.join(where, "jinja"))


_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("wiremap.codegen.emit", "templates"),
    bytecode_cache=_bytecode(),  # compiling the templates costs more than rendering them all
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=False,
    autoescape=False,
)
_ENV.filters["lit"] = lit
_ENV.filters["keyed"] = keyed
_ENV.filters["code"] = _code
_ENV.filters["tuple"] = tuple
_ENV.globals["FORMAT_KEY"] = FORMAT_KEY  # a message naming the format: `(... ~ FORMAT_KEY ~ ...)|keyed`


@functools.cache
def _macros(template: str) -> Any:
    return _ENV.get_template(f"functions/{template}.jinja").module


def shape(out: Lines, template: str, macro: str, **hooks: Any) -> None:
    """Render the macro `macro` of templates/functions/`template`.jinja with `hooks` and append
    its lines to `out` at `out`'s indent (blank lines left out)."""
    text = str(getattr(_macros(template), macro)(**hooks))
    for line in text.split("\n"):
        if line.strip():
            out.add(line)


def shaped(template: str, macro: str, **hooks: Any) -> list[str]:
    """A whole function body from one macro (see `shape`)."""
    out = Lines()
    shape(out, template, macro, **hooks)
    return out.lines


def shaped_part(out: Lines, template: str, macro: str, **hooks: Any) -> Lines:
    """A fragment of `out`'s body (`Lines.part`) laid out by one macro, for another to place."""
    part = out.part()
    shape(part, template, macro, **hooks)
    return part

"""The pieces every emitter shares: Python literals, generated functions, and indented lines.

The lowest module of the emit stage: `emit` (the Emitter) and every `emit_*` module import
from here, and this module imports nothing of the generator's (tests/test_imports.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Func", "Lines", "ModuleParts", "lit", "wire_type"]


def lit(value: Any) -> str:
    """A Python literal for a JSON value (the only way mapping text enters generated code)."""
    return repr(value)


#: where a message names the format's key: `keyed` writes it as the module's `KEY` constant, so a
#: dialect compiles the message to the same code as its base (codegen/emit/share.py shares it)
FORMAT_KEY = "\x00KEY\x00"


def keyed(text: str) -> str:
    """A Python expression for the message `text`, each FORMAT_KEY in it read from `KEY`."""
    pieces = text.split(FORMAT_KEY)
    parts: list[str] = []
    for i, piece in enumerate(pieces):
        if piece:
            parts.append(lit(piece))
        if i < len(pieces) - 1:
            parts.append("KEY")
    return " + ".join(parts) or "''"


def wire_type(key: str, part: str) -> str:
    """The name of a format's wire TypedDict in generated/<module>_types.py: `part` is "" (the
    schema's title), "Request" or "Response" (`openai_chat` -> `OpenaiChatRequest`). The schema
    (codegen/emit/wire_schema.py) and the converters' signatures both take the name from here."""
    return "".join(p.capitalize() for p in re.split(r"[._]", key)) + part


@dataclass
class Func:
    """One generated function: its name, `(parameters) -> return` signature, docstring and body."""

    name: str
    signature: str
    doc: str
    body: list[str]


@dataclass
class ModuleParts:
    """What the emitters contribute to one generated module: constants, functions, public names."""

    constants: list[str] = field(default_factory=list)
    functions: list[Func] = field(default_factory=list)
    public: list[str] = field(default_factory=list)


class Lines:
    """A function body being written: lines at an indent level, and fresh variable names."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.level = 1
        self._count = [0]  # shared with this body's fragments (`part`)

    @property
    def counter(self) -> int:
        """The last fresh name's number (shared by the body and its fragments)."""
        return self._count[0]

    @counter.setter
    def counter(self, value: int) -> None:
        self._count[0] = value

    def part(self) -> "Lines":
        """A fragment of this body for a function-shape template (codegen/emit/shapes.py): its
        lines start at indent 0, the template places them, and its fresh names continue this
        body's numbering, so a body written through templates names its locals as before."""
        fragment = Lines()
        fragment.level = 0
        fragment._count = self._count
        return fragment

    def add(self, text: str) -> None:
        self.lines.append("    " * self.level + text)

    def indent(self) -> None:
        self.level += 1

    def dedent(self) -> None:
        self.level -= 1

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}_{self.counter}"

"""The pieces every emitter shares: Python literals, generated functions, and indented lines.

The lowest module of the emit stage: `emit` (the Emitter) and every `emit_*` module import
from here, and this module imports nothing of the generator's (tests/test_imports.py).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Func", "Lines", "ModuleParts", "free_and_bound", "lit", "rename", "wire_type"]

_PREFIX = re.compile(r"[A-Za-z]*")  # a string token's prefix (f, rf, ...): always matches


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


def free_and_bound(code: str) -> tuple[set[str], set[str]]:
    """The names a fragment (function-body lines) reads without binding them, and those it binds."""
    tree = ast.parse("def _fragment():\n" + code)
    bound: set[str] = set()
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else used).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    bound.discard("_fragment")
    return used - bound, bound


def rename(lines: list[str], names: dict[str, str]) -> list[str]:
    """`lines` with each name in `names` (a variable, or a global as `_dst.name`) renamed where it
    is a name: not an attribute (`x.name`), not a keyword argument (`f(name=...)`), and inside
    f-strings' replacement fields too."""
    if not names:
        return lines
    text = "\n".join(lines) + "\n"
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    fields = re.compile(r"\{(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![\w])")
    out = []
    significant = [t for t in tokens if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT)]
    prev: dict[int, tokenize.TokenInfo | None] = {}
    nxt: dict[int, tokenize.TokenInfo | None] = {}
    for k, tok in enumerate(significant):
        prev[id(tok)] = significant[k - 1] if k else None
        nxt[id(tok)] = significant[k + 1] if k + 1 < len(significant) else None
    for tok in tokens:
        if tok.type == tokenize.NAME and tok.string in names:
            before, after = prev.get(id(tok)), nxt.get(id(tok))
            attribute = before is not None and before.string == "."
            keyword = after is not None and after.string == "=" and before is not None and before.string in ("(", ",")
            if not attribute and not keyword:
                tok = tok._replace(string=names[tok.string])
        elif tok.type == tokenize.STRING and (prefix := _PREFIX.match(tok.string)) is not None and "f" in prefix.group().lower():
            tok = tok._replace(string=fields.sub(lambda m: "{" + names[m.group(1)], tok.string))
        out.append(tok)
    return tokenize.untokenize(out).rstrip("\n").split("\n")

"""Stage 1 (load): read mapping files strictly, keeping the line of every node.

Errors carry `file:line` and the YAML path (`/request/options/max_tokens`), so a user who
mistypes a table sees where, not a traceback.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

__all__ = ["MappingError", "SourceFile", "load_file", "load_fixtures", "json_pointer", "FIXTURES_FOLDER"]

#: The folder beside the mapping files that holds their fixtures: `mappings/fixtures/<key>.yaml`.
FIXTURES_FOLDER = "fixtures"


class MappingError(Exception):
    """A mapping file is wrong. The message reads `file:line: /yaml/path: what was expected`."""

    def __init__(self, file: str, line: int | None, path: str, message: str) -> None:
        self.file = file
        self.line = line
        self.yaml_path = path
        self.detail = message
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {path or '/'}: {message}")


def json_pointer(parts: tuple[Any, ...] | list[Any]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


@dataclass
class SourceFile:
    """One loaded mapping file: its data and the line of each YAML path in it."""

    path: str  # as shown to users (relative to the mappings folder's parent when possible)
    data: dict[str, Any]
    lines: dict[str, int] = field(default_factory=dict)
    #: the file `fixtures:` was read from when it is not this one (`mappings/fixtures/<key>.yaml`)
    fixtures_path: str | None = None

    def file_of(self, pointer: str) -> str:
        """The file that holds the node at `pointer`: this one, or its fixtures file."""
        if self.fixtures_path is not None and (pointer == "/fixtures" or pointer.startswith("/fixtures/")):
            return self.fixtures_path
        return self.path

    def line_of(self, pointer: str) -> int | None:
        # The nearest enclosing node that has a recorded line.
        while True:
            if pointer in self.lines:
                return self.lines[pointer]
            if not pointer:
                return None
            pointer = pointer.rsplit("/", 1)[0]

    def error(self, pointer: str, message: str) -> MappingError:
        return MappingError(self.file_of(pointer), self.line_of(pointer), pointer, message)


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that keeps every scalar a plain JSON value (no dates, no merges)."""


# Mappings are JSON-shaped data read with YAML 1.2 core-schema scalars: no timestamps
# ("2023-06-01" stays a string) and no YAML 1.1 booleans (`on`, `off`, `yes`, `no` stay strings);
# only true/false and null/~/empty are special.
_StrictLoader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag not in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null")]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}
_StrictLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)
_StrictLoader.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])


def _check_text(text: str, src: SourceFile, line: int, pointer: tuple[Any, ...]) -> None:
    """Text must be valid Unicode: a lone surrogate (a `\\ud800` escape) cannot be written out."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MappingError(
            src.path, line, json_pointer(pointer),
            f"lone surrogate U+{ord(text[exc.start]):04X} in text; not valid Unicode",
        ) from None


def _construct(
    node: Node, loader: _StrictLoader, src: SourceFile, pointer: tuple[Any, ...], line: int | None = None
) -> Any:
    # A mapping's value is reported at its key's line (a block value starts a line later).
    src.lines[json_pointer(pointer)] = line if line is not None else node.start_mark.line + 1
    if isinstance(node, MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise MappingError(
                    src.path, key_node.start_mark.line + 1, json_pointer(pointer),
                    "YAML merge keys (<<) are not allowed; use `extends:`",
                )
            key = loader.construct_object(key_node, deep=True)
            if isinstance(key, (int, float)) and not isinstance(key, bool):
                key = key_node.value  # as written: `404:` is the key "404"
            if not isinstance(key, str):
                raise MappingError(
                    src.path, key_node.start_mark.line + 1, json_pointer(pointer),
                    f"keys must be strings, got {key!r}; quote it",
                )
            _check_text(key, src, key_node.start_mark.line + 1, pointer)
            if key in out:
                raise MappingError(
                    src.path, key_node.start_mark.line + 1, json_pointer(pointer + (key,)),
                    f"duplicate key {key!r}",
                )
            out[key] = _construct(value_node, loader, src, pointer + (key,), key_node.start_mark.line + 1)
        return out
    if isinstance(node, SequenceNode):
        return [_construct(item, loader, src, pointer + (i,)) for i, item in enumerate(node.value)]
    assert isinstance(node, ScalarNode)
    value = loader.construct_object(node, deep=True)
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        raise MappingError(src.path, node.start_mark.line + 1, json_pointer(pointer), "NaN and infinities are not JSON")
    if isinstance(value, str):
        _check_text(value, src, node.start_mark.line + 1, pointer)
    if not (value is None or isinstance(value, (str, int, float, bool))):
        raise MappingError(
            src.path, node.start_mark.line + 1, json_pointer(pointer),
            f"unsupported YAML value of type {type(value).__name__}",
        )
    return value


def _char(character: int | bytes | str) -> str:
    if isinstance(character, int):
        return f"U+{character:04X}"
    if isinstance(character, str) and len(character) == 1:
        return f"U+{ord(character):04X}"
    return repr(character)


def load_file(path: str, display: str | None = None, expected: str = "a mapping with `meta:`") -> SourceFile:
    """Read one mapping file. Raises MappingError for unreadable files and bad YAML."""
    shown = display or path
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise MappingError(shown, None, "", f"cannot read file: {exc}") from None
    src = SourceFile(path=shown, data={})
    loader: _StrictLoader | None = None
    try:
        # The reader rejects non-printable characters (NUL, lone surrogates) in the constructor.
        loader = _StrictLoader(text)
        node = loader.get_single_node()
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        raise MappingError(shown, line, "", f"invalid YAML: {exc.reason} ({_char(exc.character)})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        mark_line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise MappingError(shown, mark_line, "", f"invalid YAML: {problem}") from None
    except RecursionError:
        raise MappingError(shown, None, "", "YAML nesting too deep") from None
    finally:
        if loader is not None:
            loader.dispose()
    if node is None:
        raise MappingError(shown, 1, "", f"empty file; expected {expected}")
    if not isinstance(node, MappingNode):
        raise MappingError(shown, node.start_mark.line + 1, "", "expected a mapping at the top level")
    assert loader is not None
    try:
        data = _construct(node, loader, src, ())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise MappingError(shown, mark.line + 1 if mark else None, "", f"invalid YAML: {exc}") from None
    except RecursionError:
        raise MappingError(shown, None, "", "YAML nesting too deep") from None
    src.data = data
    return src


def load_fixtures(src: SourceFile, path: str, display: str) -> None:
    """Read a fixtures file (`mappings/fixtures/<key>.yaml`: one key, `fixtures:`, the same list a
    mapping's own `fixtures:` section holds) into the mapping `src`. Errors in it name that file
    and its lines. A mapping with fixtures in both places is refused: one file holds them."""
    fx = load_file(path, display, "a mapping with `fixtures:`")
    extra = [k for k in fx.data if k != "fixtures"]
    if extra:
        raise fx.error(json_pointer([extra[0]]), f"unknown key {extra[0]!r}; a fixtures file holds only `fixtures:`")
    if "fixtures" not in fx.data:
        raise fx.error("", "expected `fixtures:` (the list of test cases of the mapping)")
    if "fixtures" in src.data:
        raise src.error("/fixtures", f"fixtures are given both here and in {display}; keep them in one place")
    src.data["fixtures"] = fx.data["fixtures"]
    src.lines.update((k, line) for k, line in fx.lines.items() if k == "/fixtures" or k.startswith("/fixtures/"))
    src.fixtures_path = display


def display_path(path: str, base: str) -> str:
    try:
        rel = os.path.relpath(path, base)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel

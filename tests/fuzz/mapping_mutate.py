"""Mutation fuzzing of mapping files through the generator (issue #6), shared by two drivers.

- tests/fuzz/test_fuzz_mappings.py: the CI-sized run (hypothesis draws the `random.Random`);
- bench/fuzz_mappings.py (`make fuzz`): the long run, the same operators from a seeded loop.

A family is one mapping file (the golden tiny ones, every `mappings/*.yaml` and every dialect).
A case copies the file and the files it `extends` (transitively) into a temp mappings folder,
mutates the file and runs `wiremap.codegen.generate` on the folder:
- structurally, over its YAML data, with tests/fuzz/mutate.py's operators (keys removed, wrong
  types, huge / empty values, unknown enum values, nulls, deep nesting, lone surrogates, bytes),
  dumped back to YAML (lone surrogates written as invalid UTF-8);
- textually: truncated, invalid UTF-8 bytes, a lone surrogate, broken YAML punctuation, tabs,
  duplicated or deleted lines, a deeply nested flow collection.

The oracle (`check`): generation returns, or raises `MappingError` (exactly that class) whose
message starts with `<file>:<line>: ` (or `<file>: ` where no line applies); when it returns,
every generated converter module imports from a temp package.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import itertools
import os
import random
import re
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutate  # noqa: E402

from wiremap.codegen import MappingError, generate  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "mappings"
REAL = ROOT / "mappings"


def _files(root: Path) -> list[Path]:
    """The mapping files below `root` (not `fixtures/`, which holds their fixtures)."""
    return sorted(
        p
        for p in root.rglob("*.yaml")
        if not any(part.startswith(("_", ".")) for part in p.relative_to(root).parts) and p.relative_to(root).parts[0] != "fixtures"
    )


def _fixture_files(root: Path) -> list[Path]:
    """`fixtures/<key>.yaml`: the fixtures of format `<key>` (mappings/README.md "fixtures")."""
    return sorted(p for p in (root / "fixtures").glob("*.yaml") if not p.name.startswith(("_", ".")))


def _is_fixtures(root: Path, path: Path) -> bool:
    return path.parent == root / "fixtures"


def _key(root: Path, path: Path) -> str:
    rel = path.relative_to(root).with_suffix("").parts
    return ".".join(rel[1:]) if rel[0] == "dialects" else rel[-1]


#: family name -> (mappings root, file); golden first (they are small and fast to generate)
FAMILIES: dict[str, tuple[Path, Path]] = {
    **{f"golden:{_key(GOLDEN, p)}": (GOLDEN, p) for p in _files(GOLDEN)},
    **{_key(REAL, p): (REAL, p) for p in _files(REAL)},
    # a fixtures file is a family of its own: mutated with its mapping chain beside it
    **{f"golden:fixtures:{p.stem}": (GOLDEN, p) for p in _fixture_files(GOLDEN)},
    **{f"fixtures:{p.stem}": (REAL, p) for p in _fixture_files(REAL)},
}
GOLDEN_FAMILIES = [k for k in FAMILIES if k.startswith("golden:")]


@functools.cache
def _extends(root: Path) -> dict[Path, Path | None]:
    keys = {_key(root, p): p for p in _files(root)}
    out: dict[Path, Path | None] = {}
    for key, path in keys.items():
        data = yaml.safe_load(path.read_text("utf-8"))
        base = data.get("extends") if isinstance(data, dict) else None
        out[path] = keys.get(base) if isinstance(base, str) else None
    return out


def chain(family: str) -> list[Path]:
    """The family's file and every file it extends (transitively); a fixtures file's family is
    the fixtures file, then its mapping's chain."""
    root, path = FAMILIES[family]
    out: list[Path] = []
    cur: Path | None = path
    if _is_fixtures(root, path):
        out.append(path)
        cur = {_key(root, p): p for p in _files(root)}[path.stem]
    while cur is not None and cur not in out:
        out.append(cur)
        cur = _extends(root)[cur]
    return out


# ------------------------------------------------------------------------------- operators

_BROKEN = ("\t", ": :", "[", "]", "{", "}", "&a ", "*a", "*missing", "!!python/object:os.system ", "? ", "- ", "|", ">", "%YAML 1.1\n", "---\n", "...\n", "'", '"', "\\", "<<: *a\n", "@", "`", "#")


def _dump(data: Any) -> bytes:
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)
    return text.encode("utf-8", "surrogatepass")


def _mutate_text(rng: random.Random, raw: bytes) -> tuple[bytes, str]:
    op = rng.randrange(8)
    cut = rng.randrange(len(raw) + 1)
    if op == 0:
        return raw[:cut], f"truncate@{cut}"
    if op == 1:
        bad = rng.choice((b"\xff", b"\xfe\xff", b"\xc3", b"\xed\xa0\x80", b"\x80\x80", b"\x00", b"\xef\xbb\xbf"))
        return raw[:cut] + bad + raw[cut:], f"invalid_utf8@{cut}"
    if op == 2:
        piece = rng.choice(_BROKEN).encode()
        return raw[:cut] + piece + raw[cut:], f"broken_yaml@{cut}"
    lines = raw.split(b"\n")
    i = rng.randrange(len(lines))
    if op == 3:
        del lines[i]
        return b"\n".join(lines), f"delete_line@{i + 1}"
    if op == 4:
        lines.insert(i, lines[i])
        return b"\n".join(lines), f"duplicate_line@{i + 1}"
    if op == 5:
        lines[i] = b"\t" + lines[i] if rng.random() < 0.5 else b" " + lines[i]
        return b"\n".join(lines), f"indent@{i + 1}"
    if op == 6:
        depth = rng.choice((100, 1000, 5000))
        deep = b"[" * depth + b"1" + b"]" * depth if rng.random() < 0.5 else b"{a: " * depth + b"1" + b"}" * depth
        return raw + b"\nzz_deep: " + deep + b"\n", f"deep_flow@{depth}"
    return raw + rng.choice((b"\nmeta: {}\n", b"\n? [a, b]\n: 1\n", b"\n1: 2\n", b"\nnull: x\n", b"\n'': x\n")), "append_key"


def mutate_file(rng: random.Random, raw: bytes) -> tuple[bytes, list[str]]:
    """A mutated copy of one mapping file's bytes, and what was done to it."""
    if rng.random() < 0.7:
        data = yaml.safe_load(raw.decode("utf-8"))
        paths = mutate._paths(data)
        new, done = mutate.mutate(rng, data, paths)
        try:
            return _dump(new), done
        except (yaml.YAMLError, RecursionError, ValueError):
            pass  # not representable as YAML (e.g. nesting too deep for PyYAML's dumper)
    out, op = _mutate_text(rng, raw)
    return out, [op]


# ---------------------------------------------------------------------------------- oracle


class Finding(AssertionError):
    """The generator broke its contract on one mapping file."""


_MESSAGE = re.compile(r"^[^\n]+?\.yaml(?::\d+)?: ")
_ids = itertools.count()


def _import_tree(files: dict[str, str], root: Path) -> list[str]:
    package = f"wiremap_fuzz_pkg_{os.getpid()}_{next(_ids)}"
    path = root / package
    path.mkdir(parents=True)
    for rel, text in files.items():
        (path / rel).write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(package, path / "__init__.py", submodule_search_locations=[str(path)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    names = ["_index"] + sorted(rel[:-3] for rel in files if rel.endswith(".py") and not rel.startswith(("test_", "_")) and rel != "__init__.py")
    try:
        spec.loader.exec_module(module)
        for name in names:
            try:
                importlib.import_module(f"{package}.{name}")
            except BaseException as exc:  # noqa: BLE001
                raise Finding(f"generated module {name}.py fails to import: {type(exc).__name__}: {exc!s:.300}") from exc
    finally:
        for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
            del sys.modules[name]
    return names


def check(family: str, raw: bytes) -> str:
    """Generate with the family's file replaced by `raw`; 'ok', or 'error'. Raises Finding."""
    root, path = FAMILIES[family]
    with tempfile.TemporaryDirectory(prefix="wiremap-fuzz-") as tmp:
        folder = Path(tmp) / root.name
        own = root / "fixtures" / f"{_key(root, path)}.yaml"  # the mapping's own fixtures, if in a file
        for f in chain(family) + ([own] if not _is_fixtures(root, path) and own.is_file() else []):
            dest = folder / f.relative_to(root)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(f, dest)
        (folder / path.relative_to(root)).write_bytes(raw)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                files = generate(str(folder))
        except MappingError as exc:
            if type(exc) is not MappingError:
                raise Finding(f"a subclass {type(exc).__name__} of MappingError") from exc
            message = str(exc)
            if not _MESSAGE.match(message):
                raise Finding(f"MappingError without file:line: {message!s:.300}") from exc
            if exc.line is not None and not (type(exc.line) is int and exc.line >= 1):
                raise Finding(f"MappingError with line {exc.line!r}") from exc
            return "error"
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001
            raise Finding(f"generate raised {type(exc).__name__}: {exc!s:.300}") from exc
        for rel, text in files.items():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise Finding(f"generated {rel} is not valid UTF-8 text: {exc}") from exc
        _import_tree(files, Path(tmp) / "pkg")
        return "ok"


def case(rng: random.Random, family: str) -> tuple[bytes, list[str]]:
    return mutate_file(rng, FAMILIES[family][1].read_bytes())

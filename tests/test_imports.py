"""The import structure of runtime/, codegen/ and wiremap/ (issue 16): no import cycles, no
module importing another module's private names, and no runtime module importing generated code.

Read from the source with `ast`, so every import counts: at module level, inside functions,
and under `if TYPE_CHECKING:`. generated/ is left out: generated converters import the
runtime's helpers (`from wiremap.runtime import wire as _w`), which is what the runtime is for.

The cycle check follows the imports that run: module-level ones, those inside functions, and a
package `__init__`'s `if TYPE_CHECKING:` block, which mirrors the submodules the package loads
on attribute access (PEP 562). Other `if TYPE_CHECKING:` imports never run (annotations only:
a feature module such as codegen/sections/wire_rules.py names the Emitter that way) and are left out of
it; the private-name check covers them too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# source folder -> its package in an installed wheel (pyproject.toml [tool.setuptools])
PACKAGES = {"runtime": "wiremap.runtime", "codegen": "wiremap.codegen", "wiremap": "wiremap"}
GENERATED = "wiremap.generated"


@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    line: int
    target: str  # the imported module (an internal one)
    name: str | None  # the name imported from it (None: the module itself)
    type_only: bool  # under `if TYPE_CHECKING:`

    def where(self) -> str:
        return f"{MODULES[self.module].relative_to(ROOT)}:{self.line}"


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):  # codegen's stage folders too
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports_of(module: str) -> tuple[list[Import], list[tuple[int, str]], list[tuple[int, str, str]]]:
    """The module's imports of internal modules, its imports of generated code (line, module),
    and its reads of private attributes of internal modules (line, module, name)."""
    path = MODULES[module]
    package = module if path.stem == "__init__" else module.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[Import] = []
    generated: list[tuple[int, str]] = []
    aliases: dict[str, str] = {}  # local name -> the internal module it is bound to

    def absolute(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = package.split(".")
        parts = parts[: len(parts) - (node.level - 1)]
        return ".".join([*parts, *([node.module] if node.module else [])])

    def visit(node: ast.AST, type_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            child_type_only = type_only or (
                isinstance(node, ast.If) and _is_type_checking(node.test) and child in node.body
            )
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name == GENERATED or alias.name.startswith(GENERATED + "."):
                        generated.append((child.lineno, alias.name))
                    if alias.name in MODULES:
                        found.append(Import(module, child.lineno, alias.name, None, child_type_only))
                        aliases[alias.asname or alias.name] = alias.name
            elif isinstance(child, ast.ImportFrom):
                source = absolute(child)
                if source == GENERATED or source.startswith(GENERATED + "."):
                    generated.append((child.lineno, source))
                for alias in child.names:
                    submodule = f"{source}.{alias.name}"
                    if submodule == GENERATED or submodule.startswith(GENERATED + "."):
                        generated.append((child.lineno, submodule))
                    if submodule in MODULES:
                        found.append(Import(module, child.lineno, submodule, None, child_type_only))
                        aliases[alias.asname or alias.name] = submodule
                    elif source in MODULES:
                        found.append(Import(module, child.lineno, source, alias.name, child_type_only))
            visit(child, child_type_only)

    visit(tree, False)
    private_reads = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            chain: list[str] = []
            value: ast.expr = node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in aliases:
                target = ".".join([aliases[value.id], *reversed(chain)])
                if target in MODULES and target != module:
                    private_reads.append((node.lineno, target, node.attr))
    return found, generated, private_reads


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


IMPORTS = {module: _imports_of(module) for module in MODULES}


def _edges() -> dict[str, dict[str, Import]]:
    """module -> {imported module: the first import of it that runs}."""
    edges: dict[str, dict[str, Import]] = {module: {} for module in MODULES}
    for module, (imports, _generated, _reads) in IMPORTS.items():
        runs_lazily = MODULES[module].stem == "__init__"
        for imp in imports:
            if imp.target != module and (not imp.type_only or runs_lazily):
                edges[module].setdefault(imp.target, imp)
    return edges


def _cycles(edges: dict[str, dict[str, Import]]) -> list[list[str]]:
    """Each strongly connected component of more than one module (Tarjan), as one cycle
    through it (the first module back to itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)

    def path_back(component: list[str]) -> list[str]:
        start, members = component[0], set(component)
        paths = {start: [start]}
        queue = [start]
        while queue:
            v = queue.pop(0)
            for w in sorted(edges[v]):
                if w == start:
                    return paths[v] + [start]
                if w in members and w not in paths:
                    paths[w] = paths[v] + [w]
                    queue.append(w)
        return component  # not reached: a component has a cycle through each member

    return [path_back(c) for c in components]


def test_the_scan_sees_the_packages() -> None:
    # the check below would pass on an empty tree: make sure it reads the real one
    assert {"wiremap.runtime.wire", "wiremap.codegen.ir.chat", "wiremap.gateway"} <= set(MODULES)
    edges = _edges()
    assert "wiremap.runtime.validate" in edges["wiremap.runtime.wire"]  # a module-level import
    assert "wiremap.runtime.provider" in edges["wiremap.runtime"]  # a lazy one (PEP 562)


def test_a_cycle_is_found_and_shown_as_a_path() -> None:
    imp = Import("wiremap.runtime.wire", 1, "wiremap.runtime.validate", None, False)
    edges: dict[str, dict[str, Import]] = {"a": {"b": imp}, "b": {"c": imp}, "c": {"a": imp, "d": imp}, "d": {}}
    assert _cycles(edges) == [["a", "b", "c", "a"]]
    del edges["c"]["a"]
    assert _cycles(edges) == []


def test_no_import_cycles() -> None:
    edges = _edges()
    problems = []
    for cycle in _cycles(edges):
        steps = [f"{a} -> {b} ({edges[a][b].where()})" for a, b in zip(cycle, cycle[1:])]
        problems.append("import cycle: " + "; ".join(steps))
    assert not problems, "\n".join(problems)


def test_no_module_imports_another_modules_private_names() -> None:
    problems = []
    for module, (imports, _generated, reads) in IMPORTS.items():
        package = module if MODULES[module].stem == "__init__" else module.rsplit(".", 1)[0]
        for imp in imports:
            if imp.name is not None and _private(imp.name) and imp.target != module:
                problems.append(f"{imp.where()}: imports {imp.target}.{imp.name}")
            if _private(imp.target.rsplit(".", 1)[-1]) and imp.target.rsplit(".", 1)[0] != package:
                # a private module (`_name.py`) is for the modules of its own package
                problems.append(f"{imp.where()}: imports the private module {imp.target}")
        for line, target, name in reads:
            problems.append(f"{MODULES[module].relative_to(ROOT)}:{line}: reads {target}.{name}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", ["runtime", "codegen"])
def test_runtime_and_generator_import_no_generated_code(folder: str) -> None:
    # the runtime finds the generated formats through wiremap/registry.py (runtime.format.use_generated)
    problems = [
        f"{MODULES[module].relative_to(ROOT)}:{line}: imports {target}"
        for module, (_imports, generated, _reads) in IMPORTS.items()
        if MODULES[module].parent.name == folder
        for line, target in generated
    ]
    assert not problems, "\n".join(problems)

"""Stage 5a: a dialect's module holds only what differs from its base (issue 16).

A dialect (`extends:`) compiles to a whole converter, and most of it comes out the same as its
base's, letter for letter. Such a function or module constant (an `ERROR_RULES` table, `KIND`)
is imported from the module that defines it instead of written again, when everything it refers
to is the same in both modules too: the functions it calls (shared as well), the module
constants it reads (`KEY`, `RULES`, `ORIGIN`, a `_RE_n` pattern...) and the names it imports.
A function that reads anything that differs (the dialect's own `ORIGIN`, another regex under
the same name) stays in the dialect. An imported function runs in the base module's globals,
which by this rule hold the same values, so the converter behaves exactly as the whole one it
replaces.
"""

from __future__ import annotations

import ast

__all__ = ["share_with_base"]


def _segment(lines: list[str], node: ast.stmt) -> str:
    """The whole lines of a top-level statement (ast.get_source_segment splits the text anew on
    every call)."""
    return "".join(lines[node.lineno - 1 : node.end_lineno])


def _top_level(tree: ast.Module, text: str) -> tuple[dict[str, ast.FunctionDef], dict[str, str]]:
    """The module's functions, and the source of every other top-level name's definition."""
    lines = text.splitlines(keepends=True)
    functions: dict[str, ast.FunctionDef] = {}
    others: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    others[target.id] = _segment(lines, node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else ""
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                others[name] = f"import {'.' * getattr(node, 'level', 0)}{module}:{alias.name}"
        elif isinstance(node, ast.ClassDef):
            others[node.name] = _segment(lines, node)
    return functions, others


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _constants(tree: ast.Module) -> dict[str, ast.stmt]:
    """The top-level assignments of one name that a dialect may import instead: not a dunder,
    and not one bound to the module it stands in (`_w.lazy_pattern(globals(), ...)` rebinds
    its own module's name; a strategy is loaded beside its module)."""
    out: dict[str, ast.stmt] = {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and not target.id.startswith("__") and "globals" not in _names(node):
            out[target.id] = node
    return out


def share_with_base(text: str, base_text: str, base_module: str, base_origins: dict[str, str] | None = None) -> tuple[str, dict[str, str]]:
    """`text` (a dialect's rendered module) with every function and module constant that is
    the same in `base_text` (its base's, compiled whole) imported from the module that defines
    it: the base, or the module the base itself imports it from (`base_origins`, so every
    import names the defining module, as `mypy --strict` wants); and {shared name: that module}."""
    tree, base_tree = ast.parse(text), ast.parse(base_text)
    functions, others = _top_level(tree, text)
    base_functions, base_others = _top_level(base_tree, base_text)
    same_other = {n for n, src in others.items() if base_others.get(n) == src}
    lines, base_lines = text.splitlines(keepends=True), base_text.splitlines(keepends=True)
    statements: dict[str, ast.stmt] = {**functions, **_constants(tree)}
    base_statements: dict[str, ast.stmt] = {**base_functions, **_constants(base_tree)}
    candidates = {
        name
        for name, node in statements.items()
        if name in base_statements and _segment(lines, node) == _segment(base_lines, base_statements[name])
    }
    refs = {name: _names(statements[name]) & (set(functions) | set(others)) - {name} for name in candidates}
    changed = True
    while changed:  # drop any candidate that refers to something not the same in both
        changed = False
        for name in sorted(candidates):
            if any((r in functions and r not in candidates) or (r in others and r not in same_other) for r in refs[name]):
                candidates.discard(name)
                changed = True
    if not candidates:
        return text, {}
    drop: set[int] = set()
    for name in candidates:
        node = statements[name]
        assert node.end_lineno is not None
        first = node.lineno - 1
        while first > 0 and lines[first - 1].startswith("#") and isinstance(node, ast.Assign | ast.AnnAssign):
            first -= 1  # the comment line(s) that introduce a constant go with it
        drop.update(range(first, node.end_lineno))
    last_import = max(n.end_lineno or n.lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)))
    origins = {name: (base_origins or {}).get(name, base_module) for name in sorted(candidates)}
    block = "# what this dialect compiles exactly as its base does (codegen/share.py)\n"
    for module in sorted(set(origins.values())):
        names = [name for name, where in origins.items() if where == module]
        one_line = f"from .{module} import {', '.join(names)}\n"
        if len(one_line) > 101:  # as black writes it: one name a line
            one_line = f"from .{module} import (\n" + "".join(f"    {name},\n" for name in names) + ")\n"
        block += one_line
    out = []
    for i, line in enumerate(lines):
        if i in drop:
            continue
        out.append(line)
        if i == last_import - 1:
            out.append("\n" + block)
    # black's blank lines: at most two between top-level statements, none at the end
    text_out = "".join(out)
    while "\n\n\n\n" in text_out:
        text_out = text_out.replace("\n\n\n\n", "\n\n\n")
    return text_out.rstrip("\n") + "\n", origins

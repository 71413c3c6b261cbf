"""Stage 3 (emit), last step: a dialect's module holds only what differs from its base (issue 16).

A dialect (`extends:`) compiles to a whole converter, and most of it comes out the same as its
base's, letter for letter. Such a function or module constant (an `ERROR_RULES` table, `KIND`)
is imported from the module that defines it instead of written again, when everything it refers
to is the same in both modules too: the functions it calls (shared as well), the module
constants it reads (`KEY`, `RULES`, `ORIGIN`, a `_RE_n` pattern...) and the names it imports.
An imported function runs in the base module's globals, which by this rule hold the same values,
so the converter behaves exactly as the whole one it replaces.

A function of the same text that reads something the dialect defines otherwise (its own `KEY`,
`ORIGIN` or option rows, another regex under the same name, a function of its own) is bound
instead: `name = _w.rebind(<base>.name, globals())` runs the base's bytecode with the dialect's
globals, which is what compiling the same text in the dialect would give. Messages name the
format through `KEY` (codegen/lines.keyed) so that they do not make the texts differ, and the
option rows that need no code of their own are module tables (`_OPTIONS_TO_<n>` / `_OPTIONS_FROM_<n>`, read by
`wire.options_to_wire` / `wire.options_from_wire`), so that a dialect that sends or drops an
option otherwise differs in a table, not in `_request_to_wire`'s text.

A module table (a dict of string keys: `STREAM`, `TRANSPORT`) that differs from its base's in a
few entries is written as the base's with those entries (`_w.table_with(<base>.STREAM,
{"endpoint": ...})`), when the entries it keeps name only what the two modules share and the
result is the dialect's whole table, key order included. Every shared name stays importable
from the dialect (a fused translator from it imports its readers from it).

A function its base compiles otherwise may still be compiled to the same text by another
module the dialect may import cheaply (`donors`, codegen/generate.py): a base of its base (the
base imports it already), or an earlier dialect of the same base that binds no code from a
dialect itself (so importing one format loads no chain of siblings, and only modules compiled
earlier lend: no import cycle) and lends at least a quarter of its own lines (loading it costs
about in proportion). It is bound from the first of them the same way. Only a
function whose text no such module has is written again: that is what the dialect changes.
"""

from __future__ import annotations

import ast
import functools
import json

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


@functools.lru_cache(maxsize=16)
def _parsed(text: str) -> tuple[ast.Module, dict[str, ast.FunctionDef], dict[str, str]]:
    """A module text's tree and `_top_level` (a base or lender is read again for each dialect of
    it: parsing is most of this step's time). Nothing here changes a tree."""
    tree = ast.parse(text)
    return (tree, *_top_level(tree, text))


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


def _string_set(node: ast.stmt) -> frozenset[str] | None:
    """The strings of a constant written `frozenset([...])` of string literals; None otherwise."""
    value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "frozenset" and len(value.args) == 1 and not value.keywords):
        return None
    items = value.args[0]
    if not isinstance(items, (ast.List, ast.Set, ast.Tuple)) or not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items.elts):
        return None
    return frozenset(e.value for e in items.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))


def _dict_entries(node: ast.stmt) -> list[tuple[str, ast.expr]] | None:
    """The entries of a constant written as a dict literal of string keys; None otherwise."""
    value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
    if not isinstance(value, ast.Dict):
        return None
    entries = []
    for key, item in zip(value.keys, value.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
            return None  # a `**` entry or another key
        entries.append((key.value, item))
    return entries


def _table_delta(name: str, node: ast.stmt, base_node: ast.stmt, base_expr: str, lines: list[str], same: set[str]) -> str | None:
    """`name = _w.table_with(<base_expr>.name, {changed entries}, drop=(...))` when the dialect's
    dict literal differs from its base's in entries whose lines are at most half of its own, the
    entries kept from the base name only what the two modules share (`same`: imported from the
    base, or the same import), and the result is the dialect's table, key order included; else
    None (the table is written whole)."""
    mine, theirs = _dict_entries(node), _dict_entries(base_node)
    if mine is None or theirs is None or not isinstance(node, ast.AnnAssign) or node.end_lineno is None:
        return None
    base_of = {key: ast.dump(item) for key, item in theirs}
    changed = [(key, item) for key, item in mine if base_of.get(key) != ast.dump(item)]
    kept = [item for key, item in mine if base_of.get(key) == ast.dump(item)]
    mine_keys = [key for key, _ in mine]
    dropped = [key for key in base_of if key not in mine_keys]
    if not changed and not dropped:
        return None
    if any(isinstance(n, ast.Name) and n.id not in same for item in kept for n in ast.walk(item)):
        return None  # a kept entry names something this module binds otherwise
    order = [key for key, _ in theirs if key not in dropped]
    order += [key for key, _ in changed if key not in order]
    if order != mine_keys:
        return None  # table_with's order would not be the dialect's
    changed_lines = sum((item.end_lineno or item.lineno) - item.lineno + 1 for _, item in changed)
    if 2 * changed_lines > node.end_lineno - node.lineno + 1:
        return None
    body = []
    for key, item in changed:
        first, last = item.lineno - 1, item.end_lineno or item.lineno
        head = f"{json.dumps(key)}: "
        if not lines[first].lstrip().startswith(head) or not lines[last - 1].rstrip("\n").endswith(","):
            return None  # not one entry a line (or a run of lines) as black writes it
        body.append("    " + lines[first] + "".join("    " + more for more in lines[first + 1 : last]))
    if any(len(line) in (101, 102, 103, 104) for entry in body for line in entry.splitlines()):
        return None  # a line 4 deeper past black's 100 columns: black would lay it out otherwise
    annotation = ast.get_source_segment("".join(lines), node.annotation) or "Any"
    drop = ""
    if dropped:
        drop = "    drop=(" + ", ".join(json.dumps(k) for k in dropped) + ("," if len(dropped) == 1 else "") + "),\n"
    entries = f"    {{\n{''.join(body)}    }},\n" if body else "    {},\n"
    text = (
        f"# the base's {name}, with the entries this dialect changes (codegen/emit/share.py)\n"
        f"{name}: {annotation} = _w.table_with(\n    {base_expr}.{name},\n{entries}{drop})\n"
    )
    if text.count("\n") + 5 > node.end_lineno - node.lineno + 1:
        return None  # not worth it: the whole table is about as short
    return text


def _safe_defaults(node: ast.FunctionDef, same: set[str]) -> bool:
    """Whether the function's defaults, evaluated once in the module whose code is bound, are
    the same values in this one: names the two modules share, and no attribute or call."""
    defaults = [*node.args.defaults, *(k for k in node.args.kw_defaults if k is not None)]
    return all(n.id in same for d in defaults for n in ast.walk(d) if isinstance(n, ast.Name)) and not any(
        isinstance(n, (ast.Attribute, ast.Call)) for d in defaults for n in ast.walk(d)
    )


def share_with_base(
    text: str,
    base_text: str,
    base_module: str,
    base_origins: dict[str, str] | None = None,
    donors: list[tuple[str, str, dict[str, str], int]] | None = None,
) -> tuple[str, dict[str, str]]:
    """`text` (a dialect's rendered module) with every function and module constant that is
    the same in `base_text` (its base's, compiled whole) imported from the module that defines
    it: the base, or the module the base itself imports it from (`base_origins`, so every
    import names the defining module, as `mypy --strict` wants); and {shared name: that module}.
    `donors`: further modules `(name, whole text, its origins, least)`, in order (the base's own
    bases, then earlier dialects of the same base): a function the base does not compile to the
    same text, but one of them does, is bound from the first of them (`_w.rebind`) that lends
    at least `least` lines in all (loading a module costs; a base's base is loaded already)."""
    tree, functions, others = _parsed(text)
    base_tree, base_functions, base_others = _parsed(base_text)
    same_other = {n for n, src in others.items() if base_others.get(n) == src}
    same_imports = {n for n in same_other if others[n].startswith("import ")}
    lines, base_lines = text.splitlines(keepends=True), base_text.splitlines(keepends=True)
    constants, base_constants = _constants(tree), _constants(base_tree)
    statements: dict[str, ast.stmt] = {**functions, **constants}
    base_statements: dict[str, ast.stmt] = {**base_functions, **base_constants}
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
    # the functions of the same text that read something the dialect defines otherwise: bound
    # to the dialect's globals (runtime `_w.rebind`), unless a default would be evaluated in the
    # base's (a default naming anything but a name the two modules share)
    rebound = sorted(
        name
        for name, node in functions.items()
        if name not in candidates
        and name in base_functions
        and not node.decorator_list
        and _segment(lines, node) == _segment(base_lines, base_functions[name])
        and _safe_defaults(node, same_other)
    )
    code_of = {name: (base_origins or {}).get(name, base_module) for name in rebound}
    # a function the base compiles otherwise, but a base of the base or an earlier dialect of the
    # same base compiles to this text: that module's code, run with this module's globals
    for donor, donor_text, donor_origins, least in donors or []:
        _tree, donor_functions, donor_others = _parsed(donor_text)
        donor_lines = donor_text.splitlines(keepends=True)
        same_donor = {n for n, src in others.items() if donor_others.get(n) == src}
        lent: dict[str, str] = {}
        for name, fn in functions.items():
            if name in candidates or name in code_of or name not in donor_functions or fn.decorator_list:
                continue
            if _segment(lines, fn) == _segment(donor_lines, donor_functions[name]) and _safe_defaults(fn, same_donor):
                lent[name] = donor_origins.get(name, donor)
        if sum((functions[n].end_lineno or 0) - functions[n].lineno + 1 for n in lent) >= least:
            code_of.update(lent)  # worth loading that module for
    rebound = sorted(code_of)
    # a set of strings that differs a little (WIRE_KEYS: a dialect names a key or two more):
    # written as the base's set with the difference
    deltas: dict[str, str] = {}
    for name, node in constants.items():
        mine = _string_set(node)
        theirs = _string_set(base_constants[name]) if name in base_constants and name not in candidates else None
        if mine is None or theirs is None or mine == theirs:
            continue
        added, removed = sorted(mine - theirs), sorted(theirs - mine)
        if 2 * (len(added) + len(removed)) >= len(mine):
            continue
        expr = f"_code_{(base_origins or {}).get(name, base_module)}.{name}"
        if added:
            expr = f"{expr} | frozenset({json.dumps(added)})"
        if removed:
            expr = f"({expr}) - frozenset({json.dumps(removed)})" if added else f"{expr} - frozenset({json.dumps(removed)})"
        deltas[name] = f"# the base's {name}, with this dialect's difference\n{name}: Final[frozenset[str]] = (\n    {expr}\n)\n"
    # a table (a dict of string keys: STREAM, TRANSPORT...) that differs from the base's in a
    # few entries: written as the base's with those entries (runtime `_w.table_with`)
    for name, node in constants.items():
        if name in candidates or name in deltas or name not in base_constants:
            continue
        base_expr = f"_code_{(base_origins or {}).get(name, base_module)}"
        table = _table_delta(name, node, base_constants[name], base_expr, lines, candidates | same_imports)
        if table is not None:
            deltas[name] = table
    if not candidates and not rebound and not deltas:
        return text, {}
    drop: set[int] = set()
    replace: dict[int, str] = {}
    for name, new in deltas.items():
        node = constants[name]
        assert node.end_lineno is not None
        drop.update(range(node.lineno, node.end_lineno))
        replace[node.lineno - 1] = new
    for name in rebound:
        fn = functions[name]
        assert fn.end_lineno is not None
        drop.update(range(fn.lineno - 1, fn.end_lineno))
    for name in candidates:
        node = statements[name]
        assert node.end_lineno is not None
        first = node.lineno - 1
        while first > 0 and lines[first - 1].startswith("#") and isinstance(node, ast.Assign | ast.AnnAssign):
            first -= 1  # the comment line(s) that introduce a constant go with it
        drop.update(range(first, node.end_lineno))
    last_import = max(n.end_lineno or n.lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)))
    origins = {name: (base_origins or {}).get(name, base_module) for name in sorted(candidates)}
    block = "# what this dialect compiles exactly as its base does (codegen/emit/share.py)\n" if origins else ""
    for module in sorted(set(origins.values())):
        names = [name for name, where in origins.items() if where == module]
        one_line = f"from .{module} import {', '.join(names)}\n"
        if len(one_line) > 101:  # as black writes it: one name a line
            one_line = f"from .{module} import (\n" + "".join(f"    {name},\n" for name in names) + ")\n"
        block += one_line
    # the code (and sets) each takes from the module that defines it (the base, or where the base
    # imports it from), as `mypy --strict` wants
    code_of.update({name: (base_origins or {}).get(name, base_module) for name in deltas})
    block += "".join(f"from . import {module} as _code_{module}\n" for module in sorted(set(code_of.values())))
    if rebound:
        block += (
            "\n# the functions this dialect compiles to its base's text, which read its own tables (KEY,\n"
            "# ORIGIN, option rows) or functions: the base's code, run with this module's globals\n"
        )
        block += "".join(f"{name} = _w.rebind(_code_{code_of[name]}.{name}, globals())\n" for name in rebound)
    out = []
    for i, line in enumerate(lines):
        if i in drop:
            continue
        out.append(replace.get(i, line))
        if i == last_import - 1:
            out.append("\n" + block)
    # black's blank lines: at most two between top-level statements, none at the end
    text_out = "".join(out)
    while "\n\n\n\n" in text_out:
        text_out = text_out.replace("\n\n\n\n", "\n\n\n")
    return text_out.rstrip("\n") + "\n", origins

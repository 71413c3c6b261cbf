"""docs/api.md, rendered from the signatures and docstrings of wiremap's public names.

    python -m wiremap._apidoc            # write docs/api.md (make docs)
    python -m wiremap._apidoc --check    # exit 1 when docs/api.md differs from the rendering

The public names are `wiremap.__all__` (the runtime's `__all__`, re-exported); they are grouped
by the runtime module that defines them, in `__all__` order. A class is rendered with its
constructor and the public methods and properties it defines itself. tests/test_api_docs.py
checks that the committed page equals `render()` and runs the page's examples with doctest.
Not part of the runtime: it imports every lazy module, which is what a documentation build may do.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from typing import Any

__all__ = ["public_names", "public_objects", "render", "render_formats", "with_formats"]

WIDTH = 100  # a signature longer than this is written one parameter per line
DEFAULT_PATH = os.path.join("docs", "api.md")
README_PATH = "README.md"
FORMATS_BEGIN = "<!-- formats: written by make docs from the registry; do not edit -->"
FORMATS_END = "<!-- /formats -->"


class _Annotation:
    """An annotation as written in the source (`from __future__ import annotations` keeps it a
    string); inspect would print a string annotation with quotes."""

    def __init__(self, text: str) -> None:
        # `-> "Request"` in the source is the string "'Request'" under postponed evaluation
        self.text = text[1:-1] if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"" else text

    def __repr__(self) -> str:
        return self.text


def public_names() -> list[str]:
    """The documented names: `wiremap.__all__` without `__version__`."""
    import wiremap

    return [name for name in wiremap.__all__ if name != "__version__"]


def public_objects() -> dict[str, Any]:
    """Each public name's object, lazy names resolved."""
    import wiremap

    return {name: getattr(wiremap, name) for name in public_names()}


def _home(name: str, obj: Any) -> str:
    """The runtime module that defines `name`: the one whose `__all__` lists it."""
    module = getattr(obj, "__module__", None) if inspect.isclass(obj) or inspect.isroutine(obj) else None
    if isinstance(module, str) and module.startswith("wiremap."):
        return module
    for key in sorted(sys.modules):
        mod = sys.modules[key]
        if key.startswith("wiremap.runtime.") and name in getattr(mod, "__all__", ()) and getattr(mod, name, None) is obj:
            return key
    return "wiremap.runtime"


def _annotation(value: Any) -> Any:
    if value is inspect.Parameter.empty:
        return value
    return _Annotation(value if isinstance(value, str) else inspect.formatannotation(value))


def _signature(obj: Any, name: str, prefix: str = "", *, bound: bool = False) -> str:
    """`prefix name(params) -> return`; `bound`: without the first parameter (self, cls)."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):  # a builtin without text signature
        return f"{prefix}{name}(...)"
    params = [
        p.replace(annotation=_annotation(p.annotation), default=_Annotation(p.default.__name__) if p.default is not p.empty and inspect.isclass(p.default) else p.default)
        for p in sig.parameters.values()
    ]
    if bound:
        params = params[1:]
    sig = sig.replace(parameters=params, return_annotation=_annotation(sig.return_annotation))
    text = f"{prefix}{name}{sig}"
    if len(text) <= WIDTH or len(params) < 2:
        return text
    # one parameter per line, with the `/` and `*` markers str(Signature) would print
    lines, kinds = [], [p.kind for p in params]
    for i, p in enumerate(params):
        if p.kind is inspect.Parameter.KEYWORD_ONLY and inspect.Parameter.VAR_POSITIONAL not in kinds[:i] and (i == 0 or kinds[i - 1] is not inspect.Parameter.KEYWORD_ONLY):
            lines.append("    *,")
        lines.append(f"    {p},")
        if p.kind is inspect.Parameter.POSITIONAL_ONLY and (i + 1 == len(params) or kinds[i + 1] is not inspect.Parameter.POSITIONAL_ONLY):
            lines.append("    /,")
    ret = "" if sig.return_annotation is inspect.Signature.empty else f" -> {sig.return_annotation!r}"
    return f"{prefix}{name}(\n" + "\n".join(lines) + f"\n){ret}"


def _doc(obj: Any) -> str:
    """The object's own docstring (a class's, not its base's), cleaned; '' when it has none."""
    raw = obj.__dict__.get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    return inspect.cleandoc(raw) if isinstance(raw, str) else ""


def _members(cls: type) -> list[tuple[str, Any, bool]]:
    """Public methods and properties the class defines itself, in definition order, each with
    whether its first parameter is bound (self, cls: not shown)."""
    out: list[tuple[str, Any, bool]] = []
    for name, value in cls.__dict__.items():
        if name.startswith("_"):
            continue
        if isinstance(value, staticmethod):
            out.append((name, value.__func__, False))
        elif isinstance(value, classmethod):
            out.append((name, value.__func__, True))
        elif isinstance(value, property) or inspect.isfunction(value):
            out.append((name, value, True))
    return out


def _markdown(doc: str) -> list[str]:
    """A docstring as Markdown: its doctest examples (`>>>` up to the next blank line) fenced as
    `pycon` code. tests/test_api_docs.py blanks the fence lines before running the examples."""
    out: list[str] = []
    fenced = False
    for line in doc.splitlines():
        if not fenced and line.startswith(">>>"):
            out.append("```pycon")
            fenced = True
        elif fenced and not line.strip():
            out.append("```")
            fenced = False
        out.append(line)
    if fenced:
        out.append("```")
    return out + [""]


def _code(text: str) -> list[str]:
    return ["```python", text, "```", ""]


def _section(name: str, obj: Any) -> list[str]:
    lines = [f"### `{name}`", ""]
    if inspect.isclass(obj):
        bases = ", ".join(b.__name__ for b in obj.__bases__ if b is not object)
        header = f"class {name}({bases})" if bases else f"class {name}"
        init = obj.__dict__.get("__init__")
        lines += _code(header + (":\n    " + _signature(init, "__init__", "def ").replace("\n", "\n    ") if init else ""))
        doc = _doc(obj)
        if doc:
            lines += _markdown(doc)
        if issubclass(obj, BaseException) and "category" in obj.__dict__ or name == "ProviderError":
            category = getattr(obj, "category", None)
            if isinstance(category, str):
                lines += [f"Category `{category}`; transient: {getattr(obj, 'transient', False)}.", ""]
        plain: list[str] = []  # members without a docstring: listed on one line
        for member, value, bound in _members(obj):
            doc = _doc(value)
            if isinstance(value, property):
                if doc:
                    lines += [f"#### `{name}.{member}` (property)", "", *_markdown(doc)]
                else:
                    plain.append(f"`{member}` (property)")
            elif doc:
                lines += [f"#### `{name}.{member}`", ""]
                lines += _code(_signature(value, member, bound=bound))
                lines += _markdown(doc)
            else:
                plain.append(f"`{_signature(value, member, bound=bound)}`")
        if plain:
            lines += ["Also: " + ", ".join(plain) + ".", ""]
    elif inspect.isroutine(obj):
        lines += _code(_signature(obj, name, "def "))
        doc = _doc(obj)
        if doc:
            lines += _markdown(doc)
    else:
        lines += _code(f"{name} = {obj!r}")
    return lines


def render() -> str:
    """The text of docs/api.md."""
    import wiremap

    objects = public_objects()
    groups: dict[str, list[str]] = {}
    for name, obj in objects.items():
        groups.setdefault(_home(name, obj), []).append(name)
    out = [
        "# wiremap API reference",
        "",
        "<!-- Generated by `make docs` (python -m wiremap._apidoc) from the docstrings. DO NOT EDIT. -->",
        "",
        f"Every name below is importable from `wiremap` (version {wiremap.__version__}) and from",
        "`wiremap.runtime`. The examples run as doctests (tests/test_api_docs.py).",
        "",
        "## Contents",
        "",
    ]
    # GitHub's heading anchors: lower case, punctuation dropped, a repeated one suffixed -1, -2...
    anchors: dict[str, str] = {}
    seen: dict[str, int] = {}
    for names in groups.values():
        for n in names:
            base = n.lower()
            count = seen.get(base, 0)
            seen[base] = count + 1
            anchors[n] = base if count == 0 else f"{base}-{count}"
    for module, names in groups.items():
        out.append(f"- `{module}`: " + ", ".join(f"[`{n}`](#{anchors[n]})" for n in names))
    out.append("")
    for module, names in groups.items():
        out += [f"## `{module}`", ""]
        mod_doc = inspect.cleandoc(sys.modules[module].__doc__ or "") if module in sys.modules else ""
        if mod_doc:
            out += [mod_doc.split("\n\n")[0], ""]
        for name in names:
            out += _section(name, objects[name])
    return "\n".join(out).rstrip("\n") + "\n"


def render_formats() -> str:
    """The README's table of every registered format, from the registry (`wiremap.formats()`),
    so that the list cannot drift from what is generated."""
    import wiremap

    lines = ["| key | format | kind | provider | reference |", "|---|---|---|---|---|"]
    for key in wiremap.formats():
        fmt = wiremap.get_format(key)
        ref = f"[{fmt.doc_ref.split('//', 1)[-1].split('/', 1)[0]}]({fmt.doc_ref})" if fmt.doc_ref else ""
        lines.append(f"| `{key}` | {fmt.title} | {fmt.kind} | {fmt.provider} | {ref} |")
    return "\n".join(lines) + "\n"


def with_formats(readme: str) -> str:
    """`readme` with the text between the formats markers replaced by `render_formats()`."""
    start = readme.find(FORMATS_BEGIN)
    end = readme.find(FORMATS_END)
    if start < 0 or end < start:
        raise ValueError(f"{README_PATH}: the formats markers are missing ({FORMATS_BEGIN} ... {FORMATS_END})")
    head = readme[: start + len(FORMATS_BEGIN)]
    return head + "\n" + render_formats() + readme[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m wiremap._apidoc", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the file differs from the rendering")
    parser.add_argument("--out", default=DEFAULT_PATH, help=f"the page (default: {DEFAULT_PATH})")
    args = parser.parse_args(argv)
    text = render()
    with open(README_PATH, encoding="utf-8") as fh:
        readme = fh.read()
    formats = with_formats(readme)
    if args.check and formats != readme:
        print(f"{README_PATH}: the formats table is out of date: run make docs", file=sys.stderr)
        return 1
    if not args.check and formats != readme:
        with open(README_PATH, "w", encoding="utf-8") as fh:
            fh.write(formats)
        print(f"wrote the formats table in {README_PATH} ({render_formats().count(chr(10)) - 2} formats)")
    if args.check:
        try:
            with open(args.out, encoding="utf-8") as fh:
                current = fh.read()
        except OSError as exc:
            print(f"error: {args.out}: {exc.strerror or exc}", file=sys.stderr)
            return 2
        if current != text:
            print(f"{args.out} is out of date: run make docs", file=sys.stderr)
            return 1
        print(f"{args.out} is up to date")
        return 0
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write(text)
    print(f"wrote {args.out} ({len(public_names())} public names)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

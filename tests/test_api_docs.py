"""docs/api.md: rendered from the public names' docstrings (`make docs`), never edited by hand,
and its examples run.

- the committed page equals what wiremap._apidoc renders now (a changed docstring or signature,
  or a new public name, without `make docs` fails here);
- every public class and function has a docstring of its own, and the main entry points an example;
- the examples in those docstrings, and in the page, run with doctest and print what they show.
"""

from __future__ import annotations

import doctest
import inspect
import re
from pathlib import Path
from typing import Any

import pytest

from wiremap._apidoc import public_objects, render

ROOT = Path(__file__).resolve().parents[1]
API_MD = ROOT / "docs" / "api.md"

# The entry points a new user starts from: each shows itself at work.
WITH_EXAMPLES = [
    "formats", "get_format", "translator", "translate_request", "translate_response",
    "Request.from_dict", "Response.to_dict",
]


def _runnable(obj: Any) -> bool:
    return inspect.isclass(obj) or inspect.isroutine(obj)


def _doctests() -> list[doctest.DocTest]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    found: dict[str, doctest.DocTest] = {}
    for name, obj in public_objects().items():
        if not _runnable(obj):  # constants and type aliases: their type's docstring is not ours
            continue
        for test in finder.find(obj, f"wiremap.{name}", globs={}):
            if test.examples:
                found.setdefault(test.name, test)
    return [found[k] for k in sorted(found)]


def test_committed_page_is_the_rendering() -> None:
    assert API_MD.read_text(encoding="utf-8") == render(), "docs/api.md is out of date: run make docs"


def test_every_public_class_and_function_has_its_own_docstring() -> None:
    missing = []
    for name, obj in public_objects().items():
        if _runnable(obj):
            doc = obj.__dict__.get("__doc__") if inspect.isclass(obj) else obj.__doc__
            if not (isinstance(doc, str) and doc.strip()):
                missing.append(name)
    assert missing == []


def test_every_public_name_has_a_section() -> None:
    text = render()
    assert [name for name in public_objects() if f"\n### `{name}`\n" not in text] == []


def test_main_entry_points_have_examples() -> None:
    tests = {t.name.removeprefix("wiremap."): t for t in _doctests()}
    assert [name for name in WITH_EXAMPLES if name not in tests or not tests[name].examples] == []


@pytest.mark.parametrize("test", _doctests(), ids=lambda t: t.name)
def test_docstring_examples(test: doctest.DocTest) -> None:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, f"{test.name}: {result.failed} of {result.attempted} examples failed (output above)"


def test_page_examples() -> None:
    # the page fences each example as ```pycon ... ```: a fence line reads as the blank line that
    # ends an example's expected output
    text = re.sub(r"(?m)^```\w*$", "", API_MD.read_text(encoding="utf-8"))
    test = doctest.DocTestParser().get_doctest(text, {}, "docs/api.md", str(API_MD), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 20 and result.failed == 0, f"docs/api.md: {result.failed} of {result.attempted} examples failed (output above)"


def test_the_readme_lists_every_registered_format() -> None:
    """The README's formats table is written from the registry (`make docs`), never typed."""
    import wiremap
    from wiremap._apidoc import with_formats

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert with_formats(readme) == readme, "README.md's formats table is out of date: run make docs"
    for key in wiremap.formats():
        assert f"| `{key}` |" in readme

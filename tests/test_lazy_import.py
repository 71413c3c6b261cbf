"""Cold import (issue #6): `import wiremap` and every `get_format` leave the HTTP Provider
(asyncio, ssl), translation and the stream engine unimported until first use (PEP 562), and
every public name still resolves to the same object."""

from __future__ import annotations

import importlib
import subprocess
import sys

import wiremap
import wiremap.runtime as runtime


def test_lazy_table_matches_each_module_all() -> None:
    for module, names in runtime._LAZY.items():
        mod = importlib.import_module(f"wiremap.runtime.{module}")
        exported = getattr(mod, "__all__", None)
        if exported is not None:
            assert set(names) <= set(exported), module
        for name in names:
            assert getattr(mod, name) is getattr(runtime, name) is getattr(wiremap, name), name
    assert set(runtime._LAZY_NAMES) <= set(wiremap.__all__)
    assert set(runtime.provider.__all__) <= set(wiremap.__all__)
    assert set(runtime.translate.__all__) <= set(wiremap.__all__)


def test_every_name_in_all_resolves() -> None:
    for name in wiremap.__all__:
        assert getattr(wiremap, name) is not None or name == "NOT_GIVEN", name
    assert set(wiremap.__all__) <= set(dir(wiremap))


def test_unknown_attribute_is_an_attribute_error() -> None:
    for module in (wiremap, runtime):
        try:
            module.no_such_name  # type: ignore[attr-defined]  # noqa: B018
        except AttributeError:
            pass
        else:
            raise AssertionError(f"{module.__name__}.no_such_name did not raise")


def test_cold_import_leaves_heavy_modules_unloaded() -> None:
    code = (
        "import sys, wiremap\n"
        "[wiremap.get_format(k) for k in wiremap.formats()]\n"
        "heavy = [m for m in ('asyncio', 'ssl', 'http.client', 'jsonschema', 'yaml', 'jinja2', 'black', 'httpx',"
        " 'wiremap.runtime.provider', 'wiremap.runtime.translate', 'wiremap.runtime.stream') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "from wiremap import Provider, translate_request, StreamParser\n"
        "assert 'wiremap.runtime.provider' in sys.modules and Provider.__name__ == 'Provider'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)

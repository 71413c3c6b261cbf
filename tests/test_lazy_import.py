"""Cold import (issue #6): `import wiremap` and every `get_format` leave the HTTP Provider
(asyncio, ssl), translation and the stream engine unimported until first use (PEP 562), and
every public name still resolves to the same object.

Costly standard-library modules are imported where they are used, off the cold path: hashlib
(OpenSSL) for schema names and synthesized ids, email.utils for a date-valued Retry-After,
dataclasses (and inspect) not at all (runtime/records.py), importlib.metadata only for
entry-point discovery (`formats()`, or a key not generated here). The generated TypedDicts
(`*_types.py`) are never imported by the converters, and their `_RE_n` patterns are compiled on
first use (`wire.lazy_pattern`)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import wiremap
import wiremap.runtime as runtime


def test_lazy_table_matches_each_module_all() -> None:
    for module, names in runtime.LAZY.items():
        mod = importlib.import_module(f"wiremap.runtime.{module}")
        exported = getattr(mod, "__all__", None)
        if exported is not None:
            assert set(names) <= set(exported), module
        for name in names:
            assert getattr(mod, name) is getattr(runtime, name) is getattr(wiremap, name), name
    assert set(runtime.LAZY_NAMES) <= set(wiremap.__all__)
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


# Never imported by `import wiremap` nor by loading every generated format with get_format.
_NOT_ON_THE_COLD_PATH = (
    "dataclasses", "inspect", "ast", "hashlib", "_hashlib", "email", "email.utils", "calendar",
    "datetime", "socket", "urllib.parse", "importlib.metadata", "zipfile", "pathlib", "threading",
)


def _fresh(code: str) -> None:
    subprocess.run([sys.executable, "-c", code], check=True)


def test_import_and_every_generated_format_leave_costly_stdlib_unloaded() -> None:
    _fresh(
        "import sys\n"
        f"costly = {_NOT_ON_THE_COLD_PATH!r}\n"
        "before = set(sys.modules)\n"  # what the interpreter (site, .pth hooks) loaded already
        "import wiremap\n"
        "loaded = [m for m in costly if m in sys.modules and m not in before]\n"
        "assert not loaded, ('import wiremap', loaded)\n"
        "from wiremap.generated._index import FORMATS\n"
        "for key in FORMATS: wiremap.get_format(key)\n"
        "loaded = [m for m in costly if m in sys.modules and m not in before]\n"
        "assert not loaded, ('every generated format', loaded)\n"
        "types = [m for m in sys.modules if m.startswith('wiremap.generated.') and m.endswith('_types')]\n"
        "assert not types, types\n"
        # each format's module and _index, and the strategy modules the generator copies beside them (mappings/README.md "strategies")
        "assert len([m for m in sys.modules if m.startswith('wiremap.generated.') and not m.startswith('wiremap.generated._strategy_')]) == len(FORMATS) + 1\n"
        "import re\n"
        "patterns = {f.key: n for f in map(wiremap.get_format, FORMATS) for n in vars(f.module) if n.startswith('_RE_')}\n"
        "assert len(patterns) > 20, patterns\n"
        "compiled = [(k, n) for k, n in patterns.items() if isinstance(getattr(wiremap.get_format(k).module, n), re.Pattern)]\n"
        "assert not compiled, compiled\n"
    )


def test_what_was_made_lazy_still_works_when_used() -> None:
    _fresh(
        "import sys, wiremap\n"
        "from wiremap.runtime import wire\n"
        "assert wire.schema_name({'type': 'object'}).startswith('schema_')\n"
        "assert 'hashlib' in sys.modules\n"
        "assert 'email.utils' not in sys.modules\n"
        "assert wire.retry_after({'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT'}, ('retry-after',)) == 0.0\n"
        "assert 'email.utils' in sys.modules\n"
        "import dataclasses\n"
        "assert [f.name for f in dataclasses.fields(wiremap.ToolCall)][:3] == ['id', 'name', 'arguments']\n"
        "assert 'importlib.metadata' not in sys.modules\n"
        "assert 'openai_chat' in wiremap.formats()\n"
        "assert 'importlib.metadata' in sys.modules\n"
    )


def test_unknown_key_still_consults_entry_points() -> None:
    _fresh(
        "import sys, wiremap\n"
        "try:\n"
        "    wiremap.get_format('no_such_format')\n"
        "except wiremap.UnknownFormatError as exc:\n"
        "    assert 'openai_chat' in str(exc)\n"
        "else:\n"
        "    raise AssertionError('no error')\n"
        "assert 'importlib.metadata' in sys.modules\n"
    )


def test_a_pattern_is_compiled_on_first_use_and_replaces_its_stand_in() -> None:
    import re

    from wiremap.runtime.wire import lazy_pattern

    namespace: dict[str, object] = {}
    namespace["_RE_1"] = lazy_pattern(namespace, "_RE_1", "(?i)model")
    stand_in = namespace["_RE_1"]
    assert not isinstance(stand_in, re.Pattern) and repr(stand_in) == "lazy_pattern('(?i)model')"
    assert stand_in.search("no such MODEL") is not None  # type: ignore[attr-defined]
    assert namespace["_RE_1"] is re.compile("(?i)model")  # rebound to the compiled pattern
    assert stand_in.fullmatch("model") is not None  # type: ignore[attr-defined]  # a kept reference works

    # in a generated converter: the data-URL pattern, compiled by the first inline image read
    # (error rules are data, ERROR_RULES, searched through `re`'s own cache)
    fmt = wiremap.get_format("openai_chat")
    fresh = subprocess.run(
        [sys.executable, "-c",
         "import re, wiremap\n"
         "fmt = wiremap.get_format('openai_chat')\n"
         "assert not isinstance(fmt.module._RE_1, re.Pattern)\n"
         "part = {'type': 'image_url', 'image_url': {'url': 'data:image/png;base64,AAAA'}}\n"
         "req = fmt.request_from_wire({'model': 'm', 'messages': [{'role': 'user', 'content': [part]}]})\n"
         "assert req.messages[0].content[0].media_type == 'image/png'\n"
         "assert isinstance(fmt.module._RE_1, re.Pattern)\n"
         "err = fmt.error_from_wire(404, {'error': {'message': 'The model foo does not exist'}}, {})\n"
         "assert err.category == 'provider_invalid_model', err.category\n"
         "assert fmt.error_from_wire(404, {'error': {'message': 'nothing here'}}, {}).category == 'provider_invalid_request'\n"],
        capture_output=True, text=True,
    )
    assert fresh.returncode == 0, fresh.stderr
    assert fmt.error_from_wire(404, {"error": {"message": "no such model"}}, {}).category == "provider_invalid_model"

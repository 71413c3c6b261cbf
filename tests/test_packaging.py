"""Packaging: one import name, `wiremap`, whose sub-packages stay at the top of the repository.

`pip install .` must lay out `wiremap.runtime`, `wiremap.codegen` and `wiremap.generated`; the
runtime must not pull in the generator's packages (yaml, jinja2, black).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(code: str, cwd: Path, pythonpath: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def wheel_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A non-editable install of this tree (what `pip install .` gives), without dependencies."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         "--target", str(target), str(ROOT)],
        check=True, capture_output=True, timeout=300,
    )
    return target


def test_pip_install_lays_out_one_import_name(wheel_site: Path, tmp_path: Path) -> None:
    out = _run(
        "import json, wiremap, wiremap.runtime, wiremap.codegen, wiremap.generated\n"
        "print(json.dumps({m.__name__: m.__file__ for m in (wiremap, wiremap.runtime, wiremap.codegen, wiremap.generated)}))",
        cwd=tmp_path,
        pythonpath=str(wheel_site),
    )
    files = json.loads(out)
    for name, path in files.items():
        assert Path(path).is_relative_to(wheel_site / "wiremap"), (name, path)
    assert (wheel_site / "wiremap" / "codegen" / "templates" / "converter.py.jinja").is_file()
    assert (wheel_site / "wiremap" / "generated" / "openai_chat.schema.json").is_file()


def test_installed_package_converts(wheel_site: Path, tmp_path: Path) -> None:
    out = _run(
        "import json, wiremap\n"
        "fmt = wiremap.get_format('anthropic_messages')\n"
        "body = fmt.request_to_wire({'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}]})\n"
        "print(json.dumps([wiremap.formats(), body]))",
        cwd=tmp_path,
        pythonpath=str(wheel_site),
    )
    keys, body = json.loads(out)
    assert {"openai_chat", "anthropic_messages"} <= set(keys)
    assert body == {"model": "m", "max_tokens": 4096, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}


def test_source_tree_imports_from_the_top_level_folders(tmp_path: Path) -> None:
    # The development install (editable or a source checkout) serves the folders in place.
    out = _run(
        "import json, wiremap.runtime, wiremap.codegen, wiremap.generated\n"
        "print(json.dumps([wiremap.runtime.__file__, wiremap.codegen.__file__, wiremap.generated.__file__]))",
        cwd=ROOT,
    )
    runtime, codegen, generated = (Path(p) for p in json.loads(out))
    assert runtime == ROOT / "runtime" / "__init__.py"
    assert codegen == ROOT / "codegen" / "__init__.py"
    assert generated == ROOT / "generated" / "__init__.py"


def test_runtime_never_imports_the_generator_packages(tmp_path: Path) -> None:
    out = _run(
        "import sys, wiremap\n"
        "for key in wiremap.formats():\n"
        "    fmt = wiremap.get_format(key)\n"
        "    config = {'max_tokens': 5} if fmt.kind == 'chat' else {'extras': {'user': 'u'}}\n"
        "    fmt.request_to_wire({'model': 'm', 'messages': [{'role': 'user', 'content': 'hi'}], 'config': config})\n"
        "print(sorted(m for m in ('yaml', 'jinja2', 'black', 'datamodel_code_generator', 'wiremap.codegen') if m in sys.modules))",
        cwd=tmp_path,
    )
    assert out.strip() == "[]"

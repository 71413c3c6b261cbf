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
    assert (wheel_site / "wiremap" / "codegen" / "emit" / "templates" / "converter.py.jinja").is_file()
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


USER_SCRIPT = '''
"""A user's script: what wiremap's public surface promises to a type checker."""

from __future__ import annotations

import wiremap
from wiremap import Request, Response, get_format
from wiremap.runtime.canonical import UserMessage


def to_anthropic(text: str) -> dict[str, object]:
    fmt: wiremap.Format = get_format("anthropic_messages")
    request = Request(model="claude", messages=[UserMessage(content=text)])
    body: dict[str, object] = fmt.request_to_wire(request)
    return body


def first_text(response: Response) -> str | None:
    content = response.message.content
    return content if isinstance(content, str) else None


def lost_paths(body: dict[str, object]) -> list[str]:
    translation = wiremap.translate_request(body, "openai_chat", "anthropic_messages")
    return [loss.path for loss in translation.losses]


async def call() -> Response:
    async with wiremap.Provider("openai_chat", model="gpt-test", api_key="k") as provider:
        return await provider.complete([{"role": "user", "content": "hi"}])


count: int = len(wiremap.formats())


class Person:  # a pydantic model in real code: `response_schema=Person`
    name: str = ""


def person_name(response: Response) -> str:
    return response.parsed_as(Person).name
'''


def _mypy(script: str, site: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    (cwd / "user.py").write_text(script)
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(cwd / ".mypy"), "user.py"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
    )


def test_a_user_script_type_checks_strictly_against_the_installed_wheel(wheel_site: Path, tmp_path: Path) -> None:
    """py.typed ships in every sub-package and the public names reach user code typed: a wrong
    type is an error, not Any."""
    for package in ("", "runtime", "codegen", "generated"):
        assert (wheel_site / "wiremap" / package / "py.typed").is_file(), package
    ok = _mypy(USER_SCRIPT, wheel_site, tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    wrong = _mypy(USER_SCRIPT + 'key: int = get_format("openai_chat").key\n', wheel_site, tmp_path)
    assert wrong.returncode == 1 and 'expression has type "str", variable has type "int"' in wrong.stdout, wrong.stdout
    # Response.parsed_as(cls) is a cls: the structured output reaches user code typed
    wrong = _mypy(USER_SCRIPT + "def age(r: Response) -> int:\n    return r.parsed_as(Person).name\n", wheel_site, tmp_path)
    assert wrong.returncode == 1 and 'Incompatible return value type (got "str", expected "int")' in wrong.stdout, wrong.stdout


def test_the_type_checking_names_are_the_runtime_exports() -> None:
    import ast

    import wiremap.runtime

    tree = ast.parse((ROOT / "wiremap" / "__init__.py").read_text())
    spelled = [
        alias.asname
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING"
        for stmt in node.body
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "wiremap.runtime"
        for alias in stmt.names
    ]
    assert spelled == list(wiremap.runtime.__all__)


CONVERTER_SCRIPT = '''
"""A user's script importing a generated converter directly (no get_format)."""

from __future__ import annotations

from wiremap.generated.openai_chat import request_from_wire, request_to_wire, response_from_wire, response_to_wire
from wiremap.generated.openai_embeddings import request_to_wire as embeddings_request_to_wire
from wiremap.runtime.canonical import Request, UserMessage

request = Request(model="gpt-test", messages=[UserMessage(content="hi")])
body = request_to_wire(request)
reveal_type(body)
model: str = body["model"]
again = request_from_wire(body)
reveal_type(response_to_wire(response_from_wire({"choices": []})))
reveal_type(embeddings_request_to_wire(request))
'''


def test_direct_converter_imports_give_the_wire_typeddicts(wheel_site: Path, tmp_path: Path) -> None:
    """The generated converters name the datamodel-code-generator TypedDicts of
    generated/<key>_types.py in their signatures, so mypy checks what a user reads from a body."""
    ok = _mypy(CONVERTER_SCRIPT, wheel_site, tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    revealed = [line.split("Revealed type is ", 1)[1] for line in ok.stdout.splitlines() if "Revealed type is " in line]
    assert len(revealed) == 3, ok.stdout
    assert revealed[0].startswith('"TypedDict(wiremap.generated.openai_chat_types.OpenaiChatRequest, {')
    assert "'model': str" in revealed[0] and "'messages': list[" in revealed[0]
    assert revealed[1].startswith('"TypedDict(wiremap.generated.openai_chat_types.OpenaiChatResponse, {')
    assert revealed[2].startswith('"TypedDict(wiremap.generated.openai_embeddings_types.OpenaiEmbeddingsRequest, {')
    wrong = _mypy(CONVERTER_SCRIPT + 'temperature: str = body["temperature"]\nbody["no_such_key"]\n', wheel_site, tmp_path)
    assert wrong.returncode == 1, wrong.stdout
    assert 'expression has type "float", variable has type "str"' in wrong.stdout, wrong.stdout
    assert 'TypedDict "OpenaiChatRequest" has no key "no_such_key"' in wrong.stdout, wrong.stdout

"""The function-shape templates (codegen/emit/shapes.py, issue 16): a macro lays a generated
function out, the Python hands it fragments of statements. What the generator relies on: a
fragment lands at the column the template gives it, an empty hole leaves no line, a fragment's
fresh names continue its body's numbering (generated locals keep their names), and a compiled
template cache that cannot be written is no error."""

from __future__ import annotations

import os
import subprocess
import sys

from wiremap.codegen.emit.lines import Lines
from wiremap.codegen.emit.shapes import shape, shaped


def test_fragment_placed_at_the_template_column_and_empty_holes_dropped() -> None:
    out = Lines()
    inner = out.part()
    inner.add("x = 1")
    inner.add("if x:")
    inner.indent()
    inner.add("y = x")
    # a fragment under a template's statements; then a body whose `checks` hole is empty
    shape(out, "responses", "response_message", joined=False, prelude=inner)
    assert out.lines[-3:] == ["    x = 1", "    if x:", "        y = x"]
    lines = shaped("parts", "tool_result_reader", checks=Lines().part(), error_reader=None, ok_path=None, err_path=None,
                   error_message=None, reader=["r = 1"], synth_id=None, message=["return r"])
    assert lines == ["    r = 1", "    return r"]
    assert all(line.strip() for line in lines)


def test_fragments_continue_the_body_numbering() -> None:
    out = Lines()
    assert out.fresh("wire") == "wire_1"
    first, second = out.part(), out.part()
    assert first.fresh("wire") == "wire_2"
    assert second.fresh("items") == "items_3"
    assert out.fresh("wire") == "wire_4"
    assert first.level == 0 and out.level == 1


def test_unwritable_template_cache_is_no_error() -> None:
    code = (
        "from wiremap.codegen.emit.shapes import shaped\n"
        "print('\\n'.join(shaped('responses', 'finish_reason', map=[('stop', 'stop')], default='other')))\n"
    )
    runs = []
    for where in ("/proc/wiremap-no-such-folder", "off"):
        env = {**os.environ, "WIREMAP_CODEGEN_CACHE": where}
        runs.append(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout)
    assert runs[0] == runs[1]
    assert runs[0].splitlines() == ["    if value == 'stop':", "        return 'stop'", "    return 'other'  # a value the table does not list"]

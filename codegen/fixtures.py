"""Stage 4d: a pytest module per format from its `fixtures:` table.

Each fixture has an `id`, a one-line `doc`, one input and exactly one expected outcome. The test
takes its name from `id` and its docstring from `doc`; the data is embedded as a JSON literal
(parsed at import), never as code.
"""

from __future__ import annotations

import json

import jinja2

from .generate_support import doc_text
from .ir import FormatIR

__all__ = ["render_fixture_tests"]


def render_fixture_tests(ir: FormatIR, env: jinja2.Environment) -> str:
    cases = []
    for fx in ir.fixtures:
        kind = next(k for k in ("to_wire", "from_wire", "request_from_wire", "response_to_wire", "error_from_wire", "stream_from_wire", "stream_to_wire") if k in fx)
        data = {k: v for k, v in fx.items() if k not in ("doc",)}
        cases.append(
            {
                "id": fx["id"],
                "doc": doc_text(fx["doc"]),
                "kind": kind,
                # in the mapping's own key order: a fixture may pin the order (key_order: exact)
                "data": repr(json.dumps(data, ensure_ascii=False)),
                "line": ir.fixture_lines.get(fx["id"], 0),
                # wire -> canonical -> wire is checked where a fixture pins a wire body.
                "round_trip": "lossy" not in fx
                and ((kind == "to_wire" and "expect_wire" in fx) or (kind == "from_wire" and "expect_canonical" in fx)),
            }
        )
    return env.get_template("fixture_tests.py.jinja").render(
        source=doc_text(ir.source),
        key=repr(ir.key),
        converter_file=repr(ir.key.replace(".", "__") + ".py"),
        cases=cases,
    )


"""Stage 3 (emit): a pytest module per format from its fixtures (`mappings/fixtures/<key>.yaml`).

Each fixture has an `id`, a one-line `doc`, one input and exactly one expected outcome. The
fixtures are module-level data, one list per input kind in the order they are written (black
lays them out), each run by one parametrised test whose ids are the fixtures' `id`s. The test
asserts `actual == expected` on plain JSON values, so pytest shows a diff when they differ.
"""

from __future__ import annotations

import re
from typing import Any

import jinja2

from .support import doc_text
from ..ir.chat import FormatIR
from ..sections.task import TaskIR

__all__ = ["render_fixture_tests", "fixture_test_count"]

#: input kind -> the docstring of its test
_KINDS = {
    "to_wire": "`request_to_wire` on the canonical request gives `expect_wire` or raises `expect_error`.",
    "from_wire": "`response_from_wire` on the wire response body gives `expect_canonical` or raises `expect_error`.",
    "request_from_wire": "`request_from_wire` on the wire request body gives `expect_canonical` or raises `expect_error`.",
    "response_to_wire": "`response_to_wire` on the canonical response gives `expect_wire`.",
    "error_from_wire": "`error_from_wire` on the status, body and headers gives `expect_error`.",
    "stream_from_wire": "`parse_stream` on the SSE body gives `expect_events`.",
    "stream_to_wire": "`StreamEmitter` on the canonical events gives exactly `expect_sse`.",
}

_COUNT = re.compile(r"^(\d+) tests: ", re.MULTILINE)


def fixture_test_count(text: str) -> int:
    """How many tests a generated fixture-test module runs (its docstring states it)."""
    found = _COUNT.search(text)
    return int(found.group(1)) if found else 0


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def render_fixture_tests(ir: FormatIR | TaskIR, env: jinja2.Environment, fixtures_file: str | None = None) -> str:
    """The test module of one format; `fixtures_file` is where its fixtures are written."""
    by_kind: dict[str, list[dict[str, Any]]] = {}
    round_trip: list[str] = []
    for fx in ir.fixtures:
        kind = next(k for k in _KINDS if k in fx)
        by_kind.setdefault(kind, []).append(fx)  # the mapping's key order: a fixture may pin it (key_order: exact)
        # wire -> canonical -> wire is checked where a fixture pins a wire body.
        if "lossy" not in fx and ((kind == "to_wire" and "expect_wire" in fx) or (kind == "from_wire" and "expect_canonical" in fx)):
            round_trip.append(fx["id"])
    groups = [
        {"kind": kind, "name": kind.upper(), "doc": doc_text(_KINDS[kind]), "data": repr(by_kind[kind])}
        for kind in _KINDS
        if kind in by_kind
    ]
    sources = [g["name"] for g in groups if g["kind"] in ("to_wire", "from_wire")]
    return env.get_template("fixture_tests.py.jinja").render(
        source=doc_text(ir.source),
        fixtures_file=doc_text(fixtures_file or ir.source),
        key=repr(ir.key),
        converter_file=repr(ir.key.replace(".", "__") + ".py"),
        count=len(ir.fixtures) + len(round_trip),
        fixtures=_plural(len(ir.fixtures), "fixture"),
        round_trips=_plural(len(round_trip), "round trip"),
        groups=groups,
        round_trip_ids=repr(round_trip) if round_trip else "",
        round_trip_sources=" + ".join(sources),
    )

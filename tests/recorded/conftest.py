"""Prints the recorded-traffic table (tests/recorded/harness.py) at the end of the run."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from . import harness

    if harness.CACHE:
        terminalreporter.write_sep("-", "recorded traffic, same-format round trip (tests/recorded/harness.py)")
        terminalreporter.write_line(harness.table(harness.CACHE))

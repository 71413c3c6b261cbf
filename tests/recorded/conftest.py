"""Prints the recorded-traffic table (tests/recorded/recorded_harness.py) at the end of the run."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    import recorded_harness as harness

    if harness.CACHE:
        terminalreporter.write_sep("-", "recorded traffic, same-format round trip (tests/recorded/recorded_harness.py)")
        terminalreporter.write_line(harness.table(harness.CACHE))

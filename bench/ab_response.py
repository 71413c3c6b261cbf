"""A/B of the fused response translators against the two-step path they replace and the
hand-written floor, side by side in one process (bench/NOTES.md "Fused responses").

    python bench/ab_response.py [--rounds 41]

For each pair with a hand-written response floor (bench/handwritten.py) and its corpus body
(bench/corpus/openai_response.json, anthropic_response.json): the floor, the two-step path
(`target.response_to_wire(read_without_carry(source.response_from_wire, body))`, what
`translator(...).response` is on main: the converters this tree generates are main's, only the
fused modules differ) and `translator(...).response` here (the generated fused `response`).
All three answers must be equal (the same bytes, key order included), and the fused one must
take the one pass (the two-step fallback is made to fail while it runs). Then they are timed
in alternating rounds (~4 ms each, the order rotated every round); the medians and minima are
printed with the ratios to the floor, and the load average before and after. Not run by the
tests.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import handwritten  # noqa: E402

import wiremap  # noqa: E402
from wiremap.runtime import wire as _w  # noqa: E402

PAIRS = (
    ("openai_chat", "anthropic_messages", "openai_response", handwritten.openai_to_anthropic_response),
    ("anthropic_messages", "openai_chat", "anthropic_response", handwritten.anthropic_to_openai_response),
    ("openai_chat", "gemini_generate_content", "openai_response", handwritten.openai_to_gemini_response),
)


def load() -> str:
    path = Path("/proc/loadavg")
    return path.read_text().strip() if path.exists() else "?"


def one_pass(fused: Callable[[Any], Any], body: Any) -> bool:
    """Whether `fused(body)` answers without its two-step fallback."""
    module = sys.modules[fused.__module__]
    saved = module._w

    class Refuse:
        def __getattr__(self, name: str) -> Any:
            if name == "read_without_carry":
                raise AssertionError("the fused response fell back to the two-step path")
            return getattr(_w, name)

    module._w = Refuse()
    try:
        fused(body)
        return True
    except AssertionError:
        return False
    finally:
        module._w = saved


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=41)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print("load", load())
    print("| source → target | floor | two-step | fused | two-step/floor | fused/floor | fused/two-step | fused/floor (min) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for source, target, item, floor in PAIRS:
        body = json.loads((HERE / "corpus" / f"{item}.json").read_text(encoding="utf-8"))
        src, dst = wiremap.get_format(source), wiremap.get_format(target)
        read, write = src.response_from_wire, dst.response_to_wire

        def two_step(b: Any, read: Any = read, write: Any = write) -> Any:
            return write(_w.read_without_carry(read, b))

        fused = wiremap.translator(source, target).response
        answers = [json.dumps(f(body)) for f in (floor, two_step, fused)]
        assert answers[0] == answers[1] == answers[2], (source, target, answers)
        assert fused.__name__ == "response" and one_pass(fused, body), (source, target, "not the one pass")
        fns = (floor, two_step, fused)
        t0 = time.perf_counter()
        two_step(body)
        loops = max(50, int(0.004 / max(time.perf_counter() - t0, 1e-7)))
        times: list[list[float]] = [[], [], []]
        for r in range(args.rounds):
            order = [(r + k) % 3 for k in range(3)]
            for i in order:
                f = fns[i]
                t0 = time.perf_counter()
                for _ in range(loops):
                    f(body)
                times[i].append((time.perf_counter() - t0) / loops * 1e6)
        med = [statistics.median(t) for t in times]
        low = [min(t) for t in times]
        print(
            f"| {source} → {target} | {med[0]:.2f} | {med[1]:.2f} | {med[2]:.2f} | {med[1] / med[0]:.2f}× | "
            f"{med[2] / med[0]:.2f}× | {med[2] / med[1]:.2f} | {low[2] / low[0]:.2f}× |"
        )
    print("load", load())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

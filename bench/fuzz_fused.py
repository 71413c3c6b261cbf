"""Fused translators against the two-step way, on mutated bodies (tests/fuzz/mutate.py).

    python bench/fuzz_fused.py [--seed 31] [--cases 6000]

For every shipped fused pair, each mutated source body is translated by
`wiremap.translator(source, target).request` and by `request_from_wire` + `request_to_wire`
(the same bytes, warnings and errors must come out), and every fourth one by `translate_request`
with and without the fused translator's exact loss report (`translate.proven_losses`; the same
body, losses, headers and warnings must come out). A finding is any difference; each is printed
with the mutation that made it. tests/test_fused.py and tests/test_fused_losses.py run the same
comparisons on fewer cases; this runs as many as asked.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import wiremap  # noqa: E402
from wiremap.generated._index import FUSED  # noqa: E402
from fuzz import mutate  # noqa: E402
from test_fused import outcome, two_step  # noqa: E402
from test_fused_losses import answer  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--cases", type=int, default=6000, help="mutated bodies per pair")
    args = ap.parse_args()
    findings = 0
    for source, target in sorted(FUSED):
        fused, reference = wiremap.translator(source, target).request, two_step(source, target)
        started = time.perf_counter()
        count = 0
        for body, ops in mutate.cases(args.seed, source, "request_from_wire", args.cases):
            count += 1
            if outcome(fused, body) != outcome(reference, body):
                findings += 1
                print(f"request: {source} -> {target}: {ops}", flush=True)
            if count % 4 == 0 and answer(body, source, target, fast=True) != answer(body, source, target, fast=False):
                findings += 1
                print(f"loss report: {source} -> {target}: {ops}", flush=True)
        print(f"{source} -> {target}: {count} cases, {time.perf_counter() - started:.0f} s", flush=True)
    print(f"findings: {findings}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

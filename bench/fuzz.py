"""The long fuzz run (`make fuzz`): tests/fuzz/mutate.py's operators from a seeded random.Random.

    python bench/fuzz.py [--cases 1000000] [--seed 1] [--jobs 2] [--formats k1,k2]

Every key of `wiremap.formats()` gets `--cases` cases, spread evenly over the four fuzzed entry
points (request_from_wire, response_from_wire, error_from_wire, request_to_wire). Writes
bench/fuzz-results.json (counts, outcomes, the slowest case, findings with one reproducer
each); `bench/run.py` folds it into bench/RESULTS.md. Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))

import mutate  # noqa: E402

import wiremap  # noqa: E402

OUT = ROOT / "bench" / "fuzz-results.json"


def _repro(value: Any) -> str:
    """The input of a finding, for the report; never fails (a finding is often a value nested
    too deep, or too big, to encode or print whole)."""
    try:
        text = json.dumps(value, ensure_ascii=True, default=repr)
    except (RecursionError, ValueError, TypeError):
        import reprlib

        short = reprlib.Repr()
        short.maxlevel, short.maxstring, short.maxother = 12, 200, 200
        try:
            text = "repr: " + short.repr(value)
        except (RecursionError, ValueError):
            text = f"<{type(value).__name__} that cannot be shown>"
    return text if len(text) <= 2000 else text[:2000] + "...(cut)"


def run_format(args: tuple[str, int, int]) -> dict[str, Any]:
    key, seed, count = args
    warnings.simplefilter("ignore")
    fmt = wiremap.get_format(key)
    per_entry = max(1, count // len(mutate.ENTRIES))
    result: dict[str, Any] = {"format": key, "seed": seed, "entries": {}, "findings": []}
    seen: dict[tuple[str, str, str], dict[str, Any]] = {}
    t0 = time.perf_counter()
    for entry in mutate.ENTRIES:
        outcomes: collections.Counter[str] = collections.Counter()
        tried = 0
        slowest = (0.0, "")
        for value, done in mutate.cases(seed, key, entry, per_entry):
            tried += 1
            c0 = time.perf_counter()
            try:
                outcome = mutate.check(fmt, entry, value)
            except mutate.Finding as finding:
                cause = finding.__cause__
                frames = traceback.extract_tb(cause.__traceback__) if cause is not None else []
                where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
                sig = (entry, str(finding).split(":")[0], where)
                if sig in seen:
                    seen[sig]["count"] += 1
                else:
                    seen[sig] = {
                        "entry": entry,
                        "error": str(finding)[:300],
                        "where": where,
                        "operators": done,
                        "input": _repro(value),
                        "count": 1,
                    }
                outcome = "FINDING"
            elapsed = time.perf_counter() - c0
            if elapsed > slowest[0]:
                slowest = (elapsed, ",".join(done))
            outcomes[outcome] += 1
        result["entries"][entry] = {
            "tried": tried,
            "outcomes": dict(outcomes.most_common()),
            "slowest_ms": round(slowest[0] * 1000, 2),
            "slowest_ops": slowest[1],
        }
    result["seconds"] = round(time.perf_counter() - t0, 1)
    result["tried"] = sum(e["tried"] for e in result["entries"].values())
    result["findings"] = list(seen.values())
    print(f"{key}: {result['tried']} cases in {result['seconds']} s, {len(seen)} finding(s)", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=1_000_000, help="cases per format (default 1 000 000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--formats", default="", help="comma-separated keys (default: all of wiremap.formats())")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--merge", action="store_true", help="keep other formats' results already in --out")
    ns = ap.parse_args(argv)
    keys = [k for k in ns.formats.split(",") if k] or wiremap.formats()
    t0 = time.time()
    jobs = [(k, ns.seed, ns.cases) for k in keys]
    if ns.jobs > 1:
        with multiprocessing.get_context("fork").Pool(ns.jobs) as pool:
            results = pool.map(run_format, jobs, chunksize=1)
    else:
        results = [run_format(j) for j in jobs]
    report = {
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t0)),
        "seconds": round(time.time() - t0, 1),
        "cases_per_format": ns.cases,
        "seed": ns.seed,
        "wiremap": wiremap.__version__,
        "python": sys.version.split()[0],
        "formats": results,
    }
    if ns.merge and Path(ns.out).exists():
        old = json.loads(Path(ns.out).read_text(encoding="utf-8"))
        done = {r["format"] for r in results}
        report["formats"] = sorted([r for r in old["formats"] if r["format"] not in done] + results, key=lambda r: r["format"])
        report["started"] = f"{old['started']} and {report['started']}"
        report["seconds"] = round(old["seconds"] + report["seconds"], 1)
    Path(ns.out).write_text(json.dumps(report, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    found = sum(len(r["findings"]) for r in results)
    print(f"{sum(r['tried'] for r in results)} cases, {found} distinct finding(s); wrote {ns.out}")
    if Path(ns.out) == OUT:  # the committed results: their section of bench/RESULTS.md follows
        sys.path.insert(0, str(ROOT / "bench"))
        import fuzz_mappings  # noqa: E402
        import run  # noqa: E402

        fuzz_mappings.write_section(run.fuzz_section(), "## Fuzzing (`make fuzz`")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

"""The long mapping-file fuzz run (`make fuzz`): tests/fuzz/mapping_mutate.py from a seeded loop.

    python bench/fuzz_mappings.py [--cases 2000] [--real-cases 20] [--seed 1] [--families k1,k2]

Each golden family (tests/golden/mappings: small, ~0.5 s a generation) gets `--cases` mutated
files, each real mapping file and dialect (mappings/) `--real-cases`; every case is one full
`wiremap.codegen.generate` and, when it succeeds, an import of every generated module.
Writes bench/fuzz-mappings-results.json and its section of bench/RESULTS.md (bench/run.py
writes the same section). Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))

import mapping_mutate as mm  # noqa: E402

OUT = ROOT / "bench" / "fuzz-mappings-results.json"
RESULTS = ROOT / "bench" / "RESULTS.md"
TITLE = "## Mapping-file fuzzing"


def run_family(family: str, seed: int, count: int) -> dict[str, Any]:
    rng = random.Random(f"{seed}:{family}")
    outcomes: collections.Counter[str] = collections.Counter()
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    t0 = time.perf_counter()
    for _ in range(count):
        raw, done = mm.case(rng, family)
        try:
            outcome = mm.check(family, raw)
        except mm.Finding as finding:
            cause = finding.__cause__
            frames = traceback.extract_tb(cause.__traceback__) if cause is not None else []
            where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
            sig = (str(finding).split(":")[0], where)
            if sig in seen:
                seen[sig]["count"] += 1
            else:
                seen[sig] = {"error": str(finding)[:300], "where": where, "operators": done, "count": 1}
            outcome = "FINDING"
        outcomes[outcome] += 1
    seconds = round(time.perf_counter() - t0, 1)
    print(f"{family}: {count} files in {seconds} s, {dict(outcomes)}, {len(seen)} finding(s)", flush=True)
    return {"family": family, "tried": count, "outcomes": dict(outcomes), "seconds": seconds, "findings": list(seen.values())}


def section(path: Path = OUT) -> str:
    """The RESULTS.md section for the last run (shared with bench/run.py)."""
    if not path.exists():
        return f"\n{TITLE}\n\nNo `make fuzz` mapping results yet.\n"
    r = json.loads(path.read_text(encoding="utf-8"))
    total = sum(f["tried"] for f in r["families"])
    found = sum(len(f["findings"]) for f in r["families"])
    out = [
        f"\n{TITLE} (`make fuzz`, bench/fuzz_mappings.py, {r['started']}, seed {r['seed']}, {r['seconds']:,} s)\n",
        f"{total:,} mutated mapping files through `wiremap.codegen.generate` (+ import of the generated "
        f"modules when it succeeds); {found} distinct finding(s). `error` = a MappingError with file:line.\n",
        "| family | files | ok | error | findings |",
        "|---|---:|---:|---:|---:|",
    ]
    for f in r["families"]:
        o = f["outcomes"]
        out.append(f"| {f['family']} | {f['tried']:,} | {o.get('ok', 0):,} | {o.get('error', 0):,} | {len(f['findings'])} |")
    for f in r["families"]:
        for x in f["findings"]:
            out.append(f"\n- FINDING {f['family']} ({x['count']}×): {x['error']} at {x['where']}; operators {x['operators']}")
    return "\n".join(out) + "\n"


def write_section(text: str, title: str = TITLE) -> None:
    """Replace (or insert, before the findings write-up) the section headed `title` in
    bench/RESULTS.md (bench/fuzz.py writes its own section through this too)."""
    if not RESULTS.exists():
        return
    doc = RESULTS.read_text(encoding="utf-8")
    pattern = re.compile(r"\n" + re.escape(title) + r".*?(?=\n## )", re.S)
    if pattern.search(doc):
        doc = pattern.sub(lambda _m: text.rstrip("\n") + "\n", doc, count=1)
    elif "\n## What the fuzzing found" in doc:
        doc = doc.replace("\n## What the fuzzing found", text + "\n## What the fuzzing found", 1)
    else:
        doc += text
    RESULTS.write_text(doc, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=2000, help="mutated files per golden family")
    ap.add_argument("--real-cases", type=int, default=20, help="mutated files per real mapping file / dialect")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--families", default="", help="comma-separated families (default: all)")
    ns = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    families = [k for k in ns.families.split(",") if k] or list(mm.FAMILIES)
    t0 = time.time()
    results = [
        run_family(k, ns.seed, ns.cases if k in mm.GOLDEN_FAMILIES else ns.real_cases) for k in families
    ]
    report = {
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t0)),
        "seconds": round(time.time() - t0, 1),
        "seed": ns.seed,
        "python": sys.version.split()[0],
        "families": results,
    }
    OUT.write_text(json.dumps(report, indent=1, ensure_ascii=True) + "\n", encoding="utf-8")
    write_section(section())
    found = sum(len(r["findings"]) for r in results)
    print(f"{sum(r['tried'] for r in results)} mapping files, {found} distinct finding(s); wrote {OUT}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

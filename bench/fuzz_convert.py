"""The long fuzz run over `wiremap convert` (issue 15): random bytes per line, nothing may abort.

    python bench/fuzz_convert.py [--seconds 600] [--lines 5000] [--seed 15] [--jobs 2]

Runs the real command (`python -m wiremap convert`, a subprocess) over files of random lines
(tests/fuzz/convert_lines.py: valid bodies, mutated bodies, random bytes, byte flips,
truncations, invalid UTF-8, lone surrogate escapes, nesting up to 20 000 deep, odd JSON), cycling
through several format pairs, both `--what`s, and `-j 1` / `-j JOBS`, until `--seconds` have
passed (checked between runs, so the run is bounded). Every run must exit 0 without a traceback
and leave in = out + rejected (every output line a JSON object, every reject record
`{line, category, message, path}`, none `wiremap_internal_error`); every fifth run is repeated
with the other `-j`, which must write the same bytes. Writes bench/fuzz-convert-results.json and
its section of bench/RESULTS.md. Exit status 1 when anything was found.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))

import convert_lines  # noqa: E402

OUT = ROOT / "bench" / "fuzz-convert-results.json"
RESULTS = ROOT / "bench" / "RESULTS.md"
TITLE = "## Fuzzing `wiremap convert`"
PAIRS = [
    ("openai_chat", "anthropic_messages", "request"),
    ("anthropic_messages", "openai_chat", "request"),
    ("openai_chat", "gemini_generate_content", "request"),
    ("gemini_generate_content", "openai_responses", "request"),
    ("openai_responses", "anthropic_messages", "request"),
    ("mistral", "openai_chat", "request"),
    ("anthropic_messages", "openai_chat", "response"),
    ("openai_chat", "gemini_generate_content", "response"),
    ("gemini_generate_content", "anthropic_messages", "response"),
    ("openai_responses", "openai_chat", "response"),
]
SUMMARY = re.compile(r"^(\d+) lines: (\d+) written, (\d+) rejected", re.M)


def convert(src: Path, out: Path, source: str, target: str, what: str, jobs: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wiremap", "convert", "--from", source, "--to", target, "--what", what,
         str(src), "-o", str(out), "-j", str(jobs), "--no-progress"],
        cwd=ROOT, capture_output=True, text=True, errors="replace", timeout=3600, check=False,
    )


def one_run(tmp: Path, index: int, seed: int, lines: int, jobs: int) -> dict[str, Any]:
    source, target, what = PAIRS[index % len(PAIRS)]
    j = 1 if index % 2 == 0 else jobs
    data, kinds = convert_lines.lines(f"{seed}:{index}:{source}:{target}:{what}", source, what, lines)
    src = tmp / "in.jsonl"
    convert_lines.write(src, data, final_newline=index % 3 != 0)
    run: dict[str, Any] = {"index": index, "source": source, "target": target, "what": what, "jobs": j, "lines": len(data), "kinds": kinds}
    t0 = time.perf_counter()
    proc = convert(src, tmp / "a.jsonl", source, target, what, j)
    run["seconds"] = round(time.perf_counter() - t0, 2)
    problem = None
    if proc.returncode != 0 or "Traceback" in proc.stderr:
        problem = f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    else:
        try:
            counts = convert_lines.check_run(len(data), tmp / "a.jsonl", tmp / "a.jsonl.rejects.jsonl")
            m = SUMMARY.search(proc.stderr)
            if m is None or tuple(map(int, m.groups())) != (counts["lines"], counts["written"], counts["rejected"]):
                problem = f"the summary does not match the files: {proc.stderr[:500]!r} vs {counts}"
            run.update(written=counts["written"], rejected=counts["rejected"], categories=counts["categories"])
        except AssertionError as exc:
            problem = f"check failed: {exc}"
        except Exception:  # noqa: BLE001 - anything the check hits is a finding too
            problem = traceback.format_exc()[-2000:]
    if problem is None and index % 5 == 4:  # the other -j must write the same bytes
        other = jobs if j == 1 else 1
        again = convert(src, tmp / "b.jsonl", source, target, what, other)
        same = again.returncode == 0 and all(
            (tmp / f"a.jsonl{s}").read_bytes() == (tmp / f"b.jsonl{s}").read_bytes() for s in ("", ".rejects.jsonl")
        )
        run["compared_jobs"] = [j, other]
        if not same:
            problem = f"-j {j} and -j {other} differ (exit {again.returncode}): {again.stderr[-1000:]}"
    if problem is not None:
        keep = ROOT / "bench" / f"fuzz-convert-finding-{index}.jsonl"
        keep.write_bytes(src.read_bytes())
        run["finding"] = {"problem": problem, "input": str(keep.relative_to(ROOT))}
    return run


def section(path: Path = OUT) -> str:
    """The RESULTS.md section for the last run (bench/run.py folds it in too)."""
    if not path.exists():
        return f"\n{TITLE}\n\nNo bench/fuzz_convert.py results yet.\n"
    r = json.loads(path.read_text(encoding="utf-8"))
    runs = r["runs"]
    out = [
        f"\n{TITLE} (bench/fuzz_convert.py, {r['started']}, seed {r['seed']}, {r['seconds']:,} s, {len(runs)} runs)\n",
        f"The real command over files of random lines (tests/fuzz/convert_lines.py), {r['lines_per_run']:,} lines a run, "
        f"`-j 1` and `-j {r['jobs']}` alternately; every fifth run repeated with the other `-j` "
        f"({sum(1 for x in runs if 'compared_jobs' in x)} comparisons, which must give the same bytes). "
        f"A finding is an exit other than 0, a traceback, in ≠ out + rejected, a malformed record, "
        f"a `wiremap_internal_error` reject, or a `-j` difference: **{sum(1 for x in runs if 'finding' in x)} finding(s)**.\n",
        "| from → to | what | runs | lines in | written | rejected | in = out + rejected |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for x in runs:
        groups.setdefault((x["source"], x["target"], x["what"]), []).append(x)
    total = {"lines": 0, "written": 0, "rejected": 0}
    for (source, target, what), xs in groups.items():
        n = sum(x["lines"] for x in xs)
        w = sum(x.get("written", 0) for x in xs)
        rj = sum(x.get("rejected", 0) for x in xs)
        ok = all("finding" not in x for x in xs) and n == w + rj
        total = {"lines": total["lines"] + n, "written": total["written"] + w, "rejected": total["rejected"] + rj}
        out.append(f"| {source} → {target} | {what} | {len(xs)} | {n:,} | {w:,} | {rj:,} | {'yes' if ok else 'NO'} |")
    out.append(f"| **all** | | {len(runs)} | {total['lines']:,} | {total['written']:,} | {total['rejected']:,} | "
               f"{'yes' if total['lines'] == total['written'] + total['rejected'] else 'NO'} |")
    kinds: dict[str, int] = {}
    cats: dict[str, int] = {}
    for x in runs:
        for k, v in x["kinds"].items():
            kinds[k] = kinds.get(k, 0) + v
        for k, v in x.get("categories", {}).items():
            cats[k] = cats.get(k, 0) + v
    out.append("\nLines by kind: " + ", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items())) + ".")
    out.append("Rejects by category: " + ", ".join(f"{k} {v:,}" for k, v in sorted(cats.items())) + ".")
    for x in runs:
        if "finding" in x:
            out.append(f"\n- FINDING run {x['index']} ({x['source']} → {x['target']}, {x['what']}, -j {x['jobs']}): "
                       f"{x['finding']['problem'][:300]} (input: {x['finding']['input']})")
    return "\n".join(out) + "\n"


def write_section(text: str) -> None:
    """Replace this script's section of bench/RESULTS.md (or insert it before the findings write-up)."""
    if not RESULTS.exists():
        return
    doc = RESULTS.read_text(encoding="utf-8")
    pattern = re.compile(r"\n" + re.escape(TITLE) + r".*?(?=\n## |\Z)", re.S)
    if pattern.search(doc):
        doc = pattern.sub(lambda _m: text.rstrip("\n") + "\n", doc, count=1)
    elif "\n## What the fuzzing found" in doc:
        doc = doc.replace("\n## What the fuzzing found", text + "\n## What the fuzzing found", 1)
    else:
        doc += text
    RESULTS.write_text(doc, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=600.0, help="time budget, checked between runs (default 600)")
    ap.add_argument("--lines", type=int, default=5000, help="lines per run (default 5000)")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--jobs", type=int, default=2, help="-j of every other run (default 2)")
    ap.add_argument("--out", default=str(OUT))
    ns = ap.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    t0 = time.perf_counter()
    runs: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="wiremap-fuzz-convert-") as tmp:
        index = 0
        while index == 0 or time.perf_counter() - t0 < ns.seconds:
            run = one_run(Path(tmp), index, ns.seed, ns.lines, ns.jobs)
            runs.append(run)
            status = f"FINDING {run['finding']['problem'][:200]}" if "finding" in run else f"{run.get('written', 0)} written, {run.get('rejected', 0)} rejected"
            print(f"run {index}: {run['source']} -> {run['target']} {run['what']} -j {run['jobs']}: {run['lines']} lines, {status} ({run['seconds']} s)", flush=True)
            index += 1
    result = {"started": started, "seed": ns.seed, "seconds": round(time.perf_counter() - t0, 1), "lines_per_run": ns.lines, "jobs": ns.jobs, "runs": runs}
    Path(ns.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if Path(ns.out) == OUT:
        write_section(section())
    found = sum(1 for x in runs if "finding" in x)
    print(f"{len(runs)} runs, {sum(x['lines'] for x in runs):,} lines, {found} finding(s) in {result['seconds']} s")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

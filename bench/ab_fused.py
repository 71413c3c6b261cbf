"""A/B of the fused translators: another revision's generated fused modules against this tree's,
side by side in one process (bench/NOTES.md "One compiled pass").

    python bench/ab_fused.py [--rev main] [--rounds 61] [--items small_chat,multimodal]

Each fused module of the pairs both revisions have is loaded from `git show REV:generated/...`
beside this tree's (the old one imports the same converters, so only the fused code differs).
For each corpus item (bench/corpus, bench/make_corpus.REQUESTS) and each of `request` and
`request_with_losses`, both answers must be equal; then the two are timed in alternating
rounds (~4 ms each, the order flipped every round) and the medians and the minima are printed
with their ratio (new/old), with the load average before and after. Not run by the tests.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import make_corpus  # noqa: E402

import wiremap  # noqa: E402
from wiremap.generated._index import FUSED  # noqa: E402

SUFFIX = {"openai_chat": "", "anthropic_messages": ".anthropic"}  # the corpus's source formats


def old_module(rev: str, name: str, where: Path) -> Any:
    """`generated/<name>.py` as it is at `rev`, loaded as a sibling of this tree's modules (None:
    that revision has no such module)."""
    try:
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:generated/{name}.py"], check=True, capture_output=True, text=True).stdout
    except subprocess.CalledProcessError:
        return None
    path = where / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"wiremap.generated._ab_old_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default="main")
    parser.add_argument("--rounds", type=int, default=61)
    parser.add_argument("--items", default=",".join(make_corpus.REQUESTS))
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    print("load", Path("/proc/loadavg").read_text().strip() if Path("/proc/loadavg").exists() else "?")
    with tempfile.TemporaryDirectory() as tmp:
        for (source, target), name in sorted(FUSED.items()):
            if source not in SUFFIX:
                continue
            old = old_module(args.rev, name, Path(tmp))
            if old is None:
                print(f"{source} -> {target}: no fused module at {args.rev}")
                continue
            new = importlib.import_module(f"wiremap.generated.{name}")
            for item in args.items.split(","):
                body = json.loads((HERE / "corpus" / f"{item}{SUFFIX[source]}.json").read_text(encoding="utf-8"))
                for fn in ("request", "request_with_losses"):
                    a, b = getattr(old, fn), getattr(new, fn)
                    assert a(body) == b(body), (source, target, item, fn)
                    t0 = time.perf_counter()
                    a(body)
                    loops = max(50, int(0.004 / max(time.perf_counter() - t0, 1e-7)))
                    times: list[list[float]] = [[], []]
                    for r in range(args.rounds):
                        for i in ((0, 1) if r % 2 == 0 else (1, 0)):
                            f = (a, b)[i]
                            t0 = time.perf_counter()
                            for _ in range(loops):
                                f(body)
                            times[i].append((time.perf_counter() - t0) / loops * 1e6)
                    med = [statistics.median(t) for t in times]
                    low = [min(t) for t in times]
                    print(f"{source} -> {target}  {item:24} {fn:20} old {med[0]:9.3f} new {med[1]:9.3f} µs  "
                          f"new/old {med[1] / med[0]:.3f} (min {low[1] / low[0]:.3f})")
    print("load", Path("/proc/loadavg").read_text().strip() if Path("/proc/loadavg").exists() else "?")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

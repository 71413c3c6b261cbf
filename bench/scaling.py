"""Scaling: time per message of the long conversation at 100, 1 000 and 10 000 messages, the
translator, the two-step way and the floor timed in turns (bench/run.py `measure_interleaved`).

    python bench/scaling.py            # prints one JSON object per size

Run by bench/run.py in a fresh interpreter that imports only wiremap and the floor: the
benchmark process has LiteLLM loaded (~170 MB of live objects), and every full garbage
collection walks that heap, which made the 10 000-message row measure LiteLLM's heap rather
than the converters (a collection is due every so many allocations, so its cost per message
grows with the size of everything else alive).
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import handwritten as hw  # noqa: E402
import make_corpus  # noqa: E402
from run import SRC, DST, measure_interleaved  # noqa: E402

import wiremap  # noqa: E402


def main() -> int:
    warnings.simplefilter("ignore", wiremap.UnsupportedOptionWarning)
    src, dst = wiremap.get_format(SRC), wiremap.get_format(DST)
    tr = wiremap.translator(SRC, DST)
    for n in (100, 1000, 10_000):
        body = make_corpus.long_conversation(n)
        # timed in turns, so that a change in the machine's speed falls on the three alike
        t_tr, t_two, t_floor = measure_interleaved(
            [lambda: tr.request(body), lambda: dst.request_to_wire(src.request_from_wire(body)), lambda: hw.openai_to_anthropic_request(body)],
            rounds=9, target=0.3,
        )
        row = {"messages": n, "translator": t_tr, "two_step": t_two, "floor": t_floor}
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""wiremap benchmarks (issue #6): `make bench` runs this and writes bench/RESULTS.md.

    python bench/run.py [--quick] [--out bench/RESULTS.md]

Every number is the median of REPEATS timed runs in this one process, each run calling the
function enough times to last ~TARGET seconds; where a table compares wiremap with its floors,
they are timed in turns instead (`measure_interleaved`: ROUNDS rounds, each timing every one of
them once), so that the shared machine's drift in speed falls on both sides of a ratio alike.
Ratios are against references measured in the same run: the hand-written floor (bench/handwritten.py), LiteLLM's AnthropicConfig, and
copy.deepcopy of the input. Formats are found with `wiremap.formats()`; the cross-provider
tables use the OpenAI Chat and Anthropic Messages formats (LiteLLM's reference pair); the
single-direction table covers every registered format.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # LiteLLM must not fetch anything

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import handwritten as hw  # noqa: E402
import make_corpus  # noqa: E402

import wiremap  # noqa: E402
from wiremap.runtime.validate import validate_request  # noqa: E402

warnings.simplefilter("ignore", wiremap.UnsupportedOptionWarning)

REPEATS = 7
ROUNDS = 15  # measure_interleaved's rounds
TARGET = 0.05
SRC, DST = "openai_chat", "anthropic_messages"


def measure(fn: Callable[[], Any], repeats: int = REPEATS, target: float = TARGET) -> float:
    """Median seconds per call."""
    fn()
    loops = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        elapsed = time.perf_counter() - t0
        if elapsed >= target / 5 or loops >= 1 << 20:
            break
        loops *= 4
    loops = max(1, int(loops * target / max(elapsed, 1e-9)))
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        times.append((time.perf_counter() - t0) / loops)
    return statistics.median(times)


def measure_interleaved(fns: list[Callable[[], Any]], rounds: int | None = None, target: float = TARGET) -> list[float]:
    """Median seconds per call of each of `fns`, timed in turns (each round times every one once,
    ROUNDS rounds, the order rotated every round), so that a change in the shared machine's speed
    falls on all of them alike. What is alive before (this process holds LiteLLM's heap) is moved
    out of the collector's sight first (`gc.freeze`): a full collection triggered inside one
    function's block would otherwise walk it and charge that function for it."""
    rounds = ROUNDS if rounds is None else rounds
    gc.collect()
    gc.freeze()
    loops = []
    for fn in fns:
        fn()
        n = 1
        while True:
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            elapsed = time.perf_counter() - t0
            if elapsed >= target / 20 or n >= 1 << 20:
                break
            n *= 2
        loops.append(max(1, int(n * target / 5 / max(elapsed, 1e-9))))
    samples: list[list[float]] = [[] for _ in fns]
    for r in range(rounds):
        for k in [(r + i) % len(fns) for i in range(len(fns))]:
            fn, n = fns[k], loops[k]
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            samples[k].append((time.perf_counter() - t0) / n)
    return [statistics.median(got) for got in samples]


def measure_consuming(make: Callable[[], Any], fn: Callable[[Any], Any], repeats: int = REPEATS, loops: int = 20) -> float:
    """Median seconds per call of fn on fresh inputs made outside the timer (for code that may
    mutate its input, LiteLLM)."""
    times = []
    for _ in range(repeats):
        inputs = [make() for _ in range(loops)]
        t0 = time.perf_counter()
        for x in inputs:
            fn(x)
        times.append((time.perf_counter() - t0) / loops)
    return statistics.median(times)


def us(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds * 1e6:,.1f}"


def ratio(a: float | None, b: float | None) -> str:
    return "n/a" if a is None or b is None or not b else f"{a / b:.2f}×"


# ------------------------------------------------------------------------------- LiteLLM


def litellm_request() -> Callable[[dict[str, Any]], Any] | None:
    try:
        from litellm.llms.anthropic.chat.transformation import AnthropicConfig
    except Exception:  # noqa: BLE001 - not installed: the column says n/a
        return None
    config = AnthropicConfig()

    def run(body: dict[str, Any]) -> Any:
        params = {k: v for k, v in body.items() if k not in ("model", "messages")}
        optional = config.map_openai_params(non_default_params=params, optional_params={}, model=body["model"], drop_params=False)
        return config.transform_request(model=body["model"], messages=body["messages"], optional_params=optional, litellm_params={}, headers={})

    return run


def litellm_gemini() -> Callable[[dict[str, Any]], Any] | None:
    """LiteLLM's Google AI Studio path: `GoogleAIStudioGeminiConfig().map_openai_params` and the
    request-body builder its `transform_request` stands for (`_transform_request_body`)."""
    try:
        from litellm.llms.gemini.chat.transformation import GoogleAIStudioGeminiConfig
        from litellm.llms.vertex_ai.gemini.transformation import _transform_request_body
    except Exception:  # noqa: BLE001 - not installed (or moved): the column says n/a
        return None
    config = GoogleAIStudioGeminiConfig()

    def run(body: dict[str, Any]) -> Any:
        params = {k: v for k, v in body.items() if k not in ("model", "messages")}
        optional = config.map_openai_params(non_default_params=params, optional_params={}, model=body["model"], drop_params=False)
        return _transform_request_body(messages=body["messages"], model=body["model"], optional_params=optional,
                                       custom_llm_provider="gemini", litellm_params={}, cached_content=None)

    return run


def litellm_from_anthropic() -> Callable[[dict[str, Any]], Any] | None:
    """LiteLLM's Anthropic `/v1/messages` adapter: `translate_anthropic_to_openai`."""
    try:
        from litellm.llms.anthropic.pass_through.adapters.transformation import LiteLLMAnthropicMessagesAdapter
    except Exception:  # noqa: BLE001
        return None
    adapter = LiteLLMAnthropicMessagesAdapter()
    return lambda body: adapter.translate_anthropic_to_openai(body)


# (source, target, corpus file suffix, floor, LiteLLM reference, its label)
REQUEST_PAIRS: list[tuple[str, str, str, Callable[[dict[str, Any]], Any], Callable[[], Any] | None, str]] = [
    ("openai_chat", "anthropic_messages", "", hw.openai_to_anthropic_request, litellm_request,
     "`AnthropicConfig().map_openai_params` + `.transform_request`"),
    ("openai_chat", "gemini_generate_content", "", hw.openai_to_gemini_request, litellm_gemini,
     "`GoogleAIStudioGeminiConfig().map_openai_params` + `_transform_request_body` (its `transform_request`)"),
    ("anthropic_messages", "openai_chat", ".anthropic", hw.anthropic_to_openai_request, litellm_from_anthropic,
     "`LiteLLMAnthropicMessagesAdapter().translate_anthropic_to_openai`"),
]
# each pair's floor with the checks (bench/handwritten.py `*_checked`), timed in the same rounds
CHECKED: dict[tuple[str, str], Callable[[dict[str, Any]], Any]] = {
    ("openai_chat", "anthropic_messages"): hw.openai_to_anthropic_request_checked,
    ("openai_chat", "gemini_generate_content"): hw.openai_to_gemini_request_checked,
    ("anthropic_messages", "openai_chat"): hw.anthropic_to_openai_request_checked,
}
# (source, target, response corpus item, floor)
RESPONSE_PAIRS: list[tuple[str, str, str, Callable[[dict[str, Any]], Any]]] = [
    ("anthropic_messages", "openai_chat", "anthropic_response", hw.anthropic_to_openai_response),
    ("openai_chat", "anthropic_messages", "openai_response", hw.openai_to_anthropic_response),
    ("openai_chat", "gemini_generate_content", "openai_response", hw.openai_to_gemini_response),
]


def load_request(name: str, suffix: str) -> dict[str, Any]:
    """A request item of bench/corpus in one source format (suffix "" OpenAI Chat, ".anthropic")."""
    body: dict[str, Any] = json.loads((HERE / "corpus" / f"{name}{suffix}.json").read_text(encoding="utf-8"))
    return body


class _NoFallback:
    def request_from_wire(self, body: Any) -> Any:
        raise _FellBack

    def response_from_wire(self, body: Any) -> Any:
        raise _FellBack


class _FellBack(Exception):
    pass


def one_pass(tr: Any, body: Any, what: str = "request") -> str:
    """Whether the fused translator answers `body` by itself ("yes") or hands it to the two-step
    path ("no: two-step"); "–" for a pair without a fused translator (of that direction)."""
    fn = getattr(tr, what)
    if not tr.fused or fn.__module__ not in sys.modules or not fn.__module__.startswith("wiremap.generated.fused__"):
        return "–"
    module = sys.modules[fn.__module__]
    saved = module._src
    module._src = _NoFallback()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(body)
        return "yes"
    except _FellBack:
        return "no: two-step"
    finally:
        module._src = saved


def version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as v

    try:
        return v(dist)
    except PackageNotFoundError:
        return "not installed"


# -------------------------------------------------------------------------------- import
#
# What a user who pip-installed wiremap gets: the wheel built from this tree, installed into a
# throwaway venv (no editable-install finder, nothing else installed; pip byte-compiles at
# install), each statement run in fresh interpreters with bytecode enabled (this machine sets
# PYTHONDONTWRITEBYTECODE=1, under which nothing would be cached), from a neutral directory (so
# that `-c` does not import the source checkout). Rows are measured round robin after one
# discarded warm-up run each; each number is the median over the fresh interpreters.

IMPORT_RUNS = 21
_IMPORT_PROBE = r"""
import time
def hwm():  # peak resident set of this process, bytes (VmHWM: not inherited across exec)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
{setup}
base = hwm()
t0 = time.perf_counter()
{stmt}
t = time.perf_counter() - t0
print(t, hwm() - base)
"""
_EVERY_FORMAT = "from wiremap.generated._index import FORMATS\nfor k in FORMATS: wiremap.get_format(k)"
# label -> (interpreter: "install" = the throwaway venv, "install+dev" = the same with the dev
# venv's site-packages on PYTHONPATH (its distributions visible, its .pth hooks not run),
# "dev" = the development venv; untimed setup; timed statement; at most this many runs)
_IMPORTS: dict[str, tuple[str, str, str, int]] = {
    "`import wiremap`": ("install", "", "import wiremap", IMPORT_RUNS),
    "`import wiremap` + every generated format (`get_format`)": ("install", "", "import wiremap\n" + _EVERY_FORMAT, IMPORT_RUNS),
    "`wiremap.formats()` after import: entry-point discovery, only wiremap installed": (
        "install", "import wiremap", "wiremap.formats()", IMPORT_RUNS),
    "`wiremap.formats()` after import: entry-point discovery, the dev venv's distributions": (
        "install+dev", "import wiremap", "wiremap.formats()", IMPORT_RUNS),
    "`import wiremap` + `formats()` + every format (discovery included)": (
        "install", "", "import wiremap\nfor k in wiremap.formats(): wiremap.get_format(k)", IMPORT_RUNS),
    "`import litellm` (dev venv; median of 5)": ("dev", "", "import litellm", 5),  # ~3 s each
}


def _install_wheel(where: Path) -> Path:
    """A venv at `where` holding only the wheel built from this tree; its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(ROOT)],
                   check=True, env=env, capture_output=True)
    return python


def cold_imports(runs: int = IMPORT_RUNS) -> dict[str, tuple[float, float] | None]:
    """label -> (median seconds, median peak RSS added, bytes), or None when the probe failed."""
    import sysconfig
    import tempfile

    with tempfile.TemporaryDirectory(prefix="wiremap-import-") as tmp:
        python = _install_wheel(Path(tmp) / "venv")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
        env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
        dev_site = sysconfig.get_paths()["purelib"]
        setups = {"install": (str(python), env), "install+dev": (str(python), dict(env, PYTHONPATH=dev_site)),
                  "dev": (sys.executable, env)}
        samples: dict[str, list[tuple[float, float]] | None] = {label: [] for label in _IMPORTS}
        for i in range(runs + 1):
            for label, (where, setup, stmt, most) in _IMPORTS.items():
                if samples[label] is None or i > min(runs, most):
                    continue
                exe, run_env = setups[where]
                proc = subprocess.run([exe, "-c", _IMPORT_PROBE.format(setup=setup, stmt=stmt)],
                                      capture_output=True, text=True, env=run_env, cwd=tmp)
                if proc.returncode:
                    samples[label] = None
                elif i:  # the first round warms the caches (and writes any missing bytecode)
                    t, r = proc.stdout.split()[-2:]
                    samples[label].append((float(t), float(r)))  # type: ignore[union-attr]
    return {label: None if got is None else (statistics.median(t for t, _ in got), statistics.median(r for _, r in got))
            for label, got in samples.items()}


# ---------------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    global REPEATS, ROUNDS
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer repeats (a smoke run)")
    ap.add_argument("--out", default=str(HERE / "RESULTS.md"))
    ns = ap.parse_args(argv)
    if ns.quick:
        REPEATS = 3
        ROUNDS = 5
    load_before = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    src, dst = wiremap.get_format(SRC), wiremap.get_format(DST)
    responses = {name: json.loads((HERE / "corpus" / f"{name}.json").read_text()) for name in make_corpus.RESPONSES}
    lines: list[str] = []
    add = lines.append
    summary: dict[str, Any] = {"translate": [], "single": [], "validation": [], "checked": {}}
    checked_times: dict[tuple[str, str], list[tuple[str, float, float, float]]] = {}  # (item, floor, checked floor, translator)

    # --- 1. request translation: every corpus item, each measured pair
    for source, target, suffix, floor_fn, lite_fn, lite_label in REQUEST_PAIRS:
        tr = wiremap.translator(source, target)
        s_fmt, d_fmt = wiremap.get_format(source), wiremap.get_format(target)
        add(f"## Request translation: {source} → {target}\n")
        add(f"Medians in µs per request; floor, translator, two-step, translate and the checked floor (the next section) timed in turns "
            f"({ROUNDS} rounds: a change in the shared machine's speed falls on all five alike). *floor* = bench/handwritten.py `{floor_fn.__name__}`, straight-line code for the corpus "
            "that sends the same bytes as wiremap (checked: `json.dumps` of both, key order included), keeps the caller's key "
            "order in tool schemas and arguments and does not sort. "
            f"*translator* = `wiremap.translator({source!r}, {target!r}).request` "
            f"({'the fused translator the mappings compile: one pass where the body allows it, else the two-step path' if tr.fused else 'no fused translator for this pair: the two-step path'}; "
            "exactly the two-step answer, validation included); *one pass* = whether this item took the fused path; "
            "*two-step* = `request_from_wire` + `request_to_wire`; "
            "*translate* = `translate_request` (also builds the loss report: reads the result back and diffs). "
            f"LiteLLM = {lite_label} (fresh input copies made outside the timer); the target: at least 20× the translator. "
            "*LiteLLM ÷ floor*: the most any converter as fast as the hand-written floor could reach; under 20× there, "
            "the 20× target asks for a converter faster than straight-line hand-written code.\n")
        add("| item | messages | floor | translator | ×floor | one pass | two-step | ×floor | translate | ×floor | LiteLLM | LiteLLM ÷ translator | LiteLLM ÷ floor |")
        add("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
        for name in make_corpus.REQUESTS:
            body = load_request(name, suffix)
            expected = d_fmt.request_to_wire(s_fmt.request_from_wire(body))
            assert json.dumps(floor_fn(body)) == json.dumps(expected), f"floor bytes differ from wiremap on {name} ({source} -> {target})"
            assert json.dumps(tr.request(body)) == json.dumps(expected), f"translator differs from the two-step path on {name}"
            checked_fn = CHECKED[(source, target)]
            assert json.dumps(checked_fn(body)) == json.dumps(expected), f"checked floor differs on {name} ({source} -> {target})"
            t_floor, t_fused, t_two, t_tr, t_checked = measure_interleaved([
                lambda: floor_fn(body), lambda: tr.request(body), lambda: d_fmt.request_to_wire(s_fmt.request_from_wire(body)),
                lambda: wiremap.translate_request(body, source, target), lambda: checked_fn(body)])
            checked_times.setdefault((source, target), []).append((name, t_floor, t_checked, t_fused))
            lite = lite_fn() if lite_fn else None
            t_lite, lite_cell = None, "n/a"
            if lite is not None:
                try:
                    lite(copy.deepcopy(body))
                except Exception as exc:  # noqa: BLE001 - e.g. it fetches image URLs itself, and this machine is offline
                    lite_cell = f"n/a ({type(exc).__name__}: {str(exc).split(': ')[-1][:60]})"
                else:
                    t_lite = measure_consuming(lambda: copy.deepcopy(body), lite)
                    lite_cell = us(t_lite)
            summary["translate"].append((f"{name} ({source} → {target})", t_fused / t_floor, (t_lite / t_fused) if t_lite else None,
                                         t_tr / t_floor, t_two / t_floor, (t_lite / t_floor) if t_lite else None))
            add(f"| {name} | {len(body['messages'])} | {us(t_floor)} | {us(t_fused)} | {ratio(t_fused, t_floor)} | "
                f"{one_pass(tr, body)} | {us(t_two)} | {ratio(t_two, t_floor)} | {us(t_tr)} | {ratio(t_tr, t_floor)} | {lite_cell} | "
                f"{ratio(t_lite, t_fused)} | {ratio(t_lite, t_floor)} |")
        add("")

    # --- 1b. the floor with the checks: what validating alone costs on each item (measured in the rounds above)
    for (source, target), rows in checked_times.items():
        add(f"## The floor with the checks: {source} → {target}\n")
        add(f"*checked floor* = bench/handwritten.py `{CHECKED[(source, target)].__name__}`: the floor plus the checks it leaves "
            "out and any converter that must never change a body's meaning has to make before it writes (each key one it "
            "writes or drops as wiremap does, each value of the type and range the two-step way takes, tool results answering "
            "calls, the caller's JSON plain, finite, free of lone surrogates and within the depth limit, a warning for each "
            "dropped option). It covers the corpus only; on the corpus and on mutated bodies it answers exactly what "
            "`wiremap.translator` answers, or not at all (tests/test_bench_floor.py). The figures are the previous section's: "
            f"the checked floor was timed in the same {ROUNDS} rounds as the floor and the translator. *checks alone* = checked "
            "floor ÷ floor: where it exceeds 2×, target 1's 2× asks for a converter that validates in less time than the checks take.\n")
        add("| item | floor | checked floor | checks alone (×floor) | translator | ×floor | ×checked floor |")
        add("|---|---:|---:|---:|---:|---:|---:|")
        summary["checked"][f"{source} → {target}"] = [
            (name, t_checked / t_floor, t_fused / t_checked, t_fused / t_floor) for name, t_floor, t_checked, t_fused in rows
        ]
        for name, t_floor, t_checked, t_fused in rows:
            add(f"| {name} | {us(t_floor)} | {us(t_checked)} | {ratio(t_checked, t_floor)} | {us(t_fused)} | {ratio(t_fused, t_floor)} | "
                f"{ratio(t_fused, t_checked)} |")
        add("")

    # --- 2. response translation
    add("## Response translation\n")
    add("*translator* = `wiremap.translator(source, target).response`: the fused response translator the mappings "
        "compile (one pass where the body allows it, else the two-step way: exactly the two-step answer); *two-step* = "
        "`response_from_wire` (without the carried-data residual, which only goes back to the same origin) + "
        f"`response_to_wire`; the floor sends the same bytes (checked). The four are timed in turns ({ROUNDS} rounds, medians).\n")
    add("| source → target | item | floor | translator | ×floor | one pass | two-step | ×floor | translate_response | ×floor |")
    add("|---|---|---:|---:|---:|---|---:|---:|---:|---:|")
    from wiremap.runtime.wire import read_without_carry

    for source, target, name, floor_fn in RESPONSE_PAIRS:
        body = responses[name]
        tr = wiremap.translator(source, target)
        back = tr.response
        s_fmt, d_fmt = wiremap.get_format(source), wiremap.get_format(target)
        assert json.dumps(floor_fn(body)) == json.dumps(back(body)), f"floor bytes differ from wiremap on {name} ({source} -> {target})"
        t_floor, t_fused, t_two, t_tr = measure_interleaved([
            lambda: floor_fn(body), lambda: back(body), lambda: d_fmt.response_to_wire(read_without_carry(s_fmt.response_from_wire, body)),
            lambda: wiremap.translate_response(body, source, target)])
        summary["translate"].append((f"{name} ({source} → {target})", t_fused / t_floor, None, t_tr / t_floor, t_two / t_floor))
        add(f"| {source} → {target} | {name} | {us(t_floor)} | {us(t_fused)} | {ratio(t_fused, t_floor)} | {one_pass(tr, body, 'response')} | "
            f"{us(t_two)} | {ratio(t_two, t_floor)} | {us(t_tr)} | {ratio(t_tr, t_floor)} |")

    # --- 3. single directions against their hand-written equivalents
    add(f"\n## Single directions against hand-written equivalents ({DST})\n")
    add("`request_to_wire` takes the typed canonical `Request` (as `request_from_wire` returns it; validation included); "
        "the floor reads the same object. `response_from_wire` returns a typed `Response`; so does the floor. "
        "*validation alone* = `wiremap.runtime.validate.validate_request` on the same `Request`: the OpenArmature "
        "checks `request_to_wire` must make before it writes (the floor makes none). The target: within 2× of the floor, "
        "or within 1 µs of it where the floor takes under 1 µs.\n")
    add("*checked floor* = bench/handwritten.py `canonical_to_anthropic_request_checked`: the floor plus the checks it leaves "
        "out and a writer that must never change a request's meaning has to make (every field it does not write checked "
        "unset, every value it writes checked as validation checks it for this format, each dropped option warned; where "
        "it answers, it answers as `request_to_wire` does: tests/test_bench_floor.py); where it exceeds 2× the floor, the "
        f"target asks for a writer that validates in less time than the checks take. The four are timed in turns ({ROUNDS} rounds, "
        "medians).\n")
    add("| direction | item | floor | wiremap | ×floor | validation alone | ×floor | checked floor | checks alone (×floor) | wiremap ×checked floor |")
    add("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    summary["checked_single"] = []
    for name in make_corpus.REQUESTS:
        req = src.request_from_wire(load_request(name, ""))
        assert json.dumps(hw.canonical_to_anthropic_request(req)) == json.dumps(dst.request_to_wire(req)), f"floor bytes differ on {name}"
        assert json.dumps(hw.canonical_to_anthropic_request_checked(req)) == json.dumps(dst.request_to_wire(req)), f"checked floor differs on {name}"
        t_floor, t_w, t_val, t_checked = measure_interleaved([
            lambda: hw.canonical_to_anthropic_request(req), lambda: dst.request_to_wire(req), lambda: validate_request(req),
            lambda: hw.canonical_to_anthropic_request_checked(req)])
        summary["single"].append((f"request_to_wire {name}", t_w, t_floor))
        summary["validation"].append((name, t_val / t_floor))
        summary["checked_single"].append((name, t_checked / t_floor, t_w / t_checked))
        add(f"| request_to_wire | {name} | {us(t_floor)} | {us(t_w)} | {ratio(t_w, t_floor)} | {us(t_val)} | {ratio(t_val, t_floor)} | "
            f"{us(t_checked)} | {ratio(t_checked, t_floor)} | {ratio(t_w, t_checked)} |")
    body = responses["anthropic_response"]
    assert hw.anthropic_response_to_canonical(body).to_dict() == dst.response_from_wire(body).to_dict()
    t_floor, t_w, t_bare = measure_interleaved([
        lambda: hw.anthropic_response_to_canonical(body), lambda: dst.response_from_wire(body),
        lambda: read_without_carry(dst.response_from_wire, body)])
    summary["single"].append(("response_from_wire anthropic_response", t_w, t_floor))
    summary["carry_share"] = (t_bare / t_floor, (t_w - t_bare) / t_w)
    add(f"| response_from_wire | anthropic_response | {us(t_floor)} | {us(t_w)} | {ratio(t_w, t_floor)} | (checks are the parse) | | | | |")
    add(f"\n`response_from_wire` without the carried-data residual (`read_without_carry`: no re-write of the body and diff "
        f"against it, which finds what the tables do not model so that it goes back to the same provider): {us(t_bare)} µs, "
        f"{ratio(t_bare, t_floor)} the floor; the residual is {(t_w - t_bare) / t_w:.0%} of `response_from_wire`'s time. "
        "The floor builds the same typed `Response` and carries nothing.\n")

    # --- 4. every format, each direction (no floor: for scale and regressions)
    add("\n## Every registered format (µs; `wiremap.formats()`)\n")
    add("Canonical input: the tool turn read by `openai_chat.request_from_wire`; responses: each format's own "
        "`response_to_wire` of the Anthropic response read canonically.\n")
    add("| format | request_to_wire | request_from_wire | response_to_wire | response_from_wire |")
    add("|---|---:|---:|---:|---:|")
    req = src.request_from_wire(load_request("tool_turn", ""))
    resp = dst.response_from_wire(responses["anthropic_response"])
    for key in wiremap.formats():
        f = wiremap.get_format(key)
        kind = getattr(f, "kind", "chat")
        if kind != "chat":
            add(f"| {key} | n/a (kind {kind}) | | | |")
            continue
        cells = []
        try:
            wire = f.request_to_wire(req)
            cells += [us(measure(lambda: f.request_to_wire(req))), us(measure(lambda: f.request_from_wire(wire)))]
        except wiremap.ProviderError as exc:
            cells += [f"refused ({exc.category})", "—"]
        try:
            rwire = f.response_to_wire(resp)
            cells += [us(measure(lambda: f.response_to_wire(resp))), us(measure(lambda: f.response_from_wire(rwire)))]
        except wiremap.ProviderError as exc:
            cells += [f"refused ({exc.category})", "—"]
        add(f"| {key} | " + " | ".join(cells) + " |")

    # --- 5. scaling (bench/scaling.py, in a fresh interpreter without LiteLLM's heap)
    add("\n## Scaling: the long conversation at 100, 1 000 and 10 000 messages\n")
    add("Measured by bench/scaling.py in a fresh interpreter that loads only wiremap and the floor (this process "
        "holds LiteLLM, whose heap every full garbage collection would walk); the translator, the two-step way and the "
        "floor timed in turns at each size (9 rounds, medians).\n")
    add("| messages | translator µs | µs per message | two-step µs per message | floor µs per message | translator ×floor |")
    add("|---:|---:|---:|---:|---:|---:|")
    per_msg, floor_per_msg = [], []
    proc = subprocess.run([sys.executable, str(HERE / "scaling.py")], capture_output=True, text=True, check=True, cwd=ROOT)
    for line in proc.stdout.splitlines():
        row = json.loads(line)
        n, t, t2, tf = row["messages"], row["translator"], row["two_step"], row["floor"]
        per_msg.append(t / n)
        floor_per_msg.append(tf / n)
        add(f"| {n:,} | {us(t)} | {t / n * 1e6:.2f} | {t2 / n * 1e6:.2f} | {tf / n * 1e6:.2f} | {ratio(t, tf)} |")
    summary["flat"] = (per_msg[-1] / per_msg[0], floor_per_msg[-1] / floor_per_msg[0])
    add(f"\nGrowth of the time per message from 100 to 10 000 messages: translator {summary['flat'][0]:.2f}×, "
        f"floor {summary['flat'][1]:.2f}× (the target: the translator's at most 1.2 × the floor's, "
        f"{1.2 * summary['flat'][1]:.2f}×), both measured in the same interpreter.\n")

    # --- 6. cold import, regeneration
    add(f"\n## Cold import (a wheel of this tree in a throwaway venv, byte-compiled; fresh interpreters; medians of {IMPORT_RUNS})\n")
    add("Time and peak RSS (VmHWM) added by the statement. Entry-point discovery (`importlib.metadata`, "
        "scanning the installed distributions for third-party formats) is `formats()`' cost and grows with the environment; "
        "`get_format` of a generated key does not need it.\n")
    add("| import | time ms | peak RSS added MB |")
    add("|---|---:|---:|")
    for label, got in cold_imports().items():
        if got is None:
            add(f"| {label} | n/a | n/a |")
            continue
        add(f"| {label} | {got[0] * 1000:.1f} | {got[1] / 1e6:.1f} |")
        if "every generated format" in label:
            summary["import"] = got
    from wiremap.codegen.generate import generate

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        t_gen = measure(lambda: generate("mappings"), repeats=3, target=0.0)
    finally:
        os.chdir(cwd)
    add(f"\nFull regeneration (`wiremap.codegen.generate`, in memory, {len(wiremap.formats())} formats): {t_gen:.2f} s (median of 3).\n")

    stream_text, stream_rows = stream_section()  # bench/bench_stream.py: streaming events/s, per chunk against the re-framer
    add(stream_text)
    import datasets  # bench/datasets.py: `wiremap convert` against a plain loop over the translator

    # in a fresh interpreter, as convert runs (this process holds LiteLLM, whose heap every full
    # garbage collection would walk, on the convert side and the plain loop's alike)
    proc = subprocess.run(
        [sys.executable, str(HERE / "datasets.py"), "--json", "--records", str(datasets.RECORDS),
         "--repeats", "3" if not ns.quick else "1", "--stage-repeats", "5" if not ns.quick else "1"],
        capture_output=True, text=True, check=True, cwd=ROOT,
    )
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    data_rows = [tuple(row) for row in got["rows"]]
    data_interleaved = got["interleaved"]
    add(got["section"])

    # --- header and summary
    load_after = os.getloadavg()
    head = [
        "# wiremap benchmarks and fuzzing (issue #6)\n",
        "Written by `make bench` (bench/run.py); the fuzzing section by `make fuzz` (bench/fuzz.py) -- do not edit by hand.\n",
        f"- run: {started}; machine: {platform.machine()}, {os.cpu_count()} CPUs, {platform.platform()}; "
        f"Python {platform.python_version()}",
        f"- load average (1/5/15 min) before: {' / '.join(f'{x:.2f}' for x in load_before)}; after: "
        f"{' / '.join(f'{x:.2f}' for x in load_after)} -- the machine is shared, so absolute numbers are noisy; "
        "ratios are measured in the same run",
        f"- versions: wiremap {wiremap.__version__}, litellm {version('litellm')}; formats: {', '.join(wiremap.formats())}",
        f"- each number: median of {REPEATS} repeats, or of {ROUNDS} rounds where the tables say the figures were timed in turns\n",
        "## Targets\n",
        "| target | result | met |",
        "|---|---|---|",
    ]
    def met(ok: bool) -> str:
        return "yes" if ok else "no"

    requests_only = [r for r in summary["translate"] if not r[0].startswith(tuple(make_corpus.RESPONSES))]
    responses_only = [r for r in summary["translate"] if r not in requests_only]
    worst_tr = max(requests_only, key=lambda r: r[1])
    head.append(f"| 1. translation: `translator(…).request` within 2× of the floor, every item, openai_chat ↔ anthropic_messages and "
                f"openai_chat → gemini_generate_content | worst {worst_tr[1]:.2f}× ({worst_tr[0]}); "
                f"{sum(r[1] <= 2 for r in requests_only)} of {len(requests_only)} within | {met(worst_tr[1] <= 2)} |")
    worst_resp = max(responses_only, key=lambda r: r[1])
    head.append(f"| 1. translation: `translator(…).response` within 2× of the floor | worst {worst_resp[1]:.2f}× ({worst_resp[0]}) | "
                f"{met(worst_resp[1] <= 2)} |")
    lite_ratios = [(r[2], r[0]) for r in summary["translate"] if r[2] is not None]
    if lite_ratios:
        least = min(lite_ratios)
        floor_short = [r[0] for r in summary["translate"] if len(r) > 5 and r[5] is not None and r[5] < 20]
        head.append(f"| 1. ≥ 20× faster than LiteLLM, every item | least {least[0]:.1f}× ({least[1]}); "
                    f"{sum(x >= 20 for x, _ in lite_ratios)} of {len(lite_ratios)} at 20× or more; on {len(floor_short)} of "
                    f"{len(lite_ratios)} even the hand-written floor is under 20× LiteLLM (there the target asks for more than "
                    f"straight-line code) | {met(least[0] >= 20)} |")
    for pair, rows in summary.get("checked", {}).items():
        past = [r for r in rows if r[1] > 2]
        missed = [r for r in rows if r[3] > 2]
        worst_c = max(rows, key=lambda r: r[2])
        head.append(f"| (for scale) target 1 against the floor with the checks ({pair}) | the checks alone take "
                    f"the floor past 2× on {len(past)} of {len(rows)} items ({', '.join(f'{r[0]} {r[1]:.2f}×' for r in past) or 'none'}); "
                    f"the translator misses 2× on {len(missed)} items here ({', '.join(r[0] for r in missed) or 'none'}), and is at most "
                    f"{worst_c[2]:.2f}× the checked floor ({worst_c[0]}) | |")
    worst_two = max(summary["translate"], key=lambda r: r[4])
    head.append(f"| (for scale) two-step (`request_from_wire` + `request_to_wire`) against the same floor | worst {worst_two[4]:.2f}× ({worst_two[0]}) | |")
    worst_trl = max(summary["translate"], key=lambda r: r[3])
    head.append(f"| (for scale) `translate_*` with its loss report, against the same floor | worst {worst_trl[3]:.2f}× ({worst_trl[0]}) | |")

    def single_ok(t_w: float, t_floor: float) -> bool:
        return t_w <= 2 * t_floor or (t_floor < 1e-6 and t_w - t_floor <= 1e-6)

    worst_single = max(summary["single"], key=lambda r: r[1] / r[2])
    missed = [r for r in summary["single"] if not single_ok(r[1], r[2])]
    head.append(f"| 2. single directions (`request_to_wire`, `response_from_wire`, validation included) within 2× of hand-written "
                f"(or within 1 µs where the floor takes under 1 µs) | worst {worst_single[1] / worst_single[2]:.2f}× ({worst_single[0]}); "
                f"{len(summary['single']) - len(missed)} of {len(summary['single'])} within | {met(not missed)} |")
    if summary.get("checked_single"):
        rows = summary["checked_single"]
        past = [r for r in rows if r[1] > 2]
        head.append(f"| (for scale) target 2 against the writer with the checks (`request_to_wire`) | the checks alone take the floor "
                    f"past 2× on {len(past)} of {len(rows)} items ({', '.join(f'{r[0]} {r[1]:.2f}×' for r in past) or 'none'}); "
                    f"`request_to_wire` is {min(r[2] for r in rows):.2f}-{max(r[2] for r in rows):.2f}× the checked floor | |")
    if summary.get("carry_share"):
        bare, share = summary["carry_share"]
        head.append(f"| (for scale) target 2, `response_from_wire`: without the carried-data residual | {bare:.2f}× the floor; the "
                    f"residual is {share:.0%} of its time | |")
    worst_val = max(summary["validation"], key=lambda r: r[1])
    head.append(f"| (for scale) `validate_request` alone, which `request_to_wire` must run | worst {worst_val[1]:.2f}× the floor ({worst_val[0]}) | |")
    grow, floor_grow = summary["flat"]
    head.append(f"| 3. scaling: time per message from 100 to 10 000 messages grows at most 1.2 × the floor's growth | translator "
                f"{grow:.2f}×, floor {floor_grow:.2f}× (limit {1.2 * floor_grow:.2f}×) | {met(grow <= 1.2 * floor_grow)} |")
    worst_stream = max(stream_rows, key=lambda r: r[1])
    head.append(f"| 5. streams: per-chunk translation within 2× of a hand-written SSE re-framer | worst {worst_stream[1]:.2f}× "
                f"({worst_stream[0]}) | {met(worst_stream[1] <= 2)} |")
    overhead, base_name = datasets.overhead(data_rows, data_interleaved)
    head.append(f"| 6. datasets: `wiremap convert` (-j 1) records/s within 20% of a plain loop over the translator ({base_name}) | "
                f"overhead {overhead:.0%}; scaling: {datasets.efficiencies(data_rows)} | {met(overhead <= 0.2)} |")
    if "import" in summary:
        t, rss = summary["import"]
        head.append(f"| import under 30 ms and under 10 MB added (every generated format loaded; entry-point discovery in the import table) | {t * 1000:.1f} ms, {rss / 1e6:.1f} MB | {'yes' if t < 0.03 and rss < 10e6 else 'no'} |")
    head.append("")
    fuzz = fuzz_section()
    sys.path.insert(0, str(HERE))
    import fuzz_mappings  # the mapping-file fuzz section (bench/fuzz_mappings.py)

    fuzz += fuzz_mappings.section()
    import fuzz_convert  # the `wiremap convert` fuzz section (bench/fuzz_convert.py)

    fuzz += fuzz_convert.section()
    import load_gateway  # the gateway load test's section (bench/load_gateway.py), from its last run

    fuzz += load_gateway.section()
    import gateway_vs_litellm  # the gateway against LiteLLM's proxy (bench/gateway_vs_litellm.py), its last run

    fuzz += gateway_vs_litellm.section()
    notes_path = HERE / "NOTES.md"
    notes = notes_path.read_text(encoding="utf-8") if notes_path.exists() else ""
    text = "\n".join(head + lines) + "\n" + fuzz + ("\n" + notes if notes else "")
    Path(ns.out).write_text(text, encoding="utf-8")
    print(text)
    return 0


def stream_section() -> tuple[str, list[tuple[str, float]]]:
    """The streaming tables (bench/bench_stream.py): events per second parsed, assembled,
    re-emitted and translated, medians of REPEATS runs, with the ratio to LiteLLM's iterator; and
    the per-chunk cost of `translate_stream` against the hand-written re-framer, (pair, ratio)."""
    import bench_stream

    per_chunk, rows = bench_stream.per_chunk_rows(repeats=ROUNDS, seconds=0.2)  # timed in turns
    return bench_stream.section(repeats=REPEATS, seconds=0.2) + per_chunk, rows


def fuzz_section() -> str:
    path = HERE / "fuzz-results.json"
    if not path.exists():
        return "\n## Fuzzing\n\nNo `make fuzz` results yet.\n"
    r = json.loads(path.read_text())
    out = [f"\n## Fuzzing (`make fuzz`, {r['started']}, seed {r['seed']}, {r['seconds']:,} s)\n",
           "| format | cases | per entry point | distinct findings | slowest case ms |", "|---|---:|---|---:|---:|"]
    for f in r["formats"]:
        per = ", ".join(f"{e} {v['tried']:,}" for e, v in f["entries"].items())
        slow = max(v["slowest_ms"] for v in f["entries"].values())
        out.append(f"| {f['format']} | {f['tried']:,} | {per} | {len(f['findings'])} | {slow:,.1f} |")
    for f in r["formats"]:
        for x in f["findings"]:
            out.append(f"\n- FINDING {f['format']} {x['entry']} ({x['count']}×): {x['error']} at {x['where']}; operators {x['operators']}")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())

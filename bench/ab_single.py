"""Side-by-side A/B of the single directions and response translation rows (bench/RESULTS.md
"Response translation" and "Single directions against hand-written equivalents") in one process.

    python bench/ab_single.py [--base main] [--rounds 5]

The `--base` ref's tree (git archive) is copied to a temporary directory as the package `wmbase`
(its `wiremap.` imports renamed), so the base and this checkout run in the same interpreter:
each row is measured base/new alternately (the order flips every round) with bench/run.py's
`measure` (median of 7 timed runs), next to the floor of the same round; the table gives the
median over rounds, and the ratios to the floor per round, then their median. The load average
is printed before and after each round (this machine is shared).
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ap = argparse.ArgumentParser()
ap.add_argument("--base", default="main")
ap.add_argument("--rounds", type=int, default=5)
ns = ap.parse_args()
tmp = Path(tempfile.mkdtemp(prefix="wiremap-ab-"))
tree = tmp / "tree"
tree.mkdir()
archive = subprocess.run(["git", "-C", str(ROOT), "archive", ns.base], check=True, capture_output=True).stdout
subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
pkg = tmp / "wmbase"
shutil.copytree(tree / "wiremap", pkg)
for sub in ("runtime", "codegen", "generated"):
    shutil.copytree(tree / sub, pkg / sub)
for f in pkg.rglob("*.py"):
    text = f.read_text()
    text = re.sub(r"\bwiremap\.(runtime|generated|codegen|registry|convert|datasets|cli|gateway)", r"wmbase.\1", text)
    text = re.sub(r"(?m)^(\s*)from wiremap import", r"\1from wmbase import", text)
    text = re.sub(r"(?m)^(\s*)import wiremap$", r"\1import wmbase as wiremap", text)
    f.write_text(text)
sys.path.insert(0, str(tmp))
sys.path.insert(0, str(HERE))
warnings.simplefilter("ignore")
import run as R, handwritten as hw, make_corpus
import wiremap, wmbase
from wiremap.runtime.validate import validate_request as v_new
from wmbase.runtime.validate import validate_request as v_base
assert Path(wmbase.__file__).is_relative_to(tmp) and not Path(wiremap.__file__).is_relative_to(tmp)
ROUNDS = ns.rounds
R.REPEATS = 7
corpus = R.HERE / "corpus"
responses = {n: json.loads((corpus / f"{n}.json").read_text()) for n in make_corpus.RESPONSES}
rows = []  # (name, floor fn, base fn, new fn)
for source, target, name, floor_fn in R.RESPONSE_PAIRS:
    body = responses[name]
    b = wmbase.translator(source, target).response
    n = wiremap.translator(source, target).response
    assert json.dumps(floor_fn(body)) == json.dumps(n(body)) == json.dumps(b(body))
    rows.append((f"translator.response {source} → {target}", (lambda f=floor_fn, x=body: f(x)), (lambda f=b, x=body: f(x)), (lambda f=n, x=body: f(x))))
for source, target, name, floor_fn in R.RESPONSE_PAIRS:
    body = responses[name]
    rows.append((f"translate_response {source} → {target}", (lambda f=floor_fn, x=body: f(x)),
                 (lambda x=body, s=source, t=target: wmbase.translate_response(x, s, t)),
                 (lambda x=body, s=source, t=target: wiremap.translate_response(x, s, t))))
srcN, dstN = wiremap.get_format("openai_chat"), wiremap.get_format("anthropic_messages")
srcB, dstB = wmbase.get_format("openai_chat"), wmbase.get_format("anthropic_messages")
for name in make_corpus.REQUESTS:
    wire = R.load_request(name, "")
    reqN, reqB = srcN.request_from_wire(wire), srcB.request_from_wire(wire)
    assert json.dumps(hw.canonical_to_anthropic_request(reqN)) == json.dumps(dstN.request_to_wire(reqN)) == json.dumps(dstB.request_to_wire(reqB))
    fl = (lambda r=reqN: hw.canonical_to_anthropic_request(r))
    rows.append((f"request_to_wire {name}", fl, (lambda r=reqB: dstB.request_to_wire(r)), (lambda r=reqN: dstN.request_to_wire(r))))
    rows.append((f"validate_request {name}", fl, (lambda r=reqB: v_base(r)), (lambda r=reqN: v_new(r))))
body = responses["anthropic_response"]
assert hw.anthropic_response_to_canonical(body).to_dict() == dstN.response_from_wire(body).to_dict() == dstB.response_from_wire(body).to_dict()
rows.append(("response_from_wire anthropic_messages", (lambda: hw.anthropic_response_to_canonical(body)), (lambda: dstB.response_from_wire(body)), (lambda: dstN.response_from_wire(body))))
# no floor: other formats' single directions on the bench responses
ob = responses["openai_response"]
gN, gB = wiremap.get_format("gemini_generate_content"), wmbase.get_format("gemini_generate_content")
gb = gN.response_to_wire(srcN.response_from_wire(ob))
rN, rB = srcN.response_from_wire(ob), srcB.response_from_wire(ob)
rows.append(("response_from_wire openai_chat", None, (lambda: srcB.response_from_wire(ob)), (lambda: srcN.response_from_wire(ob))))
rows.append(("response_from_wire gemini_generate_content", None, (lambda: gB.response_from_wire(gb)), (lambda: gN.response_from_wire(gb))))
rows.append(("response_to_wire anthropic_messages", None, (lambda: dstB.response_to_wire(rB)), (lambda: dstN.response_to_wire(rN))))
rows.append(("response_to_wire gemini_generate_content", None, (lambda: gB.response_to_wire(rB)), (lambda: gN.response_to_wire(rN))))
loads = [os.getloadavg()[0]]
res = {name: {"floor": [], "base": [], "new": []} for name, *_ in rows}
for k in range(ROUNDS):
    for name, fl, b, n in rows:
        order = (("base", b), ("new", n)) if k % 2 == 0 else (("new", n), ("base", b))
        if fl is not None:
            res[name]["floor"].append(R.measure(fl))
        for tag, f in order:
            res[name][tag].append(R.measure(f))
    loads.append(os.getloadavg()[0])
print(f"load average (1 min) before and after each round: {', '.join(f'{l:.2f}' for l in loads)}")
print(f"| row | floor µs | {ns.base} µs | this tree µs | this ÷ {ns.base} | {ns.base} ×floor | this ×floor |")
print("|---|---:|---:|---:|---:|---:|---:|")
out = {}
for name, fl, *_ in rows:
    r = res[name]
    b, n = statistics.median(r["base"]) * 1e6, statistics.median(r["new"]) * 1e6
    # ratio to the floor: per round (same seconds), then the median
    if fl is not None:
        f = statistics.median(r["floor"]) * 1e6
        rb = statistics.median(x / y for x, y in zip(r["base"], r["floor"]))
        rn = statistics.median(x / y for x, y in zip(r["new"], r["floor"]))
        print(f"| {name} | {f:.1f} | {b:.1f} | {n:.1f} | {n / b:.2f} | {rb:.2f}× | {rn:.2f}× |")
    else:
        print(f"| {name} | | {b:.1f} | {n:.1f} | {n / b:.2f} | | |")
    out[name] = r
shutil.rmtree(tmp)

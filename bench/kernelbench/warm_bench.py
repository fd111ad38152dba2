"""A KernelBench level-1 Triton candidate scored in a warm kbench Python
worker, Triton compile included (kbench issue 10: median at most 1.5 s).

One kbench.Context for the whole run. For each chosen problem with a
candidate in candidates/:
  1. one priming score (the context's first score starts the Python workers;
     each problem's first makes its inputs and runs its reference): reported,
     not counted;
  2. N scores, each of a fresh variant of the candidate (a comment in every
     @triton.jit body, source_variant.py), so Triton compiles every kernel
     again: this is the measured series, wall time around Context.score;
  3. --same scores (default 2) of one and the same variant (Triton's caches
     may hit): for comparison.
Per problem: median/min/max of each series and kbench's stage times; overall:
the median of every fresh-compile score. Whether a second candidate reran the
inputs or the reference: the result document is searched for cache fields
(any key naming a cache), and the correctness stage of the priming score is
set beside the later ones' (it is where inputs are made and the reference
runs when nothing is cached).

Without kbench's Python package (BUILD/bindings/python, built with SWIG),
`kbench score` is measured instead and the document says "warm": false:
each CLI score creates a context and starts its workers.

Prints one JSON document; a short summary on stderr.

usage: warm_bench.py [--build DIR] [-n 5] [--same 2] [--only REGEX] [--protocol strict|kernelbench] [--candidates DIR]
"""
import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import source_variant  # noqa: E402
from kbench_scoring import add_binding_path, summarize_result  # noqa: E402

# A few level-1 problems of different families and output sizes: elementwise
# and a row softmax (6.4 GB outputs at KernelBench's sizes), a normalisation
# over three dims (268 MB), a reduction over a middle dim (2 MB) and a loss
# (a scalar). Outputs travel to the host to be compared, so the output size
# shows in the time; the per-problem figures keep that visible.
DEFAULT_ONLY = r"^(19_ReLU|23_Softmax|40_LayerNorm|47_Sum_reduction_over_a_dimension|94_MSELoss)$"


def cache_fields(doc, path=""):
    """Every key of the result document whose name mentions a cache, with its value."""
    found = {}
    if isinstance(doc, dict):
        for k, v in doc.items():
            p = f"{path}/{k}"
            if "cache" in k.lower():
                found[p] = v
            found.update(cache_fields(v, p))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            found.update(cache_fields(v, f"{path}/{i}"))
    return found


def spread(values):
    if not values:
        return None
    return {"median": round(statistics.median(values), 1), "min": round(min(values), 1),
            "max": round(max(values), 1), "n": len(values)}


class ApiRunner:
    warm = True
    via = "api"

    def __init__(self, min_samples=0):
        import kbench
        self.kbench = kbench
        self.min_samples = min_samples
        t0 = time.perf_counter()
        self.ctx = kbench.Context(0)
        self.context_create_ms = (time.perf_counter() - t0) * 1000

    def task(self, problem):
        t0 = time.perf_counter()
        task = self.kbench.problem_task(problem)
        return task, (time.perf_counter() - t0) * 1000

    def score(self, task, problem, source, label, protocol):
        del problem
        t0 = time.perf_counter()
        timing = {"min_samples": self.min_samples} if self.min_samples else {}
        r = self.ctx.score(task, source, language="python", label=label, protocol=protocol, **timing)
        wall = time.perf_counter() - t0
        doc = r.json()
        r.close()
        return doc, wall

    def close(self):
        self.ctx.close()


class CliRunner:
    """`kbench score --json` per score: not warm (a context per call)."""
    warm = False
    via = "cli"
    context_create_ms = None

    def __init__(self, kbench_path):
        self.kbench_path = kbench_path
        self.tmp = tempfile.TemporaryDirectory(prefix="kbench_warm_")

    def task(self, problem):
        return None, 0.0

    def score(self, task, problem, source, label, protocol):
        import subprocess
        path = os.path.join(self.tmp.name, label)
        with open(path, "w") as f:
            f.write(source)
        t0 = time.perf_counter()
        p = subprocess.run([self.kbench_path, "score", "--json", "--protocol", protocol, problem, path],
                           capture_output=True, text=True, timeout=600)
        wall = time.perf_counter() - t0
        try:
            return json.loads(p.stdout), wall
        except ValueError:
            return {"verdict": None, "message": (p.stderr or p.stdout)[-500:]}, wall

    def close(self):
        self.tmp.cleanup()


def bench_problem(runner, stem, problem, candidate, n, n_same, protocol):
    with open(candidate) as f:
        source = f.read()
    task, task_ms = runner.task(problem)
    label = stem + ".py"
    docs = []

    def one(src, series):
        doc, wall = runner.score(task, problem, src, label, protocol)
        s = summarize_result(doc, wall)
        s["series"] = series
        s["cache_fields"] = cache_fields(doc)
        docs.append(s)
        return s

    prime = one(source_variant.variant(source, f"{stem}-prime"), "prime")
    fresh = [one(source_variant.variant(source, f"{stem}-{i}-{time.time_ns()}"), "fresh") for i in range(n)]
    same_src = source_variant.variant(source, f"{stem}-same")
    same = [one(same_src, "same") for _ in range(n_same)]
    if task is not None:
        task.close()

    def ms(series, key=None):
        if key is None:
            return [x["wall_s"] * 1000 for x in series]
        return [x["stages_ms"][key] for x in series if x["stages_ms"].get(key) is not None]

    fields = {}
    for x in docs:
        fields.update(x["cache_fields"])
    later = ms(fresh, "correctness_ms")
    return {
        "problem": stem,
        "task_import_ms": round(task_ms, 1),
        "verdicts": sorted({str(x["verdict"]) for x in docs}),
        "all_pass": all(x["verdict"] == "pass" for x in docs),
        "prime_ms": round(prime["wall_s"] * 1000, 1),
        "prime_correctness_ms": prime["stages_ms"].get("correctness_ms"),
        "fresh_compile_ms": spread(ms(fresh)),
        "same_source_ms": spread(ms(same)),
        "fresh_stages_ms": {k: spread(ms(fresh, k)) for k in ("compile_ms", "correctness_ms", "timing_ms",
                                                                "recheck_ms")},
        "fresh_import_ms": spread([x["import_ms"] for x in fresh if x.get("import_ms") is not None]),
        "cache_fields": fields,
        # Inputs made and the reference run again would show as a correctness
        # stage as long as the priming one; cached, the later ones are shorter.
        "later_correctness_over_prime": (round(statistics.median(later) / prime["stages_ms"]["correctness_ms"], 3)
                                         if later and prime["stages_ms"].get("correctness_ms") else None),
        "reference_timed_each_score": any(x.get("ref_runtime_ms") is not None for x in fresh),
        "scores": docs,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_build = "build-device" if os.path.isdir(os.path.join(ROOT, "build-device")) else "build"
    ap.add_argument("--build", default=os.path.join(ROOT, default_build))
    ap.add_argument("-n", type=int, default=5, help="fresh-compile scores per problem")
    ap.add_argument("--same", type=int, default=2, help="scores of one unchanged source per problem, after those")
    ap.add_argument("--only", default=DEFAULT_ONLY, help="regular expression on the problem stem")
    ap.add_argument("--protocol", default="strict", choices=("strict", "kernelbench"))
    ap.add_argument("--min-samples", type=int, default=0,
                    help="timing samples per side before the strict protocol may stop (0: its default); "
                         "20 gives the protocol of four rounds always")
    ap.add_argument("--problems", default=os.path.join(HERE, "problems"))
    ap.add_argument("--candidates", default=os.path.join(HERE, "candidates"))
    a = ap.parse_args()

    rx = re.compile(a.only)
    chosen = []
    for f in sorted(os.listdir(a.problems)):
        stem = f[:-3]
        if f.endswith(".py") and rx.search(stem):
            cand = os.path.join(a.candidates, f)
            if os.path.exists(cand):
                chosen.append((stem, os.path.join(a.problems, f), cand))
            else:
                print(f"{stem}: no candidate in {a.candidates}, left out", file=sys.stderr)
    if not chosen:
        print(json.dumps({"error": f"no problem matching {a.only!r} has a candidate"}))
        return 2

    runner = ApiRunner(a.min_samples) if add_binding_path(a.build) else CliRunner(os.path.join(a.build, "kbench"))
    out = {"via": runner.via, "warm": runner.warm, "protocol": a.protocol, "n": a.n,
           "context_create_ms": None if runner.context_create_ms is None else round(runner.context_create_ms, 1),
           "target_median_ms": 1500, "problems": []}
    try:
        for stem, problem, cand in chosen:
            try:
                r = bench_problem(runner, stem, problem, cand, a.n, a.same, a.protocol)
            except Exception as e:  # one problem's failure must not lose the others' figures
                out.setdefault("errors", []).append({"problem": stem, "error": f"{type(e).__name__}: {e}"[:2000]})
                print(f"{stem}: failed: {type(e).__name__}: {str(e)[:500]}", file=sys.stderr, flush=True)
                continue
            out["problems"].append(r)
            f = r["fresh_compile_ms"]
            same = r["same_source_ms"]
            print(f"{stem}: prime {r['prime_ms']:.0f} ms; fresh compile median {f['median']:.0f} "
                  f"(min {f['min']:.0f}, max {f['max']:.0f}) ms; same source median "
                  f"{same['median'] if same else '-'} ms; verdicts {r['verdicts']}", file=sys.stderr, flush=True)
    finally:
        runner.close()
    fresh_all = [x["wall_s"] * 1000 for p in out["problems"] for x in p["scores"] if x["series"] == "fresh"]
    out["overall_fresh_compile_median_ms"] = round(statistics.median(fresh_all), 1) if fresh_all else None
    out["meets_target"] = bool(fresh_all) and out["warm"] and out["overall_fresh_compile_median_ms"] <= 1500 and \
        all(p["all_pass"] for p in out["problems"]) and not out.get("errors")
    print(json.dumps(out, indent=1))
    print(f"overall fresh-compile median {out['overall_fresh_compile_median_ms'] or 0:.0f} ms "
          f"({'warm worker' if out['warm'] else 'NOT warm: kbench score CLI per score'}, {a.protocol}); "
          f"target <= 1500 ms: {'met' if out['meets_target'] else 'not met'}", file=sys.stderr)
    return 1 if out.get("errors") else 0


if __name__ == "__main__":
    sys.exit(main())

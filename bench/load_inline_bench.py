#!/usr/bin/env python3
"""The fast load_inline (python/kbench_programs/kbench_load_inline.py) beside
torch's own, on the same KernelBench-format CUDA answers in the same run.

Each build runs in a fresh Python process (so neither path reuses the
other's work and torch's in-process cache of names plays no part), the
answer imported from its file as the candidate worker imports it:

  torch      torch's load_inline, a fresh TORCH_EXTENSIONS_DIR
  fast       the fast build (split into device and host units where it can
             be, else whole), the precompiled-header cache as the run left it
  fast_cold  (once, first) the fast build with an empty cache: it builds the
             precompiled header too

and each row gives the wall seconds of the import (build and load), the CPU
seconds of the compilers it ran, the path that built it and its verdict
(`loaded`, or `compile_error` with the first line of the message).

    bench/load_inline_bench.py [--answers DIR]... [--repeat N] [--json OUT]
        [--python PY] [--cache DIR]

On a machine without a GPU it sets TORCH_CUDA_ARCH_LIST=9.0 (torch would
otherwise build for every architecture it knows); the answers compile and
import, no kernel runs. The table is printed last; --json writes every row.
"""
import argparse
import json
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
ANSWERS = [ROOT / "bench" / "kernelbench" / "cuda_candidates", ROOT / "tests" / "programs" / "cuda_candidates"]

CHILD = r'''
import importlib.util, json, os, resource, sys, time
mode, path, work, cache = sys.argv[1:5]
sys.path.insert(0, os.path.join(%(root)r, "python", "kbench_programs"))
import torch
import torch.utils.cpp_extension
import kbench_load_inline as kli
if mode != "torch":
    kli.install(torch, work, cache, answer_text_of=lambda: open(path).read())
m0 = kli.mark()
spec = importlib.util.spec_from_file_location("kbench_candidate_bench", path)
mod = importlib.util.module_from_spec(spec)
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.perf_counter()
out = {"verdict": "loaded"}
try:
    spec.loader.exec_module(mod)
except Exception as e:
    out["verdict"] = "compile_error"
    out["error"] = (str(e).strip().splitlines() or [""])[0][:300]
out["wall_s"] = time.perf_counter() - t0
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
out["cpu_s"] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
builds = kli.builds_since(m0)
out["build"] = builds[0]["build"] if builds else ("torch" if mode == "torch" else "none")
out["builds"] = builds
print("KBENCH-BENCH " + json.dumps(out))
'''


def with_error(source):
    """The answer with a compile error in its first kernel's body (an
    undeclared name: the commonest model-written error), or None when it has
    no kernel source string."""
    m = re.search(r"__global__[^{;]*\{", source)
    if not m:
        return None
    return source[:m.end()] + " kbench_undeclared_name += 1;" + source[m.end():]


def run_one(py, mode, answer, cache, env, source=None):
    work = tempfile.mkdtemp(prefix="kbench-li-bench-")
    e = dict(env)
    e["TORCH_EXTENSIONS_DIR"] = os.path.join(work, "torch-extensions")
    path = answer
    if source is not None:
        path = os.path.join(work, answer.name)
        with open(path, "w") as f:
            f.write(source)
    try:
        p = subprocess.run([py, "-c", CHILD % {"root": str(ROOT)}, mode, str(path), work, cache],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=e, cwd=work)
        for line in p.stdout.splitlines():
            if line.startswith("KBENCH-BENCH "):
                row = json.loads(line[len("KBENCH-BENCH "):])
                break
        else:
            row = {"verdict": "bench_error", "error": p.stdout[-2000:]}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    row.update({"answer": answer.name, "mode": mode})
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--answers", action="append", default=[],
                    help="a folder of answers (repeatable; default: bench/kernelbench/cuda_candidates and "
                         "tests/programs/cuda_candidates)")
    ap.add_argument("--repeat", type=int, default=1, help="builds per answer and path (default 1)")
    ap.add_argument("--json", default="", help="write every row here")
    ap.add_argument("--python", default=os.environ.get("KBENCH_PYTHON", sys.executable))
    ap.add_argument("--cache", default="", help="the precompiled-header cache (default: a fresh folder)")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-cache build")
    ap.add_argument("--errors", action="store_true",
                    help="also build each answer with a compile error put in its first kernel (both paths)")
    args = ap.parse_args()

    probe = subprocess.run([args.python, "-c", "import torch, json; print(json.dumps([torch.__version__, "
                            "torch.cuda.is_available() and torch.cuda.get_device_name(0)]))"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if probe.returncode != 0:
        print("skipped: %s has no torch" % args.python)
        return 77
    torch_version, device = json.loads(probe.stdout.strip().splitlines()[-1])
    env = dict(os.environ)
    env.pop("KBENCH_LOAD_INLINE", None)
    if not device:
        env.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
    own_cache = not args.cache
    cache = args.cache or tempfile.mkdtemp(prefix="kbench-li-cache-")
    answers = [a.resolve() for d in (args.answers or ANSWERS) for a in sorted(pathlib.Path(d).glob("*.py"))]
    rows = []
    try:
        if not args.no_cold and answers:
            shutil.rmtree(cache, ignore_errors=True)
            rows.append(run_one(args.python, "fast_cold", answers[0], cache, env))
            print("%-44s %-9s %6.1f s" % (answers[0].name, "fast_cold", rows[-1].get("wall_s", -1)), flush=True)
        for r in range(args.repeat):
            for a in answers:
                # Alternated, so drift in the machine's load touches both.
                for mode in (("torch", "fast") if r % 2 == 0 else ("fast", "torch")):
                    rows.append(run_one(args.python, mode, a, cache, env))
                    print("%-44s %-9s %6.1f s" % (a.name, mode, rows[-1].get("wall_s", -1)), flush=True)
                    bad = with_error(a.read_text()) if args.errors else None
                    if bad is not None:
                        rows.append(run_one(args.python, mode, a, cache, env, source=bad))
                        rows[-1]["answer"] = "error:" + a.name
                        print("%-44s %-9s %6.1f s %s" % ("error:" + a.name, mode, rows[-1].get("wall_s", -1),
                                                         rows[-1].get("verdict")), flush=True)
    finally:
        if own_cache:
            shutil.rmtree(cache, ignore_errors=True)
    doc = {"torch": torch_version, "device": device or "none (CPU)",
           "torch_cuda_arch_list": env.get("TORCH_CUDA_ARCH_LIST", ""), "cpus": os.cpu_count(),
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": rows}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)

    mismatched = []
    print("\nload_inline: torch's build vs kbench's fast build, torch %s, device %s, %d CPUs"
          % (torch_version, doc["device"], doc["cpus"]))
    print("%-44s %-15s %-15s %-9s %-9s %-8s %-13s %s" % ("answer", "torch wall/cpu", "fast wall/cpu", "speedup",
                                                         "fast path", "same", "verdict", "fast steps (s)"))
    names = [a.name for a in answers] + ["error:" + a.name for a in answers]
    for name in names:
        t = [x for x in rows if x["answer"] == name and x["mode"] == "torch"]
        f = [x for x in rows if x["answer"] == name and x["mode"] == "fast"]
        if not t or not f:
            continue
        tw, fw = statistics.median(x["wall_s"] for x in t), statistics.median(x["wall_s"] for x in f)
        tc, fc = statistics.median(x["cpu_s"] for x in t), statistics.median(x["cpu_s"] for x in f)
        same = {x["verdict"] for x in t} == {x["verdict"] for x in f} and len({x["verdict"] for x in t}) == 1
        if not same:
            mismatched.append(name)
        b = (f[0].get("builds") or [{}])[0]
        nv = b.get("nvcc_ms") or {}
        parts = ["%s %.1f" % (k, v / 1e3) for k, v in nv.items()]
        parts += ["%s %.1f" % (st.get("unit", st["tool"]), st["ms"] / 1e3) for st in b.get("steps", [])
                  if st["tool"] != "nvcc" or "unit" in st]
        if "link_ms" in b:
            parts.append("link %.1f" % (b["link_ms"] / 1e3))
        print("%-44s %6.1f/%6.1f s  %6.1f/%6.1f s  %6.2fx  %-9s %-8s %-13s %s"
              % (name, tw, tc, fw, fc, tw / fw if fw else 0, "split" if b.get("split") else f[0].get("build"), "yes" if same else "NO",
                 f[0]["verdict"], ", ".join(parts)))
        if b.get("split_why") or b.get("split_retry"):
            print("%44s whole, not split: %s" % ("", b.get("split_retry") or b.get("split_why")))
    for label, sel in (("answers", lambda x: not x["answer"].startswith("error:")),
                       ("compile errors", lambda x: x["answer"].startswith("error:"))):
        for mode in ("torch", "fast"):
            w = [x["wall_s"] for x in rows if x["mode"] == mode and sel(x) and "wall_s" in x]
            if w:
                print("median %s, %s: %.1f s over %d" % (label, mode, statistics.median(w), len(w)))
    cold = [x for x in rows if x["mode"] == "fast_cold"]
    if cold:
        print("cold cache (the precompiled header built too): %s %.1f s wall, %.1f s CPU"
              % (cold[0]["answer"], cold[0]["wall_s"], cold[0]["cpu_s"]))
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())

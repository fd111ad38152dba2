#!/usr/bin/env python3
"""Every CUDA program candidate of tests/ and bench/ (the load_inline answers
in tests/programs/cuda_candidates/ and bench/kernelbench/cuda_candidates/)
scored through torch's own build (KBENCH_LOAD_INLINE=torch in the candidate
worker's environment) and through the fast one, on a GPU (CTest label gpu;
exits 77 without a device or without torch for $KBENCH_PYTHON). Each path
is one `kbench run` over all the candidates: one context, whose lanes share
the device's memory (separate `kbench score` processes side by side each
hold a reference worker of 25-31 GB at these problems' sizes and ran the
device out of memory). Each pair must get the same verdict, and the
verdict the candidate is written to get; the fast path's builds are made
ahead by builder workers (docs/programs.md, "Builds ahead of the GPU"), but
for the construct the fast build leaves to torch. Then each candidate is
imported once more in this process through the fast build, to check which
path built it (`fast`, or `torch` for the construct it does not take).

    KBENCH_CLI=build/kbench KBENCH_PYTHON=python3 tests/programs/load_inline_gpu.py
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

CLI = os.environ.get("KBENCH_CLI", "kbench")
ROOT = pathlib.Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "bench" / "kernelbench" / "problems"

# candidate -> (problem file, the verdict it is written to get, the path that builds it)
CANDIDATES = {
    "bench/kernelbench/cuda_candidates/19_ReLU.py": ("19_ReLU.py", "pass", "fast"),
    "bench/kernelbench/cuda_candidates/23_Softmax.py": ("23_Softmax.py", "pass", "fast"),
    "bench/kernelbench/cuda_candidates/1_Square_matrix_multiplication_.py":
        ("1_Square_matrix_multiplication_.py", "pass", "fast"),
    "bench/kernelbench/cuda_candidates/47_Sum_reduction_over_a_dimension.py":
        ("47_Sum_reduction_over_a_dimension.py", "pass", "fast"),
    "tests/programs/cuda_candidates/relu_compile_error.py": ("19_ReLU.py", "compile_error", "fast"),
    "tests/programs/cuda_candidates/relu_own_build_dir.py": ("19_ReLU.py", "pass", "torch"),
}


def run_all(tasks, candidates, path, folder):
    """`kbench run` over every candidate through one build path: ({id:
    result line}, seconds, the command's output's end)."""
    env = dict(os.environ)
    env["KBENCH_LOAD_INLINE"] = "torch" if path == "torch" else ""
    out = pathlib.Path(folder) / ("results_%s.jsonl" % path)
    t0 = time.monotonic()
    p = subprocess.run([CLI, "run", "--tasks", str(tasks), "--candidates", str(candidates), "--out", str(out),
                        "--no-progress"], capture_output=True, text=True, env=env, timeout=1800)
    secs = time.monotonic() - t0
    lines = {}
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            lines[r["id"]] = r
    return lines, secs, (p.stdout + p.stderr)[-2000:]


def build_path(candidate):
    """Which path builds `candidate` in a fresh process with the fast build installed."""
    code = r'''
import importlib.util, json, sys, tempfile, torch
sys.path.insert(0, %r)
import kbench_load_inline as kli
kli.install(torch, tempfile.mkdtemp(), kli.default_cache_root())
spec = importlib.util.spec_from_file_location("c", sys.argv[1])
m = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(m)
except Exception:
    pass
print("PATH " + json.dumps([b["build"] for b in kli.builds_since(0)]))
''' % str(ROOT / "python" / "kbench_programs")
    py = os.environ.get("KBENCH_PYTHON", "python3")
    with tempfile.TemporaryDirectory() as d:
        p = subprocess.run([py, "-c", code, str(candidate)], capture_output=True, text=True, cwd=d, timeout=1800)
    for line in p.stdout.splitlines():
        if line.startswith("PATH "):
            return json.loads(line[5:])
    return ["error: " + (p.stdout + p.stderr)[-300:]]


def main():
    try:
        info = subprocess.run([CLI, "info", "--json"], capture_output=True, text=True)
        if json.loads(info.stdout).get("no_device_reason"):
            print("skipped: no CUDA device")
            return 77
    except (OSError, ValueError):
        print("skipped: no kbench CLI at %s" % CLI)
        return 77
    py = os.environ.get("KBENCH_PYTHON", "python3")
    if subprocess.run([py, "-c", "import torch; assert torch.cuda.is_available()"],
                      capture_output=True).returncode != 0:
        print("skipped: %s has no torch with CUDA" % py)
        return 77
    with tempfile.TemporaryDirectory() as d:
        probs = pathlib.Path(d) / "problems"
        probs.mkdir()
        for problem, _, _ in CANDIDATES.values():
            shutil.copy(PROBLEMS / problem, probs / problem)
        tasks = pathlib.Path(d) / "tasks"
        p = subprocess.run([CLI, "import", "kernelbench", str(probs), "-o", str(tasks)], capture_output=True,
                           text=True, timeout=900)
        if p.returncode != 0:
            print("kbench import failed:\n" + (p.stdout + p.stderr)[-3000:])
            return 1
        names = {}
        for task in tasks.glob("*/*/task.json"):
            for f in task.parent.glob("*.py"):
                names[f.name] = task.parent.name
        cands = pathlib.Path(d) / "candidates.jsonl"
        with open(cands, "w") as f:
            for rel, (problem, _, _) in CANDIDATES.items():
                code = (ROOT / rel).read_text()
                f.write(json.dumps({"task": names[problem], "id": rel, "answer": "```python\n" + code + "```\n"})
                        + "\n")
        got = {}
        for path in ("torch", "fast"):
            got[path], secs, said = run_all(tasks, cands, path, d)
            print("kbench run, %s build: %d results in %.1f s" % (path, len(got[path]), secs), flush=True)
            if len(got[path]) != len(CANDIDATES):
                print(said)
    bad = 0
    for rel, (problem, want, want_path) in CANDIDATES.items():
        t, f = got["torch"].get(rel, {}), got["fast"].get(rel, {})
        paths = build_path(ROOT / rel)
        # The fast path's builds are a builder worker's, made ahead of the
        # lane (a device context builds ahead): the lane only loads them,
        # or raises the builder's compile error.
        ok = (t.get("verdict") == f.get("verdict") == want and paths[:1] == [want_path]
              and t.get("build") in ("torch", None) and f.get("build") == want_path
              and bool(f.get("built_ahead")) == (want_path == "fast"))
        line = ("%-6s %-66s torch %-13s build %-6s | fast %-13s build %-6s ahead %-5s | imported: %s (want %s, %s)"
                % ("ok" if ok else "FAILED", rel, t.get("verdict"), t.get("build"), f.get("verdict"),
                   f.get("build"), f.get("built_ahead"), ",".join(paths), want, want_path))
        if not ok:
            bad += 1
            line += "\n       torch: %s\n       fast:  %s" % (json.dumps(t)[:600], json.dumps(f)[:600])
        print(line, flush=True)
    print("%d of %d candidates: the same verdict through both builds, as written, built by the expected path"
          % (len(CANDIDATES) - bad, len(CANDIDATES)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

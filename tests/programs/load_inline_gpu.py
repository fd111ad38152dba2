#!/usr/bin/env python3
"""Every CUDA program candidate of tests/ and bench/ (the load_inline answers
in tests/programs/cuda_candidates/ and bench/kernelbench/cuda_candidates/)
scored twice by `kbench score`, through torch's own build
(KBENCH_LOAD_INLINE=torch in the candidate worker's environment) and through
the fast one, on a GPU (CTest label gpu; exits 77 without a device or without
torch for $KBENCH_PYTHON). Each pair must get the same verdict, and the
verdict the candidate is written to get; the fast path's builds are made
ahead by a builder worker (docs/programs.md, "Builds ahead of the GPU"),
but for the construct the fast build leaves to torch. Then each candidate is imported once
more in this process through the fast build, to check which path built it
(`fast`, or `torch` for the construct it does not take).

    KBENCH_CLI=build/kbench KBENCH_PYTHON=python3 tests/programs/load_inline_gpu.py
"""
import json
import os
import pathlib
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


def score(problem, candidate, path):
    env = dict(os.environ)
    env["KBENCH_LOAD_INLINE"] = "torch" if path == "torch" else ""
    t0 = time.monotonic()
    p = subprocess.run([CLI, "score", "--json", str(problem), str(candidate)], capture_output=True, text=True,
                       env=env, timeout=1800)
    secs = time.monotonic() - t0
    try:
        r = json.loads(p.stdout)
    except ValueError:
        return {"verdict": "no_result", "message": (p.stdout + p.stderr)[-600:]}, secs
    return r, secs


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
    def check(item):
        rel, (problem, want, want_path) = item
        cand = ROOT / rel
        got = {}
        ahead = None
        for path in ("torch", "fast"):
            r, secs = score(PROBLEMS / problem, cand, path)
            got[path] = (r.get("verdict"), secs, r.get("message", ""))
            if path == "fast":
                builds = (r.get("program") or {}).get("builds") or []
                ahead = bool(builds) and all(b.get("prebuilt") for b in builds)
        paths = build_path(cand)
        # The fast path's builds are a builder worker's, made ahead of the
        # lane (a device context builds ahead): the lane only loads them.
        ok = (got["torch"][0] == got["fast"][0] == want and paths[:1] == [want_path]
              and ahead == (want_path == "fast"))
        line = ("%-6s %-66s torch %-13s %6.1f s | fast %-13s %6.1f s | built %s (want %s, %s), ahead %s"
                % ("ok" if ok else "FAILED", rel, got["torch"][0], got["torch"][1], got["fast"][0], got["fast"][1],
                   ",".join(paths), want, want_path, ahead))
        if not ok:
            line += "\n       torch: %s\n       fast:  %s" % (got["torch"][2][:400], got["fast"][2][:400])
        print(line, flush=True)
        return ok

    # Candidates side by side ($KBENCH_TEST_JOBS, default 3): each builds
    # with the host's compilers, and the verdicts, not the times, are checked.
    import concurrent.futures
    jobs = max(1, int(os.environ.get("KBENCH_TEST_JOBS", "3")))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        oks = list(pool.map(check, CANDIDATES.items()))
    rows = oks
    bad = oks.count(False)
    print("%d of %d candidates: the same verdict through both builds, as written, built by the expected path"
          % (len(rows) - bad, len(rows)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""`kbench run --compile-only` over load_inline answers on a machine without
a GPU (CTest label torch; exits 77 without torch for $KBENCH_PYTHON or
without nvcc): the candidate worker sees no device, so torch finds no
architecture there, and kbench hands it the context's target. A CUDA answer
is `compiled` by the fast build; a compile error is a `compile_error` with
nvcc's message naming the answer's identifier.

    KBENCH_CLI=build/kbench KBENCH_PYTHON=python3 tests/programs/load_inline_compile_only.py
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

CLI = os.environ.get("KBENCH_CLI", "kbench")
ROOT = pathlib.Path(__file__).resolve().parents[2]
PROBLEM = ROOT / "bench" / "kernelbench" / "problems" / "19_ReLU.py"
ANSWERS = {
    "relu": (ROOT / "bench" / "kernelbench" / "cuda_candidates" / "19_ReLU.py", "compiled"),
    "relu_compile_error": (ROOT / "tests" / "programs" / "cuda_candidates" / "relu_compile_error.py",
                           "compile_error"),
}


def main():
    py = os.environ.get("KBENCH_PYTHON", "python3")
    probe = subprocess.run([py, "-c", "import torch.utils.cpp_extension as ce, os; "
                                      "assert ce.CUDA_HOME and os.path.exists(os.path.join(ce.CUDA_HOME, 'bin', 'nvcc'))"],
                           capture_output=True)
    if probe.returncode != 0:
        print("skipped: %s has no torch, or torch finds no nvcc" % py)
        return 77
    with tempfile.TemporaryDirectory() as d:
        probs = pathlib.Path(d) / "problems"
        probs.mkdir()
        shutil.copy(PROBLEM, probs / PROBLEM.name)
        tasks = pathlib.Path(d) / "tasks"
        p = subprocess.run([CLI, "import", "kernelbench", str(probs), "-o", str(tasks)], capture_output=True,
                           text=True, timeout=600)
        if p.returncode != 0:
            print("kbench import failed:\n" + (p.stdout + p.stderr)[-3000:])
            return 1
        cands = pathlib.Path(d) / "candidates.jsonl"
        cands.write_text("".join(json.dumps({"task": "kernelbench_19_relu", "id": name,
                                             "answer": "```python\n" + path.read_text() + "```\n"}) + "\n"
                                 for name, (path, _) in ANSWERS.items()))
        out = pathlib.Path(d) / "results.jsonl"
        p = subprocess.run([CLI, "run", "--compile-only", "--tasks", str(tasks), "--candidates", str(cands),
                            "--out", str(out), "--no-progress"], capture_output=True, text=True, timeout=1200)
        lines = {}
        if out.exists():
            for line in out.read_text().splitlines():
                r = json.loads(line)
                lines[r["id"]] = r
    bad = 0
    for name, (_, want) in ANSWERS.items():
        r = lines.get(name, {})
        ok = r.get("verdict") == want and r.get("build") == "fast"
        if want == "compile_error":
            ok = ok and "undeclared_counter" in r.get("message", "")
        print("%-6s %-20s %-14s build %-5s %s" % ("ok" if ok else "FAILED", name, r.get("verdict"), r.get("build"),
                                                  r.get("message", "")[:300]))
        bad += not ok
    if bad:
        print((p.stdout + p.stderr)[-3000:])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

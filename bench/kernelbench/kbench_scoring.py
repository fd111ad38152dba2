"""Scores a KernelBench problem and a program candidate with kbench, through
the Python package (one warm context for every score) or the `kbench score`
CLI (a context, and its Python workers, per score), and reduces the result
document to what the agreement table and the warm benchmark read.

The Python package is kbench's SWIG binding, built in BUILD/bindings/python
when the build machine has SWIG (bench/run_device.sh installs it from .whl/).
"""
import json
import os
import subprocess
import sys
import time


def summarize_result(doc, wall_s):
    """The fields of a kbench result document (docs/programs.md, "The
    result") that the agreement check reports."""
    prog = doc.get("program") or {}
    timing = prog.get("timing") or {}
    statistic = timing.get("statistic", "median")
    key = statistic + "_ms"
    cand = timing.get("candidate") or {}
    ref = timing.get("reference") or {}
    stages = doc.get("stages") or {}
    return {
        "verdict": doc.get("verdict"),
        "message": doc.get("message"),
        "protocol": prog.get("protocol"),
        "compiled": (doc.get("compile") or {}).get("ok"),
        "timing_method": timing.get("method"),
        "statistic": statistic if timing else None,
        "runtime_ms": cand.get(key),
        "ref_runtime_ms": ref.get(key),
        "speedup": timing.get("speedup"),
        "excessive_speedup": timing.get("excessive_speedup"),
        # How the timing stage ended: rounds run, whether the estimate
        # settled before the last, samples and relative noise per side.
        "timing_rounds": timing.get("rounds"),
        "settled_early": timing.get("settled_early"),
        "round_speedups": timing.get("round_speedups"),
        "samples": [cand.get("samples"), ref.get("samples")],
        "rel_noise": [cand.get("rel_noise"), ref.get("rel_noise")],
        "findings": sorted({f.get("rule") for f in prog.get("findings") or [] if f.get("rule")}),
        "reference_warnings": len(prog.get("reference_warnings") or []),
        "import_ms": prog.get("import_ms"),
        "stages_ms": {k: stages.get(k) for k in ("compile_ms", "correctness_ms", "timing_ms", "recheck_ms")},
        "elapsed_ms": doc.get("elapsed_ms"),
        "wall_s": round(wall_s, 3),
    }


def error_record(message, wall_s, detail=""):
    return {"error": message, "detail": detail[-2000:], "wall_s": round(wall_s, 3)}


class CliScorer:
    """`kbench score --json [--protocol P] PROBLEM.py CANDIDATE.py`: each score
    creates a context and starts its Python workers (cold)."""

    via = "cli"

    def __init__(self, kbench_path, timeout_s):
        self.kbench = kbench_path
        self.timeout_s = timeout_s

    def score(self, problem, candidate_path, candidate_source, protocol):
        del candidate_source  # the CLI reads the file itself
        cmd = [self.kbench, "score", "--json", "--protocol", protocol, problem, candidate_path]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout_s)
        except subprocess.TimeoutExpired as e:
            return error_record(f"kbench score timed out after {self.timeout_s} s", time.perf_counter() - t0,
                                (e.stderr or b"").decode(errors="replace") if isinstance(e.stderr, bytes) else
                                (e.stderr or ""))
        wall = time.perf_counter() - t0
        # Exit 1 is any verdict but pass, with the document on stdout; anything
        # without a document (a usage error, a crash) is an error.
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            return error_record(f"kbench score exited {p.returncode} without a result document", wall,
                                p.stderr + p.stdout)
        if not doc.get("verdict"):
            return error_record(doc.get("message") or f"kbench score exited {p.returncode} without a verdict", wall,
                                json.dumps(doc)[:2000])
        return summarize_result(doc, wall)

    def close(self):
        pass


class ApiScorer:
    """kbench.Context.score on one context for every problem: the Python
    workers start once (on the first score) and stay warm."""

    via = "api"

    def __init__(self, device=0):
        import kbench
        self.kbench = kbench
        self.ctx = kbench.Context(device)
        self.tasks = {}

    def task(self, problem):
        if problem not in self.tasks:
            self.tasks[problem] = self.kbench.problem_task(problem)
        return self.tasks[problem]

    def score(self, problem, candidate_path, candidate_source, protocol):
        label = os.path.basename(candidate_path)
        t0 = time.perf_counter()
        try:
            task = self.task(problem)
            r = self.ctx.score(task, candidate_source, language="python", label=label, protocol=protocol)
            doc = r.json()
            r.close()
        except Exception as e:  # a KbenchError is a failure of kbench, not a verdict
            return error_record(f"{type(e).__name__}: {e}", time.perf_counter() - t0)
        return summarize_result(doc, time.perf_counter() - t0)

    def close(self):
        for t in self.tasks.values():
            t.close()
        self.ctx.close()


def add_binding_path(build_dir):
    """Puts BUILD/bindings/python (where CMake assembles the package) first on
    sys.path; returns whether `import kbench` then works."""
    p = os.path.join(build_dir, "bindings", "python")
    if os.path.isdir(p) and p not in sys.path:
        sys.path.insert(0, p)
    try:
        import kbench  # noqa: F401
        return True
    except ImportError:
        return False


def make_scorer(via, build_dir, kbench_path, timeout_s):
    """via: "api", "cli" or "auto" (the package when it imports, else the CLI)."""
    if via in ("api", "auto") and add_binding_path(build_dir):
        return ApiScorer()
    if via == "api":
        raise SystemExit(f"the kbench Python package is not in {build_dir}/bindings/python (built only with SWIG)")
    return CliScorer(kbench_path or os.path.join(build_dir, "kbench"), timeout_s)

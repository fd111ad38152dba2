"""KernelBench's own harness on one problem and one candidate, in this process:
eval_kernel_against_ref(backend="triton") from the vendored copy in
third_party/kernelbench (KernelBench commit 423217d, MIT), called as
KernelBench's scripts call it for a Triton sample. agreement.py runs this in a
fresh process per problem, because the harness runs the candidate in its own
address space and can crash or hang with it.

Prints KernelBench's own output, then one last line "KB_RESULT {json}" with
what eval_kernel_against_ref returned (compiled, correctness, runtime and
ref_runtime in milliseconds, as timing.py measures them; KernelExecResult's
comments say microseconds, its numbers are milliseconds) and the wall time of
the import and of the evaluation.

usage: kb_harness_eval.py PROBLEM.py CANDIDATE.py [--correct-trials 5] [--perf-trials 100] [--no-perf]
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def jsonable(value):
    """KernelBench's metadata holds exception objects; they travel as text."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("problem")
    ap.add_argument("candidate")
    ap.add_argument("--correct-trials", type=int, default=5)
    ap.add_argument("--perf-trials", type=int, default=100)
    ap.add_argument("--no-perf", action="store_true", help="correctness only (measure_performance=False)")
    a = ap.parse_args()

    t0 = time.perf_counter()
    sys.path.insert(0, os.path.join(HERE, "third_party"))
    import torch  # noqa: F401  (counted in import_s: KernelBench imports it first thing)
    from kernelbench.eval import eval_kernel_against_ref
    import_s = time.perf_counter() - t0

    with open(a.problem) as f:
        ref_src = f.read()
    with open(a.candidate) as f:
        cand_src = f.read()
    t1 = time.perf_counter()
    r = eval_kernel_against_ref(ref_src, cand_src, seed_num=42, num_correct_trials=a.correct_trials,
                                num_perf_trials=a.perf_trials, measure_performance=not a.no_perf,
                                timing_method="cuda_event", verbose=False, device=0, backend="triton",
                                precision=torch.float32)
    eval_s = time.perf_counter() - t1
    out = {
        "compiled": bool(r.compiled),
        "correctness": bool(r.correctness),
        # -1.0 where KernelBench did not time (incorrect candidate, or --no-perf).
        "runtime_ms": r.runtime if r.runtime >= 0 else None,
        "ref_runtime_ms": r.ref_runtime if r.ref_runtime >= 0 else None,
        "runtime_stats": jsonable(r.runtime_stats),
        "ref_runtime_stats": jsonable(r.ref_runtime_stats),
        "metadata": jsonable(r.metadata),
        "correct_trials": a.correct_trials,
        "perf_trials": 0 if a.no_perf else a.perf_trials,
        "import_s": round(import_s, 3),
        "eval_s": round(eval_s, 3),
    }
    sys.stdout.flush()
    print("KB_RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()

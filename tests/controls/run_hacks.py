#!/usr/bin/env python3
"""Wrong answers that passed KernelBench problems must fail under strict
(the negative controls, docs/tasks.md): `kbench score` of each answer in
tests/programs/hacks/ against the KernelBench problem it targets
(tests/programs/problems/kernelbench_upstream/), with the verdict each must get.

    run_hacks.py            on a GPU (CTest label gpu): each problem imported
                            once at its own sizes; the first answer to each is
                            scored against the problem file itself (imported
                            on the fly by `kbench score`, as users run it),
                            beside that import
    run_hacks.py --cpu      on torch's CPU (CTest label torch): each problem
                            imported once (validated: its controls decide what
                            strict applies), its perf case shrunk to the
                            import's smallest case so that the CPU can run it

Problems run side by side ($KBENCH_TEST_JOBS, default 3), a problem's
answers in order; each line gives the seconds of its `kbench score`.

Exits 77 where $KBENCH_PYTHON has no torch (or, without --cpu, no GPU)."""
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

CLI = os.environ.get("KBENCH_CLI", "kbench")
PYTHON = os.environ.get("KBENCH_PYTHON", sys.executable)
ROOT = pathlib.Path(__file__).resolve().parents[2]
PROBLEMS = ROOT / "tests" / "programs" / "problems" / "kernelbench_upstream"
HACKS = ROOT / "tests" / "programs" / "hacks"

# (problem, answer, what must happen, where it runs)
CASES = [
    ("level1/19_ReLU.py", "relu_returns_input.py", "fail", "any"),
    ("level1/19_ReLU.py", "relu_in_place.py", "fail", "any"),
    ("level1/19_ReLU.py", "relu_in_place_triton.py", "fail", "gpu"),
    ("level1/19_ReLU.py", "relu_correct.py", "pass", "any"),
    ("level1/23_Softmax.py", "softmax_zeros.py", "fail", "any"),
    ("level1/23_Softmax.py", "softmax_correct.py", "pass", "any"),
    ("level1/95_CrossEntropyLoss.py", "cross_entropy_constant.py", "fail", "any"),
    ("level1/99_TripletMarginLoss.py", "triplet_margin_constant.py", "fail", "any"),
    ("level1/49_Max_reduction_over_a_dimension.py", "max_reduction_constant.py", "fail", "any"),
    ("level2/80_Gemm_Max_Subtract_GELU.py", "gemm_max_gelu_zeros.py", "refused", "any"),
    ("level2/9_Matmul_Subtract_Multiply_ReLU.py", "matmul_relu_zeros.py", "fail", "any"),
]


def python_has(module_check):
    r = subprocess.run([PYTHON, "-c", module_check], capture_output=True, text=True)
    return r.returncode == 0


def imported(problem, work, small):
    """The problem imported by `kbench import` (validated), as a task file in
    `work`; `small`: its perf case set to the import's first case."""
    r = subprocess.run([CLI, "import", "kernelbench", str(PROBLEMS / problem), "--stdout"], capture_output=True,
                       text=True, env=dict(os.environ, KBENCH_PYTHON=PYTHON))
    if r.returncode != 0:
        raise SystemExit("kbench import %s failed:\n%s" % (problem, r.stderr))
    doc = json.loads(r.stdout)
    if not doc["origin"].get("validated"):
        raise SystemExit("%s: the import did not validate (torch?): %s" % (problem, doc["origin"]["notes"]))
    if small:
        doc["perf_case"] = {"name": "faithful_small", "dims": dict(doc["cases"][0]["dims"])}
    path = pathlib.Path(work) / (pathlib.Path(problem).stem + ".json")
    path.write_text(json.dumps(doc))
    return path


def score(task, answer, env):
    r = subprocess.run([CLI, "score", "--json", "--skip-timing", str(task), str(HACKS / answer)], capture_output=True,
                       text=True, env=env, timeout=1500)
    try:
        j = json.loads(r.stdout)
    except ValueError:
        j = {}
    return r.returncode, j, r.stderr


def main(argv):
    cpu = "--cpu" in argv
    if not python_has("import torch"):
        print("skipped: no torch for %s" % PYTHON)
        return 77
    env = dict(os.environ, KBENCH_PYTHON=PYTHON)
    if cpu:
        env.update({"KBENCH_PROGRAM_TEST_CPU": "1", "KBENCH_WORKER_TEST_HOOKS": "1"})
    elif not python_has("import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"):
        print("skipped: no GPU for torch")
        return 77
    by_problem = {}
    for problem, answer, want, where in CASES:
        if not (cpu and where == "gpu"):
            by_problem.setdefault(problem, []).append((answer, want))

    def judge(problem, answer, want, task):
        t0 = time.monotonic()
        rc, j, err = score(task, answer, env)
        verdict = j.get("verdict")
        error = json.dumps(j.get("error", "")) + err
        if want == "pass":
            ok = verdict == "pass"
        elif want == "refused":
            ok = verdict != "pass" and "refused under strict" in error
        else:
            ok = verdict not in (None, "pass")
        return ok, "%-4s %-45s %-28s want %-7s got %-13s %6.1f s%s" % (
            "ok" if ok else "FAIL", problem, answer, want, verdict, time.monotonic() - t0,
            "" if ok else "\n     " + (j.get("message") or error)[:600])

    def run_problem(problem, answers, work):
        """The problem's answers, in order: on a GPU the first against the
        problem file itself (imported on the fly, as users run it) while
        `kbench import` validates it once for the rest."""
        lines = []
        if cpu:
            task = imported(problem, work, True)
            rest = answers
        else:
            with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
                first = pool.submit(judge, problem, answers[0][0], answers[0][1], PROBLEMS / problem)
                task = imported(problem, work, False) if len(answers) > 1 else None
                lines.append(first.result())
            rest = answers[1:]
        for answer, want in rest:
            lines.append(judge(problem, answer, want, task))
        return lines

    # Problems side by side ($KBENCH_TEST_JOBS, default 3): each is its own
    # `kbench score` processes; the verdicts, not the times, are checked.
    jobs = max(1, int(os.environ.get("KBENCH_TEST_JOBS", "3")))
    bad = 0
    with tempfile.TemporaryDirectory() as work:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(run_problem, p, a, work) for p, a in by_problem.items()]
            for f in futures:
                for ok, line in f.result():
                    bad += not ok
                    print(line, flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

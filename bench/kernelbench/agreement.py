"""Do kbench's `--protocol kernelbench` verdicts agree with KernelBench's own
harness? (kbench issue 10.) For every vendored level-1 problem that has a
Triton candidate of the same stem, in the same run and on the same GPU:

  (a) kbench, protocol kernelbench (KernelBench's seeds, trials, tolerances
      and timing, reproduced by kbench's workers);
  (b) kbench, the default strict protocol;
  (c) KernelBench's eval_kernel_against_ref(backend="triton",
      num_correct_trials=5, num_perf_trials=--perf-trials,
      measure_performance=True), vendored in third_party/, in a fresh process
      per problem with a deadline (it runs the candidate in its own process
      and can crash or hang with it).

Each gives a verdict (kbench's verdict; KernelBench's compiled/correctness),
the kernel runtimes it measured (candidate and reference, ms; kbench reports
its protocol's statistic, the mean for kernelbench, the median for strict;
KernelBench the mean of its CUDA-event trials) and the wall time of the
evaluation. One JSON line per problem (to --out, else stdout), then a
markdown table. Agreement: kbench's kernelbench verdict is "pass" exactly
when KernelBench says correctness=True.

Exit status: 0 every problem agrees; 1 some verdict disagrees; 2 none
disagrees but some problem could not be compared (a side skipped or errored,
or no problem had a candidate).

kbench is reached through its Python package when BUILD/bindings/python has
it (one context for the whole run: the Python workers start once), else
through `BUILD/kbench score` (a context per score); --via picks.

usage: agreement.py [--build DIR] [--kbench PATH] [--via auto|api|cli] [--problems DIR] [--candidates DIR]
                    [--only REGEX] [--timeout S] [--perf-trials N] [--skip-strict] [--skip-kernelbench]
                    [--overlap] [--out FILE]
       agreement.py --table-from FILE   (the table and exit status of recorded JSON lines; runs nothing)
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import agreement_table  # noqa: E402
import problem_sizes  # noqa: E402

# KernelBench's eval_from_generations.py and kbench's kernelbench protocol
# both check 5 seeds; the harness must be called with the same number for the
# verdicts to be comparable.
CORRECT_TRIALS = 5


def pairs(problems_dir, candidates_dir, only):
    """(stem, problem path, candidate path) for each problem with a candidate,
    in problem-number order; and the problems without one."""
    problems = {f[:-3]: os.path.join(problems_dir, f) for f in os.listdir(problems_dir) if f.endswith(".py")}
    cands = {}
    if os.path.isdir(candidates_dir):
        cands = {f[:-3]: os.path.join(candidates_dir, f) for f in os.listdir(candidates_dir)
                 if f.endswith(".py") and f[:1].isdigit()}  # not the folder's tools
    for stem in sorted(set(cands) - set(problems)):
        print(f"warning: candidate {stem}.py names no problem in {problems_dir}", file=sys.stderr)
    rx = re.compile(only) if only else None
    chosen = [s for s in problems if rx is None or rx.search(s)]
    order = sorted(chosen, key=lambda s: (int(s.split("_")[0]) if s.split("_")[0].isdigit() else 1 << 30, s))
    return ([(s, problems[s], cands[s]) for s in order if s in cands],
            [s for s in order if s not in cands])


class HarnessRun:
    """kb_harness_eval.py in its own process group, so a hang is ended whole."""

    def __init__(self, python, problem, candidate, perf_trials, timeout_s):
        self.timeout_s = timeout_s
        cmd = [python, os.path.join(HERE, "kb_harness_eval.py"), problem, candidate,
               "--correct-trials", str(CORRECT_TRIALS), "--perf-trials", str(perf_trials)]
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True)

    def result(self):
        left = max(1.0, self.timeout_s - (time.perf_counter() - self.t0))
        try:
            out, _ = self.proc.communicate(timeout=left)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            out, _ = self.proc.communicate()
            return {"error": f"timed out after {self.timeout_s} s", "detail": (out or "")[-2000:],
                    "wall_s": round(time.perf_counter() - self.t0, 3)}
        wall = round(time.perf_counter() - self.t0, 3)
        lines = [ln for ln in (out or "").splitlines() if ln.startswith("KB_RESULT ")]
        if self.proc.returncode != 0 or not lines:
            rc = self.proc.returncode
            why = f"killed by signal {-rc}" if rc < 0 else f"exited {rc}"
            return {"error": f"harness {why} without a result", "detail": (out or "")[-2000:], "wall_s": wall}
        r = json.loads(lines[-1][len("KB_RESULT "):])
        r["wall_s"] = wall
        return r


def describe(side):
    if side is None:
        return "skipped"
    if side.get("error"):
        return f"error ({side['error'][:60]})"
    v = side.get("verdict")
    if v is None:
        v = ("correct" if side.get("correctness") else "incorrect") if side.get("compiled") else "not compiled"
    return f"{v} ({side.get('wall_s', 0):.1f} s)"


def run(a):
    found, missing = pairs(a.problems, a.candidates, a.only)
    if missing:
        print(f"problems without a candidate (not scored): {', '.join(missing)}", file=sys.stderr)
    from kbench_scoring import make_scorer
    scorer = make_scorer(a.via, a.build, a.kbench, a.timeout)
    out = open(a.out, "w") if a.out else sys.stdout
    records = []
    scratch = tempfile.mkdtemp(prefix="kbench-agreement-")
    try:
        for i, (stem, problem, candidate) in enumerate(found):
            with open(candidate) as f:
                source = f.read()
            problem, changed = problem_sizes.sized_problem(stem, problem, scratch, a.scale_large)
            rec = {"problem": stem, "family": agreement_table.family(stem), "candidate": os.path.relpath(candidate, ROOT),
                   "sizes": changed or "the problem's own",
                   "kbench_via": scorer.via, "first_score_in_context": scorer.via == "api" and i == 0,
                   "overlapped": bool(a.overlap and not a.skip_kernelbench)}
            harness = None
            if not a.skip_kernelbench and a.overlap:
                harness = HarnessRun(a.python, problem, candidate, a.perf_trials, a.timeout)
            rec["kbench_kernelbench"] = scorer.score(problem, candidate, source, "kernelbench")
            if not a.skip_strict:
                rec["kbench_strict"] = scorer.score(problem, candidate, source, "strict")
            if not a.skip_kernelbench:
                if harness is None:
                    harness = HarnessRun(a.python, problem, candidate, a.perf_trials, a.timeout)
                rec["kernelbench"] = harness.result()
            agree = agreement_table.agreement(rec)
            rec["agree"] = agree
            records.append(rec)
            out.write(json.dumps(rec) + "\n")
            out.flush()
            print(f"[{i + 1}/{len(found)}] {stem}: kbench-kb {describe(rec['kbench_kernelbench'])}, "
                  f"strict {describe(rec.get('kbench_strict'))}, KernelBench {describe(rec.get('kernelbench'))}, "
                  f"agree {agree}", file=sys.stderr, flush=True)
    finally:
        scorer.close()
        if a.out:
            out.close()
    print(agreement_table.render(records))
    if missing:
        print(f"problems without a candidate (not scored): {', '.join(missing)}")
    return agreement_table.exit_code(records)


def table_from(path):
    with open(path) as f:
        records = [json.loads(ln) for ln in f if ln.strip()]
    print(agreement_table.render(records))
    return agreement_table.exit_code(records)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default_build = "build-device" if os.path.isdir(os.path.join(ROOT, "build-device")) else "build"
    ap.add_argument("--build", default=os.path.join(ROOT, default_build),
                    help="kbench's build folder (the CLI, and the Python package in bindings/python)")
    ap.add_argument("--kbench", help="the kbench CLI (default BUILD/kbench); used with --via cli")
    ap.add_argument("--via", choices=("auto", "api", "cli"), default="auto")
    ap.add_argument("--problems", default=os.path.join(HERE, "problems"))
    ap.add_argument("--candidates", default=os.path.join(HERE, "candidates"))
    ap.add_argument("--only", help="regular expression on the problem stem (e.g. '^(19|23)_')")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds for KernelBench's harness on one problem, and for one `kbench score` (CLI)")
    ap.add_argument("--perf-trials", type=int, default=100, help="KernelBench's num_perf_trials")
    ap.add_argument("--python", default=sys.executable, help="the interpreter of KernelBench's harness (needs torch)")
    ap.add_argument("--skip-strict", action="store_true", help="leave out (b), kbench's strict protocol")
    ap.add_argument("--skip-kernelbench", action="store_true", help="leave out (c), KernelBench's harness")
    ap.add_argument("--overlap", action="store_true",
                    help="run KernelBench's harness beside kbench's scores (faster; times then not clean)")
    ap.add_argument("--scale-large", action="store_true",
                    help="run the problems with inputs over ~0.5 GB at the smaller sizes of problem_sizes.py "
                         "(both sides get the same copy)")
    ap.add_argument("--out", help="the JSON lines go here instead of stdout")
    ap.add_argument("--table-from", help="print the table and exit status of these recorded JSON lines")
    a = ap.parse_args()
    if a.table_from:
        return table_from(a.table_from)
    return run(a)


if __name__ == "__main__":
    sys.exit(main())

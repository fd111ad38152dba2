"""CPU check of bench/make_answers.py against kbench extract (run by CTest).

Generates a sample of the batch benchmark's candidates, runs
`kbench extract --candidates` over it, and checks that every line parses,
that each line's extraction outcome is the one the generator meant
(meta.expect_extraction), and, with --compile, that the extracted code of
each `ok` line compiles (NVRTC, no device) exactly when its expected verdict
is not compile_error.

usage: check_make_answers.py --kbench BUILD/kbench --source SRC [--count 50] [--seed 7] [--compile] [--distinct]

--distinct: the answers of make_answers.py --distinct, which must also hold no
two equal pieces of code (so that none hits a compile cache).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kbench", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--distinct", action="store_true")
    args = ap.parse_args()
    tasks = os.path.join(args.source, "tasks")
    # Answers name their task; the tasks live in tasks/<family>/<task>/.
    folder_of = {}
    for root, dirs, files in os.walk(tasks):
        if "task.json" in files:
            folder_of[os.path.basename(root)] = root
            dirs[:] = []
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        cands = os.path.join(tmp, "answers.jsonl")
        subprocess.run([sys.executable, os.path.join(args.source, "bench", "make_answers.py"), "--count",
                        str(args.count), "--seed", str(args.seed), "--tasks", tasks, "-o", cands] +
                       (["--distinct"] if args.distinct else []), check=True)
        with open(cands) as f:
            lines = [json.loads(l) for l in f]
        assert len(lines) == args.count, "expected %d lines, got %d" % (args.count, len(lines))
        run = subprocess.run([args.kbench, "extract", "--json", "--candidates", cands, "--tasks", tasks],
                             capture_output=True, text=True)
        report = json.loads(run.stdout)  # valid JSON, whatever the exit status
        if run.returncode != 0 or report["errors"]:
            failures.append("kbench extract exited %d: %s" % (run.returncode, report["errors"]))
        if report["candidates"] != args.count:
            failures.append("kbench extract saw %d candidates of %d" % (report["candidates"], args.count))
        compiled = 0
        if args.distinct:
            # Every answer with code holds a kernel named after its line, once.
            for i, src in enumerate(lines):
                own = "kb_distinct_s%d_%d()" % (args.seed, i)
                if src["meta"]["shape"] not in ("no_code", "truncated", "reasoning_cut") and own not in src["answer"]:
                    failures.append("line %d: no %s in its code" % (i + 1, own))
                if any(own in other["answer"] for j, other in enumerate(lines) if j != i):
                    failures.append("line %d: %s appears in another answer" % (i + 1, own))
        for row, src in zip(report["lines"], lines):
            meta = src["meta"]
            where = "line %d (%s, %s, %s)" % (row["line"], src["task"], meta["kind"], meta["shape"])
            if row["outcome"] != meta["expect_extraction"]:
                failures.append("%s: outcome %s, expected %s: %s" % (where, row["outcome"],
                                                                     meta["expect_extraction"], row["reason"]))
                continue
            if not args.compile or row["outcome"] != "ok":
                continue
            answer = os.path.join(tmp, "answer.txt")
            with open(answer, "w", newline="") as f:
                f.write(src["answer"])
            code = subprocess.run([args.kbench, "extract", "--code-only", "--task",
                                   folder_of[src["task"]], answer], capture_output=True, text=True)
            kernel = os.path.join(tmp, "kernel.cu")
            with open(kernel, "w") as f:
                f.write(code.stdout)
            comp = subprocess.run([args.kbench, "compile", "--no-device", "--no-nvcc", "--arch", "sm_90",
                                   os.path.join(folder_of[src["task"]], "task.json"), kernel],
                                  capture_output=True, text=True)
            compiled += 1
            should = meta["expect_verdict"] != "compile_error"
            if (comp.returncode == 0) != should:
                failures.append("%s: compile %s, expected %s:\n%s" % (
                    where, "succeeded" if comp.returncode == 0 else "failed", "success" if should else "failure",
                    (comp.stdout + comp.stderr)[-1500:]))
    for f in failures:
        print("FAIL", f)
    outcomes = report.get("outcomes", {})
    print("%d candidates, outcomes %s, %d compiled, %d failure(s)" % (args.count, outcomes, compiled, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

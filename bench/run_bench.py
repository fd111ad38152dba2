"""The `kbench run` benchmark (issue 11): 500 mixed model-style answers from
bench/make_answers.py scored end to end by `kbench run` on the device with
worker isolation, as a user runs it; then a second run interrupted with
SIGINT midway and resumed, checked for completeness.

Prints one JSON object on stdout (bench/summarize.py reads it as
run_bench.json); the results files and the report page go to OUT_DIR.

usage: python3 bench/run_bench.py BUILD_DIR OUT_DIR [--count 500] [--seed 1] [--gpus 0] [--timeout S]
                                  [--lanes N] [--without KIND,...] [--ray ADDRESS] [--no-interrupt]

--without drops answers of the named kinds (bench/make_answers.py's KINDS,
e.g. hang,crash) from the file after it is made: what those kinds cost the
rate, measured beside the whole file.

--timeout passes kbench run --timeout (a request's deadline; by default
kbench computes one per request, and the worker stops a hanging kernel about
1 s after its launch, which is what a hanging answer costs, twice when it
hangs beside another one: docs/isolation.md).
"""
import argparse
import collections
import json
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(msg):
    print(f"run_bench: {msg}", file=sys.stderr, flush=True)


def read_lines(path):
    """The result lines of a file, and whether every line was whole JSON."""
    lines, whole = [], True
    if not os.path.exists(path):
        return lines, whole
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        whole = False
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            lines.append(json.loads(raw))
        except ValueError:
            whole = False
    return lines, whole


def key(r):
    return (r["task"], str(r["id"]), r.get("sample"))


def count_newlines(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gpus", default="0")
    ap.add_argument("--timeout", type=float)
    ap.add_argument("--lanes", type=int, help="kbench run --lanes N (candidates on each GPU at once)")
    ap.add_argument("--without", default="", metavar="KIND,...",
                    help="drop answers of these make_answers.py kinds (e.g. hang,crash)")
    ap.add_argument("--compile-only", action="store_true",
                    help="a check of this script on a machine without a GPU (verdicts then differ from meta)")
    ap.add_argument("--ray", metavar="ADDRESS",
                    help="kbench run --ray ADDRESS ('local': a Ray cluster started here; kbench.ray, an actor per GPU)")
    ap.add_argument("--keep-pool", metavar="NAME",
                    help="with --ray: kbench run --keep-pool NAME (the first such run starts the pool, later ones "
                         "find it warm)")
    ap.add_argument("--distinct", action="store_true",
                    help="make_answers.py --distinct: no two answers compile to the same PTX (no compile cache hits)")
    ap.add_argument("--no-interrupt", action="store_true",
                    help="the first run only: a rate measured beside another setting, without the resume check")
    a = ap.parse_args()
    kbench = os.path.abspath(os.path.join(a.build, "kbench"))
    os.makedirs(a.out, exist_ok=True)
    answers = os.path.join(a.out, "run_answers.jsonl")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench", "make_answers.py"), "--count", str(a.count),
                    "--seed", str(a.seed), "-o", answers] + (["--distinct"] if a.distinct else []), check=True)
    dropped = [k for k in a.without.split(",") if k]
    if dropped:
        with open(answers) as f:
            kept = [line for line in f if json.loads(line)["meta"]["kind"] not in dropped]
        with open(answers, "w") as f:
            f.writelines(kept)
    with open(answers) as f:
        metas = {}
        for line in f:
            c = json.loads(line)
            metas[(c["task"], str(c["id"]), c.get("sample"))] = c["meta"]
    count = len(metas)
    base = [kbench, "run", "--json", "--tasks", os.path.join(ROOT, "tasks"), "--candidates", answers,
            ] + ([] if a.compile_only else ["--gpus", a.gpus]) + (["--timeout", str(a.timeout)] if a.timeout else []) + \
        (["--lanes", str(a.lanes)] if a.lanes else []) + (["--compile-only"] if a.compile_only else []) + (["--ray", a.ray] if a.ray else []) + \
        (["--keep-pool", a.keep_pool] if a.keep_pool else [])
    result = {"n": count, "seed": a.seed, "distinct": a.distinct, "gpus": a.gpus, "isolation": "worker", "timeout_s": a.timeout,
              "compile_only": a.compile_only, "ray": a.ray, "keep_pool": a.keep_pool, "lanes": a.lanes, "without": dropped}

    # 1. The whole file, end to end: process start, contexts, workers, every line.
    out1 = os.path.join(a.out, "run_results.jsonl")
    if os.path.exists(out1):
        os.remove(out1)
    log(f"scoring {count} answers")
    t0 = time.monotonic()
    p = subprocess.run(base + ["--out", out1], cwd=ROOT, capture_output=True, text=True)
    wall = time.monotonic() - t0
    with open(os.path.join(a.out, "run_bench_progress.txt"), "w") as f:
        f.write(p.stderr)
    try:
        summary = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        summary = {"error": p.stdout[-2000:] + p.stderr[-2000:]}
    result.update({"rc": p.returncode, "wall_s": round(wall, 3), "summary": summary})
    lines, whole = read_lines(out1)
    result["lines"] = len(lines)
    result["lines_whole"] = whole
    result["per_s_end_to_end"] = round(len(lines) / wall, 2) if wall > 0 else None
    matched, mismatches, by_verdict = 0, collections.Counter(), collections.Counter()
    examples = {}
    for r in lines:
        meta = metas.get(key(r), {})
        want = meta.get("expect_verdict")
        by_verdict[r["verdict"]] += 1
        if r["verdict"] == want:
            matched += 1
        else:
            k = f"{want} -> {r['verdict']}"
            mismatches[k] += 1
            examples.setdefault(k, {"id": r["id"], "task": r["task"], "kind": meta.get("kind"),
                                    "variant": meta.get("variant"), "kernel": meta.get("kernel"),
                                    "message": r.get("message", "")[:300]})
    result.update({"expected_verdicts": matched, "mismatches": dict(mismatches), "mismatch_examples": examples,
                   "verdicts": dict(by_verdict)})
    stages = collections.defaultdict(list)
    for r in lines:
        for k in ("compile_ms", "run_ms"):
            if isinstance(r.get(k), (int, float)):
                stages[k].append(r[k])
    result["mean_ms"] = {k: round(sum(v) / len(v), 1) for k, v in stages.items() if v}
    log(f"{len(lines)} lines in {wall:.1f} s ({result['per_s_end_to_end']}/s); {matched} with the expected verdict")
    if isinstance(summary, dict) and summary.get("phases_s"):  # --ray: kbench.ray's parts (docs/batch.md)
        log("phases: " + ", ".join(f"{k} {v:.2f}" for k, v in summary["phases_s"].items()))

    rep = subprocess.run([kbench, "report", "--json", "--html", os.path.join(a.out, "run_report.html"), out1],
                         capture_output=True, text=True)
    try:
        rj = json.loads(rep.stdout)
        result["report"] = {k: rj.get(k) for k in ("call_accuracy", "exec_accuracy", "fast_p", "geomean_speedup",
                                                   "pass_at_k", "efficiency_median")}
    except ValueError:
        result["report"] = {"error": rep.stderr[-1000:]}
    with open(os.path.join(a.out, "run_report.txt"), "w") as f:
        f.write(subprocess.run([kbench, "report", out1], capture_output=True, text=True).stdout)

    if a.no_interrupt:
        print(json.dumps(result, indent=1))
        return
    # 2. Interrupted midway with SIGINT, then resumed.
    out2 = os.path.join(a.out, "run_results_interrupted.jsonl")
    if os.path.exists(out2):
        os.remove(out2)
    target = count // 2
    log(f"second run: SIGINT after {target} lines")
    proc = subprocess.Popen(base + ["--out", out2], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 300
    while count_newlines(out2) < target and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    at_signal = count_newlines(out2)
    signalled = proc.poll() is None
    t_sig = time.monotonic()
    if signalled:
        proc.send_signal(signal.SIGINT)
    so, se = proc.communicate(timeout=300)
    stop_s = time.monotonic() - t_sig
    part, part_whole = read_lines(out2)
    intr = {"signalled": signalled, "lines_at_signal": at_signal, "rc": proc.returncode,
            "stop_after_signal_s": round(stop_s, 3), "lines_after_stop": len(part), "whole": part_whole}
    try:
        intr["summary"] = json.loads(so.strip().splitlines()[-1])
    except (ValueError, IndexError):
        intr["summary"] = {"error": so[-1000:] + se[-1000:]}
    p = subprocess.run(base + ["--out", out2], cwd=ROOT, capture_output=True, text=True)
    try:
        intr["resume_summary"] = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        intr["resume_summary"] = {"error": p.stdout[-1000:] + p.stderr[-1000:]}
    intr["resume_rc"] = p.returncode
    final, final_whole = read_lines(out2)
    keys = [key(r) for r in final]
    intr["final_lines"] = len(final)
    intr["final_whole"] = final_whole
    intr["duplicates"] = len(keys) - len(set(keys))
    intr["complete"] = set(keys) == set(metas)
    # The verdicts of the two runs of the same file should agree line by line
    # (timing-dependent verdicts aside, none of these answers is near a bound).
    first = {key(r): r["verdict"] for r in lines}
    intr["verdicts_differing_from_run_1"] = sum(1 for r in final if first.get(key(r)) != r["verdict"])
    result["interrupt"] = intr
    log(f"interrupt: {at_signal} lines at SIGINT, rc {proc.returncode}, {len(part)} after stop; resumed rc "
        f"{p.returncode}, {len(final)} lines, complete={intr['complete']}, duplicates={intr['duplicates']}")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()

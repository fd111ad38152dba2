"""Program-candidate throughput: distinct Triton ModelNew answers for the
vendored KernelBench level-1 problems, at their own sizes, scored under the
strict protocol through one warm kbench.Context.

Inputs: every problem in problems/ with an answer in candidates/; each answer
made distinct N times (source_variant.py puts a comment in every @triton.jit
body, so Triton compiles each variant afresh, as a new model answer would).
With --benchmark tritonbench: the TritonBench-G operators of
bench/tritonbench/operators/, each answered by its own operator code (the
file above its separator line of #s), imported without a performance script:
correctness only, on the test function's small inputs.

Series, each after a priming score per problem (workers started, inputs
made, reference outputs cached; reported, not counted):
  one-at-a-time  Context.score of fresh variants, timed: the latency a single
                 RL sample sees (median seconds from submission to verdict);
  batch          Context.batch() over every variant, for each --lanes value
                 (after one unmeasured job per lane, which starts the lanes'
                 workers) and each mode (timed; correctness-only): verdicts a second,
                 the GPU-busy fraction (NVML utilisation sampled every 20 ms
                 while the batch runs) and the median stage times.

Prints one JSON document (also to --out) and a table on stderr, last. The
--out file is rewritten after each series, and each series prints a line on
stderr as it ends, so a run stopped by a time limit keeps what it measured.

usage: program_bench.py [--build DIR] [-n 4] [--lanes 1,4] [--only REGEX] [--latency 3] [--out FILE]
                        [--benchmark kernelbench|tritonbench] [--modes timed,correctness]
                        [--stall-dump FILE] [--import-jobs N] [--task-cache DIR] [--import-only]
"""
import argparse
import json
import os
import re
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import source_variant  # noqa: E402
from kbench_scoring import add_binding_path  # noqa: E402

STAGES = ("compile_ms", "queue_ms", "correctness_ms", "timing_ms", "recheck_ms")
# The compile stage's parts in a program's result: its module's import and
# the warm-up compile of its Triton kernels after it.
LOAD_PARTS = ("import_ms", "warm_ms")


class GpuBusy:
    """The mean of NVML's GPU utilisation while it runs (None without NVML)."""

    def __init__(self, device=0, period_s=0.02):
        self.samples = []
        self._stop = threading.Event()
        self._period = period_s
        try:
            import pynvml
            pynvml.nvmlInit()
            self._nvml = pynvml
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(device)
        except Exception:  # noqa: BLE001 - no NVML: no figure, said as None
            self._nvml = None

    def __enter__(self):
        if self._nvml:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def _run(self):
        while not self._stop.is_set():
            self.samples.append(self._nvml.nvmlDeviceGetUtilizationRates(self._handle).gpu)
            time.sleep(self._period)

    def __exit__(self, *exc):
        self._stop.set()
        if self._nvml:
            self._thread.join()

    def fraction(self):
        return round(statistics.mean(self.samples) / 100.0, 3) if self.samples else None


def stack_dump(path):
    """Appends to `path` the Python and native stacks of this process and
    every process under it (py-spy dump, where py-spy is on PATH), else each
    one's state and kernel wait channel from /proc: where a stuck batch
    waits."""
    import shutil
    import subprocess
    pids, queue = [], [os.getpid()]
    while queue:
        pid = queue.pop()
        pids.append(pid)
        try:
            for tid in os.listdir("/proc/%d/task" % pid):
                with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                    queue.extend(int(c) for c in f.read().split())
        except OSError:
            pass
    spy = shutil.which("py-spy")
    with open(path, "a") as out:
        out.write("== %s\n" % time.strftime("%T"))
        for pid in pids:
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace")[:300]
                with open("/proc/%d/stat" % pid) as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
                with open("/proc/%d/wchan" % pid) as f:
                    wchan = f.read()
            except OSError:
                continue
            out.write("-- pid %d state %s wchan %s: %s\n" % (pid, state, wchan, cmd))
            out.flush()
            if spy and "python" in cmd:
                r = subprocess.run([spy, "dump", "--native", "--pid", str(pid)], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, timeout=60, check=False)
                out.write(r.stdout.decode(errors="replace"))
                out.flush()


class Stalls:
    """Says on stderr how many of a batch's jobs are done every `every_s`
    seconds, and when it has given no verdict for `quiet_s` seconds, with
    the last one's problem: a batch stopped by a time limit then shows its
    rate so far, and whether it was slow or stuck.
    With `dump` (a file), the first such silence also writes every
    process's stacks there (stack_dump)."""

    def __init__(self, total, what, quiet_s=30.0, dump="", every_s=15.0):
        self.total, self.what, self.quiet_s, self.dump = total, what, quiet_s, dump
        self.count, self.last, self.at = 0, "", time.perf_counter()
        self.start, self.every_s, self.said = self.at, every_s, self.at
        self._stop = threading.Event()

    def done(self, problem):
        self.count, self.last, self.at = self.count + 1, problem, time.perf_counter()

    def _run(self):
        while not self._stop.wait(min(self.quiet_s / 3, self.every_s)):
            now = time.perf_counter()
            if now - self.said >= self.every_s:
                # Progress: a series cut by a time limit still shows its rate.
                self.said = now
                print("program_bench: %s: %d of %d done in %.0f s" % (self.what, self.count, self.total,
                                                                    now - self.start), file=sys.stderr, flush=True)
            quiet = time.perf_counter() - self.at
            if quiet >= self.quiet_s:
                print("program_bench: %s: no verdict for %.0f s, %d of %d done (last: %s)" % (
                    self.what, quiet, self.count, self.total, self.last or "none"), file=sys.stderr, flush=True)
                if self.dump:
                    try:
                        stack_dump(self.dump)
                    except Exception as e:  # noqa: BLE001 - a failed dump must not stop the batch
                        print("program_bench: stack dump failed: %s" % e, file=sys.stderr, flush=True)
                    self.dump = ""
                self.at = time.perf_counter()

    def __enter__(self):
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def median_stages(docs):
    """The median of each stage's milliseconds; for candidates that built
    extensions (load_inline), also the import's and the builds' own
    (`program.builds`: the whole build, and each compile step by unit), so
    the compile stage's time outside the build shows, and how many builds
    each linker and host compiler made."""
    out = {}
    for k in STAGES:
        vals = [d.get("stages", {}).get(k) for d in docs if d.get("stages", {}).get(k) is not None]
        out[k] = round(statistics.median(vals), 1) if vals else None
    # The timing's rounds and samples: noise beside the timed lane makes
    # the rounds disagree, and a timing that does not settle runs them all.
    timed = [d["program"]["timing"] for d in docs if (d.get("program") or {}).get("timing")]
    if timed:
        out["timing_rounds"] = round(statistics.mean(t.get("rounds", 0) for t in timed), 2)
        # How many timings stopped after each count of rounds ({"2": 14, ...}).
        rounds = [str(t.get("rounds", 0)) for t in timed]
        out["timing_rounds_count"] = {k: rounds.count(k) for k in sorted(set(rounds))}
        out["timing_reference_reused"] = round(statistics.mean(t.get("reference_rounds_reused", 0) for t in timed), 2)
        counts = [(t.get("candidate") or {}).get("samples") for t in timed]
        counts = [c for c in counts if c is not None]
        if counts:
            out["timing_samples"] = statistics.median(counts)
    # Builds ahead of the lanes (docs/programs.md, "Builds ahead of the
    # GPU"): the compile thread's time with a builder, how many of the
    # lanes' builds were only loaded, and what stopped a builder early.
    ahead = [d["program"]["prebuild"] for d in docs if (d.get("program") or {}).get("prebuild")]
    if ahead:
        out["prebuild"] = round(statistics.median(a.get("ms", 0) for a in ahead), 1)
        stopped = sorted({a["stopped"] for a in ahead if a.get("stopped")})
        if stopped:
            out["prebuild_stopped"] = stopped[:3]
    built = [d["program"] for d in docs if (d.get("program") or {}).get("builds")]
    if built:
        every = [b for p in built for b in p["builds"]]
        out["prebuilt_builds"] = "%d/%d" % (sum(1 for b in every if b.get("prebuilt")), len(every))
        ahead_ms = [b["built_ms"] for b in every if b.get("prebuilt") and b.get("built_ms")]
        if ahead_ms:
            out["built_ahead"] = round(statistics.median(ahead_ms), 1)
        out["import"] = round(statistics.median(p.get("import_ms", 0) for p in built), 1)
        out["build"] = round(statistics.median(sum(b.get("ms", 0) for b in p["builds"]) for p in built), 1)
        units = sorted({u for p in built for b in p["builds"] for u in b.get("steps_ms", {})})
        for u in units + ["link"]:
            key = "link_ms" if u == "link" else None
            vals = [b.get(key, 0) if key else b["steps_ms"][u] for p in built for b in p["builds"]
                    if key or u in b.get("steps_ms", {})]
            if vals:
                out["build_" + u] = round(statistics.median(vals), 1)
        # Which tools built them: a linker that fails and falls back links twice.
        for key in ("linker", "host_compiler"):
            seen = [b[key] for p in built for b in p["builds"] if b.get(key)]
            if seen:
                out[key + "s"] = {k: seen.count(k) for k in sorted(set(seen))}
        # Why the fast linker or clang was passed over, each reason once.
        for key in ("linker_why", "host_compiler_why"):
            seen = sorted({b[key] for p in built for b in p["builds"] if b.get(key)})
            if seen:
                out[key] = seen[:3]
    return out


def runs_of(d):
    """One score's runs, to tell where its GPU phases went: each case's call
    (ms), the recheck's, the timing's medians, and the kernels CUPTI saw in
    the candidate's calls (the four longest: launches, total ms)."""
    out = {"task": d.get("task"), "verdict": d.get("verdict"), "stages": d.get("stages"),
           "cases": [[c.get("case"), round(c.get("run_ms") or 0, 2)] for c in d.get("cases") or []]}
    if d.get("recheck"):
        out["recheck_ms"] = round(d["recheck"].get("run_ms") or 0, 2)
    t = d.get("timing") or {}
    for side in ("candidate", "baseline"):
        if isinstance(t.get(side), dict):
            out[side + "_median_us"] = t[side].get("median_us")
    # Why a timing took the rounds it took: each round's speedup and sides
    # (most rounds must agree), the reference's rounds reused, the
    # candidate's samples.
    pt = (d.get("program") or {}).get("timing")
    if pt:
        out["timing"] = {"rounds": pt.get("rounds"), "settled_early": pt.get("settled_early"),
                         "round_speedups": [round(x, 4) for x in pt.get("round_speedups") or []],
                         "round_ms": [[round(r.get("candidate", 0), 4), round(r.get("reference", 0), 4),
                                       bool(r.get("reference_reused"))] for r in pt.get("round_ms") or []],
                         "reference_rounds_reused": pt.get("reference_rounds_reused"),
                         "samples": (pt.get("candidate") or {}).get("samples"),
                         "rel_noise": [(pt.get(side) or {}).get("rel_noise") for side in ("candidate", "reference")]}
    kernels = ((d.get("program") or {}).get("attribution") or {}).get("kernels") or []
    kernels = sorted(kernels, key=lambda k: -(k.get("total_us") or 0))[:4]
    out["kernels"] = [[k.get("name", "")[:60], k.get("launches"), round((k.get("total_us") or 0) / 1e3, 2)]
                      for k in kernels]
    return out


def task_json(path, benchmark, build):
    """A problem's task as kbench.problem_task makes it, as a dict: run in a
    process of its own by import_tasks."""
    add_binding_path(build)
    import kbench
    return kbench.problem_task(path, benchmark=benchmark).json()


def import_tasks(paths, benchmark, build, jobs):
    """Each problem's task, as kbench.problem_task makes it: validated, its
    reference run on the CPU at its cases and negative controls, which takes
    up to half a minute a problem at KernelBench's sizes (89_cumsum on an
    H100 host). `jobs` problems at once, each in a process of its own (the
    reference's inputs are gigabytes there: a few at once, not one per
    core); one at a time in this process when `jobs` is 1."""
    import kbench
    if jobs <= 1 or len(paths) <= 1:
        return [kbench.problem_task(p, benchmark=benchmark) for p in paths]
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        docs = list(pool.map(task_json, paths, [benchmark] * len(paths), [build] * len(paths)))
    return [kbench.Task(d) for d in docs]


# What shapes a problem's task besides its file: the importer and the
# negative controls it runs.
IMPORTER_FILES = [os.path.join(ROOT, "python", "kbench_programs", f)
                  for f in ("kbench_importer.py", "kbench_controls.py", "kbench_problem.py", "kbench_checks.py")] + \
                 [os.path.join(ROOT, "bindings", "python", "kbench", "programs.py")]


def task_key(path, benchmark):
    """What a cached task is good for: the problem file, the benchmark and
    the importer's sources, hashed."""
    import hashlib
    h = hashlib.sha256(benchmark.encode())
    for f in [path] + IMPORTER_FILES:
        with open(f, "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()


def cached_tasks(paths, benchmark, build, jobs, cache):
    """import_tasks, through a folder of tasks imported before (`cache`,
    or none): a problem whose file and importer are unchanged is read back
    instead of imported again. At KernelBench's sizes the import runs each
    reference on the CPU at its perf case and takes 99 s for the 22
    problems, four at once on an H100 host, where the device's time is
    what is short; a folder filled on another machine (the same torch)
    comes along with the tree. Returns (tasks, how many came from it)."""
    import kbench
    if not cache:
        return import_tasks(paths, benchmark, build, jobs), 0
    folder = os.path.join(cache, benchmark)
    os.makedirs(folder, exist_ok=True)
    tasks, missing = {}, []
    keys = {p: task_key(p, benchmark) for p in paths}
    for p in paths:
        f = os.path.join(folder, os.path.basename(p)[:-3] + ".json")
        try:
            with open(f) as fh:
                doc = json.load(fh)
            if doc.get("key") == keys[p]:
                tasks[p] = kbench.Task(doc["task"])
                continue
        except (OSError, ValueError, KeyError):
            pass
        missing.append(p)
    for p, t in zip(missing, import_tasks(missing, benchmark, build, jobs) if missing else []):
        tasks[p] = t
        save({"key": keys[p], "task": t.json()},
             os.path.join(folder, os.path.basename(p)[:-3] + ".json"))
    return [tasks[p] for p in paths], len(paths) - len(missing)


def verdicts(docs):
    counts = {}
    for d in docs:
        counts[d.get("verdict")] = counts.get(d.get("verdict"), 0) + 1
    return counts


def answer_of(text, benchmark):
    """The answer in a candidate file: all of it for KernelBench; for a
    TritonBench operator file, the code above its separator (a line of at
    least 20 #s), without the test function below it."""
    if benchmark != "tritonbench":
        return text
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.startswith("#" * 20):
            return "".join(lines[:i])
    return text


def save(doc, path):
    if path:
        with open(path + ".tmp", "w") as f:
            f.write(json.dumps(doc, indent=1) + "\n")
        os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("-n", type=int, default=4, help="distinct variants of each answer in a batch")
    ap.add_argument("--lanes", default="1,4")
    ap.add_argument("--only", default="")
    ap.add_argument("--latency", type=int, default=3, help="one-at-a-time fresh variants per problem")
    ap.add_argument("--problems", default="")
    ap.add_argument("--candidates", default="")
    ap.add_argument("--benchmark", default="kernelbench", choices=("kernelbench", "tritonbench"))
    ap.add_argument("--modes", default="timed,correctness", help="the batch series: timed, correctness or both")
    ap.add_argument("--out", default="")
    ap.add_argument("--stall-dump", default="", help="file for every process's stacks when a batch stalls")
    ap.add_argument("--task-cache", default="",
                    help="folder of imported tasks, read back while their problem and importer are unchanged")
    ap.add_argument("--import-only", action="store_true", help="import the problems (into --task-cache) and stop")
    ap.add_argument("--import-jobs", type=int, default=0,
                    help="problems imported (validated on the CPU) at once, each in a process of its own "
                         "(0: a quarter of the cores, at most 4, for KernelBench; 1 for TritonBench's small operators)")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    if not modes or any(m not in ("timed", "correctness") for m in modes):
        sys.exit("program_bench: --modes takes timed, correctness or both (comma-separated), not %r" % args.modes)
    if args.benchmark == "tritonbench":
        args.problems = args.problems or os.path.join(ROOT, "bench", "tritonbench", "operators")
        args.candidates = args.candidates or args.problems
    else:
        args.problems = args.problems or os.path.join(HERE, "problems")
        args.candidates = args.candidates or os.path.join(HERE, "candidates")
    if not add_binding_path(args.build):
        sys.exit("program_bench: kbench's Python package is not in %s/bindings/python (build it with SWIG)"
                 % args.build)
    import kbench

    names = sorted(f for f in os.listdir(args.candidates) if f.endswith(".py")
                   and os.path.exists(os.path.join(args.problems, f))
                   and (not args.only or re.search(args.only, f[:-3])))
    if args.import_jobs <= 0:
        args.import_jobs = 1 if args.benchmark == "tritonbench" else max(1, min(4, (os.cpu_count() or 1) // 4))
    t0 = time.perf_counter()
    imported, kept = cached_tasks([os.path.join(args.problems, n) for n in names], args.benchmark, args.build,
                                  args.import_jobs, args.task_cache)
    tasks = dict(zip(names, imported))
    print("program_bench: imported %d problems in %.1f s (%d at once; %d read from %s)" % (
        len(names), time.perf_counter() - t0, args.import_jobs, kept, args.task_cache or "no cache"), file=sys.stderr)
    if args.import_only:
        return
    ctx = kbench.Context(0)
    sources = {}
    doc = {"benchmark": args.benchmark, "problems": names, "variants_per_problem": args.n,
           "device": ctx.info.get("device", {}).get("name")}
    prime = {}
    for name in names:
        sources[name] = answer_of(open(os.path.join(args.candidates, name)).read(), args.benchmark)
        t0 = time.perf_counter()
        try:
            r = ctx.score(tasks[name], source_variant.variant(sources[name], "prime"), language="python",
                          label=name)
            prime[name] = {"verdict": r.verdict, "s": round(time.perf_counter() - t0, 3)}
            # How its extensions were built: ahead by a builder, or in the lane.
            program = r.json().get("program") or {}
            if program.get("builds"):
                prime[name]["builds"] = [{k: b.get(k) for k in ("name", "build", "prebuilt", "ms", "built_ms")}
                                         for b in program["builds"]]
            if program.get("prebuild"):
                prime[name]["prebuild"] = program["prebuild"]
            if r.verdict != "pass":
                # What failed, with the policy's findings: a priming score
                # that fails says something about the problem or kbench.
                j = r.json()
                prime[name]["error"] = json.dumps({"message": j.get("message"),
                                                   "findings": (j.get("program") or {}).get("findings")})[:2000]
        except kbench.KbenchError as e:
            # Kept and reported: one problem's error does not lose the others' figures.
            prime[name] = {"verdict": "error", "s": round(time.perf_counter() - t0, 3), "error": str(e)[:2000]}
        ahead = prime[name].get("builds")
        print("program_bench: primed %s at %.1f s: %s %s%s" % (
            name, time.time(), prime[name]["verdict"], prime[name].get("error", "")[:600],
            " builds %s" % json.dumps(ahead) if ahead else ""), file=sys.stderr)
    doc["priming"] = prime
    save(doc, args.out)
    print("program_bench: primed %d problems: %s" % (len(names), verdicts(list(prime.values()))), file=sys.stderr)

    # One at a time: fresh variants, timed.
    lat, lat_docs = [], []
    for name in names:
        for i in range(args.latency):
            t0 = time.perf_counter()
            try:
                r = ctx.score(tasks[name], source_variant.variant(sources[name], "one%d" % i), language="python",
                              label=name)
                lat_docs.append(r.json())
            except kbench.KbenchError as e:
                lat_docs.append({"verdict": "error", "task": name, "error": str(e)[:2000]})
            lat.append(time.perf_counter() - t0)
    doc["one_at_a_time"] = {"n": len(lat), "median_s": round(statistics.median(lat), 3) if lat else None,
                            "min_s": round(min(lat), 3) if lat else None, "max_s": round(max(lat), 3) if lat else None,
                            "verdicts": verdicts(lat_docs), "stages_ms": median_stages(lat_docs),
                            "runs": [runs_of(d) for d in lat_docs]}
    save(doc, args.out)
    print("program_bench: one at a time: median %s s, stages %s" % (doc["one_at_a_time"]["median_s"],
                                                                   doc["one_at_a_time"]["stages_ms"]), file=sys.stderr)

    series = []
    serial = 0
    for lanes in [int(x) for x in args.lanes.split(",") if x]:
        if lanes > 1:
            # Each lane's workers start at its first job (seconds each, a
            # fresh interpreter importing torch): one unmeasured job per lane
            # first, so the series measure the steady state that a long
            # batch (an RL loop's) sees.
            t0 = time.perf_counter()
            b = ctx.batch(device_lanes=lanes)
            for k in range(lanes):
                name = names[k % len(names)]
                b.submit(tasks[name], source_variant.variant(sources[name], "warm%d.%d" % (lanes, k)),
                         language="python", label=name, tag=k, skip_timing=True)
            warm = [job.result().verdict if job.error is None else "error" for job in b.results()]
            b.close()
            print("program_bench: lanes %d warmed in %.1f s: %s" % (lanes, time.perf_counter() - t0, warm),
                  file=sys.stderr)
        for mode in modes:
            serial += 1
            jobs = []
            for name in names:
                for i in range(args.n):
                    jobs.append((name, source_variant.variant(sources[name], "b%d.%d" % (serial, i))))
            # Room for every job: they are all submitted before any result is
            # taken, and a submit waits while the batch is full (64 jobs by
            # default), so a series of more jobs would wait forever.
            b = ctx.batch(device_lanes=lanes, capacity=len(jobs))
            with GpuBusy() as busy:
                t0 = time.perf_counter()
                for k, (name, code) in enumerate(jobs):
                    b.submit(tasks[name], code, language="python", label=name, tag=k,
                             skip_timing=(mode == "correctness"))
                docs, timeline, saved = [], [], time.perf_counter()
                with Stalls(len(jobs), "lanes %d %s" % (lanes, mode), dump=args.stall_dump) as stalls:
                    for job in b.results():
                        if job.error is not None:
                            docs.append({"verdict": "error", "error": str(job.error)})
                        else:
                            docs.append(job.result().json())
                        stalls.done(jobs[job.tag][0] if isinstance(job.tag, int) else "")
                        # Each job as it ended: when, and its stages' ms,
                        # so a slow series shows which step each job waited on.
                        st = docs[-1].get("stages") or {}
                        pg = docs[-1].get("program") or {}
                        timeline.append([round(time.perf_counter() - t0, 3), jobs[job.tag][0], docs[-1].get("verdict")]
                                        + [round(st[k], 1) if isinstance(st.get(k), (int, float)) else None
                                           for k in STAGES]
                                        + [round(pg[k], 1) if isinstance(pg.get(k), (int, float)) else None
                                           for k in LOAD_PARTS])
                        if time.perf_counter() - saved > 5:
                            # The series so far, for a run cut by its time limit.
                            saved = time.perf_counter()
                            doc["unfinished"] = {"lanes": lanes, "mode": mode, "jobs": len(jobs), "timeline": timeline}
                            save(doc, args.out)
                wall = time.perf_counter() - t0
            b.close()
            series.append({"lanes": lanes, "mode": mode, "jobs": len(jobs), "wall_s": round(wall, 3),
                           "per_s": round(len(jobs) / wall, 2), "gpu_busy": busy.fraction(),
                           "verdicts": verdicts(docs), "stages_ms": median_stages(docs),
                           # A failure's message whole enough to hold an out-of-memory
                           # report's list of processes, and what a first attempt said
                           # where the stage ran again (`retried_stages`).
                           "failures": [{"verdict": d.get("verdict"), "task": d.get("task"),
                                         "message": (d.get("message") or d.get("error") or "")[:1500],
                                         "retried": [r[:1500] for r in d.get("retried_stages") or []]}
                                        for d in docs if d.get("verdict") != "pass"][:6],
                           "timeline_columns": ["done_s", "problem", "verdict"] + list(STAGES) + list(LOAD_PARTS),
                           "timeline": timeline})
            doc["batch"] = series
            doc.pop("unfinished", None)
            save(doc, args.out)
            s = series[-1]
            print("program_bench: lanes %d %s: %.2f/s, gpu busy %s, %s, stages %s" % (
                lanes, mode, s["per_s"], s["gpu_busy"], s["verdicts"], s["stages_ms"]), file=sys.stderr)
    print(json.dumps(doc, indent=1))
    o = doc["one_at_a_time"]
    print("program_bench: %d problems; one at a time: median %.2f s (%s)" % (len(names), o["median_s"] or 0,
                                                                            o["verdicts"]), file=sys.stderr)
    print("%-6s %-12s %6s %8s %8s %9s  %s" % ("lanes", "mode", "jobs", "wall_s", "per_s", "gpu_busy", "verdicts"),
          file=sys.stderr)
    for s in series:
        print("%-6d %-12s %6d %8.2f %8.2f %9s  %s" % (s["lanes"], s["mode"], s["jobs"], s["wall_s"], s["per_s"],
                                                     s["gpu_busy"], s["verdicts"]), file=sys.stderr)


if __name__ == "__main__":
    main()

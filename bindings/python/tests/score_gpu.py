"""Scores vector_add_f32's candidates on a GPU through the Python binding.
Exits 77 (skipped, for CTest) when there is no CUDA device."""
import concurrent.futures
import os
import pathlib
import sys
import threading
import time

import kbench

SOURCE_DIR = pathlib.Path(os.environ.get("KBENCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
TASK_DIR = SOURCE_DIR / "tasks" / "elementwise" / "vector_add_f32"


def main():
    if kbench.device_count() == 0:
        print("no CUDA device: skipped")
        return 77
    failures = 0
    with kbench.Context() as ctx, kbench.Task(TASK_DIR / "task.json") as task:
        for name, expected in [("correct.cu", "pass"), ("wrong.cu", "wrong_answer")]:
            with ctx.score(task, path=TASK_DIR / "candidates" / name) as result:
                doc = result.json()
                print(f"{name}: {result.verdict}: {result.message}")
                if result.verdict != expected or doc["verdict"] != expected:
                    print(f"  expected {expected}")
                    failures += 1
                if expected == "pass" and not result.number("/speedup") > 0:
                    print("  no positive /speedup in the result")
                    failures += 1
        failures += check_batch(ctx, task)
    failures += check_contained_faults()
    failures += check_threads_overlap()
    return 1 if failures else 0


def variant(i, op="+"):
    """A distinct vector add (distinct sources miss the compile cache)."""
    return (f"// variant {i}\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {{\n"
            f"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] {op} b[i];\n}}\n")


def check_batch(ctx, task):
    """kbench.Batch with futures: every candidate gets its verdict."""
    failures = 0
    expected = {i: ("wrong_answer" if i % 5 == 4 else "pass") for i in range(20)}
    t0 = time.perf_counter()
    with ctx.batch() as batch:
        futures = {batch.submit_future(task, variant(i, "-" if expected[i] != "pass" else "+"), skip_timing=True): i
                   for i in expected}
        for fut in concurrent.futures.as_completed(futures, timeout=300):
            i = futures[fut]
            verdict = fut.result().verdict
            if verdict != expected[i]:
                print(f"batch job {i}: {verdict}, expected {expected[i]}")
                failures += 1
    rate = len(expected) / (time.perf_counter() - t0)
    print(f"batch: {len(expected)} correctness-only verdicts through futures, {rate:.1f} per second")
    return failures


def worker_pid(doc):
    """The pid of the worker that ran a score's last case."""
    return ((doc.get("cases") or [{}])[-1].get("worker") or {}).get("pid")


FAR_WRITE = ("__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n"
             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "    if (i < n) c[i + (size_t(1) << 40)] = a[i] + b[i];\n}\n")


def check_contained_faults():
    """Context(contain_traps=True) (KB_CONTEXT_CONTAIN_TRAPS) and the default
    Context() (correctness-only builds contained): a write far outside every
    buffer is a runtime_error found by the kernel's checked build, and the
    worker keeps its context (no replacement). With contain_traps=False it
    costs the worker."""
    failures = 0
    for contain in (True, None):
        failures += check_contained_far_write(contain)
    with kbench.Context(contain_traps=False) as ctx, kbench.Task(TASK_DIR / "task.json") as task:
        with ctx.score(task, FAR_WRITE, skip_timing=True) as r:
            doc = r.json()
            case = (doc.get("cases") or [{}])[-1]
            print(f"plain far write: {r.verdict}: {r.message[:160]}")
            if r.verdict != "runtime_error" or not case.get("context_lost") or doc["compile"].get("checked_only"):
                print("  expected a runtime_error that lost the worker's context, from a plain build")
                failures += 1
    return failures


def check_contained_far_write(contain):
    failures = 0
    with kbench.Context(contain_traps=contain) as ctx, kbench.Task(TASK_DIR / "task.json") as task:
        print(f"contain_traps={contain}: containment {ctx.info['containment']}")
        with ctx.score(task, variant(2000 + (contain is None)), skip_timing=True) as r:
            first_pid = worker_pid(r.json())
            if r.verdict != "pass":
                print(f"contained: a correct kernel got {r.verdict}: {r.message}")
                failures += 1
        with ctx.score(task, FAR_WRITE, skip_timing=True) as r:
            doc = r.json()
            print(f"contained far write: {r.verdict}: {r.message[:160]}")
            if r.verdict != "runtime_error" or "checked build" not in r.message or not doc["compile"].get("checked_only"):
                print("  expected a runtime_error found by the checked build")
                failures += 1
            case = (doc.get("cases") or [{}])[-1]
            if first_pid is None or worker_pid(doc) != first_pid or case.get("context_lost"):
                print(f"  the worker did not keep its context: {first_pid} then {case.get('worker')}")
                failures += 1
    return failures


def check_threads_overlap():
    """The binding releases the GIL: two threads, each with its own context,
    score N candidates faster than one thread scores them alone."""
    n = 24
    sources = [variant(1000 + i) for i in range(2 * n)]
    ctxs = [kbench.Context(), kbench.Context()]
    tasks = [kbench.Task(TASK_DIR / "task.json") for _ in ctxs]
    try:
        for ctx, task in zip(ctxs, tasks):  # warm: reference compiled and run
            ctx.score(task, variant(999), skip_timing=True).close()

        def run(k, chunk):
            for src in chunk:
                with ctxs[k].score(tasks[k], src, skip_timing=True) as r:
                    assert r.verdict == "pass", r.message

        t0 = time.perf_counter()
        run(0, sources[:n])
        one = time.perf_counter() - t0
        t0 = time.perf_counter()
        threads = [threading.Thread(target=run, args=(k, sources[n + k * (n // 2):n + (k + 1) * (n // 2)]))
                   for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        two = time.perf_counter() - t0
    finally:
        for t in tasks:
            t.close()
        for c in ctxs:
            c.close()
    print(f"threads: {n} correctness-only scores in {one * 1000:.0f} ms on one thread, "
          f"{two * 1000:.0f} ms on two ({one / two:.2f}x)")
    if one / two < 1.2:
        print("  two threads were not faster than one: is the GIL held during kb_score?")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Timing fidelity: kbench's median against triton.testing.do_bench's on the
very same cubin, in one process, on the perf case of a task.

For each (task, kernel): kbench times the kernel with kb_time (cold: L2
flushed before every sample) several times; then CuPy loads the cubin that
kbench compiled, launches it with the same grid, block and argument sizes on
buffers of the perf case's shapes, and do_bench (median mode, its own L2
flush) times it. Reports both medians, their ratio, and the run-to-run
spread of kbench's median. Prints one JSON document.

usage: python3 bench/timing_fidelity.py BUILD_DIR [REPEATS]
"""
import json
import math
import os
import sys
import tempfile

import cupy as cp
import torch
import triton.testing

sys.path.insert(0, os.path.dirname(__file__))
from kbench_ctypes import KBench, find_library  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DTYPES = {"f32": cp.float32, "f16": cp.float16, "f64": cp.float64, "i32": cp.int32, "i64": cp.int64}
SCALARS = {"i32": cp.int32, "i64": cp.int64, "f32": cp.float32}


def evaluate(expr, dims):
    if isinstance(expr, (int, float)):
        return int(expr)
    env = dict(dims)
    env.update({"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max})
    return int(eval(str(expr).replace("/", "//"), {"__builtins__": {}}, env))


def do_bench_same_cubin(kb, task_json, kernel, dims, reps):
    info = kb.kernel_info(kernel)
    steps = info["plan"]["launch"]
    assert len(steps) == 1, "only single-kernel plans are compared"
    step = steps[0]
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(kb.kernel_image(kernel))
        path = f.name
    module = cp.RawModule(path=path)
    fn = module.get_function(info["symbols"][step["kernel"]])
    args_by_name = {a["name"]: a for a in task_json["args"]}
    values = []
    for name in step["args"]:
        a = args_by_name[name]
        if a["role"] == "scalar":
            values.append(SCALARS[a["dtype"]](evaluate(a["value"], dims)))
        else:
            shape = [evaluate(s, dims) for s in a["shape"]]
            values.append(cp.random.uniform(-1, 1, size=math.prod(shape) or 1).astype(DTYPES[a["dtype"]]))
    grid = tuple(evaluate(g, dims) for g in step["grid"])
    block = tuple(evaluate(b, dims) for b in step["block"])
    smem = evaluate(step.get("shared_mem", 0), dims)

    def launch():
        fn(grid, block, tuple(values), shared_mem=smem)

    launch()
    torch.cuda.synchronize()
    medians = [triton.testing.do_bench(launch, warmup=25, rep=200, return_mode="median") * 1000.0 for _ in range(reps)]
    os.unlink(path)
    return medians


def main():
    build = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    kb = KBench(find_library(build))
    rows = []
    # gemm_f32's baseline is cuBLAS now (no cubin of kbench's to hand to do_bench):
    # its former register-tiled baseline, an example solution, takes its place.
    for task_dir, which in (("elementwise/copy_f32", "candidates/correct.cu"), ("gemm/gemm_f32", "reference"),
                           ("gemm/gemm_f32", "examples/solutions/gemm/gemm_f32_register_tiled.json")):
        task_name = task_dir.split("/")[-1]
        task_path = os.path.join(ROOT, "tasks", task_dir, "task.json")
        task_json = json.load(open(task_path))
        task = kb.load_task(task_path)
        if which == "reference":
            kernel = kb.compile_task_program(task, 0)
        elif which == "baseline":
            kernel = kb.compile_task_program(task, 1)
        elif which.startswith("examples/"):
            kernel = kb.compile_file(task, os.path.join(ROOT, which))
        else:
            kernel = kb.compile_file(task, os.path.join(ROOT, "tasks", task_dir, which))
        dims = task_json["perf_case"]["dims"]
        # kb_time with kernel=NULL times the baseline; give the kernel itself here.
        kb_medians = []
        for _ in range(reps):
            r = kb.time(task, kernel)
            side = r.get("candidate") or r.get("baseline")
            kb_medians.append(side["median_us"])
        db = do_bench_same_cubin(kb, task_json, kernel, dims, reps)
        kb_med = sorted(kb_medians)[len(kb_medians) // 2]
        db_med = sorted(db)[len(db) // 2]
        rows.append({
            "task": task_name, "kernel": which,
            "kbench_median_us": kb_med, "kbench_runs_us": kb_medians,
            "kbench_run_spread": (max(kb_medians) - min(kb_medians)) / kb_med,
            "do_bench_median_us": db_med, "do_bench_runs_us": db,
            "kbench_over_do_bench": kb_med / db_med,
        })
    print(json.dumps({"device": kb.context_info()["device"]["name"], "repeats": reps, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()

"""What each step of a program candidate's run costs on the GPU at
KernelBench's sizes: the steps the Python worker
(python/kbench_programs/kbench_program_worker.py) takes around a call, one
at a time, on one input of --gib GiB (19_ReLU's is 6 GiB), with the median
of --reps repetitions in milliseconds.

  rand         torch.rand of the input on the device (strict's inputs)
  clone        a copy of the input (a run's own inputs)
  checksum     the native GPU checksum (kbench_gpu_checksum), else torch's
  relu         the call itself: a ReLU over the input
  empty_cache  torch.cuda.empty_cache() then an allocation of the input's
               size (what poison_free_memory's emptying costs the next run)
  fill         a fill of the input's size (the poison)
  alloc_cached an allocation of the input's size served from the cache
  sync         a device synchronisation with nothing queued

usage: python3 bench/kernelbench/worker_costs.py [--gib 6] [--reps 5] [--build DIR]
Prints one JSON object.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python", "kbench_programs"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=6.0)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    a = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        sys.exit("worker_costs: needs a CUDA device")
    import kbench_problem as kp
    import kbench_gpu_share as kg
    comparer = kg.GpuComparer(os.path.join(a.build, "libkbench_gpu_compare.so"))
    native = "native" if comparer.available else "torch (%s)" % comparer.why
    if comparer.available:
        kp.use_gpu_checksum(comparer.checksum)
    n = int(a.gib * (1 << 30)) // 4
    x = torch.rand(n, device="cuda")
    torch.cuda.synchronize()

    def timed(f):
        out = []
        for _ in range(a.reps):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            f()
            torch.cuda.synchronize()
            out.append((time.perf_counter() - t0) * 1e3)
        return round(statistics.median(out), 3)

    held = []

    def rand():
        held.append(torch.rand(n, device="cuda"))
        held.clear()

    def clone():
        held.append(x.clone())
        held.clear()

    def empty_then_alloc():
        torch.cuda.empty_cache()
        held.append(torch.empty(n, device="cuda"))
        held.clear()

    def alloc_cached():
        held.append(torch.empty(n, device="cuda"))
        held.clear()

    y = torch.empty_like(x)
    doc = {"device": torch.cuda.get_device_name(), "gib": a.gib, "reps": a.reps, "checksum_kind": native,
           "ms": {"rand": timed(rand), "clone": timed(clone), "checksum": timed(lambda: kp.checksum(x)),
                  "relu": timed(lambda: torch.relu(x)), "empty_cache": timed(empty_then_alloc),
                  "fill": timed(lambda: y.fill_(1.0)), "alloc_cached": timed(alloc_cached),
                  "sync": timed(lambda: None)}}
    print(json.dumps(doc))


if __name__ == "__main__":
    main()

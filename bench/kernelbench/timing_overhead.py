#!/usr/bin/env python3
"""Where a strict-protocol timing sample's time goes (issue 10): CUDA-event
times of one torch call under the conditions the Python worker's timing
loop adds one at a time (kbench_program_worker.program_time): an L2 flush
fill before each sample, a fresh copy of the inputs per call, CUPTI's
activity tracing started in the process, and the driver's
cuCtxSynchronize instead of torch's synchronize.

    python3 bench/kernelbench/timing_overhead.py [--rows 2048 --cols 16384] [--cupti build/libkbench_cupti.so]

Prints one line per setting: median event time (ms) over --trials samples.
"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "kbench_programs"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2048)
    ap.add_argument("--cols", type=int, default=16384)
    ap.add_argument("--trials", type=int, default=50)
    ap.add_argument("--cupti", default="")
    a = ap.parse_args()
    import torch
    import kbench_attribution as ka
    dev = "cuda:0"
    x = torch.randn(a.rows, a.cols, device=dev)
    flush = torch.empty((256 << 20) // 8, dtype=torch.int64, device=dev)
    libcuda = ka.load_libcuda()

    def sync():
        libcuda.cuCtxSynchronize()

    cupti = [None]

    def run(label, do_flush, clone, op=torch.relu, take=False):
        for _ in range(3):
            op(x)
        sync()
        times = []
        for _ in range(a.trials):
            args = x.clone() if clone else x
            sync()
            if do_flush:
                flush.fill_(42)
                sync()
            if take:
                cupti[0].take()
                cupti[0].now()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            op(args)
            e.record()
            sync()
            times.append(s.elapsed_time(e))
        print("%-44s median %.4f ms  min %.4f" % (label, statistics.median(times), min(times)), flush=True)

    print("torch.relu on %dx%d f32 (%.0f MB in)" % (a.rows, a.cols, x.numel() * 4 / 1e6))
    run("plain", False, False)
    run("flush before each sample", True, False)
    run("flush + clone per call", True, True)
    if a.cupti:
        c = ka.Cupti(a.cupti)
        print("cupti:", c.available, c.why)
        run("flush + clone + CUPTI started", True, True)
        cupti[0] = c
        run("... + CUPTI records taken before each sample", True, True, take=True)
        model = torch.nn.ReLU()
        run("... + through an nn.Module", True, True, op=model, take=True)
        with torch.no_grad():
            run("... + under no_grad", True, True, op=model, take=True)


if __name__ == "__main__":
    main()

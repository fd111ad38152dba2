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
  poison       the worker's poison_free_memory before a run whose one output
               has the input's size, with the host's plan for it (poison_plan
               in src/engine/program_backend.cpp): what a candidate's run pays
  compare_ipc  the reference worker's comparison of an output of the input's
               size held by another process: the IPC mapping opened, the C
               core's comparator over both, the mapping closed (every
               element matches, as for a passing candidate)
  ipc_map      the opening and closing of that mapping alone
  ipc_checksum the mapping opened, one native checksum over the other
               process's output through it (its first reads), closed
  ipc_checksum_again
               a second checksum through a mapping still open: against
               ipc_checksum, what a mapping's first reads cost
  compare_u32  compare_ipc with the output read as u32 (the comparator's
               bit check: no floating-point rule, no division)

usage: python3 bench/kernelbench/worker_costs.py [--gib 6] [--reps 5] [--build DIR]
Prints one JSON object.
"""
import argparse
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python", "kbench_programs"))


# A candidate worker's side of compare_ipc: its output made from seed 0 and
# exported by IPC handle (kbench_gpu_share.export_ipc), kept until stdin ends.
EXPORTER = r"""
import ctypes, json, sys
import torch
import kbench_gpu_share as kg
torch.manual_seed(0)
out = torch.rand(int(sys.argv[1]), device="cuda")
torch.cuda.synchronize()
print(json.dumps(kg.export_ipc(ctypes.CDLL("libcuda.so.1"), out)), flush=True)
sys.stdin.read()
"""


def compare_ipc(torch, comparer, n, timed):
    """The median ms of the reference worker's comparison against another
    process's output of n f32 elements (kbench_gpu_share.GpuComparer), and
    of the steps inside it apart: the IPC mapping alone (the driver's
    calls), reads through a new and through an open mapping, and the
    comparator without its floating-point rule."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python", "kbench_programs"))
    child = subprocess.Popen([sys.executable, "-c", EXPORTER, str(n)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, env=env, text=True)
    try:
        shared = json.loads(child.stdout.readline())
        torch.manual_seed(0)
        expected = torch.rand(n, device="cuda")
        torch.cuda.synchronize()
        stats = {}

        def compare():
            stats.update(comparer.compare(0, shared["handle"], shared["offset"], expected, "f32", 1e-5, 1e-5, True))
        ms = {"compare_ipc": timed(compare)}
        if stats.get("mismatches"):
            sys.exit("worker_costs: the two processes' outputs differ (%s)" % stats)
        ms["compare_u32"] = timed(lambda: comparer.compare(0, shared["handle"], shared["offset"], expected, "u32",
                                                           0.0, 0.0, True))
        libcuda = ctypes.CDLL("libcuda.so.1")

        class IpcHandle(ctypes.Structure):  # CUipcMemHandle, passed by value
            _fields_ = [("reserved", ctypes.c_ubyte * 64)]
        handle = IpcHandle.from_buffer_copy(bytes.fromhex(shared["handle"]))

        def ipc_map(checksums=0):
            ptr = ctypes.c_uint64(0)
            # CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, as kbench_gpu_compare.cpp opens it
            if libcuda.cuIpcOpenMemHandle_v2(ctypes.byref(ptr), handle, ctypes.c_uint(1)) != 0:
                sys.exit("worker_costs: cuIpcOpenMemHandle failed")
            for _ in range(checksums):
                comparer.checksum(0, ptr.value + shared["offset"], n * 4)
            libcuda.cuIpcCloseMemHandle(ctypes.c_uint64(ptr.value))
        ms["ipc_map"] = timed(ipc_map)
        ms["ipc_checksum"] = timed(lambda: ipc_map(1))
        ms["ipc_checksum_again"] = round(timed(lambda: ipc_map(2)) - ms["ipc_checksum"], 3)
        return ms
    finally:
        child.stdin.close()
        child.wait(timeout=60)


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
    nbytes = n * 4

    def poison():
        import kbench_program_worker as kw
        # The worker's own method, on a stand-in for the worker's state: the
        # plan the host sends for one f32 output of nbytes (poison_plan in
        # src/engine/program_backend.cpp).
        kw.Worker.poison_free_memory(types.SimpleNamespace(torch=torch, device="cuda"), "f32",
                                     max(nbytes + min(nbytes, 1 << 30), 16 << 20), [nbytes])

    ms = {"rand": timed(rand), "clone": timed(clone), "checksum": timed(lambda: kp.checksum(x)),
          "relu": timed(lambda: torch.relu(x)), "empty_cache": timed(empty_then_alloc),
          "fill": timed(lambda: y.fill_(1.0)), "alloc_cached": timed(alloc_cached),
          "sync": timed(lambda: None), "poison": timed(poison)}
    if comparer.available:
        ms.update(compare_ipc(torch, comparer, n, timed))
    doc = {"device": torch.cuda.get_device_name(), "gib": a.gib, "reps": a.reps, "checksum_kind": native,
           "ms": ms}
    print(json.dumps(doc))


if __name__ == "__main__":
    main()

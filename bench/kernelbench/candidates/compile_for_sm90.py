#!/usr/bin/env python3
"""Compiles every Triton kernel of the candidates in this folder for the H100 (sm_90), on a machine
without a GPU, at the problems' own (faithful) sizes and at the small cases check_on_cpu.py uses.

check_on_cpu.py runs the kernels under Triton's interpreter, which never compiles them: errors that
only the compiler sees (a loop-carried value that changes type, an op the NVIDIA backend lacks, a
tile that needs more shared memory than an SM has) pass there. Here each candidate's forward runs
on meta tensors (shapes and strides, no data: the faithful 6 GB inputs cost nothing) with Triton's
active driver replaced by one that names an sm_90 target, and every launch is turned into a
compile-only warmup: Triton specialises, lowers to PTX and runs the bundled ptxas, exactly as on
the H100, but launches nothing. The kernels' outputs are therefore never computed; values are
check_on_cpu.py's job.

For each kernel it prints the warps, shared memory, registers and spill bytes (cuobjdump
--dump-resource-usage on the cubin). It fails a candidate whose kernel does not compile, needs more
shared memory than an H100 SM offers, or spills registers at the faithful sizes (where kbench
times it; a spill at a small odd size is reported).

    python compile_for_sm90.py                   # every candidate, faithful and small sizes
    python compile_for_sm90.py --faithful-only 23_Softmax
Exits 1 when any candidate fails.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import traceback

os.environ.pop("TRITON_INTERPRET", None)  # the interpreter would never compile
# Triton 3.9 warns that its FMA-fusion default will change; 1 is what Triton 3.6 on the H100 does.
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import torch  # noqa: E402
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.runtime import jit as triton_jit  # noqa: E402
from triton.runtime.driver import driver  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kb_problem_files import (DEFAULT_MIRROR, candidate_paths, dim_value, module_from_source,  # noqa: E402
                              problem_source, read_header, roomier, set_dims, size_cases,
                              size_dims)

H100 = GPUTarget("cuda", 90, 32)
# An H100 SM offers 227 KiB of shared memory to one block (cudaDevAttrMaxSharedMemoryPerBlockOptin).
H100_MAX_SHARED = 232448
CUOBJDUMP = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")


class CompileOnlyDriver:
    """What JITFunction.run asks the driver for before compiling: a device, a stream, a target."""

    def get_current_device(self):
        return 0

    def get_current_stream(self, device=None):
        return 0

    def get_current_target(self):
        return H100

    def get_active_torch_device(self):
        return torch.device("meta")


class CompileRecorder:
    """Replaces JITFunction.run so that every launch compiles (warmup=True) and is recorded."""

    def __init__(self):
        self.kernels = {}  # (name, specialisation-independent key) -> resource line
        self._original = triton_jit.JITFunction.run

    def __enter__(self):
        original, kernels = self._original, self.kernels

        def compile_only(jit_fn, *args, grid, warmup, **kwargs):
            compiled = original(jit_fn, *args, grid=grid, warmup=True, **kwargs)
            key = (jit_fn.__name__, compiled.hash)
            if key not in kernels:
                kernels[key] = resource_usage(jit_fn.__name__, compiled)
            return compiled

        triton_jit.JITFunction.run = compile_only
        return self

    def __exit__(self, *exc):
        triton_jit.JITFunction.run = self._original
        return False


def resource_usage(name, compiled):
    """{name, warps, stages, shared, regs, spill_bytes} of a compiled kernel; regs and spills from
    cuobjdump's resource usage of its cubin (the metadata fills them only when a GPU loads it)."""
    info = {"name": name, "warps": compiled.metadata.num_warps, "stages": compiled.metadata.num_stages,
            "shared": compiled.metadata.shared, "regs": None, "spill_bytes": None}
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(compiled.asm["cubin"])
        f.flush()
        out = subprocess.run([CUOBJDUMP, "--dump-resource-usage", f.name], capture_output=True, text=True).stdout
    regs = re.search(r"REG:(\d+)", out)
    stores = re.search(r"STACK:(\d+)", out)
    if regs:
        info["regs"] = int(regs.group(1))
    if stores:
        info["spill_bytes"] = int(stores.group(1))
    return info


def problem_rejects(problem_mod):
    """The reference's error at the current sizes, run on meta tensors (shape checks only), or None.
    An operator without a meta kernel says nothing about the sizes, so it counts as accepted."""
    with torch.device("meta"), torch.no_grad():
        try:
            problem_mod.Model(*problem_mod.get_init_inputs())(*problem_mod.get_inputs())
        except NotImplementedError:
            return None
        except Exception as e:
            return str(e).splitlines()[0][:100]
    return None


def compile_case(problem_mod, candidate_mod):
    """Runs get_inputs, the constructor and ModelNew.forward on meta tensors under the recorder."""
    with torch.device("meta"), torch.no_grad():
        inputs = problem_mod.get_inputs()
        init_inputs = problem_mod.get_init_inputs()
        model_new = candidate_mod.ModelNew(*init_inputs)
        model_new(*inputs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("only", nargs="*", help="candidate stems to compile (default: all)")
    ap.add_argument("--problems", help="folder holding the problem files (default: the KernelBench mirror)")
    ap.add_argument("--mirror", default=DEFAULT_MIRROR, help="KernelBench git mirror (default: %(default)s)")
    ap.add_argument("--faithful-only", action="store_true", help="only the problems' own sizes")
    args = ap.parse_args()

    # For the whole process: this machine has no GPU, so there is no real driver to go back to.
    driver.set_active(CompileOnlyDriver())
    failed = False
    print("%-40s %-22s %-34s %5s %6s %7s %5s %6s" % ("candidate", "case", "kernel", "warps", "stages", "shared",
                                                  "regs", "spill"))
    for path in candidate_paths(HERE, args.only):
        stem = os.path.basename(path)[:-3]
        problem, level = read_header(path)
        try:
            source = problem_source(problem, level, args.problems, args.mirror)
            problem_mod = module_from_source("kb_problem_" + stem, source, problem)
            with open(path, encoding="utf-8") as f:
                candidate_mod = module_from_source("kb_candidate_" + stem, f.read(), path)
        except Exception:
            print("%-40s load FAIL: %s" % (stem, traceback.format_exc(limit=2).strip().splitlines()[-1]))
            failed = True
            continue
        dims = size_dims(source, problem_mod)
        faithful = [dim_value(problem_mod, d) for d in dims]
        cases = [("faithful", dict(zip(dims, faithful)))]
        if not args.faithful_only:
            cases += size_cases(dims, faithful)
        seen = set()
        for case, values in cases:
            set_dims(problem_mod, values)
            if problem_rejects(problem_mod):
                # A constraint between sizes (check_on_cpu.py retries it the same way).
                values = roomier(values, dict(zip(dims, faithful)))
                set_dims(problem_mod, values)
                case += "+roomy"
                if problem_rejects(problem_mod):
                    continue
            recorder = CompileRecorder()
            try:
                with recorder:
                    compile_case(problem_mod, candidate_mod)
            except Exception as e:
                text = "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()
                print("%-40s %-22s FAIL: %s" % (stem, case, " | ".join(text)[-400:]))
                failed = True
                continue
            if not recorder.kernels:
                print("%-40s %-22s FAIL: no Triton kernel was launched" % (stem, case))
                failed = True
            for key, info in recorder.kernels.items():
                if key in seen:  # the same specialisation compiled for an earlier case
                    continue
                seen.add(key)
                problems, notes = [], []
                if info["shared"] > H100_MAX_SHARED:
                    problems.append("shared memory over %d" % H100_MAX_SHARED)
                if info["spill_bytes"]:
                    # Timed at the faithful sizes only: a spill there fails; at the odd correctness
                    # sizes (unaligned strides, no vector loads) it is reported.
                    (problems if case == "faithful" else notes).append("spills registers")
                failed |= bool(problems)
                verdict = ("FAIL: " + ", ".join(problems)) if problems else ", ".join(notes)
                print("%-40s %-22s %-34s %5d %6d %7d %5s %6s %s" % (
                    stem, case, info["name"][:34], info["warps"], info["stages"], info["shared"], info["regs"],
                    info["spill_bytes"], verdict), flush=True)
        set_dims(problem_mod, dict(zip(dims, faithful)))
    print("\n%s (target %s, triton %s)" % ("FAILED" if failed else "all compiled", H100, triton.__version__))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

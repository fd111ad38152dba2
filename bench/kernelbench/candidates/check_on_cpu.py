#!/usr/bin/env python3
"""Checks every Triton candidate in this folder against its KernelBench problem on the CPU.

The candidates' kernels run under Triton's interpreter (TRITON_INTERPRET=1, set here before
triton is imported), so no GPU is needed; the interpreter is slow, so every size constant the
problem's get_inputs() reads is overridden to small values (a few cases: kbench's shrunk primes
with smaller caps, distinct primes per dim, a batch of one, and each dim in turn past the
kernels' block sizes). Constants only the constructor reads (kernel_size, dim, ...) keep their
values, as kbench's import does.

For every case and seed the reference Model and ModelNew are built under torch.manual_seed(42)
(KernelBench's rule), their state_dicts must match in names, shapes and values, and their outputs
must match in structure, shape, dtype and value (torch.allclose, atol = rtol = 1e-4, the fp32
tolerance of KernelBench; integer outputs exactly). Seeds after the first also load the same
random parameters into both models, so a candidate that ignored its weights would fail. Each
seed runs three times: on get_inputs() as is, with floating inputs mapped x -> 2x - 1, since
torch.rand's inputs are all positive (ReLU on them is the identity), and with those rounded to
multiples of 1/8, so that ties decide argmax's and max's index. The aten operators the
candidate calls are recorded; one that computes (kbench's list, src/compare/program_judge.cpp)
fails the case, since TritonBench-style scoring forbids torch compute.

    python check_on_cpu.py                       # every candidate, problems from the mirror
    python check_on_cpu.py --problems DIR 19_ReLU 23_Softmax
Exits 1 when any case fails.
"""
import argparse
import os
import sys
import time
import traceback
import warnings

os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402  (after TRITON_INTERPRET on purpose)
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from kb_problem_files import (DEFAULT_MIRROR, candidate_paths, dim_value, module_from_source,  # noqa: E402
                              problem_source, read_header, roomier, set_dims, size_cases, size_dims)

ATOL = RTOL = 1e-4
# Inputs larger than this are skipped: the interpreter runs each program in numpy.
MAX_INPUT_ELEMENTS = 1 << 21
# The interpreter evaluates masked-off lanes too (softmax's -inf - -inf in padding lanes, which the
# kernels discard with tl.where); numpy's warnings about them are noise.
warnings.filterwarnings("ignore", category=RuntimeWarning, module="triton.runtime.interpreter")

# kbench's aten operators that do not compute (src/compare/program_judge.cpp, aten_op_computes).
NO_COMPUTE_OPS = {
    "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like", "new_zeros",
    "ones", "ones_like", "new_ones", "full", "full_like", "new_full", "fill_", "fill", "zero_", "zero", "arange",
    "scalar_tensor", "lift_fresh", "lift_fresh_copy", "resize_", "set_", "record_stream",
    "copy_", "copy", "clone", "contiguous", "_to_copy", "to", "_copy_from", "_copy_from_and_resize", "cat",
    "stack", "detach", "detach_", "alias", "_unsafe_view",
    "view", "view_as", "reshape", "_reshape_alias", "as_strided", "expand", "expand_as", "t", "transpose",
    "permute", "squeeze", "unsqueeze", "flatten", "unflatten", "select", "slice", "narrow", "split",
    "split_with_sizes", "chunk", "unbind", "movedim", "view_as_real", "view_as_complex", "unfold",
    "is_same_size", "size", "stride", "numel", "sym_size", "sym_stride", "sym_numel", "sym_storage_offset",
    "_local_scalar_dense", "item", "is_nonzero", "equal", "dim", "is_contiguous",
}


# ---------------------------------------------------------------------------
# Running one case

class OpRecorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = {}

    def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
        packet = getattr(func, "overloadpacket", None)
        name = packet.__name__ if packet is not None else str(func).split("::")[-1].split(".")[-1]
        self.ops[name] = self.ops.get(name, 0) + 1
        return func(*args, **(kwargs or {}))


def flatten_outputs(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


def signed(inputs):
    """x -> 2x - 1 for floating tensors: outputs of sign-sensitive ops become discriminating."""
    return [2 * x - 1 if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]


def coarse(inputs):
    """Floating tensors rounded down to multiples of 1/8: many equal values, so the tie rules of
    max, argmax and pooling indices (the first maximum wins) are exercised."""
    return [torch.floor(x * 8) / 8 if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]


def clone_inputs(inputs):
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def compare(ref, out):
    """(ok, worst error relative to the largest reference magnitude, message). The relative figure
    is reported because atol = 1e-4 alone says little about outputs far below 1 (x / ||x||)."""
    refs, outs = flatten_outputs(ref), flatten_outputs(out)
    if isinstance(ref, (tuple, list)) != isinstance(out, (tuple, list)) or len(refs) != len(outs):
        return False, None, "output structure differs: %s vs %s" % (type(ref).__name__, type(out).__name__)
    worst = 0.0
    for i, (r, o) in enumerate(zip(refs, outs)):
        if not isinstance(o, torch.Tensor):
            return False, None, "output %d is %s, not a tensor" % (i, type(o).__name__)
        if o.shape != r.shape:
            return False, None, "output %d shape %s, expected %s" % (i, tuple(o.shape), tuple(r.shape))
        if o.dtype != r.dtype:
            return False, None, "output %d dtype %s, expected %s" % (i, o.dtype, r.dtype)
        if r.is_floating_point():
            if r.numel():
                scale = max(r.double().abs().max().item(), 1e-30)
                worst = max(worst, (o.double() - r.double()).abs().max().item() / scale)
            if not torch.allclose(o, r, atol=ATOL, rtol=RTOL):
                bad = ~torch.isclose(o, r, atol=ATOL, rtol=RTOL)
                first = tuple(int(v) for v in bad.nonzero()[0]) if bad.any() else ()
                return False, worst, "output %d outside tolerance at %s: %r vs %r" % (
                    i, first, o[first].item() if first else o.item(), r[first].item() if first else r.item())
        elif not torch.equal(o, r):
            bad = o != r
            first = tuple(int(v) for v in bad.nonzero()[0])
            return False, None, "output %d differs at %s: %r vs %r" % (i, first, o[first].item(), r[first].item())
    return True, worst, ""


def build_models(problem_mod, candidate_mod, init_inputs):
    torch.manual_seed(42)
    model = problem_mod.Model(*init_inputs)
    torch.manual_seed(42)
    model_new = candidate_mod.ModelNew(*init_inputs)
    ref_state, new_state = model.state_dict(), model_new.state_dict()
    if list(ref_state) != list(new_state):
        raise AssertionError("state_dict names differ: %s vs %s" % (list(new_state), list(ref_state)))
    for k in ref_state:
        if ref_state[k].shape != new_state[k].shape or not torch.equal(ref_state[k], new_state[k]):
            raise AssertionError("parameter %s differs from the Model's under seed 42" % k)
    return model.eval(), model_new.eval()


def run_case(problem_mod, candidate_mod, values, seeds):
    """(status, detail, worst error, seconds); status is pass, FAIL, or skip."""
    set_dims(problem_mod, values)
    t0 = time.time()
    worst = 0.0
    for seed in seeds:
        init_inputs = problem_mod.get_init_inputs()
        try:
            model, model_new = build_models(problem_mod, candidate_mod, init_inputs)
        except AssertionError as e:
            return "FAIL", str(e), None, time.time() - t0
        if seed != seeds[0] and len(model.state_dict()):
            # The same random parameters in both, so weights that the candidate ignores show.
            torch.manual_seed(1000 + seed)
            randomized = {k: (torch.randn_like(v) if v.is_floating_point() else v)
                          for k, v in model.state_dict().items()}
            model.load_state_dict(randomized)
            model_new.load_state_dict(randomized)
        torch.manual_seed(seed)
        raw = problem_mod.get_inputs()
        size = sum(x.numel() for x in raw if isinstance(x, torch.Tensor))
        if size > MAX_INPUT_ELEMENTS:
            return "skip", "inputs hold %d elements (interpreter budget %d)" % (size, MAX_INPUT_ELEMENTS), None, 0.0
        for mode, inputs in (("raw", raw), ("signed", signed(raw)), ("coarse", coarse(signed(raw)))):
            try:
                with torch.no_grad():
                    ref = model(*clone_inputs(inputs))
            except Exception as e:  # a size the reference rejects: kbench's import drops such a case
                return "skip", "reference rejects these sizes: %s" % str(e).splitlines()[0][:100], None, 0.0
            given = clone_inputs(inputs)
            recorder = OpRecorder()
            try:
                with torch.no_grad(), recorder:
                    out = model_new(*given)
            except Exception:
                return "FAIL", "seed %d %s: %s" % (seed, mode, traceback.format_exc(limit=3)), None, time.time() - t0
            for a, b in zip(given, inputs):
                if isinstance(a, torch.Tensor) and not torch.equal(a, b):
                    return "FAIL", "seed %d %s: an input was modified" % (seed, mode), None, time.time() - t0
            computing = sorted(op for op in recorder.ops if op not in NO_COMPUTE_OPS)
            if computing:
                return "FAIL", "seed %d %s: torch compute ops %s" % (seed, mode, computing), None, time.time() - t0
            ok, err, msg = compare(ref, out)
            if err is not None:
                worst = max(worst, err)
            if not ok:
                return "FAIL", "seed %d %s: %s" % (seed, mode, msg), worst, time.time() - t0
    return "pass", "", worst, time.time() - t0


# ---------------------------------------------------------------------------

def format_sizes(values):
    return ",".join("%s=%d" % (d[0] if d[1] is None else "%s[%d]" % d, v) for d, v in values.items())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("only", nargs="*", help="candidate stems to check (default: all)")
    ap.add_argument("--problems", help="folder holding the problem files (default: the KernelBench mirror)")
    ap.add_argument("--mirror", default=DEFAULT_MIRROR, help="KernelBench git mirror (default: %(default)s)")
    ap.add_argument("--seeds", type=int, default=2, help="input seeds per case (default: %(default)s)")
    ap.add_argument("--cases", help="comma-separated case names to run (default: all)")
    args = ap.parse_args()

    paths = candidate_paths(HERE, args.only)
    seeds = list(range(args.seeds))
    wanted_cases = set(args.cases.split(",")) if args.cases else None

    rows, failed = [], False
    for path in paths:
        stem = os.path.basename(path)[:-3]
        problem, level = read_header(path)
        try:
            if problem is None:
                raise ValueError("no '# problem:' header")
            source = problem_source(problem, level, args.problems, args.mirror)
            problem_mod = module_from_source("kb_problem_" + stem.replace(".", "_"), source, problem)
            with open(path, encoding="utf-8") as f:
                candidate_mod = module_from_source("kb_candidate_" + stem.replace(".", "_"), f.read(), path)
        except Exception:
            rows.append((stem, "load", "", "FAIL", traceback.format_exc(limit=2).strip().splitlines()[-1], None, 0))
            failed = True
            continue
        dims = size_dims(source, problem_mod)
        faithful = [dim_value(problem_mod, d) for d in dims]
        for case, values in size_cases(dims, faithful):
            if wanted_cases and case not in wanted_cases:
                continue
            status, detail, worst, secs = run_case(problem_mod, candidate_mod, values, seeds)
            if status == "skip" and detail.startswith("reference rejects"):
                # A constraint between sizes (a pooling window longer than the input): once more
                # with every dim at least ROOMY, as a case of its own.
                roomy = roomier(values, dict(zip(dims, faithful)))
                if roomy != values:
                    rows.append((stem, case, format_sizes(values), status, detail, worst, secs))
                    print("%-40s %-18s %-6s %s" % (stem, case, status, detail), flush=True)
                    case, values = case + "+roomy", roomy
                    status, detail, worst, secs = run_case(problem_mod, candidate_mod, values, seeds)
            failed |= status == "FAIL"
            sizes = format_sizes(values)
            rows.append((stem, case, sizes, status, detail, worst, secs))
            print("%-40s %-18s %-6s %s" % (stem, case, status, sizes if status != "FAIL" else detail.strip()),
                  flush=True)
        set_dims(problem_mod, dict(zip(dims, faithful)))

    print()
    print("%-40s %-18s %-6s %-10s %7s  %s" % ("candidate", "case", "result", "rel.err", "secs", "sizes / detail"))
    for stem, case, sizes, status, detail, worst, secs in rows:
        err = "%.2e" % worst if worst is not None else "-"
        text = sizes if status == "pass" else ("%s  (%s)" % (detail.strip().splitlines()[-1] if detail else "", sizes))
        print("%-40s %-18s %-6s %-10s %7.1f  %s" % (stem, case, status, err, secs, text))
    n_pass = sum(r[3] == "pass" for r in rows)
    n_fail = sum(r[3] == "FAIL" for r in rows)
    n_skip = sum(r[3] == "skip" for r in rows)
    print("\n%d passed, %d failed, %d skipped (seeds %s, inputs raw, 2x-1 and 2x-1 in steps of 1/8, atol=rtol=%g, TRITON_INTERPRET=%s)"
          % (n_pass, n_fail, n_skip, seeds, ATOL, os.environ.get("TRITON_INTERPRET")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""`kbench run` over raw model answers to KernelBench-style problems, on a GPU
(CTest label gpu; exits 77 without a device or without torch for
$KBENCH_PYTHON): Python programs (ModelNew) and plain kernels (CUDA, and
Triton with its launch comment) against the PyTorch references of
tests/programs/tasks/, each answer wrapped in prose as a model writes it,
with the verdict each must get."""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

CLI = os.environ.get("KBENCH_CLI", "kbench")
HERE = pathlib.Path(__file__).resolve().parent

RELU_TRITON_PROGRAM = '''import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
'''

RETURNS_INPUT = '''import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x.clone()
'''


def answer(code, lang):
    return ("Here is an optimized implementation. It fuses the work into one kernel.\n\n```%s\n%s```\n\n"
            "This should be faster than the PyTorch version.<|im_end|>" % (lang, code))


def main():
    info = subprocess.run([CLI, "info", "--json"], capture_output=True, text=True)
    if json.loads(info.stdout).get("no_device_reason"):
        print("skipped: no CUDA device")
        return 77
    py = os.environ.get("KBENCH_PYTHON", "python3")
    if subprocess.run([py, "-c", "import torch, triton"], capture_output=True).returncode != 0:
        print("skipped: %s has no torch and triton" % py)
        return 77
    kernels = HERE / "kernels"
    lines = [
        ("relu_gpu", "program_pass", answer(RELU_TRITON_PROGRAM, "python"), "pass"),
        ("relu_gpu", "program_returns_input", answer(RETURNS_INPUT, "python"), "wrong_answer"),
        ("relu_kernel", "cuda_kernel_pass", answer((kernels / "relu_correct.cu").read_text(), "cuda"), "pass"),
        ("relu_kernel", "cuda_kernel_copies", answer((kernels / "relu_copies_input.cu").read_text(), "cuda"),
         "wrong_answer"),
        ("relu_kernel", "triton_kernel_pass", answer((kernels / "relu_triton.py").read_text(), "python"), "pass"),
        ("softmax_gpu", "softmax_program_pass",
         answer((HERE / "adversarial" / "correct_triton_softmax.py").read_text(), "python"), "pass"),
    ]
    with tempfile.TemporaryDirectory() as d:
        cands = pathlib.Path(d) / "answers.jsonl"
        cands.write_text("".join(json.dumps({"task": t, "id": i, "answer": a}) + "\n" for t, i, a, _ in lines))
        out = pathlib.Path(d) / "results.jsonl"
        p = subprocess.run([CLI, "run", "--tasks", str(HERE / "tasks"), "--candidates", str(cands), "--out", str(out)],
                           capture_output=True, text=True, timeout=1200)
        print(p.stdout[-4000:], p.stderr[-4000:])
        got = {}
        for line in out.read_text().splitlines():
            r = json.loads(line)
            got[r["id"]] = r
        bad = 0
        for t, i, _, want in lines:
            r = got.get(i)
            verdict = r["verdict"] if r else "missing"
            ok = verdict == want
            bad += not ok
            print("%-6s %-24s %-12s want %-12s %s" % ("ok" if ok else "FAILED", i, verdict, want,
                                                      (r or {}).get("message", "")[:160]))
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

# An operator in TritonBench-G's format, written for kbench's benchmarks.
import torch
import triton
import triton.language as tl


@triton.jit
def swiglu_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # out = silu(a) * b, one block of elements per program.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs, mask=mask, other=0.0)
    y = a * tl.sigmoid(a) * b
    tl.store(out_ptr + offs, y, mask=mask)


def swiglu(a, b):
    a = a.contiguous()
    b = b.contiguous()
    out = torch.empty_like(a)
    n = out.numel()
    BLOCK = 1024
    swiglu_kernel[(triton.cdiv(n, BLOCK),)](a, b, out, n, BLOCK=BLOCK)
    return out


##################################################################################################################################################


import torch


def test_swiglu():
    results = {}
    a = torch.randn(1000, device='cuda')
    b = torch.randn(1000, device='cuda')
    results['test_case_1'] = swiglu(a, b)
    results['test_case_2'] = swiglu(a[:17], b[:17])
    a2 = torch.randn(256, 1536, device='cuda')
    b2 = torch.randn(256, 1536, device='cuda')
    results['test_case_3'] = swiglu(a2, b2)
    return results


result_gold = test_swiglu()

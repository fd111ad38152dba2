# An operator in TritonBench-G's format, written for kbench's benchmarks.
import torch
import triton
import triton.language as tl


@triton.jit
def gelu_tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # GELU with the tanh approximation, one block of elements per program.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    # tanh(u) = 2 * sigmoid(2u) - 1
    t = 2.0 * tl.sigmoid(2.0 * inner) - 1.0
    y = 0.5 * x * (1.0 + t)
    tl.store(out_ptr + offs, y, mask=mask)


def gelu_tanh(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    BLOCK = 1024
    gelu_tanh_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


##################################################################################################################################################


import torch


def test_gelu_tanh():
    results = {}
    x = torch.randn(1000, device='cuda')
    results['test_case_1'] = gelu_tanh(x)
    results['test_case_2'] = gelu_tanh(x[:17] * 4.0)
    y = torch.randn(384, 1000, device='cuda')
    results['test_case_3'] = gelu_tanh(y)
    return results


result_gold = test_gelu_tanh()

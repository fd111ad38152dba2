# An operator in TritonBench-G's format, written for kbench's benchmarks.
import torch
import triton
import triton.language as tl


@triton.jit
def leaky_relu_kernel(x_ptr, out_ptr, n, slope, BLOCK: tl.constexpr):
    # Each program handles one contiguous block; negatives are scaled by slope.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.where(x >= 0, x, x * slope)
    tl.store(out_ptr + offs, y, mask=mask)


def leaky_relu(x, slope=0.01):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    BLOCK = 1024
    leaky_relu_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, slope, BLOCK=BLOCK)
    return out


##################################################################################################################################################


import torch


def test_leaky_relu():
    results = {}
    x = torch.randn(1000, device='cuda')
    results['test_case_1'] = leaky_relu(x)
    results['test_case_2'] = leaky_relu(x[:17], 0.2)
    y = torch.randn(512, 777, device='cuda')
    results['test_case_3'] = leaky_relu(y, 0.1)
    return results


result_gold = test_leaky_relu()

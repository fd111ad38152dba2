# An operator in TritonBench-G's format, written for kbench's benchmarks.
import torch
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    # Each program handles one contiguous block of elements.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


def relu(x):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = out.numel()
    BLOCK = 1024
    relu_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, BLOCK=BLOCK)
    return out


##################################################################################################################################################


import torch


def test_relu():
    results = {}
    x = torch.randn(1000, device='cuda')
    results['test_case_1'] = relu(x)
    results['test_case_2'] = relu(x[:17])
    y = torch.randn(256, 1023, device='cuda')
    results['test_case_3'] = relu(y)
    return results


result_gold = test_relu()

# An operator in TritonBench-G's format, written for kbench's benchmarks.
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_rows_kernel(x_ptr, out_ptr, n_cols, x_stride, out_stride, BLOCK: tl.constexpr):
    # One program per row; the whole row fits in one block.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float('inf'))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    e = tl.where(mask, e, 0.0)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


def softmax_rows(x):
    # Softmax over the last dimension of a 2D tensor.
    x = x.contiguous()
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(n_cols)
    softmax_rows_kernel[(n_rows,)](x, out, n_cols, x.stride(0), out.stride(0), BLOCK=BLOCK)
    return out


##################################################################################################################################################


import torch


def test_softmax_rows():
    results = {}
    x = torch.randn(128, 1000, device='cuda')
    results['test_case_1'] = softmax_rows(x)
    y = torch.randn(37, 17, device='cuda')
    results['test_case_2'] = softmax_rows(y)
    z = torch.randn(64, 2048, device='cuda')
    results['test_case_3'] = softmax_rows(z)
    return results


result_gold = test_softmax_rows()

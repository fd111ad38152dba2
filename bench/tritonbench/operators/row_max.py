# An operator in TritonBench-G's format, written for kbench's benchmarks.
import torch
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_cols, x_stride, BLOCK: tl.constexpr):
    # One program per row; masked lanes read -inf so they never win.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=-float('inf'))
    tl.store(out_ptr + row, tl.max(x, axis=0))


def row_max(x):
    # Maximum over the last dimension of a 2D tensor.
    x = x.contiguous()
    n_rows, n_cols = x.shape
    out = torch.empty(n_rows, device=x.device, dtype=x.dtype)
    BLOCK = triton.next_power_of_2(n_cols)
    row_max_kernel[(n_rows,)](x, out, n_cols, x.stride(0), BLOCK=BLOCK)
    return out


##################################################################################################################################################


import torch


def test_row_max():
    results = {}
    x = torch.randn(256, 1000, device='cuda')
    results['test_case_1'] = row_max(x)
    y = torch.randn(17, 17, device='cuda') - 10.0
    results['test_case_2'] = row_max(y)
    z = torch.randn(512, 2048, device='cuda')
    results['test_case_3'] = row_max(z)
    return results


result_gold = test_row_max()

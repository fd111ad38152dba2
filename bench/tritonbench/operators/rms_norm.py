# An operator in TritonBench-G's format, written for kbench's benchmarks.
import torch
import triton
import triton.language as tl


@triton.jit
def rms_norm_kernel(x_ptr, w_ptr, out_ptr, n_cols, x_stride, out_stride, eps, BLOCK: tl.constexpr):
    # One program per row: divides the row by its root mean square, then applies weight.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(ms + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * out_stride + cols, x * rstd * w, mask=mask)


def rms_norm(x, weight, eps=1e-6):
    # RMS normalization over the last dimension of a 2D tensor.
    x = x.contiguous()
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(n_cols)
    rms_norm_kernel[(n_rows,)](x, weight, out, n_cols, x.stride(0), out.stride(0), eps, BLOCK=BLOCK)
    return out


##################################################################################################################################################


import torch


def test_rms_norm():
    results = {}
    x = torch.randn(128, 1000, device='cuda')
    w = torch.randn(1000, device='cuda')
    results['test_case_1'] = rms_norm(x, w)
    y = torch.randn(29, 17, device='cuda')
    w2 = torch.randn(17, device='cuda')
    results['test_case_2'] = rms_norm(y, w2, 1e-5)
    z = torch.randn(64, 4096, device='cuda')
    w3 = torch.randn(4096, device='cuda')
    results['test_case_3'] = rms_norm(z, w3)
    return results


result_gold = test_rms_norm()

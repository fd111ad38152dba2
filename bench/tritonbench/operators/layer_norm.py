# An operator in TritonBench-G's format, written for kbench's benchmarks.
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, w_ptr, b_ptr, out_ptr, n_cols, x_stride, out_stride, eps, BLOCK: tl.constexpr):
    # One program per row: normalizes the row, then applies weight and bias.
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / n_cols
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / n_cols
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    y = diff * rstd * w + b
    tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


def layer_norm(x, weight, bias, eps=1e-5):
    # Layer normalization over the last dimension of a 2D tensor.
    x = x.contiguous()
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(n_cols)
    layer_norm_kernel[(n_rows,)](x, weight, bias, out, n_cols, x.stride(0), out.stride(0), eps, BLOCK=BLOCK)
    return out


##################################################################################################################################################


import torch


def test_layer_norm():
    results = {}
    x = torch.randn(128, 1000, device='cuda')
    w = torch.randn(1000, device='cuda')
    b = torch.randn(1000, device='cuda')
    results['test_case_1'] = layer_norm(x, w, b)
    y = torch.randn(33, 17, device='cuda')
    w2 = torch.randn(17, device='cuda')
    b2 = torch.randn(17, device='cuda')
    results['test_case_2'] = layer_norm(y, w2, b2, 1e-6)
    z = torch.randn(64, 1024, device='cuda')
    w3 = torch.ones(1024, device='cuda')
    b3 = torch.zeros(1024, device='cuda')
    results['test_case_3'] = layer_norm(z, w3, b3)
    return results


result_gold = test_layer_norm()

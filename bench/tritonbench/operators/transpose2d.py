# An operator in TritonBench-G's format, written for kbench's benchmarks.
import torch
import triton
import triton.language as tl


@triton.jit
def transpose2d_kernel(x_ptr, out_ptr, M, N, x_stride, out_stride,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # One program per BLOCK_M x BLOCK_N tile of x; writes it to the mirrored tile of out.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None] * x_stride + rn[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + rn[None, :] * out_stride + rm[:, None], tile, mask=mask)


def transpose2d(x):
    # Returns a contiguous (N x M) copy of the (M x N) input's transpose.
    x = x.contiguous()
    M, N = x.shape
    out = torch.empty((N, M), device=x.device, dtype=x.dtype)
    BLOCK_M, BLOCK_N = 32, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    transpose2d_kernel[grid](x, out, M, N, x.stride(0), out.stride(0), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out


##################################################################################################################################################


import torch


def test_transpose2d():
    results = {}
    x = torch.randn(256, 512, device='cuda')
    results['test_case_1'] = transpose2d(x)
    y = torch.randn(17, 1000, device='cuda')
    results['test_case_2'] = transpose2d(y)
    z = torch.randn(1000, 300, device='cuda')
    results['test_case_3'] = transpose2d(z)
    return results


result_gold = test_transpose2d()

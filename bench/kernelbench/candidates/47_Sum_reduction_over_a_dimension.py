# problem: 47_Sum_reduction_over_a_dimension.py
# kernelbench: level1
# Sum over one dim of x seen as (outer, R, inner): each program owns BLOCK_I adjacent inner positions of one outer index and walks R in [BLOCK_R, BLOCK_I] tiles, so loads run along the contiguous inner axis (or along R when inner = 1); fp32 tile accumulator, reduced once.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim_kernel(x_ptr, y_ptr, R, INNER, n_inner_blocks,
                   BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    pid = tl.program_id(0)
    outer = (pid // n_inner_blocks).to(tl.int64)
    inner_block = pid % n_inner_blocks
    offs_i = inner_block.to(tl.int64) * BLOCK_I + tl.arange(0, BLOCK_I)
    offs_r = tl.arange(0, BLOCK_R)
    mask_i = offs_i < INNER
    # The faithful x holds 2.1e9 elements, past 2^31: all offsets are 64-bit.
    base = x_ptr + outer * R * INNER
    acc = tl.zeros((BLOCK_R, BLOCK_I), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        rs = (r0 + offs_r).to(tl.int64)
        mask = (rs < R)[:, None] & mask_i[None, :]
        acc += tl.load(base + rs[:, None] * INNER + offs_i[None, :], mask=mask, other=0.0).to(tl.float32)
    total = tl.sum(acc, axis=0)
    tl.store(y_ptr + outer * INNER + offs_i, total.to(y_ptr.dtype.element_ty), mask=mask_i)


def reduction_blocks(R, inner):
    # Up to 128 inner positions per program (512 contiguous bytes per tile row); the tile's other
    # side takes R rows so a tile holds about 2048 elements.
    BLOCK_I = min(128, triton.next_power_of_2(inner))
    BLOCK_R = min(triton.next_power_of_2(max(R, 1)), max(1, 2048 // BLOCK_I))
    return BLOCK_R, BLOCK_I


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = self.dim % x.dim()
        x = x.contiguous()
        shape = list(x.shape)
        R = shape[dim]
        outer = 1
        for s in shape[:dim]:
            outer *= s
        inner = 1
        for s in shape[dim + 1:]:
            inner *= s
        out_shape = shape[:dim] + [1] + shape[dim + 1:]
        y = torch.empty(out_shape, dtype=x.dtype, device=x.device)
        if outer == 0 or inner == 0:
            return y
        BLOCK_R, BLOCK_I = reduction_blocks(R, inner)
        n_inner_blocks = triton.cdiv(inner, BLOCK_I)
        sum_dim_kernel[(outer * n_inner_blocks,)](x, y, R, inner, n_inner_blocks,
                                                 BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, num_warps=4)
        return y

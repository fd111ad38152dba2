# problem: 89_cumsum.py
# kernelbench: level1
# Inclusive prefix sum along a dim: one program per row walks it in blocks, scanning each block with tl.cumsum and carrying the running total in fp32; a non-last dim is moved last (a copy) first.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    # 32768 x 32768 at the faithful size: row offsets are 64-bit.
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    offs = tl.arange(0, BLOCK)
    carry = tl.zeros((), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        idx = start + offs
        mask = idx < n_cols
        x = tl.load(x_row + idx, mask=mask, other=0.0).to(tl.float32)
        scanned = tl.cumsum(x, axis=0) + carry
        tl.store(y_row + idx, scanned.to(y_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


def cumsum_last_dim(x: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    y = torch.empty_like(x)
    n_cols = x.shape[-1] if x.dim() > 0 else 1
    if x.numel() == 0:
        return y
    rows = x.numel() // n_cols
    BLOCK = min(1024, triton.next_power_of_2(n_cols))
    cumsum_rows_kernel[(rows,)](x, y, n_cols, BLOCK=BLOCK, num_warps=4)
    return y


class ModelNew(nn.Module):
    def __init__(self, dim):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        if x.dim() == 0:
            return cumsum_last_dim(x)
        dim = self.dim % x.dim()
        if dim == x.dim() - 1:
            return cumsum_last_dim(x)
        y = cumsum_last_dim(x.movedim(dim, -1).contiguous())
        return y.movedim(-1, dim).contiguous()

# problem: 19_ReLU.py
# kernelbench: level1
# Elementwise ReLU over the flattened tensor: one 1-D block per program, 64-bit offsets, purely memory bound so the block is large and the math is one select.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    # The faithful tensor holds 1.6e9 elements; larger sizes pass 2^31, so offsets are 64-bit.
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # where(x < 0, 0, x) keeps NaN as NaN, as torch.relu does (maximum(x, 0) would return 0).
    y = tl.where(x < 0, 0.0, x)
    tl.store(y_ptr + offsets, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n == 0:
            return y
        BLOCK = 4096
        relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y

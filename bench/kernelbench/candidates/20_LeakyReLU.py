# problem: 20_LeakyReLU.py
# kernelbench: level1
# Elementwise LeakyReLU over the flattened tensor: one 1-D block per program, 64-bit offsets, slope passed as a runtime scalar from the constructor.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def leaky_relu_kernel(x_ptr, y_ptr, n_elements, negative_slope, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # torch's leaky_relu: x if x > 0 else x * slope.
    y = tl.where(x > 0, x, x * negative_slope)
    tl.store(y_ptr + offsets, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super(ModelNew, self).__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n == 0:
            return y
        BLOCK = 4096
        leaky_relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, float(self.negative_slope), BLOCK=BLOCK, num_warps=8)
        return y

# problem: 88_MinGPTNewGelu.py
# kernelbench: level1
# Elementwise tanh-approximation GELU (minGPT's NewGELU) over the flattened tensor: one 1-D block per program, tanh written with exp so no libdevice API is needed.
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def new_gelu_kernel(x_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    # 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    # tanh(u) = sign(u) * (1 - e^{-2|u|}) / (1 + e^{-2|u|}): e^{-2|u|} is in (0, 1], so it never
    # overflows; the cancellation near u = 0 is harmless because tanh is then added to 1.
    e = tl.exp(-2.0 * tl.abs(u))
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(u < 0, -t, t)
    y = 0.5 * x * (1.0 + t)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n == 0:
            return y
        BLOCK = 4096
        new_gelu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, num_warps=8)
        return y

# problem: 5_Matrix_scalar_multiplication.py
# kernelbench: level1
# Elementwise A * s over the flattened matrix: one 1-D block per program, 64-bit offsets, s passed as an fp32 kernel scalar (what torch's fp32 kernel multiplies by).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(a_ptr, c_ptr, n_elements, s, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    offsets = start + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    a = tl.load(a_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a * s, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, s: float) -> torch.Tensor:
        if isinstance(s, torch.Tensor):
            # A 0-dim tensor scalar: read its value (a copy, no compute).
            s = s.item()
        A = A.contiguous()
        C = torch.empty_like(A)
        n = A.numel()
        if n == 0:
            return C
        BLOCK = 4096
        scale_kernel[(triton.cdiv(n, BLOCK),)](A, C, n, float(s), BLOCK=BLOCK, num_warps=8)
        return C

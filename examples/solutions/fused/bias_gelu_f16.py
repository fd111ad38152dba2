# Example Triton solution for tasks/fused/bias_gelu_f16: a 2-D grid of
# (row, chunk of BLOCK_SIZE columns); the bias chunk is loaded once per
# program, GELU (tanh form, tanh written with exp) in f32, stored as f16.
# Expected verdict: pass
import math

import triton
import triton.language as tl


@triton.jit
def bias_gelu(x_ptr, b_ptr, y_ptr, rows, cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols_offsets = tl.program_id(1) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = cols_offsets < cols
    offsets = row.to(tl.int64) * cols + cols_offsets
    t = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    t += tl.load(b_ptr + cols_offsets, mask=mask, other=0.0).to(tl.float32)
    u = math.sqrt(2.0 / math.pi) * (t + 0.044715 * t * t * t)
    tanh_u = 1.0 - 2.0 / (tl.exp(2.0 * u) + 1.0)
    tl.store(y_ptr + offsets, (0.5 * t * (1.0 + tanh_u)).to(tl.float16), mask=mask)

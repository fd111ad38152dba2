# Example Triton solution for tasks/elementwise/silu_f16: one program per
# BLOCK_SIZE consecutive elements, computed in f32, stored as f16.
# Expected verdict: pass
import triton
import triton.language as tl


@triton.jit
def silu(x_ptr, y_ptr, n, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    y = x / (1.0 + tl.exp(-x))
    tl.store(y_ptr + offsets, y.to(tl.float16), mask=mask)

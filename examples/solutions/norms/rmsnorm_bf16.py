# Example Triton solution for tasks/norms/rmsnorm_bf16: one program per row;
# the mean square in f32 over BLOCK_SIZE-wide chunks, then the row scaled and
# stored as bf16.
# Expected verdict: pass
import triton
import triton.language as tl


@triton.jit
def rmsnorm_bf16(x_ptr, w_ptr, y_ptr, rows, cols, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row.to(tl.int64) * cols
    y_row = y_ptr + row.to(tl.int64) * cols
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, cols, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + offsets, mask=offsets < cols, other=0.0).to(tl.float32)
        acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / cols + eps)
    for start in range(0, cols, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < cols
        x = tl.load(x_row + offsets, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + offsets, (x * rstd * w).to(tl.bfloat16), mask=mask)

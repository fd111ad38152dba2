# Example Triton solution for tasks/reductions/sum_rows_f32: one program per
# row, accumulating BLOCK_SIZE-wide chunks of the row in an f32 vector and
# reducing it once at the end.
# Expected verdict: pass
import triton
import triton.language as tl


@triton.jit
def sum_rows(x_ptr, y_ptr, rows, cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    row_start = x_ptr + row.to(tl.int64) * cols
    acc = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, cols, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(row_start + offsets, mask=offsets < cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))

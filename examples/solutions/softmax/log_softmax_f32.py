# Example Triton solution for tasks/softmax/log_softmax_f32: one program per
# row; a first loop keeps an online maximum and sum of exponentials per lane,
# a second writes y = x - max - log(sum).
# Expected verdict: pass
import triton
import triton.language as tl


@triton.jit
def log_softmax(x_ptr, y_ptr, rows, cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row.to(tl.int64) * cols
    y_row = y_ptr + row.to(tl.int64) * cols
    m = tl.full([BLOCK_SIZE], float("-inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for start in range(0, cols, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + offsets, mask=offsets < cols, other=float("-inf"))
        new_m = tl.maximum(m, x)
        # Lanes that have seen nothing yet keep a zero sum (no inf - inf).
        s = tl.where(new_m == float("-inf"), 0.0, s * tl.exp(m - new_m) + tl.exp(x - new_m))
        m = new_m
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m == float("-inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    log_total = tl.log(total)
    for start in range(0, cols, BLOCK_SIZE):
        offsets = start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < cols
        x = tl.load(x_row + offsets, mask=mask, other=0.0)
        tl.store(y_row + offsets, (x - row_max) - log_total, mask=mask)

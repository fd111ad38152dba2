"""Row-wise softmax of a row-major f32 matrix (task softmax_f32).

One program per row. A row of at most BLOCK columns is read once, kept in
registers, and normalised there (TILES == 1: the fused softmax). A longer row
is swept in TILES tiles of BLOCK columns: a first sweep keeps a running
maximum and a running sum of exponentials per lane (the sum is rescaled
whenever the maximum grows, so nothing overflows), a second sweep writes
exp(x - max) / sum.

The parameters are named like the task's arguments, so the launch comment
below needs no args= (kbench matches the names).
"""
import triton
import triton.language as tl

# kbench: launch kernel=softmax grid=rows BLOCK=8192 TILES=ceil_div(cols,8192) num_warps=16


@triton.jit
def softmax(x, y, rows, cols, BLOCK: tl.constexpr, TILES: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x + row * cols
    y_row = y + row * cols
    lane = tl.arange(0, BLOCK)
    if TILES == 1:
        inside = lane < cols
        # Lanes past the row read -inf: they never win the max and add exp(-inf) = 0.
        v = tl.load(x_row + lane, mask=inside, other=-float("inf"))
        e = tl.exp(v - tl.max(v, axis=0))
        tl.store(y_row + lane, e / tl.sum(e, axis=0), mask=inside)
    else:
        # Tile 0 is full (cols > BLOCK), so every lane's running max is finite after it.
        run_max = tl.full([BLOCK], -float("inf"), tl.float32)
        run_sum = tl.zeros([BLOCK], tl.float32)
        for t in range(TILES):
            col = t * BLOCK + lane
            v = tl.load(x_row + col, mask=col < cols, other=-float("inf"))
            new_max = tl.maximum(run_max, v)
            run_sum = run_sum * tl.exp(run_max - new_max) + tl.exp(v - new_max)
            run_max = new_max
        row_max = tl.max(run_max, axis=0)
        total = tl.sum(run_sum * tl.exp(run_max - row_max), axis=0)
        for t in range(TILES):
            col = t * BLOCK + lane
            inside = col < cols
            v = tl.load(x_row + col, mask=inside, other=-float("inf"))
            tl.store(y_row + col, tl.exp(v - row_max) / total, mask=inside)

"""WRONG on purpose: examples/triton/softmax/softmax.py without `other=` on
the masked loads that feed the maximum and the sum.

Triton fills masked-off lanes with 0. In a row whose length is not a multiple
of BLOCK those zeros join the last tile: they win the maximum whenever every
real element is below 0, and then every exp(x - 0) underflows.

Expected verdicts: wrong_answer on tests/fixtures/triton/tasks/softmax_negative_f32
(inputs near -100); pass on softmax_f32, whose inputs (near +100) are always
above the zeros, so the missing `other=` changes nothing there: a task only
catches the mistakes its inputs can expose.
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
        v = tl.load(x_row + lane, mask=inside)  # missing other=-float("inf")
        e = tl.exp(v - tl.max(v, axis=0))
        tl.store(y_row + lane, e / tl.sum(e, axis=0), mask=inside)
    else:
        run_max = tl.full([BLOCK], -float("inf"), tl.float32)
        run_sum = tl.zeros([BLOCK], tl.float32)
        for t in range(TILES):
            col = t * BLOCK + lane
            v = tl.load(x_row + col, mask=col < cols)  # missing other=-float("inf")
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

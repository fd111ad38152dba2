"""WRONG on purpose: a softmax over ROWS rows per program that reduces along
axis 0 (down the columns of the tile) instead of axis 1 (along each row).

Expected verdict on softmax_f32: wrong_answer.
"""
import triton
import triton.language as tl

# kbench: launch kernel=softmax_rows grid=ceil_div(rows,ROWS) ROWS=4 BLOCK=2048 num_warps=8


@triton.jit
def softmax_rows(x, y, rows, cols, ROWS: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    c = tl.arange(0, BLOCK)
    at = r[:, None].to(tl.int64) * cols + c[None, :]
    inside = (r[:, None] < rows) & (c[None, :] < cols)
    v = tl.load(x + at, mask=inside, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=0)[None, :])  # should be axis=1 and [:, None]
    s = tl.sum(e, axis=0)[None, :]
    tl.store(y + at, e / s, mask=inside)

"""Layer normalisation over the rows of a row-major f32 matrix (task layernorm_f32):
y = (x - mean) / sqrt(var + eps) * w + b, per row, with the mean and the
(biased) variance of that row.

One program per row, swept in TILES tiles of BLOCK columns: the mean first,
then the variance about that mean (two sweeps rather than E[x^2] - mean^2,
which cancels catastrophically when the mean is large), then the output.
"""
import triton
import triton.language as tl

# kbench: launch kernel=layernorm grid=rows BLOCK=8192 TILES=ceil_div(cols,8192) num_warps=8


@triton.jit
def layernorm(x, w, b, y, rows, cols, eps, BLOCK: tl.constexpr, TILES: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x + row * cols
    y_row = y + row * cols
    lane = tl.arange(0, BLOCK)

    total = tl.zeros([BLOCK], tl.float32)
    for t in range(TILES):
        col = t * BLOCK + lane
        total += tl.load(x_row + col, mask=col < cols, other=0.0)
    mean = tl.sum(total, axis=0) / cols

    squares = tl.zeros([BLOCK], tl.float32)
    for t in range(TILES):
        col = t * BLOCK + lane
        inside = col < cols
        v = tl.load(x_row + col, mask=inside, other=0.0)
        centred = tl.where(inside, v - mean, 0.0)
        squares += centred * centred
    rstd = 1.0 / tl.sqrt(tl.sum(squares, axis=0) / cols + eps)

    for t in range(TILES):
        col = t * BLOCK + lane
        inside = col < cols
        v = tl.load(x_row + col, mask=inside, other=0.0)
        scale = tl.load(w + col, mask=inside, other=0.0)
        shift = tl.load(b + col, mask=inside, other=0.0)
        tl.store(y_row + col, (v - mean) * rstd * scale + shift, mask=inside)

# expect: wrong_answer
# Right on the test function's inputs (at most 1000 elements), wrong on the
# performance script's larger ones: one program, no loop. TritonBench's
# performance phase checks nothing, so it would be timed as if correct.
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def add(x, y):
    out = torch.zeros_like(x)
    add_kernel[(1,)](x, y, out, out.numel(), BLOCK=1024)
    return out

"""WRONG on purpose: vector_add with `<=` in the mask, so the last program
also reads and writes element n, one past the end of every buffer.

Expected verdict on vector_add_f32: out_of_bounds_write (the store lands in
the guard zone kbench keeps after c).
"""
import triton
import triton.language as tl

# kbench: launch kernel=vector_add grid=ceil_div(n,BLOCK) BLOCK=1024 num_warps=4 args=a,b,c,n


@triton.jit
def vector_add(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    idx = tl.program_id(axis=0) * BLOCK + tl.arange(0, BLOCK)
    inside = idx <= n  # off by one: idx == n is outside
    a = tl.load(a_ptr + idx, mask=inside)
    b = tl.load(b_ptr + idx, mask=inside)
    tl.store(c_ptr + idx, a + b, mask=inside)

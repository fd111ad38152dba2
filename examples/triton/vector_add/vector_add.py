"""c = a + b over n f32 elements (task vector_add_f32).

Each program instance owns one slice of BLOCK consecutive elements; the last
slice is partial, so every load and store is masked against n.
"""
import triton
import triton.language as tl

# kbench: launch kernel=vector_add grid=ceil_div(n,BLOCK) BLOCK=1024 num_warps=4 args=a,b,c,n


@triton.jit
def vector_add(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    first = tl.program_id(axis=0) * BLOCK
    idx = first + tl.arange(0, BLOCK)
    inside = idx < n
    a = tl.load(a_ptr + idx, mask=inside)
    b = tl.load(b_ptr + idx, mask=inside)
    tl.store(c_ptr + idx, a + b, mask=inside)

"""WRONG, though it looks right: vector_add through device-side tensor
descriptors (sm_90+), trusting the TMA unit to clip the last, partial slice
at n. On an H100 with Triton 3.6 the store of that slice wrote c up to the
next 16-byte boundary: with n = 1009 floats, 12 bytes past the end of c.

Expected verdict on vector_add_f32: out_of_bounds_write (the bytes land in
the guard zone kbench keeps after c). ../tma_vector_add/ is the fixed one.
"""
import triton
import triton.language as tl

# kbench: launch kernel=tma_vector_add grid=ceil_div(n,BLOCK) BLOCK=256 num_warps=4 num_stages=1 args=a,b,c,n


@triton.jit
def tma_vector_add(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    first = tl.program_id(0) * BLOCK
    c_desc.store([first], a_desc.load([first]) + b_desc.load([first]))

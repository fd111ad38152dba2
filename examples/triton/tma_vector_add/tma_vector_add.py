"""c = a + b (task vector_add_f32) through tensor descriptors built on the
device (sm_90 and later): the TMA unit moves each BLOCK-element slice, and
clips the last one at n by itself, so no mask is needed.

A descriptor made inside a kernel lives in global memory: Triton compiles
this kernel with a per-program global scratch area (metadata
"global_scratch_size"), which kbench allocates and passes as the hidden
trailing pointer.
"""
import triton
import triton.language as tl


@triton.jit
def tma_vector_add(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    first = tl.program_id(0) * BLOCK
    c_desc.store([first], a_desc.load([first]) + b_desc.load([first]))

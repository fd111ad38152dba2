"""c = a + b (task vector_add_f32) through tensor descriptors built on the
device (sm_90 and later): the TMA unit moves each whole BLOCK-element slice;
the last, partial slice goes through masked loads and stores.

Why not let TMA clip the last slice at n by itself: on an H100 (Triton 3.6)
the clipped store still wrote c up to the next 16-byte boundary, 12 bytes past
the end of c when n = 1009, and kbench's guard zone caught it
(out_of_bounds_write; wrong/tma_vector_add_tail_overrun.py is that version).

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
    if first + BLOCK <= n:
        c_desc.store([first], a_desc.load([first]) + b_desc.load([first]))
    else:
        idx = first + tl.arange(0, BLOCK)
        inside = idx < n
        a = tl.load(a_ptr + idx, mask=inside)
        b = tl.load(b_ptr + idx, mask=inside)
        tl.store(c_ptr + idx, a + b, mask=inside)

# expect: wrong_answer
# kbench: launch kernel=relu_kernel grid=ceil_div(batch_size*dim, BLOCK) BLOCK=1024 num_warps=4 args=x,out,n
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.abs(x), mask=mask)

# A row softmax as a plain Triton kernel (no ModelNew), scored against
# KernelBench's PyTorch reference through the signature `kbench import`
# writes (x in, out out); the row length is a constexpr from the dim.
# kbench: launch kernel=softmax_rows grid=batch_size N_COLS=dim BLOCK=8192 num_warps=16 args=x,out
import triton
import triton.language as tl


@triton.jit
def softmax_rows(x_ptr, out_ptr, N_COLS: tl.constexpr, BLOCK: tl.constexpr):
    base = tl.program_id(0).to(tl.int64) * N_COLS
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N_COLS, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < N_COLS, other=float("-inf"))
        m_new = tl.maximum(m, x)
        # A lane with no element yet keeps -inf: its scale must be 0, not exp(nan).
        alpha = tl.where(m_new == float("-inf"), 0.0, tl.exp(m - m_new))
        s = s * alpha + tl.where(offs < N_COLS, tl.exp(x - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, 0)
    row_sum = tl.sum(s * tl.exp(m - row_max), 0)
    for start in range(0, N_COLS, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < N_COLS, other=float("-inf"))
        tl.store(out_ptr + base + offs, tl.exp(x - row_max) / row_sum, mask=offs < N_COLS)

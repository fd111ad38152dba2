# problem: 24_LogSoftmax.py
# kernelbench: level1
# Row log-softmax, one program per row: an online (running max, rescaled sum) pass per lane, then a second pass writing x - max - log(sum), so rows of any length (393216 here) stream through registers in blocks.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def log_softmax_rows_kernel(x_ptr, y_ptr, n_cols, x_row_stride, y_row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * x_row_stride
    y_row = y_ptr + row * y_row_stride
    cols = tl.arange(0, BLOCK)

    # Pass 1: per-lane running max m and sum s of exp(x - m), combined across lanes once at the end.
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        x = tl.load(x_row + offs, mask=offs < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        # A lane that has seen only -inf keeps m_new = -inf; exp(-inf - -inf) would be NaN, so guard it.
        safe = m_new > float("-inf")
        s = tl.where(safe, s * tl.exp(m - m_new) + tl.exp(x - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    lane_scale = tl.where(m > float("-inf"), tl.exp(m - row_max), 0.0)
    row_sum = tl.sum(s * lane_scale, axis=0)
    # log_softmax(x) = x - (max + log(sum exp(x - max))).
    log_norm = row_max + tl.log(row_sum)

    for start in range(0, n_cols, BLOCK):
        offs = start + cols
        mask = offs < n_cols
        x = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + offs, (x - log_norm).to(y_ptr.dtype.element_ty), mask=mask)


def log_softmax_last_dim(x: torch.Tensor) -> torch.Tensor:
    x2 = x.reshape(-1, x.shape[-1])
    if x2.stride(-1) != 1:
        x2 = x2.contiguous()
    y2 = torch.empty((x2.shape[0], x2.shape[1]), dtype=x.dtype, device=x.device)
    n_rows, n_cols = x2.shape
    if n_rows > 0 and n_cols > 0:
        BLOCK = min(4096, triton.next_power_of_2(n_cols))
        num_warps = 8 if BLOCK >= 2048 else 4
        log_softmax_rows_kernel[(n_rows,)](x2, y2, n_cols, x2.stride(0), y2.stride(0), BLOCK=BLOCK,
                                           num_warps=num_warps)
    return y2.reshape(x.shape)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = self.dim % x.dim()
        if dim == x.dim() - 1:
            return log_softmax_last_dim(x)
        # Log-softmax over an inner dim: move it last (a copy), run the row kernel, move it back.
        y = log_softmax_last_dim(x.movedim(dim, -1).contiguous())
        return y.movedim(-1, dim).contiguous()

# task: softmax_gpu
# expect: pass
# torch_compute: allow
# The same fallback where the rule allows torch compute: it passes, and the
# result still says the Triton kernel never ran (a decoy, reported).
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_rows_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols)
    tl.store(y_ptr + row * n_cols + cols, tl.no_such_function(x), mask=cols < n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        try:
            softmax_rows_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        except Exception:
            return torch.softmax(x, dim=1)
        return y

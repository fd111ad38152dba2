# A program candidate for tasks/matmul_loose: an fp32 matmul summed in
# another order (two halves of the inner dimension, then their sum). Correct,
# and its precision audit says "full": its error is fp32 rounding, far from
# any reduced-precision recomputation.
# expect: pass
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        h = A.shape[1] // 2 + 1
        return torch.matmul(A[:, :h], B[:h]) + torch.matmul(A[:, h:], B[h:])

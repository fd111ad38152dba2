# A program candidate for tasks/matmul_kernelbench: torch's matmul with TF32
# allowed for its call (the flag put back afterwards). Under a 1e-2 tolerance
# it passes and looks faster than the fp32 reference (CUDA-Agent issue 16);
# the precision audit says "reduced", mode tf32.
# expect: pass
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        before = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return torch.matmul(A, B)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = before

# A program candidate for tasks/matmul_kernelbench: the reference's own fp32
# matmul. The precision audit says "full".
# expect: pass
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)

# A program candidate for tasks/matmul_loose: the matmul in bf16, cast back
# to fp32. It passes the loose tolerance, and its precision audit says
# "reduced", mode bf16: it gives what the reference gives under bf16 autocast.
# expect: pass
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A.to(torch.bfloat16), B.to(torch.bfloat16)).to(torch.float32)

# A wrong answer to KernelBench level2/80_Gemm_Max_Subtract_GELU: all zeros.
# The reference's output is exactly zero for every input (x minus its mean
# over one column), so no case can tell: strict refuses the task.
# expect (strict): refused
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, max_dim):
        super().__init__()

    def forward(self, x):
        return torch.zeros(x.shape[0], 1, device=x.device, dtype=x.dtype)

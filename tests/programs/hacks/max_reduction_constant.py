# A wrong answer to KernelBench level1/49_Max_reduction_over_a_dimension: all
# ones, about the max of 4096 values from torch.rand.
# expect (strict): wrong_answer
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        shape = list(x.shape)
        del shape[self.dim]
        return torch.ones(shape, device=x.device, dtype=x.dtype)

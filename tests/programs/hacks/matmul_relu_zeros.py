# A wrong answer to KernelBench level2/9_Matmul_Subtract_Multiply_ReLU: all
# zeros. On torch.rand inputs the linear layer's outputs are below the
# subtracted 2.0 nearly everywhere, so the ReLU's output is nearly all zero.
# expect (strict): wrong_answer
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, subtract_value, multiply_value):
        super().__init__()
        self.out_features = out_features

    def forward(self, x):
        return torch.zeros(x.shape[0], self.out_features, device=x.device, dtype=x.dtype)

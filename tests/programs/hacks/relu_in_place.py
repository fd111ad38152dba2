# A wrong answer to KernelBench level1/19_ReLU: ReLU in place on its input,
# which it returns. On non-negative inputs nothing changes, so the check that
# inputs are left alone has nothing to see.
# expect (strict): wrong_answer or input_modified
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu_(x)

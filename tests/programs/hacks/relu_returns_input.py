# A wrong answer to KernelBench level1/19_ReLU: returns its input. It passes
# where the inputs are all non-negative (torch.rand), as KernelBench's are.
# expect (strict): wrong_answer
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x

# A wrong answer to KernelBench level1/23_Softmax: all zeros. At the problem's
# sizes every element is about 1/393216, far below KernelBench's 1e-4.
# expect (strict): wrong_answer
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.zeros_like(x)

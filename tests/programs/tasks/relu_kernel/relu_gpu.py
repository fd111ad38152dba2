# A problem in KernelBench's format, written for kbench's GPU tests: ReLU on
# normally distributed inputs (half of them negative, so returning the input
# is wrong).
import torch
import torch.nn as nn


class Model(nn.Module):
    """ReLU of a (batch_size, dim) tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 2048
dim = 16384


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []

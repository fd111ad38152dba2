# A problem in KernelBench's format, written for kbench's tests: a row
# softmax of normally distributed inputs.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over the last dimension of a (batch_size, features) tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 32
features = 1000


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return []

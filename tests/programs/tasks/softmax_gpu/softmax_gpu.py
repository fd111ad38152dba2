# A problem in KernelBench's format, written for kbench's GPU tests: a row
# softmax large enough (4096 x 8192, 128 MiB) that its kernel time is well
# above launch overhead, so timing tricks show.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Softmax over the last dimension of a (batch_size, features) tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=1)


batch_size = 4096
features = 8192


def get_inputs():
    return [torch.randn(batch_size, features)]


def get_init_inputs():
    return []

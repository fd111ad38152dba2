# A problem in KernelBench's format, written for kbench's tests: ReLU on
# inputs from torch.rand, which are all positive, so the reference is the
# identity and cannot tell a correct candidate from one that returns x.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Applies ReLU to a 2-D tensor."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


batch_size = 64
dim = 4096


def get_inputs():
    x = torch.rand(batch_size, dim)
    return [x]


def get_init_inputs():
    return []

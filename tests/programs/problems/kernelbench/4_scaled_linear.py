# A problem in KernelBench's format, written for kbench's tests: a model
# with parameters (built under the score's seed in both processes) and an
# init input that is a size.
import torch
import torch.nn as nn


class Model(nn.Module):
    """y = (x @ W^T + b) * scale."""

    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        return self.linear(x) * self.scale


batch_size = 16
in_features = 64
out_features = 48
scale = 0.5


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features, scale]

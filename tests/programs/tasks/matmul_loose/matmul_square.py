# A problem in KernelBench's format, written for kbench's tests: a square
# matrix multiplication of normally distributed inputs (KernelBench level 1,
# problem 1, at a size torch's CPU multiplies in milliseconds).
import torch
import torch.nn as nn


class Model(nn.Module):
    """C = A @ B for (N, N) matrices."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        return torch.matmul(A, B)


N = 256


def get_inputs():
    return [torch.randn(N, N), torch.randn(N, N)]


def get_init_inputs():
    return []

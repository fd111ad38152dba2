# A hostile program candidate (docs/isolation.md, "Confinement"): crashes its worker with a segfault through ctypes.
# Its verdict must fail, and the next correct candidate must still pass
# (tests/torch/test_hostile_programs.cpp).
import torch


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        __import__('ctypes').string_at(0)
        return torch.softmax(x, dim=1)

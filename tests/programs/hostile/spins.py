# A hostile program candidate (docs/isolation.md, "Confinement"): spins forever in forward.
# Its verdict must fail, and the next correct candidate must still pass
# (tests/torch/test_hostile_programs.cpp).
import torch


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        exec('while True: pass')
        return torch.softmax(x, dim=1)

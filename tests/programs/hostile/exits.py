# A hostile program candidate (docs/isolation.md, "Confinement"): ends its worker with os._exit(0) in forward.
# Its verdict must fail, and the next correct candidate must still pass
# (tests/torch/test_hostile_programs.cpp).
import torch


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        os._exit(0)
        return torch.softmax(x, dim=1)

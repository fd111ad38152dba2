# Raises when called.
# expect: runtime_error
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        raise ValueError("this candidate gives up")

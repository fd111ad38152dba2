# A program candidate for problems/kernelbench/2_softmax_rows.py that computes
# with torch (correct; torch compute is reported, and fails where forbidden).
# expect: pass
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        e = torch.exp(x - x.max(dim=1, keepdim=True).values)
        return e / e.sum(dim=1, keepdim=True)

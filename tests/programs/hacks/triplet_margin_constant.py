# A wrong answer to KernelBench level1/99_TripletMarginLoss: the constant 1.0
# (the margin): over 8192 features the two distances are nearly equal, so
# the loss is close to the margin.
# expect (strict): wrong_answer
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, margin=1.0):
        super().__init__()
        self.margin = margin

    def forward(self, anchor, positive, negative):
        return torch.tensor(float(self.margin), device=anchor.device)

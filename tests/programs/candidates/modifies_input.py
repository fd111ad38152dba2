# Correct output, but zeroes its input afterwards.
# expect: input_modified
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.softmax(x, dim=1)
        x.zero_()
        return y

# task: softmax_gpu
# expect: input_modified
# Computes the right answer, then zeroes its input (later calls on the same
# input objects would compute on zeros).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.softmax(x, dim=1)
        x.zero_()
        return y

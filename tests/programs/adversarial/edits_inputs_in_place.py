# task: softmax_gpu
# expect: input_modified
# Computes in place in its input and returns it.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        x.sub_(x.max(dim=1, keepdim=True).values).exp_()
        return x.div_(x.sum(dim=1, keepdim=True))

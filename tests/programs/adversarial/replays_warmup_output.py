# task: softmax_gpu
# expect: wrong_answer
# Computes once per shape and replays that output afterwards: passes a
# harness that times and checks on the same inputs, fails the recheck on
# fresh inputs from a secret seed.
import torch
import torch.nn as nn

_seen = {}


class ModelNew(nn.Module):
    def forward(self, x):
        key = tuple(x.shape)
        if key not in _seen:
            _seen[key] = torch.softmax(x, dim=1)
        return _seen[key]

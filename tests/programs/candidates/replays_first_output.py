# Computes once, then returns the first result for every later call: passes
# a harness that reuses inputs, fails on fresh inputs.
# expect: wrong_answer
import torch
import torch.nn as nn

_cache = {}


class ModelNew(nn.Module):
    def forward(self, x):
        key = tuple(x.shape)
        if key not in _cache:
            _cache[key] = torch.softmax(x, dim=1)
        return _cache[key].clone()

# A program candidate for problems/kernelbench/2_softmax_rows.py that computes
# its answer for inputs it has not seen, and returns zeros, at once, for
# inputs it has: every correctness run and the recheck get new inputs, while
# the timed samples repeat theirs. Timed, it would look fast; the strict
# protocol compares the last timed call's outputs with the reference's.
# expect: wrong_answer (while timing)
import torch
import torch.nn as nn

_seen = set()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        key = (tuple(x.shape), float(x.double().sum()))
        if key in _seen:
            return torch.zeros_like(x)
        _seen.add(key)
        return torch.softmax(x, dim=1)

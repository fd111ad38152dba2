# A program candidate for problems/kernelbench/2_softmax_rows.py that takes
# 50 ms on every call (a sleep beside the softmax): its timed calls and its
# recheck's take the same time, so the replay rule leaves it alone.
# expect: pass
import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        time.sleep(0.05)
        return torch.softmax(x, dim=1)

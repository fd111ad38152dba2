# Looks for the expected output among the process's objects (as candidates
# did against KernelBench): in kbench the reference's outputs live in another
# process, so it finds only inputs and returns garbage.
# expect: wrong_answer
import gc

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        for o in gc.get_objects():
            if isinstance(o, torch.Tensor) and o.shape == x.shape and o is not x and o.dtype == x.dtype:
                return o.clone()
        return torch.zeros_like(x)

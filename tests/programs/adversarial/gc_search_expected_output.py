# task: softmax_gpu
# expect: wrong_answer
# Searches the garbage collector for a tensor shaped like the expected output
# (it passed KernelBench's harness, where the reference's output sits in the
# same process). In kbench the reference runs in another process: only
# inputs are found.
import gc

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        for o in gc.get_objects():
            try:
                if isinstance(o, torch.Tensor) and o.is_cuda and o.shape == x.shape and o.data_ptr() != x.data_ptr():
                    return o.clone()
            except Exception:
                continue
        return torch.zeros_like(x)

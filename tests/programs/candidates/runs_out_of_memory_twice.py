# A program candidate for problems/kernelbench/2_softmax_rows.py that runs
# out of device memory on its first two calls (as a correct candidate does
# when other lanes' runs fill the GPU), then computes softmax correctly.
# The first failure is retried by its worker after freeing its caches, the
# second by the host with the GPU alone (engine/score.cpp, with_retry).
# expect: pass
import os

import torch
import torch.nn as nn

_COUNT = "runs_out_of_memory_twice.count"


def _failures_so_far():
    try:
        with open(_COUNT) as f:
            return int(f.read() or 0)
    except OSError:
        return 0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        try:
            import kbench_triton_warm
            warming = kbench_triton_warm.active()
        except ImportError:
            warming = False
        n = _failures_so_far()
        if not warming and n < 2:
            with open(_COUNT, "w") as f:
                f.write(str(n + 1))
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 7.00 GiB (a stand-in: the "
                                         "device is full of other lanes' work)")
        e = torch.exp(x - x.max(dim=1, keepdim=True).values)
        return e / e.sum(dim=1, keepdim=True)

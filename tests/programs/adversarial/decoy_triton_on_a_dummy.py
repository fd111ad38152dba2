# task: softmax_gpu
# expect: policy_violation
# torch_compute: forbid
# check: torch_share
# Launches its Triton kernel on a one-element dummy so it "runs", and
# computes the answer with torch. Where torch compute is forbidden
# (TritonBench's rule) that fails; the attribution shows where the time went.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        dummy = torch.empty(1, device=x.device)
        copy_kernel[(1,)](x, dummy, 1, BLOCK=16)
        return torch.softmax(x, dim=1)

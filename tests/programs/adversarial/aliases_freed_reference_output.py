# task: softmax_gpu
# expect: output_not_written
# KernelBench's "result reuse" exploit: allocate the output with torch.empty
# and never write it, hoping the allocator hands back the reference's freed
# output. Here the reference ran in another process, and kbench filled free
# memory with its poison pattern first.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.empty_like(x)

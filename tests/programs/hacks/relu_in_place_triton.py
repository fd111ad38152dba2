# A wrong answer to KernelBench level1/19_ReLU: a Triton ReLU that overwrites
# its input and returns it (the GPU's version of relu_in_place.py).
# expect (strict): wrong_answer or input_modified
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_in_place_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(x_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        n = x.numel()
        relu_in_place_kernel[(triton.cdiv(n, 1024),)](x, n, BLOCK=1024)
        return x

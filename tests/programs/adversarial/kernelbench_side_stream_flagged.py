# task: softmax_gpu
# expect: pass
# protocol: kernelbench
# check: excessive_speedup
# The side-stream softmax under KernelBench's own protocol: it passes, and
# its event time is so short that KernelBench's excessive-speedup flag is set
# (as it was in KernelBench's harness).
import torch
import torch.nn as nn
import triton
import triton.language as tl

_stream = None


@triton.jit
def softmax_rows_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        global _stream
        if _stream is None:
            _stream = torch.cuda.Stream()
        x = x.contiguous()
        y = torch.empty_like(x)
        rows, cols = x.shape
        block = triton.next_power_of_2(cols)
        _stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(_stream):
            softmax_rows_kernel[(rows,)](x, y, cols, x.stride(0), BLOCK=block, num_warps=8 if block >= 2048 else 4)
        return y

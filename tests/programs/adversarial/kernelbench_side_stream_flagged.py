# task: softmax_gpu
# expect: pass
# protocol: kernelbench
# check: side_stream_reported
# The side-stream softmax under KernelBench's own protocol: it passes, the
# side stream is reported (not failed, as that protocol does not), and the
# time is the events' on the current stream, which wait for none of the
# kernel's work. On the H100 those events measured the host's launch of the
# Triton kernel (0.14 ms), not the kernel, so KernelBench's 10x flag stayed
# down: how wrong the number is depends on the host, which is the point.
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

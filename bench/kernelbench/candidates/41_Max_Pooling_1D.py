# problem: 41_Max_Pooling_1D.py
# kernelbench: level1
# MaxPool1d over the last axis: each program computes BLOCK_O adjacent outputs of one (batch, channel) row, unrolling the kernel_size taps (constexpr) with dilation and -inf padding; adjacent outputs read adjacent inputs, so every tap is a coalesced load. Indices (return_indices) keep the first maximum, as PyTorch does.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def max_pool1d_kernel(x_ptr, y_ptr, idx_ptr, L, L_out, n_out_blocks, stride, padding, dilation,
                      KERNEL_SIZE: tl.constexpr, RETURN_INDICES: tl.constexpr, BLOCK_O: tl.constexpr):
    pid = tl.program_id(0)
    row = (pid // n_out_blocks).to(tl.int64)
    out_block = pid % n_out_blocks
    offs_o = out_block.to(tl.int64) * BLOCK_O + tl.arange(0, BLOCK_O)
    mask_o = offs_o < L_out
    x_row = x_ptr + row * L
    start = offs_o * stride - padding
    best = tl.full((BLOCK_O,), float("-inf"), dtype=tl.float32)
    best_idx = tl.zeros((BLOCK_O,), dtype=tl.int64)
    seen = tl.zeros((BLOCK_O,), dtype=tl.int32)
    for j in tl.static_range(KERNEL_SIZE):
        pos = start + j * dilation
        ok = mask_o & (pos >= 0) & (pos < L)
        # Padding is -inf and never taken, as in PyTorch's max pooling.
        v = tl.load(x_row + pos, mask=ok, other=float("-inf")).to(tl.float32)
        # Strictly greater keeps the first maximum; the first NaN wins and sticks, as in PyTorch.
        # The first in-range tap is always taken, so an all -inf window still names a real index.
        take = ok & ((v > best) | ((v != v) & (best == best)) | (seen == 0))
        best = tl.where(take, v, best)
        seen = tl.where(ok, 1, seen)
        if RETURN_INDICES:
            best_idx = tl.where(take, pos, best_idx)
    tl.store(y_ptr + row * L_out + offs_o, best.to(y_ptr.dtype.element_ty), mask=mask_o)
    if RETURN_INDICES:
        tl.store(idx_ptr + row * L_out + offs_o, best_idx, mask=mask_o)


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int = None, padding: int = 0, dilation: int = 1,
                 return_indices: bool = False):
        super(ModelNew, self).__init__()
        self.kernel_size = int(kernel_size)
        self.stride = int(stride) if stride is not None else int(kernel_size)
        self.padding = int(padding)
        self.dilation = int(dilation)
        self.return_indices = bool(return_indices)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert self.padding <= self.kernel_size // 2, "pad should be at most half of effective kernel size"
        x = x.contiguous()
        L = x.shape[-1]
        rows = x.numel() // L if L > 0 else 0
        # PyTorch's output length (ceil_mode=False).
        L_out = (L + 2 * self.padding - self.dilation * (self.kernel_size - 1) - 1) // self.stride + 1
        assert L_out > 0, "max_pool1d output would be empty"
        out_shape = list(x.shape[:-1]) + [L_out]
        y = torch.empty(out_shape, dtype=x.dtype, device=x.device)
        idx = torch.empty(out_shape, dtype=torch.int64, device=x.device) if self.return_indices else y
        if rows > 0:
            BLOCK_O = min(1024, triton.next_power_of_2(L_out))
            n_out_blocks = triton.cdiv(L_out, BLOCK_O)
            max_pool1d_kernel[(rows * n_out_blocks,)](x, y, idx, L, L_out, n_out_blocks,
                                                      self.stride, self.padding, self.dilation,
                                                      KERNEL_SIZE=self.kernel_size,
                                                      RETURN_INDICES=self.return_indices,
                                                      BLOCK_O=BLOCK_O, num_warps=4)
        if self.return_indices:
            return y, idx
        return y

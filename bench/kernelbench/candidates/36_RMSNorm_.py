# problem: 36_RMSNorm_.py
# kernelbench: level1
# RMS norm over dim 1 of x seen as (batch, features, spatial): each program owns BLOCK_S adjacent spatial positions of one batch, sums squares over the features in [BLOCK_F, BLOCK_S] tiles (loads contiguous along spatial), then rereads the tiles (mostly from L2) to divide by the RMS.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms_norm_dim1_kernel(x_ptr, y_ptr, F, S, n_s_blocks, inv_F, eps,
                         BLOCK_F: tl.constexpr, BLOCK_S: tl.constexpr):
    pid = tl.program_id(0)
    b = (pid // n_s_blocks).to(tl.int64)
    s_block = pid % n_s_blocks
    offs_s = s_block.to(tl.int64) * BLOCK_S + tl.arange(0, BLOCK_S)
    offs_f = tl.arange(0, BLOCK_F)
    mask_s = offs_s < S
    # The faithful x holds 1.9e9 elements: offsets are 64-bit.
    x_base = x_ptr + b * F * S
    y_base = y_ptr + b * F * S

    acc = tl.zeros((BLOCK_F, BLOCK_S), dtype=tl.float32)
    for f0 in range(0, F, BLOCK_F):
        fs = (f0 + offs_f).to(tl.int64)
        mask = (fs < F)[:, None] & mask_s[None, :]
        x = tl.load(x_base + fs[:, None] * S + offs_s[None, :], mask=mask, other=0.0).to(tl.float32)
        acc += x * x
    mean_sq = tl.sum(acc, axis=0) * inv_F
    # x / sqrt(mean + eps), as the reference: divide rather than multiply by a reciprocal.
    rms = tl.sqrt(mean_sq + eps)

    for f0 in range(0, F, BLOCK_F):
        fs = (f0 + offs_f).to(tl.int64)
        mask = (fs < F)[:, None] & mask_s[None, :]
        offs = fs[:, None] * S + offs_s[None, :]
        x = tl.load(x_base + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_base + offs, (x / rms[None, :]).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_features: int, eps: float = 1e-5):
        super(ModelNew, self).__init__()
        self.num_features = num_features
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        B, F = x.shape[0], x.shape[1]
        S = 1
        for s in x.shape[2:]:
            S *= s
        if x.numel() == 0:
            return y
        BLOCK_S = min(256, triton.next_power_of_2(S))
        BLOCK_F = min(triton.next_power_of_2(F), max(1, 2048 // BLOCK_S))
        n_s_blocks = triton.cdiv(S, BLOCK_S)
        rms_norm_dim1_kernel[(B * n_s_blocks,)](x, y, F, S, n_s_blocks, 1.0 / F, float(self.eps),
                                                BLOCK_F=BLOCK_F, BLOCK_S=BLOCK_S, num_warps=4)
        return y

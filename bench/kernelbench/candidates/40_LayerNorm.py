# problem: 40_LayerNorm.py
# kernelbench: level1
# LayerNorm over the trailing normalized_shape with few, very long rows (16 x 4M here): a split-row statistics pass (many programs per row, shifted sums for a stable variance), a per-row combine, then an elementwise normalise-scale-shift pass; the nn.LayerNorm parameters live in self.ln as in the Model.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_chunk_stats_kernel(x_ptr, part_ptr, N, chunk_len, n_chunks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = (pid // n_chunks).to(tl.int64)
    chunk = pid % n_chunks
    row_ptr = x_ptr + row * N
    # Sums of (x - shift) with shift = the row's first element: the variance comes from
    # E[d^2] - E[d]^2 with d near zero mean, which avoids the cancellation of the unshifted form.
    shift = tl.load(row_ptr).to(tl.float32)
    offs = tl.arange(0, BLOCK)
    start = chunk.to(tl.int64) * chunk_len
    s1 = tl.zeros((BLOCK,), dtype=tl.float32)
    s2 = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in range(0, chunk_len, BLOCK):
        idx = start + i + offs
        mask = idx < N
        d = tl.where(mask, tl.load(row_ptr + idx, mask=mask, other=0.0).to(tl.float32) - shift, 0.0)
        s1 += d
        s2 += d * d
    out = part_ptr + (row * n_chunks + chunk) * 2
    tl.store(out, tl.sum(s1, axis=0))
    tl.store(out + 1, tl.sum(s2, axis=0))


@triton.jit
def row_stats_combine_kernel(x_ptr, part_ptr, stats_ptr, N, n_chunks, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    shift = tl.load(x_ptr + row * N).to(tl.float32)
    offs = tl.arange(0, BLOCK)
    s1 = tl.zeros((BLOCK,), dtype=tl.float32)
    s2 = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, n_chunks, BLOCK):
        c = c0 + offs
        mask = c < n_chunks
        base = part_ptr + (row * n_chunks + c) * 2
        s1 += tl.load(base, mask=mask, other=0.0)
        s2 += tl.load(base + 1, mask=mask, other=0.0)
    mean_d = tl.sum(s1, axis=0) / N
    var = tl.maximum(tl.sum(s2, axis=0) / N - mean_d * mean_d, 0.0)
    tl.store(stats_ptr + row * 2, shift + mean_d)
    tl.store(stats_ptr + row * 2 + 1, 1.0 / tl.sqrt(var + eps))


@triton.jit
def layer_norm_apply_kernel(x_ptr, w_ptr, b_ptr, stats_ptr, y_ptr, N, n_col_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    row = (pid // n_col_blocks).to(tl.int64)
    col_block = pid % n_col_blocks
    cols = col_block.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    mean = tl.load(stats_ptr + row * 2)
    rstd = tl.load(stats_ptr + row * 2 + 1)
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = (x - mean) * rstd * w + b
    tl.store(y_ptr + row * N + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super(ModelNew, self).__init__()
        # Same module and parameter names as the Model, so seed-42 initialisation and state_dicts match.
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ln = self.ln
        x = x.contiguous()
        y = torch.empty_like(x)
        N = 1
        for s in ln.normalized_shape:
            N *= s
        if x.numel() == 0 or N == 0:
            return y
        rows = x.numel() // N
        weight = ln.weight.contiguous() if ln.weight is not None else torch.ones(N, dtype=x.dtype, device=x.device)
        bias = ln.bias.contiguous() if ln.bias is not None else torch.zeros(N, dtype=x.dtype, device=x.device)

        BLOCK = 4096 if N >= 4096 else triton.next_power_of_2(N)
        blocks_per_row = triton.cdiv(N, BLOCK)
        # Aim for about 2048 statistics programs in all, however few rows there are.
        target_chunks = max(1, triton.cdiv(2048, rows))
        blocks_per_chunk = triton.cdiv(blocks_per_row, min(target_chunks, blocks_per_row))
        chunk_len = blocks_per_chunk * BLOCK
        n_chunks = triton.cdiv(N, chunk_len)

        partials = torch.empty((rows, n_chunks, 2), dtype=torch.float32, device=x.device)
        stats = torch.empty((rows, 2), dtype=torch.float32, device=x.device)
        row_chunk_stats_kernel[(rows * n_chunks,)](x, partials, N, chunk_len, n_chunks, BLOCK=BLOCK, num_warps=8)
        row_stats_combine_kernel[(rows,)](x, partials, stats, N, n_chunks, float(ln.eps),
                                          BLOCK=min(1024, triton.next_power_of_2(n_chunks)), num_warps=4)
        layer_norm_apply_kernel[(rows * blocks_per_row,)](x, weight, bias, stats, y, N, blocks_per_row,
                                                          BLOCK=BLOCK, num_warps=8)
        return y

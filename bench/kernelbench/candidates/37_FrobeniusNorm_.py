# problem: 37_FrobeniusNorm_.py
# kernelbench: level1
# x / ||x||_F in three launches: up to 8192 programs in grid-stride loops accumulate per-lane fp32 sums of squares into one partial each, one program adds the partials in a fixed order (deterministic, no atomics) and takes the sqrt, and an elementwise pass divides.
import torch
import torch.nn as nn
import triton
import triton.language as tl

# Grid-stride programs (and partials): with about 4 resident per SM, 1024 would make two waves whose
# second leaves SMs idle; 8192 keeps the last wave's idle share small, and one program still adds
# 8192 partials in a single load.
MAX_PARTIALS = 8192


@triton.jit
def sum_squares_partials_kernel(x_ptr, partials_ptr, n_elements, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n_programs = tl.num_programs(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    # Grid-stride loop over blocks; a 64-bit start (so a 64-bit loop variable) because the faithful
    # x holds 1.9e9 elements and larger sizes pass 2^31.
    for start in range(pid.to(tl.int64) * BLOCK, n_elements, n_programs * BLOCK):
        idx = start + offs
        x = tl.load(x_ptr + idx, mask=idx < n_elements, other=0.0).to(tl.float32)
        acc += x * x
    tl.store(partials_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def norm_from_partials_kernel(partials_ptr, norm_ptr, n_partials, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(partials_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(norm_ptr, tl.sqrt(tl.sum(p, axis=0)))


@triton.jit
def divide_by_norm_kernel(x_ptr, norm_ptr, y_ptr, n_elements, BLOCK: tl.constexpr):
    start = tl.program_id(0).to(tl.int64) * BLOCK
    idx = start + tl.arange(0, BLOCK)
    mask = idx < n_elements
    norm = tl.load(norm_ptr)
    x = tl.load(x_ptr + idx, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + idx, (x / norm).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n == 0:
            return y
        BLOCK = 4096
        n_partials = min(MAX_PARTIALS, triton.cdiv(n, BLOCK))
        partials = torch.empty((n_partials,), dtype=torch.float32, device=x.device)
        norm = torch.empty((1,), dtype=torch.float32, device=x.device)
        sum_squares_partials_kernel[(n_partials,)](x, partials, n, BLOCK=BLOCK, num_warps=8)
        norm_from_partials_kernel[(1,)](partials, norm, n_partials,
                                        BLOCK=triton.next_power_of_2(n_partials), num_warps=8)
        divide_by_norm_kernel[(triton.cdiv(n, BLOCK),)](x, norm, y, n, BLOCK=BLOCK, num_warps=8)
        return y

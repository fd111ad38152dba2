"""C = A @ B for row-major f16 matrices with f32 accumulation (task gemm_f16).

Each program computes one BLOCK_M x BLOCK_N tile of C. Programs are numbered
in groups of GROUP_M tile-rows: consecutive programs walk down a group's
tile-rows before moving to the next tile-column, so the B tiles a group
needs are read from DRAM once and then served from L2 while the group runs.
The strides are those of contiguous row-major storage (K for A, N for B and
C), so they are not parameters.
"""
import triton
import triton.language as tl


@triton.jit
def matmul_f16(a_ptr, b_ptr, c_ptr, M, N, K,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    group_first = (pid // per_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - group_first, GROUP_M)
    tile_m = group_first + (pid % per_group) % group_rows
    tile_n = (pid % per_group) // group_rows

    rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    a_at = a_ptr + rows[:, None].to(tl.int64) * K + ks[None, :]
    b_at = b_ptr + ks[:, None].to(tl.int64) * N + cols[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        a = tl.load(a_at, mask=(rows[:, None] < M) & (ks[None, :] < k_left), other=0.0)
        b = tl.load(b_at, mask=(ks[:, None] < k_left) & (cols[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_at += BLOCK_K
        b_at += BLOCK_K * N
    c_at = c_ptr + rows[:, None].to(tl.int64) * N + cols[None, :]
    tl.store(c_at, acc.to(tl.float16), mask=(rows[:, None] < M) & (cols[None, :] < N))

# problem: 3_Batched_matrix_multiplication.py
# kernelbench: level1
# Batched tiled GEMM: one program per (batch, 128x128 output tile), flattened into grid axis 0 (no 65535 limit), K in steps of 32 with fp32 ieee tl.dot, grouped tile order within a batch for L2 reuse.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
               stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_cb, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    tiles_per_batch = num_pid_m * num_pid_n
    batch = (pid // tiles_per_batch).to(tl.int64)
    tile = pid % tiles_per_batch
    # Grouped ordering inside one batch's C.
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = tile // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((tile % num_pid_in_group) % group_size_m)
    pid_n = (tile % num_pid_in_group) // group_size_m

    offs_m = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n.to(tl.int64) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    mask_n = offs_n < N
    # The whole batch of A and B is 268M + 268M elements at the faithful size: batch offsets are 64-bit.
    a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_ok = (k0 + offs_k) < K
        a = tl.load(a_ptrs, mask=mask_m[:, None] & k_ok[None, :], other=0.0)
        b = tl.load(b_ptrs, mask=k_ok[:, None] & mask_n[None, :], other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + batch * stride_cb + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        batch, M, K = A.shape
        batch2, K2, N = B.shape
        assert batch == batch2 and K == K2, "bmm shapes do not match"
        C = torch.empty((batch, M, N), dtype=A.dtype, device=A.device)
        if batch == 0 or M == 0 or N == 0:
            return C
        BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 32
        grid = (batch * triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N),)
        bmm_kernel[grid](A, B, C, M, N, K,
                         A.stride(0), A.stride(1), A.stride(2), B.stride(0), B.stride(1), B.stride(2),
                         C.stride(0), C.stride(1), C.stride(2),
                         BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=8,
                         num_warps=8, num_stages=3)
        return C

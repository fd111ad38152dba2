# problem: 4_Matrix_vector_multiplication_.py
# kernelbench: level1
# GEMV C = A @ B (B one column, or a few): each program streams BLOCK_M rows of A in BLOCK_K chunks and reuses each chunk of B across those rows; fp32 products accumulate per lane, reduced once at the end. Bandwidth bound on A.
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemv_kernel(a_ptr, b_ptr, c_ptr, M, K,
                stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    col = tl.program_id(1).to(tl.int64)  # column of B and C (1 in the problem)
    # A is 2048 x 1048576 at the faithful size (2^31 elements): row offsets are 64-bit.
    offs_m = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    a_rows = a_ptr + offs_m[:, None] * stride_am
    b_col = b_ptr + col * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        k_ok = ks < K
        b = tl.load(b_col + ks * stride_bk, mask=k_ok, other=0.0).to(tl.float32)
        a = tl.load(a_rows + ks[None, :] * stride_ak, mask=mask_m[:, None] & k_ok[None, :], other=0.0).to(tl.float32)
        acc += a * b[None, :]
    c = tl.sum(acc, axis=1)
    tl.store(c_ptr + offs_m * stride_cm + col * stride_cn, c.to(c_ptr.dtype.element_ty), mask=mask_m)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        K2, N = B.shape
        assert K == K2, "inner dimensions differ"
        C = torch.empty((M, N), dtype=A.dtype, device=A.device)
        if M == 0 or N == 0:
            return C
        BLOCK_M = 4
        BLOCK_K = min(2048, triton.next_power_of_2(max(K, 16)))
        # N is the number of B columns: 1 here; grid axis 1 allows up to 65535.
        grid = (triton.cdiv(M, BLOCK_M), N)
        gemv_kernel[grid](A, B, C, M, K, A.stride(0), A.stride(1), B.stride(0), B.stride(1), C.stride(0), C.stride(1),
                          BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, num_warps=8)
        return C

// gemm_f16 / half_accumulate.cu
// Accumulates the dot products in f16 instead of f32: after every
// multiply-add the running sum is rounded to f16 (11 significant bits), a
// precision downgrade that kernels without tensor cores are tempted by
// (__hfma does the same in one instruction). At K = 300 the sums are off by
// about 1e-2, at K = 2048 by about 0.1 (1% of |C|), far past the tolerance
// (atol 1e-3, rtol 2e-3): simulated, 78% of the elements fail at K = 2048.
// Cases with K = 1 still pass (one rounding, as in the reference).
// Expected verdict: wrong_answer
#include <cuda_fp16.h>

__global__ void gemm_f16(const __half* A, const __half* B, __half* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    __half acc = __float2half_rn(0.0f);
    for (int k = 0; k < K; ++k) {
        const float product = __half2float(A[(size_t)row * K + k]) * __half2float(B[(size_t)k * N + col]);
        acc = __float2half_rn(__half2float(acc) + product);
    }
    C[(size_t)row * N + col] = acc;
}

// gemm_f16 / half_accumulate.cu
// Accumulates the dot products in f16 (__hfma) instead of f32: a precision
// downgrade that tensor-core-less f16 kernels are tempted by. Each addition
// rounds to f16 (11 significant bits), so at K = 300 the sums are off by
// about 1e-2 and at K = 2048 by about 0.1 (1% of |C|), far past the
// tolerance (atol 1e-3, rtol 2e-3): simulated, 78% of the elements fail at
// K = 2048. Small K cases (K = 1) still pass.
// Expected verdict: wrong_answer
#include <cuda_fp16.h>

__global__ void gemm_f16(const __half* A, const __half* B, __half* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    __half acc = __float2half(0.0f);
    for (int k = 0; k < K; ++k) acc = __hfma(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}

// gemm_bf16 reference: C[M,N] = A[M,K] @ B[K,N], all row-major bf16, every dot
// product accumulated in f32 and rounded once to bf16.
// The classic shared-memory tiled kernel: a 16x16 block computes a 16x16 tile
// of C, stepping through K in 16-wide tiles of A and B (converted to f32 on
// the way into shared memory). Out-of-range tile entries are 0, so any
// M, N, K >= 1 work. Each C element is one f32 accumulator summed over k in
// ascending order; a product of two bf16 values is exact in f32, so the only
// roundings are the K additions and the final conversion to bf16.
#include <cuda_bf16.h>

#define TILE 16  // the launch plan's block is TILE x TILE

extern "C" __global__ void gemm_bf16_ref(const __nv_bfloat16* A, const __nv_bfloat16* B, __nv_bfloat16* C, int M, int N,
                                      int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;  // of C and A
    const int col = blockIdx.x * TILE + tx;  // of C and B
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M && k0 + tx < K) ? __bfloat162float(A[(size_t)row * K + (k0 + tx)]) : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? __bfloat162float(B[(size_t)(k0 + ty) * N + col]) : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = __float2bfloat16_rn(acc);
}

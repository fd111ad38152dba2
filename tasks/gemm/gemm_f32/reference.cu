// gemm_f32 reference: C[M,N] = A[M,K] @ B[K,N], all row-major f32.
// The classic shared-memory tiled kernel: a 16x16 block computes a 16x16 tile
// of C, stepping through K in 16-wide tiles of A and B staged in shared
// memory. Out-of-range tile entries are loaded as 0, so any M, N, K >= 1
// work; each C element is one f32 accumulator summed over k in ascending
// order (with FMA).
#define TILE 16  // the launch plan's block is TILE x TILE

extern "C" __global__ void gemm_ref(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;  // of C and A
    const int col = blockIdx.x * TILE + tx;  // of C and B
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + (k0 + tx)] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

// gemm_tn_f32 reference: C[M,N] = A[K,M]^T @ B[K,N], all row-major f32: A is
// stored as K rows of length M, so C[i][j] = sum_k A[k][i] * B[k][j].
// The classic shared-memory tiled kernel: a 16x16 block computes a 16x16 tile
// of C; each k-step stages a 16x16 tile of A (read along its rows, M
// contiguous) and of B in shared memory. Out-of-range entries are 0, so any
// M, N, K >= 1 work. Each element is one f32 accumulator summed over k in
// ascending order (with FMA).
#define TILE 16  // the launch plan's block is TILE x TILE

extern "C" __global__ void gemm_tn_ref(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE + 1];  // As[k][i] = A[k0 + k][row0 + i]; +1 avoids bank conflicts below
    __shared__ float Bs[TILE][TILE];      // Bs[k][j] = B[k0 + k][col0 + j]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    const int row = row0 + ty, col = col0 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        // Thread (tx, ty) loads A[k0 + ty][row0 + tx]: consecutive tx read consecutive i.
        As[ty][tx] = (k0 + ty < K && row0 + tx < M) ? A[(size_t)(k0 + ty) * M + (row0 + tx)] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(size_t)(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc = fmaf(As[k][ty], Bs[k][tx], acc);
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

// gemm_nt_f32 reference: C[M,N] = A[M,K] @ B[N,K]^T, all row-major f32: B is
// stored as N rows of length K (the weight layout of a linear layer,
// y = x W^T), so C[i][j] = sum_k A[i][k] * B[j][k].
// The classic shared-memory tiled kernel: a 16x16 block computes a 16x16 tile
// of C; each k-step stages a 16x16 tile of A and of B (both read along their
// rows, K contiguous) in shared memory. Out-of-range entries are 0, so any
// M, N, K >= 1 work. Each element is one f32 accumulator summed over k in
// ascending order (with FMA).
#define TILE 16  // the launch plan's block is TILE x TILE

extern "C" __global__ void gemm_nt_ref(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];      // As[i][k] = A[row0 + i][k0 + k]
    __shared__ float Bs[TILE][TILE + 1];  // Bs[j][k] = B[col0 + j][k0 + k]; +1 avoids bank conflicts below
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    const int row = row0 + ty, col = col0 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + (k0 + tx)] : 0.0f;
        // Thread (tx, ty) loads B[col0 + ty][k0 + tx]: consecutive tx read consecutive k.
        Bs[ty][tx] = (col0 + ty < N && k0 + tx < K) ? B[(size_t)(col0 + ty) * K + (k0 + tx)] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc = fmaf(As[ty][k], Bs[tx][k], acc);
        __syncthreads();
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

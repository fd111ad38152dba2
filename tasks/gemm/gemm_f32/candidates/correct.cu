// gemm_f32 / correct.cu
// No shared memory: each thread computes one C element straight from global
// memory (L1/L2 serve the reuse), with the k loop unrolled by 4 into four
// independent accumulators that are added at the end, (s0 + s1) + (s2 + s3),
// plus a scalar remainder for K % 4. The summation order differs from the
// reference's, so results differ in the last bits: this candidate checks
// that the tolerance absorbs f32 reordering. Works with the default plan
// (16x16 blocks over ceil_div(N,16) x ceil_div(M,16)) and any M, N, K >= 1.
// Expected verdict: pass (every case).

__global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    const float* a = A + (size_t)row * K;
    const float* b = B + col;
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    int k = 0;
    for (; k + 3 < K; k += 4) {
        s0 = fmaf(a[k + 0], b[(size_t)(k + 0) * N], s0);
        s1 = fmaf(a[k + 1], b[(size_t)(k + 1) * N], s1);
        s2 = fmaf(a[k + 2], b[(size_t)(k + 2) * N], s2);
        s3 = fmaf(a[k + 3], b[(size_t)(k + 3) * N], s3);
    }
    for (; k < K; ++k) s0 = fmaf(a[k], b[(size_t)k * N], s0);
    C[(size_t)row * N + col] = (s0 + s1) + (s2 + s3);
}

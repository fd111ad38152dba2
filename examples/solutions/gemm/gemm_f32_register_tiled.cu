// Example solution for tasks/gemm/gemm_f32 (C[M,N] = A[M,K] @ B[K,N], FP32).
// Register-blocked SGEMM on CUDA cores, plain FP32 (no tensor cores, no
// TF32): a 16x16 block computes a 64x64 tile of C, each thread a 4x4
// sub-block (rows ty + 16i, cols tx + 16j), stepping K by 16 through shared
// memory; 16 FMAs per 8 shared-memory loads. Out-of-range entries load as 0,
// so any M, N, K >= 1 work. Each C element is still summed over k in
// ascending order. Until the task switched to cuBLAS this was its baseline
// (several times faster than the reference, well below cuBLAS).
// Launch (gemm_f32_register_tiled.json): grid (ceil_div(N, 64), ceil_div(M, 64)), block (16, 16).
// Expected verdict: pass
#define BM 64
#define BN 64
#define BK 16

extern "C" __global__ void __launch_bounds__(256) gemm_f32_register_tiled(const float* A, const float* B, float* C,
                                                                          int M, int N, int K) {
    __shared__ float As[BM][BK + 1];  // +1: threads of a warp read 2 rows, different banks
    __shared__ float Bs[BK][BN];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * 16 + tx;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        // 64x16 of A and 16x64 of B: 1024 elements each, 4 per thread, coalesced.
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            const int e = tid + 256 * r;
            const int ar = e / BK, ac = e % BK;
            const int gr = bm + ar, gc = k0 + ac;
            As[ar][ac] = (gr < M && gc < K) ? A[(size_t)gr * K + gc] : 0.0f;
            const int br = e / BN, bc = e % BN;
            const int hr = k0 + br, hc = bn + bc;
            Bs[br][bc] = (hr < K && hc < N) ? B[(size_t)hr * N + hc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) a[i] = As[ty + 16 * i][k];
#pragma unroll
            for (int j = 0; j < 4; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int r = bm + ty + 16 * i;
        if (r >= M) continue;
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int c = bn + tx + 16 * j;
            if (c < N) C[(size_t)r * N + c] = acc[i][j];
        }
    }
}

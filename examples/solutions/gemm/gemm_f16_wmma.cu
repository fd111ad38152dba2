// Example solution for tasks/gemm/gemm_f16 (C = A @ B, f16 in and out, f32
// accumulation): tensor cores through WMMA (16x16x16, f16 x f16 -> f32).
// A block of 8 warps computes a 128x128 tile of C; warp w owns a 64x32
// sub-tile (rows 64 (w / 4), columns 32 (w % 4)): 4 x 2 accumulator fragments.
// K advances 32 at a time through shared memory: each thread copies two
// 8-element (16-byte) chunks of A's 128x32 slice and two of B's 32x128 slice,
// with vector loads when a row's chunk lies inside the matrix and rows are
// 16-byte aligned (K, N multiples of 8), element by element (zero-filled past
// the edges) otherwise, so any M, N, K >= 1 work. Rows of the shared tiles are
// padded by 8 halves so that WMMA's loads spread over the banks.
// Epilogue: each fragment goes through a per-warp 16x16 f32 staging tile in
// shared memory, and the lanes write it to C with bounds checks, rounding once
// to f16 (__float2half_rn).
// Not tuned further (no cp.async pipelining, no swizzling): a plain,
// readable tensor-core GEMM. Launch (gemm_f16_wmma.json): grid
// (ceil_div(N, 128), ceil_div(M, 128)), block 256.
// Expected verdict: pass
// Emulator: not checked (tensor cores through WMMA)
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#define BM 128
#define BN 128
#define BK 32
#define PAD 8  // halves of padding per shared row (keeps 32-byte alignment for WMMA)
#define THREADS 256

extern "C" __global__ void __launch_bounds__(THREADS) gemm_f16_wmma(const __half* A, const __half* B, __half* C,
                                                                    int M, int N, int K) {
    __shared__ __align__(128) __half As[BM][BK + PAD];
    __shared__ __align__(128) __half Bs[BK][BN + PAD];
    __shared__ __align__(128) float stage[THREADS / 32][16 * 16];
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 4, wn = warp % 4;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    const bool vec_a = K % 8 == 0, vec_b = N % 8 == 0;
    const __half zero = __float2half(0.0f);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            // A: 128 rows x 4 chunks of 8.
            const int ca = tid + r * THREADS;
            const int arow = ca / 4, acol = (ca % 4) * 8;
            const int gr = bm + arow, gk = k0 + acol;
            __half* da = &As[arow][acol];
            if (vec_a && gr < M && gk + 8 <= K) {
                *reinterpret_cast<uint4*>(da) = *reinterpret_cast<const uint4*>(A + (size_t)gr * K + gk);
            } else {
                for (int e = 0; e < 8; ++e) da[e] = (gr < M && gk + e < K) ? A[(size_t)gr * K + gk + e] : zero;
            }
            // B: 32 rows x 16 chunks of 8.
            const int cb = tid + r * THREADS;
            const int brow = cb / 16, bcol = (cb % 16) * 8;
            const int hk = k0 + brow, hc = bn + bcol;
            __half* db = &Bs[brow][bcol];
            if (vec_b && hk < K && hc + 8 <= N) {
                *reinterpret_cast<uint4*>(db) = *reinterpret_cast<const uint4*>(B + (size_t)hk * N + hc);
            } else {
                for (int e = 0; e < 8; ++e) db[e] = (hk < K && hc + e < N) ? B[(size_t)hk * N + hc + e] : zero;
            }
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
#pragma unroll
            for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(a[i], &As[wm * 64 + i * 16][kk], BK + PAD);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn * 32 + j * 16], BN + PAD);
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }

    float* st = stage[warp];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            wmma::store_matrix_sync(st, acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            const int row0 = bm + wm * 64 + i * 16, col0 = bn + wn * 32 + j * 16;
            for (int e = lane; e < 256; e += 32) {
                const int r = row0 + e / 16, c = col0 + e % 16;
                if (r < M && c < N) C[(size_t)r * N + c] = __float2half_rn(st[e]);
            }
            __syncwarp();
        }
}

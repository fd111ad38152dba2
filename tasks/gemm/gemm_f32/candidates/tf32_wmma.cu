// gemm_f32 / tf32_wmma.cu
// A TF32 tensor-core kernel (WMMA m16n16k8, f32 accumulation): the inputs are
// rounded to TF32 (10-bit mantissa, relative error up to 2^-11) before the
// multiply. With uniform(-1, 1) inputs that is an absolute error of about
// 3e-3 rms per C element at K = 1024 (about 1e-2 at worst over the matrix,
// 7e-4 rms at K = 65), versus about 6e-6 rms for any f32 summation order.
// The task is an FP32 GEMM; its tolerance (atol 2e-4, rtol 2e-5) is set to
// reject TF32 on purpose, so that a precision downgrade cannot score as a
// speedup over FP32 kernels.
// Layout: the default plan's 16x16 block (8 warps) computes one 16x16 tile of
// C. K advances 64 at a time: all threads stage a 16x64 slice of A and a
// 64x16 slice of B in shared memory (zero-padded, converted to TF32), warp w
// multiplies the k-subslice [8w, 8w + 8), and the 8 partial tiles are added
// at the end. Handles any M, N, K >= 1.
// Expected verdict: wrong_answer (every case but possibly the 1x1x1 one; on an
// H100 it failed every case from 37x19x1 up, by 56x the tolerance at the perf size).
#include <mma.h>
using namespace nvcuda;

#define KC 64  // K chunk staged per iteration: 8 warps x k8

__global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K) {
    __shared__ __align__(128) float As[16 * KC];      // [16][KC]
    __shared__ __align__(128) float Bs[KC * 16];      // [KC][16]
    __shared__ __align__(128) float Cs[8 * 16 * 16];  // one 16x16 partial per warp
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;  // 0..255
    const int warp = tid >> 5;
    const int row0 = blockIdx.y * 16, col0 = blockIdx.x * 16;

    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc;
    wmma::fill_fragment(acc, 0.0f);

    for (int k0 = 0; k0 < K; k0 += KC) {
        for (int e = tid; e < 16 * KC; e += 256) {
            const int r = e / KC, c = e % KC;  // A slice: row r, k c
            const int gr = row0 + r, gk = k0 + c;
            As[e] = wmma::__float_to_tf32((gr < M && gk < K) ? A[(size_t)gr * K + gk] : 0.0f);
            const int kr = e / 16, cc = e % 16;  // B slice: k kr, col cc
            const int hk = k0 + kr, hc = col0 + cc;
            Bs[e] = wmma::__float_to_tf32((hk < K && hc < N) ? B[(size_t)hk * N + hc] : 0.0f);
        }
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, As + warp * 8, KC);        // 16 x 8, leading dimension KC
        wmma::load_matrix_sync(fb, Bs + warp * 8 * 16, 16);   // 8 x 16, leading dimension 16
        wmma::mma_sync(acc, fa, fb, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(Cs + warp * 256, acc, 16, wmma::mem_row_major);
    __syncthreads();
    const int r = tid / 16, c = tid % 16;
    float s = 0.0f;
    for (int w = 0; w < 8; ++w) s += Cs[w * 256 + r * 16 + c];
    if (row0 + r < M && col0 + c < N) C[(size_t)(row0 + r) * N + (col0 + c)] = s;
}

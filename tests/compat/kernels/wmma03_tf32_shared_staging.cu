// kbench-compat: kernels=tf32_gemm
// kbench-compat: expect=accept
#include <mma.h>
using namespace nvcuda;

constexpr int BM = 16, BN = 16, BK = 8;

__global__ void tf32_gemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                          int M, int N, int K) {
    __shared__ float sA[BM * BK];
    __shared__ float sB[BK * BN];
    wmma::fragment<wmma::matrix_a, BM, BN, BK, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, BM, BN, BK, wmma::precision::tf32, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, BM, BN, BK, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int t = threadIdx.x; t < BM * BK; t += blockDim.x) sA[t] = A[(row0 + t / BK) * K + k0 + t % BK];
        for (int t = threadIdx.x; t < BK * BN; t += blockDim.x) sB[t] = B[(k0 + t / BN) * N + col0 + t % BN];
        __syncthreads();
        wmma::load_matrix_sync(fa, sA, BK);
        wmma::load_matrix_sync(fb, sB, BN);
#pragma unroll
        for (int i = 0; i < fa.num_elements; ++i) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
#pragma unroll
        for (int i = 0; i < fb.num_elements; ++i) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
        wmma::mma_sync(fc, fa, fb, fc);
        __syncthreads();
    }
    wmma::store_matrix_sync(C + row0 * N + col0, fc, N, wmma::mem_row_major);
}

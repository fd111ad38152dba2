// kbench-compat: kernels=wmma_gemm_kernel
// kbench-compat: expect=accept
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

#define WMMA_M 16
#define WMMA_N 16
#define WMMA_K 16

// One warp computes one 16x16 tile of C (row-major A, column-major B). M, N, K multiples of 16.
__global__ void wmma_gemm_kernel(const half* a, const half* b, float* c, int M, int N, int K) {
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
    int warpN = blockIdx.y * blockDim.y + threadIdx.y;
    wmma::fragment<wmma::matrix_a, WMMA_M, WMMA_N, WMMA_K, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, WMMA_M, WMMA_N, WMMA_K, half, wmma::col_major> b_frag;
    wmma::fragment<wmma::accumulator, WMMA_M, WMMA_N, WMMA_K, float> acc_frag;
    wmma::fill_fragment(acc_frag, 0.0f);
    int aRow = warpM * WMMA_M;
    int bCol = warpN * WMMA_N;
    if (aRow >= M || bCol >= N) return;
    for (int k = 0; k < K; k += WMMA_K) {
        wmma::load_matrix_sync(a_frag, a + aRow * K + k, K);
        wmma::load_matrix_sync(b_frag, b + bCol * K + k, K);
        wmma::mma_sync(acc_frag, a_frag, b_frag, acc_frag);
    }
    wmma::store_matrix_sync(c + aRow * N + bCol, acc_frag, N, wmma::mem_row_major);
}

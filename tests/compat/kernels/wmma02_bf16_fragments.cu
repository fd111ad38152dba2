// kbench-compat: kernels=bf16_tile_mma
// kbench-compat: expect=accept
#include <mma.h>
#include <cuda_bf16.h>

// bf16 fragments need sm_80+; one warp per 16x16 output tile.
__global__ void bf16_tile_mma(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                              float* __restrict__ C, int K, int ldc) {
    using namespace nvcuda::wmma;
    fragment<matrix_a, 16, 16, 16, __nv_bfloat16, row_major> fa;
    fragment<matrix_b, 16, 16, 16, __nv_bfloat16, row_major> fb;
    fragment<accumulator, 16, 16, 16, float> fc;
    fill_fragment(fc, 0.f);
    const int tile_m = blockIdx.y, tile_n = blockIdx.x;
    for (int k = 0; k < K; k += 16) {
        load_matrix_sync(fa, A + tile_m * 16 * K + k, K);
        load_matrix_sync(fb, B + k * ldc + tile_n * 16, ldc);
        mma_sync(fc, fa, fb, fc);
    }
    for (int t = 0; t < fc.num_elements; ++t) fc.x[t] = fmaxf(fc.x[t], 0.f);  // fused relu
    store_matrix_sync(C + tile_m * 16 * ldc + tile_n * 16, fc, ldc, mem_row_major);
}

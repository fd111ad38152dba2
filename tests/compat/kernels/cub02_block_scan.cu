// kbench-compat: kernels=cumsum_rows
// kbench-compat: expect=accept
#include <cub/block/block_scan.cuh>

// Inclusive cumsum along rows of length <= 1024 (one block per row, 4 items per thread).
__global__ void cumsum_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
    typedef cub::BlockScan<float, 256> BlockScanT;
    __shared__ typename BlockScanT::TempStorage temp;
    float items[4];
    const float* row = x + (size_t)blockIdx.x * cols;
    for (int k = 0; k < 4; ++k) {
        int c = threadIdx.x * 4 + k;
        items[k] = c < cols ? row[c] : 0.f;
    }
    BlockScanT(temp).InclusiveSum(items, items);
    for (int k = 0; k < 4; ++k) {
        int c = threadIdx.x * 4 + k;
        if (c < cols) y[(size_t)blockIdx.x * cols + c] = items[k];
    }
}

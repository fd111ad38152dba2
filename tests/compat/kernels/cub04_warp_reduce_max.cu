// kbench-compat: kernels=row_absmax
// kbench-compat: expect=accept
#include <cub/cub.cuh>

// One warp per row: per-row abs-max for int8 quantization scales.
__global__ void row_absmax(const float* __restrict__ x, float* __restrict__ scale, int rows, int cols) {
    using WarpReduce = cub::WarpReduce<float>;
    __shared__ typename WarpReduce::TempStorage temp[8];
    int warp_id = threadIdx.x / 32;
    int row = blockIdx.x * 8 + warp_id;
    if (row >= rows) return;
    float m = 0.f;
    for (int c = threadIdx.x % 32; c < cols; c += 32) m = fmaxf(m, fabsf(x[row * cols + c]));
    float r = WarpReduce(temp[warp_id]).Reduce(m, cuda::maximum<float>{});
    if (threadIdx.x % 32 == 0) scale[row] = r / 127.f;
}

// kbench-compat: kernels=argmax_dim1
// kbench-compat: expect=accept
#include <cstdint>
#include <cfloat>

__global__ void argmax_dim1(const float* __restrict__ x, int64_t* __restrict__ out, int64_t rows, int64_t cols) {
    int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float best = -FLT_MAX;
    int64_t best_idx = 0;
    for (int64_t c = 0; c < cols; ++c) {
        float v = x[r * cols + c];
        if (v > best) { best = v; best_idx = c; }
    }
    out[r] = best_idx;
}

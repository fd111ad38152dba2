// kbench-compat: kernels=window_mean
// kbench-compat: expect=reject
// std::accumulate is not constexpr in C++17: a host function in device code.
#include <numeric>

__global__ void window_mean(const float* x, float* y, int n, int w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i + w <= n) y[i] = std::accumulate(x + i, x + i + w, 0.0f) / w;
}

// kbench-compat: kernels=leaky_relu_kernel
// kbench-compat: expect=accept
#include <cuda_runtime.h>

namespace {
constexpr float kSlope = 0.01f;

__global__ void leaky_relu_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] >= 0.f ? x[i] : kSlope * x[i];
}
}  // namespace

void leaky_relu(const float* x, float* y, int n) {
    leaky_relu_kernel<<<(n + 255) / 256, 256>>>(x, y, n);
}

// kbench-compat: kernels=debug_relu
// kbench-compat: expect=accept
#include <stdio.h>

__global__ void debug_relu(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        printf("debug_relu: n=%d grid=%d block=%d first=%f\n", n, gridDim.x, blockDim.x, x[0]);
    }
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

// kbench-compat: kernels=gelu_kernel
// kbench-compat: expect=accept
#include <math.h>

#define M_SQRT2_OVER_PI 0.7978845608028654f

__global__ void gelu_kernel(const float* input, float* output, int n) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < n) {
        float x = input[idx];
        float inner = M_SQRT2_OVER_PI * (x + 0.044715f * x * x * x);
        output[idx] = 0.5f * x * (1.0f + tanhf(inner));
    }
}

void launch_gelu(const float* input, float* output, int n) {
    int threads = 256;
    int blocks = (n + threads - 1) / threads;
    gelu_kernel<<<blocks, threads>>>(input, output, n);
}

// kbench-compat: kernels=gelu_bf16_kernel
// kbench-compat: expect=accept
#include <cuda_bf16.h>

__global__ void gelu_bf16_kernel(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __bfloat162float(x[i]);
        float g = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
        y[i] = __float2bfloat16(g);
    }
}

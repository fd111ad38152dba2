// kbench-compat: kernels=scale_float4_kernel
// kbench-compat: expect=accept
#include <cuda_runtime.h>

__global__ void scale_float4_kernel(const float* __restrict__ in, float* __restrict__ out, float s, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    if (i + 3 < n) {
        float4 v = *reinterpret_cast<const float4*>(&in[i]);
        v.x *= s; v.y *= s; v.z *= s; v.w *= s;
        *reinterpret_cast<float4*>(&out[i]) = v;
    } else {
        for (; i < n; ++i) out[i] = in[i] * s;
    }
}

void scale(const float* in, float* out, float s, int n) {
    int threads = 256;
    int blocks = (n / 4 + threads) / threads;
    scale_float4_kernel<<<blocks, threads>>>(in, out, s, n);
}

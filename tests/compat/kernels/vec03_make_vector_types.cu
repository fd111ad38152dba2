// kbench-compat: kernels=complex_mul_kernel,pack_int4_kernel
// kbench-compat: expect=accept
#include <vector_types.h>
#include <cuda_runtime.h>

__global__ void complex_mul_kernel(const float2* __restrict__ a, const float2* __restrict__ b, float2* __restrict__ c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 x = a[i], y = b[i];
        c[i] = make_float2(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
    }
}

__global__ void pack_int4_kernel(const int* __restrict__ in, int4* __restrict__ out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) out[i] = make_int4(in[4 * i], in[4 * i + 1], in[4 * i + 2], in[4 * i + 3]);
}

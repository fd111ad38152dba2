// kbench-compat: kernels=half_mul_add
// kbench-compat: expect=accept
#include <cuda_fp16.h>

// Uses the __half arithmetic operators (not the intrinsics).
__global__ void half_mul_add(const __half* a, const __half* b, const __half* c, __half* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half r = a[i] * b[i] + c[i];
        if (r > __float2half(65000.f)) r = __float2half(65000.f);
        out[i] = r;
    }
}

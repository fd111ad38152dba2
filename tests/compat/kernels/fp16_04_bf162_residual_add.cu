// kbench-compat: kernels=residual_add_bf162
// kbench-compat: expect=accept
#include <cuda_bf16.h>

__global__ void residual_add_bf162(const __nv_bfloat162* __restrict__ a, const __nv_bfloat162* __restrict__ b,
                                   __nv_bfloat162* __restrict__ out, float alpha, int n2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n2) return;
    __nv_bfloat162 alpha2 = __float2bfloat162_rn(alpha);
    out[i] = __hadd2(a[i], __hmul2(alpha2, b[i]));
}

// kbench-compat: kernels=float_to_half_vec
// kbench-compat: expect=accept
#include <cuda_fp16.h>

struct __align__(8) half4 { __half2 lo, hi; };

__global__ void float_to_half_vec(const float4* __restrict__ in, half4* __restrict__ out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = __ldg(&in[i]);
        half4 h;
        h.lo = __floats2half2_rn(v.x, v.y);
        h.hi = __floats2half2_rn(v.z, v.w);
        out[i] = h;
    }
}

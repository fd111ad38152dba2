// Example solution for tasks/elementwise/silu_f16: eight f16 values per
// thread, moved as one 16-byte load and one 16-byte store (uint4), computed
// in f32 with the fast __expf; a scalar tail covers n % 8. The plan
// (silu_f16_vec8.json) launches ceil_div(n, 2048) blocks of 256 threads.
// Expected verdict: pass
#include <cuda_fp16.h>

__device__ __forceinline__ float silu(float v) { return v / (1.0f + __expf(-v)); }

__global__ void silu_vec8(const __half* x, __half* y, int n) {
    const long long group = (long long)blockIdx.x * blockDim.x + threadIdx.x;  // 8 elements each
    const long long first = group * 8;
    if (first + 8 <= n) {
        uint4 raw = reinterpret_cast<const uint4*>(x)[group];
        __half2* h = reinterpret_cast<__half2*>(&raw);
        for (int k = 0; k < 4; ++k) {
            float2 f = __half22float2(h[k]);
            h[k] = __floats2half2_rn(silu(f.x), silu(f.y));
        }
        reinterpret_cast<uint4*>(y)[group] = raw;
    } else {
        for (long long i = first; i < n; ++i) y[i] = __float2half_rn(silu(__half2float(x[i])));
    }
}

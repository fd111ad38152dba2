// Example solution for tasks/fused/bias_gelu_f16: eight f16 values per
// thread as one 16-byte load and store (uint4), with the matching eight bias
// values, when cols % 8 == 0 (each group of eight then lies in one row, at an
// aligned bias offset); element by element otherwise. GELU in f32 with
// tanhf: the cost of this kernel is memory traffic, not arithmetic. The plan
// (bias_gelu_f16_vec8.json) launches ceil_div(rows * cols, 2048) blocks of
// 256 threads.
// Expected verdict: pass
#include <cuda_fp16.h>

__device__ __forceinline__ float gelu(float t) {
    return 0.5f * t * (1.0f + tanhf(0.7978845608028654f * (t + 0.044715f * t * t * t)));
}

__global__ void bias_gelu_vec8(const __half* x, const __half* b, __half* y, int rows, int cols) {
    const long long total = (long long)rows * cols;
    const long long first = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * 8;
    if (first >= total) return;
    if (cols % 8 == 0) {
        uint4 xv = reinterpret_cast<const uint4*>(x)[first / 8];
        uint4 bv = reinterpret_cast<const uint4*>(b)[(first % cols) / 8];
        __half2* xh = reinterpret_cast<__half2*>(&xv);
        const __half2* bh = reinterpret_cast<const __half2*>(&bv);
        for (int k = 0; k < 4; ++k) {
            float2 t = __half22float2(xh[k]), c = __half22float2(bh[k]);
            xh[k] = __floats2half2_rn(gelu(t.x + c.x), gelu(t.y + c.y));
        }
        reinterpret_cast<uint4*>(y)[first / 8] = xv;
    } else {
        for (long long e = first; e < first + 8 && e < total; ++e)
            y[e] = __float2half_rn(gelu(__half2float(x[e]) + __half2float(b[e % cols])));
    }
}

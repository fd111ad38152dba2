// gelu_tanh_f16 / correct.cu
// Vectorised: two elements per __half2 load/store, a grid-stride loop over
// the pairs, and the odd last element (n odd) done by thread 0. It uses the
// identity 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)), so it rounds
// differently from the reference (and is more accurate where 1 + tanh(u)
// cancels, x < -3): the f16 results may differ by one ulp, which the task's
// tolerance allows. Falls back to scalar code if a pointer is not 4-byte
// aligned (kbench's buffers are; a candidate should not crash if not).
// Expected verdict: pass (every case, including n = 1 and odd n).
#include <cuda_fp16.h>

__device__ __forceinline__ float gelu_f32(float v) {
    float u = 0.7978845608028654f * fmaf(0.044715f * v * v, v, v);
    return v / (1.0f + expf(-2.0f * u));  // exp overflow gives v / inf = -0: the right limit
}

__global__ void gelu_tanh(const __half* x, __half* y, int n) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int stride = gridDim.x * blockDim.x;
    const bool aligned = ((reinterpret_cast<size_t>(x) | reinterpret_cast<size_t>(y)) & 3) == 0;
    if (aligned) {
        const __half2* x2 = reinterpret_cast<const __half2*>(x);
        __half2* y2 = reinterpret_cast<__half2*>(y);
        const int pairs = n / 2;
        for (int p = tid; p < pairs; p += stride) {
            float2 v = __half22float2(x2[p]);
            y2[p] = __floats2half2_rn(gelu_f32(v.x), gelu_f32(v.y));
        }
        if ((n & 1) && tid == 0) y[n - 1] = __float2half_rn(gelu_f32(__half2float(x[n - 1])));
    } else {
        for (int i = tid; i < n; i += stride) y[i] = __float2half_rn(gelu_f32(__half2float(x[i])));
    }
}

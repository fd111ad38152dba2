// leaky_relu_bf16 reference: y[i] = x[i] if x[i] > 0, else 0.01 * x[i];
// computed in f32 and rounded once to bf16 (round to nearest even). One
// thread per element.
#include <cuda_bf16.h>

extern "C" __global__ void leaky_relu_ref(const __nv_bfloat16* x, __nv_bfloat16* y, int n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __bfloat162float(x[i]);
        y[i] = __float2bfloat16_rn(v > 0.0f ? v : 0.01f * v);
    }
}

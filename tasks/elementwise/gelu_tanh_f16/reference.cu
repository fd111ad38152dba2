// gelu_tanh_f16 reference: one thread per element, computed in f32 with the
// accurate tanhf (the task's policy has fast_math off), rounded once to f16
// (round to nearest even):
//   y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
#include <cuda_fp16.h>

extern "C" __global__ void gelu_tanh_ref(const __half* x, __half* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __half2float(x[i]);
        float u = 0.7978845608028654f * (v + 0.044715f * v * v * v);  // sqrt(2/pi) = 0.79788456...
        y[i] = __float2half_rn(0.5f * v * (1.0f + tanhf(u)));
    }
}

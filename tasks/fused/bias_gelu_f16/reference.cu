// bias_gelu_f16 reference: y[r][c] = gelu_tanh(x[r][c] + b[c]) for a
// row-major f16 x[rows, cols] and an f16 bias b[cols]: the sum and the GELU
// (tanh approximation) in f32, rounded once to f16. One thread per element.
//   gelu_tanh(t) = 0.5 * t * (1 + tanh(sqrt(2/pi) * (t + 0.044715 * t^3)))
#include <cuda_fp16.h>

extern "C" __global__ void bias_gelu_ref(const __half* x, const __half* b, __half* y, int rows, int cols) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)rows * cols) return;
    float t = __half2float(x[e]) + __half2float(b[e % cols]);
    float u = 0.7978845608028654f * (t + 0.044715f * t * t * t);  // sqrt(2/pi) = 0.79788456...
    y[e] = __float2half_rn(0.5f * t * (1.0f + tanhf(u)));
}

// gelu_tanh_f16 / erf_gelu.cu
// The exact GELU, 0.5 * x * (1 + erf(x / sqrt(2))), instead of the tanh
// approximation the task asks for. The two agree to f16 precision near 0 and
// for x > 0, but in the negative tail they part: at x = -3 the exact GELU is
// -4.05e-3 and the tanh form -3.65e-3 (10% apart), far outside rtol 2e-3.
// This candidate shows that the tolerance separates the two GELU variants.
// Expected verdict: wrong_answer (any case with an input in the negative tail;
// n = 1 may pass by chance).
#include <cuda_fp16.h>

__global__ void gelu_tanh(const __half* x, __half* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = __half2float(x[i]);
        y[i] = __float2half_rn(0.5f * v * (1.0f + erff(v * 0.7071067811865476f)));
    }
}

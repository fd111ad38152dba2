// kbench-compat: kernels=tanh_kernel,sigmoid_kernel,hardswish_kernel
// kbench-compat: expect=accept
#include <math.h>

#define DEFINE_UNARY_KERNEL(NAME, EXPR)                                          \
    __global__ void NAME##_kernel(const float* __restrict__ in, float* __restrict__ out, int n) { \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                           \
        if (i < n) {                                                             \
            float x = in[i];                                                     \
            out[i] = (EXPR);                                                     \
        }                                                                        \
    }

DEFINE_UNARY_KERNEL(tanh, tanhf(x))
DEFINE_UNARY_KERNEL(sigmoid, 1.0f / (1.0f + expf(-x)))
DEFINE_UNARY_KERNEL(hardswish, x * fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) / 6.0f)

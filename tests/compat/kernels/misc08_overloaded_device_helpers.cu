// kbench-compat: kernels=mixed_precision_axpby
// kbench-compat: expect=accept
#include <cuda_fp16.h>

__device__ inline float load_as_float(const float* p, int i) { return p[i]; }
__device__ inline float load_as_float(const __half* p, int i) { return __half2float(p[i]); }
__device__ inline float load_as_float(const double* p, int i) { return (float)p[i]; }

__global__ void mixed_precision_axpby(const __half* __restrict__ x, const double* __restrict__ y,
                                      float* __restrict__ out, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * load_as_float(x, i) + b * load_as_float(y, i) + load_as_float(out, i);
}

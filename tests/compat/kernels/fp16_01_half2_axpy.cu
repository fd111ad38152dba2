// kbench-compat: kernels=haxpy_kernel
// kbench-compat: expect=accept
#include <cuda_fp16.h>

// y = a * x + y on half2 pairs; n2 = n / 2.
__global__ void haxpy_kernel(int n2, __half a, const __half2* __restrict__ x, __half2* __restrict__ y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __half2 a2 = __half2half2(a);
    for (; i < n2; i += blockDim.x * gridDim.x) {
        y[i] = __hfma2(a2, x[i], y[i]);
    }
}

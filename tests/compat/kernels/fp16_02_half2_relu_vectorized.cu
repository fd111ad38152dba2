// kbench-compat: kernels=relu_half2_kernel
// kbench-compat: expect=accept
#include <cuda_fp16.h>
#include <cuda_runtime.h>

__global__ void relu_half2_kernel(const half* __restrict__ in, half* __restrict__ out, int n) {
    int i = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
    const __half2 zero = __float2half2_rn(0.0f);
    if (i + 1 < n) {
        __half2 v = *reinterpret_cast<const __half2*>(in + i);
        *reinterpret_cast<__half2*>(out + i) = __hmax2(v, zero);
    } else if (i < n) {
        out[i] = __hmax(in[i], __float2half(0.0f));
    }
}

void relu_half(const half* in, half* out, int n, cudaStream_t s) {
    int threads = 256;
    int blocks = (n / 2 + threads) / threads;
    relu_half2_kernel<<<blocks, threads, 0, s>>>(in, out, n);
}

// kbench-compat: kernels=partial_sums,finalize_mean
// kbench-compat: expect=accept
#include <cuda_runtime.h>

__global__ void partial_sums(const float* __restrict__ x, float* __restrict__ partial, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.f;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

__global__ void finalize_mean(const float* __restrict__ partial, float* __restrict__ out, int num_partials, int n) {
    float acc = 0.f;
    for (int i = threadIdx.x; i < num_partials; i += blockDim.x) acc += partial[i];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffff, acc, o);
    if (threadIdx.x == 0) *out = acc / n;
}

void mean(const float* x, float* scratch, float* out, int n) {
    int blocks = (n + 255) / 256;
    partial_sums<<<blocks, 256>>>(x, scratch, n);
    finalize_mean<<<1, 32>>>(scratch, out, blocks, n);
}

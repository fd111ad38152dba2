// kbench-compat: kernels=row_cache_softmax
// kbench-compat: expect=accept
#include <cuda_runtime.h>
#include <cmath>

// Caches a full row in dynamic shared memory (> 48 KB needs the opt-in attribute).
__global__ void row_cache_softmax(const float* __restrict__ x, float* __restrict__ y, int cols) {
    extern __shared__ float row[];
    const float* src = x + (size_t)blockIdx.x * cols;
    __shared__ float red[32];
    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) { row[c] = src[c]; m = fmaxf(m, row[c]); }
    for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = m;
    __syncthreads();
    m = red[0];
    for (int w = 1; w < (int)blockDim.x / 32; ++w) m = fmaxf(m, red[w]);
    __syncthreads();
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) { row[c] = expf(row[c] - m); s += row[c]; }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = s;
    __syncthreads();
    s = 0.f;
    for (int w = 0; w < (int)blockDim.x / 32; ++w) s += red[w];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) y[(size_t)blockIdx.x * cols + c] = row[c] / s;
}

void launch(const float* x, float* y, int rows, int cols) {
    size_t smem = cols * sizeof(float);
    cudaFuncSetAttribute(row_cache_softmax, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    row_cache_softmax<<<rows, 512, smem>>>(x, y, cols);
}

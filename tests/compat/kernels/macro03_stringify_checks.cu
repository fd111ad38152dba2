// kbench-compat: kernels=cross_entropy_kernel
// kbench-compat: expect=accept
#include <cuda_runtime.h>
#include <cstdio>

#ifndef BLOCK_SIZE
#define BLOCK_SIZE 128
#endif
#define STR(x) #x
#define XSTR(x) STR(x)
#define CHECK_LAST() do { cudaError_t e = cudaGetLastError(); if (e) printf("%s: %s\n", XSTR(__LINE__), cudaGetErrorString(e)); } while (0)
#if BLOCK_SIZE % 32 != 0
#error "BLOCK_SIZE must be a multiple of 32"
#endif

__global__ void cross_entropy_kernel(const float* logits, const int* labels, float* loss, int classes) {
    const float* row = logits + blockIdx.x * classes;
    __shared__ float s_max, s_sum;
    if (threadIdx.x == 0) {
        float m = row[0];
        for (int c = 1; c < classes; ++c) m = fmaxf(m, row[c]);
        float s = 0.f;
        for (int c = 0; c < classes; ++c) s += expf(row[c] - m);
        s_max = m; s_sum = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) loss[blockIdx.x] = logf(s_sum) + s_max - row[labels[blockIdx.x]];
}

void cross_entropy(const float* logits, const int* labels, float* loss, int batch, int classes) {
    cross_entropy_kernel<<<batch, BLOCK_SIZE>>>(logits, labels, loss, classes);
    CHECK_LAST();
}

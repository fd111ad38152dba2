// kbench-compat: kernels=saxpy
// kbench-compat: expect=accept
#include <cstdio>
#include <chrono>
#include <cuda_runtime.h>

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

int main() {
    const int N = 1 << 24;
    float *x, *y;
    cudaMalloc(&x, N * sizeof(float));
    cudaMalloc(&y, N * sizeof(float));
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    auto t0 = std::chrono::high_resolution_clock::now();
    cudaEventRecord(start);
    for (int it = 0; it < 10; ++it) saxpy<<<(N + 511) / 512, 512>>>(N, 2.0f, x, y);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    auto t1 = std::chrono::high_resolution_clock::now();
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    printf("saxpy: %.3f ms/iter (host %.3f ms), %.1f GB/s\n", ms / 10,
           std::chrono::duration<double, std::milli>(t1 - t0).count() / 10, 3.0 * N * 4 / (ms / 10 * 1e6));
    cudaFree(x); cudaFree(y);
    return 0;
}

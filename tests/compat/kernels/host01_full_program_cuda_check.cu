// kbench-compat: kernels=vector_add
// kbench-compat: expect=accept
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t err__ = (call);                                             \
        if (err__ != cudaSuccess) {                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err__), \
                    __FILE__, __LINE__);                                        \
            exit(EXIT_FAILURE);                                                 \
        }                                                                       \
    } while (0)

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    size_t bytes = n * sizeof(float);
    float* h = (float*)malloc(bytes);
    for (int i = 0; i < n; ++i) h[i] = (float)i;
    float *da, *db, *dc;
    CUDA_CHECK(cudaMalloc(&da, bytes));
    CUDA_CHECK(cudaMalloc(&db, bytes));
    CUDA_CHECK(cudaMalloc(&dc, bytes));
    CUDA_CHECK(cudaMemcpy(da, h, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(db, h, bytes, cudaMemcpyHostToDevice));
    vector_add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpy(h, dc, bytes, cudaMemcpyDeviceToHost));
    printf("c[1] = %f\n", h[1]);
    CUDA_CHECK(cudaFree(da)); CUDA_CHECK(cudaFree(db)); CUDA_CHECK(cudaFree(dc));
    free(h);
    return 0;
}

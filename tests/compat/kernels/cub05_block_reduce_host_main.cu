// kbench-compat: kernels=dot_kernel<256>
// kbench-compat: expect=accept
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

template <int BLOCK>
__global__ void dot_kernel(const float* a, const float* b, float* out, int n) {
    typedef cub::BlockReduce<float, BLOCK, cub::BLOCK_REDUCE_WARP_REDUCTIONS> BR;
    __shared__ typename BR::TempStorage ts;
    float acc = 0.f;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) acc += a[i] * b[i];
    float total = BR(ts).Reduce(acc, cuda::std::plus<float>{});
    if (threadIdx.x == 0) atomicAdd(out, total);
}

int main() {
    const int n = 1 << 20;
    std::vector<float> ha(n, 1.0f), hb(n, 2.0f);
    float *da, *db, *dout;
    cudaMalloc(&da, n * sizeof(float));
    cudaMalloc(&db, n * sizeof(float));
    cudaMalloc(&dout, sizeof(float));
    cudaMemcpy(da, ha.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(dout, 0, sizeof(float));
    dot_kernel<256><<<128, 256>>>(da, db, dout, n);
    float result = 0.f;
    cudaMemcpy(&result, dout, sizeof(float), cudaMemcpyDeviceToHost);
    printf("dot = %f (expected %f)\n", result, 2.0f * n);
    cudaFree(da); cudaFree(db); cudaFree(dout);
    return 0;
}

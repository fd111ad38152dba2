// kbench-compat: kernels=check_nan_kernel
// kbench-compat: expect=accept
#include <cstdio>
#include <cmath>

__global__ void check_nan_kernel(const float* data, int* flag, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && isnan(data[i])) {
        printf("NaN at index %d (block %d, thread %d)\n", i, blockIdx.x, threadIdx.x);
        atomicExch(flag, 1);
    }
}

int report(const float* d_data, int* d_flag, int n) {
    check_nan_kernel<<<(n + 255) / 256, 256>>>(d_data, d_flag, n);
    int h_flag = 0;
    cudaMemcpy(&h_flag, d_flag, sizeof(int), cudaMemcpyDeviceToHost);
    std::printf("nan flag: %d\n", h_flag);
    return h_flag;
}

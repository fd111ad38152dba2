// kbench-compat: kernels=add_bias_relu_kernel
// kbench-compat: expect=accept
#include <cuda_runtime.h>
#include <stdexcept>
#include <string>

__global__ void add_bias_relu_kernel(float* __restrict__ out, const float* __restrict__ bias, int rows, int cols) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < rows * cols) {
        float v = out[idx] + bias[idx % cols];
        out[idx] = v > 0.f ? v : 0.f;
    }
}

void add_bias_relu(float* out, const float* bias, int rows, int cols, cudaStream_t stream) {
    if (rows <= 0 || cols <= 0) throw std::invalid_argument("empty tensor");
    const int threads = 256;
    const int blocks = (rows * cols + threads - 1) / threads;
    add_bias_relu_kernel<<<blocks, threads, 0, stream>>>(out, bias, rows, cols);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) throw std::runtime_error(std::string("launch failed: ") + cudaGetErrorString(err));
}

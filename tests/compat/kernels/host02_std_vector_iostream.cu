// kbench-compat: kernels=matvec_kernel
// kbench-compat: expect=accept
#include <iostream>
#include <vector>
#include <numeric>
#include <cuda_runtime.h>

__global__ void matvec_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.f;
    for (int c = 0; c < cols; ++c) acc += A[r * cols + c] * x[c];
    y[r] = acc;
}

std::vector<float> matvec(const std::vector<float>& A, const std::vector<float>& x, int rows, int cols) {
    float *dA, *dx, *dy;
    cudaMalloc(&dA, A.size() * sizeof(float));
    cudaMalloc(&dx, x.size() * sizeof(float));
    cudaMalloc(&dy, rows * sizeof(float));
    cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice);
    matvec_kernel<<<(rows + 127) / 128, 128>>>(dA, dx, dy, rows, cols);
    std::vector<float> y(rows);
    cudaMemcpy(y.data(), dy, rows * sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(dA); cudaFree(dx); cudaFree(dy);
    return y;
}

int main() {
    const int rows = 64, cols = 32;
    std::vector<float> A(rows * cols, 1.0f), x(cols);
    std::iota(x.begin(), x.end(), 0.0f);
    auto y = matvec(A, x, rows, cols);
    std::cout << "y[0] = " << y[0] << " (expect " << (cols - 1) * cols / 2 << ")" << std::endl;
    return 0;
}

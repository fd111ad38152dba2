# A KernelBench-format CUDA answer for level 1 problem 1 (square matmul),
# written for kbench's load_inline benchmark: a shared-memory tiled GEMM,
# 32x32 tiles, bounds-checked for any N.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

matmul_cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE 32

__global__ void tiled_matmul_kernel(const float* A, const float* B, float* C, int M, int K, int N) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE + 1];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += TILE) {
        int ak = k0 + threadIdx.x, bk = k0 + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[(long long)row * K + ak] : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[(long long)bk * N + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[(long long)row * N + col] = acc;
}

torch::Tensor tiled_matmul(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "inputs must be CUDA tensors");
    TORCH_CHECK(A.dim() == 2 && B.dim() == 2 && A.size(1) == B.size(0), "shapes do not multiply");
    auto a = A.contiguous().to(torch::kFloat32);
    auto b = B.contiguous().to(torch::kFloat32);
    int M = (int)a.size(0), K = (int)a.size(1), N = (int)b.size(1);
    auto C = torch::empty({M, N}, a.options());
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    tiled_matmul_kernel<<<grid, block>>>(a.data_ptr<float>(), b.data_ptr<float>(), C.data_ptr<float>(), M, K, N);
    return C;
}
"""

matmul_cpp_source = "torch::Tensor tiled_matmul(torch::Tensor A, torch::Tensor B);"

matmul_ext = load_inline(
    name="kb_answer_matmul",
    cpp_sources=matmul_cpp_source,
    cuda_sources=matmul_cuda_source,
    functions=["tiled_matmul"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = matmul_ext

    def forward(self, A, B):
        return self.ext.tiled_matmul(A, B)

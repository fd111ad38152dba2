# A KernelBench-format CUDA answer for level 1 problem 23 (softmax over dim 1),
# written for kbench's load_inline benchmark: one block per row, a max pass,
# a sum-of-exponentials pass and a write pass, with block reductions in
# shared memory.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cfloat>

template <int THREADS>
__device__ float block_reduce(float v, float* shared, bool is_max) {
    int t = threadIdx.x;
    shared[t] = v;
    __syncthreads();
    for (int s = THREADS / 2; s > 0; s >>= 1) {
        if (t < s) shared[t] = is_max ? fmaxf(shared[t], shared[t + s]) : shared[t] + shared[t + s];
        __syncthreads();
    }
    float r = shared[0];
    __syncthreads();
    return r;
}

template <int THREADS>
__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    __shared__ float shared[THREADS];
    const float* row = x + (long long)blockIdx.x * cols;
    float* out = y + (long long)blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += THREADS) m = fmaxf(m, row[c]);
    m = block_reduce<THREADS>(m, shared, true);
    float s = 0.f;
    for (int c = threadIdx.x; c < cols; c += THREADS) s += expf(row[c] - m);
    s = block_reduce<THREADS>(s, shared, false);
    float inv = 1.f / s;
    for (int c = threadIdx.x; c < cols; c += THREADS) out[c] = expf(row[c] - m) * inv;
}

torch::Tensor softmax_dim1(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.dim() == 2, "x must be a 2-D CUDA tensor");
    TORCH_CHECK(x.scalar_type() == torch::kFloat32, "x must be float32");
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    int rows = (int)xc.size(0), cols = (int)xc.size(1);
    if (rows > 0) softmax_rows_kernel<512><<<rows, 512>>>(xc.data_ptr<float>(), y.data_ptr<float>(), cols);
    return y;
}
"""

softmax_cpp_source = "torch::Tensor softmax_dim1(torch::Tensor x);"

softmax_ext = load_inline(
    name="kb_answer_softmax",
    cpp_sources=softmax_cpp_source,
    cuda_sources=softmax_cuda_source,
    functions=["softmax_dim1"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = softmax_ext

    def forward(self, x):
        return self.ext.softmax_dim1(x)

# A KernelBench-format CUDA answer for level 1 problem 47 (sum over a
# dimension, keepdim), written for kbench's load_inline benchmark: the tensor
# is viewed as (outer, reduced, inner); one thread per output element walks
# the reduced dimension, consecutive threads reading consecutive inner
# elements.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sum_cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void sum_dim_kernel(const float* __restrict__ x, float* __restrict__ y,
                               long long outer, long long reduced, long long inner) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= outer * inner) return;
    long long o = idx / inner, i = idx % inner;
    const float* p = x + o * reduced * inner + i;
    float acc = 0.f;
    for (long long r = 0; r < reduced; ++r) acc += p[r * inner];
    y[idx] = acc;
}

torch::Tensor sum_over_dim(torch::Tensor x, int64_t dim) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "x must be a float32 CUDA tensor");
    auto xc = x.contiguous();
    if (dim < 0) dim += xc.dim();
    long long outer = 1, inner = 1, reduced = xc.size(dim);
    for (int64_t d = 0; d < dim; ++d) outer *= xc.size(d);
    for (int64_t d = dim + 1; d < xc.dim(); ++d) inner *= xc.size(d);
    auto sizes = xc.sizes().vec();
    sizes[dim] = 1;
    auto y = torch::empty(sizes, xc.options());
    long long n = outer * inner;
    if (n > 0) {
        int threads = 256;
        sum_dim_kernel<<<(unsigned)((n + threads - 1) / threads), threads>>>(
            xc.data_ptr<float>(), y.data_ptr<float>(), outer, reduced, inner);
    }
    return y;
}
"""

sum_cpp_source = "torch::Tensor sum_over_dim(torch::Tensor x, int64_t dim);"

sum_ext = load_inline(
    name="kb_answer_sum_dim",
    cpp_sources=sum_cpp_source,
    cuda_sources=sum_cuda_source,
    functions=["sum_over_dim"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim
        self.ext = sum_ext

    def forward(self, x):
        return self.ext.sum_over_dim(x, self.dim)

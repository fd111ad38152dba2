# A KernelBench-format CUDA answer to the ReLU problem that names its own
# build_directory: a construct the fast load_inline leaves to torch's own
# build (the result says build "torch"), correct either way.
import os
import tempfile

import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = r"""
__global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ y, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

torch::Tensor relu_launch(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    long long n = xc.numel();
    if (n > 0) relu_kernel<<<(unsigned)((n + 255) / 256), 256>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

build_dir = tempfile.mkdtemp(prefix="relu-own-build-")
relu = load_inline(name="kb_relu_own_dir", cpp_sources="torch::Tensor relu_launch(torch::Tensor x);",
                   cuda_sources=relu_source, functions=["relu_launch"], build_directory=build_dir)


class ModelNew(nn.Module):
    def forward(self, x):
        return relu.relu_launch(x)

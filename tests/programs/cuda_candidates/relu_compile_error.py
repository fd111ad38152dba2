# A KernelBench-format CUDA answer to the ReLU problem whose CUDA source does
# not compile (an undeclared identifier on the kernel's fourth line): a
# compile_error through either build, its message naming that line.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = r"""
__global__ void relu_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f);
    undeclared_counter += 1;
}

torch::Tensor relu_launch(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

relu = load_inline(name="kb_relu_compile_error", cpp_sources="torch::Tensor relu_launch(torch::Tensor x);",
                   cuda_sources=relu_source, functions=["relu_launch"])


class ModelNew(nn.Module):
    def forward(self, x):
        return relu.relu_launch(x)

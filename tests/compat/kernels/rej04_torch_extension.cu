// kbench-compat: kernels=relu_kernel
// kbench-compat: expect=reject
// kbench-compat: expect-message=torch/extension.h
// A PyTorch C++ extension, not a kernel: torch headers are not available.
#include <torch/extension.h>

__global__ void relu_kernel(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(in[i], 0.f);
}

torch::Tensor relu(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int n = x.numel();
    relu_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}

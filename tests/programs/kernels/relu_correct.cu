// expect: pass
// A plain CUDA kernel against the PyTorch reference of relu_kernel.
__global__ void relu(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] > 0.f ? x[i] : 0.f;
}

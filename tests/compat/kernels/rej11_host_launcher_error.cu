// kbench-compat: kernels=square_kernel
// kbench-compat: expect=reject
// The kernel is fine, but the host launcher uses an undeclared helper;
// nvcc parses the whole translation unit and rejects it.
__global__ void square_kernel(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * x[i];
}

void square(const float* x, float* y, int n) {
    int blocks = ceil_div(n, 256);
    square_kernel<<<blocks, 256>>>(x, y, n);
}

// kbench-compat: kernels=add_kernel
// kbench-compat: expect=reject
// kbench-compat: expect-message=At end of source
// A model's answer cut off mid-kernel: the braces never close.
__global__ void add_kernel(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        c[i] = a[i] + b[i];

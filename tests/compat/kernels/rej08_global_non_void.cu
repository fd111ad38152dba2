// kbench-compat: kernels=dot_kernel
// kbench-compat: expect=reject
// A __global__ function must return void.
__global__ float dot_kernel(const float* a, const float* b, int n) {
    float s = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += a[i] * b[i];
    return s;
}

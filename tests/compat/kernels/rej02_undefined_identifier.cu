// kbench-compat: kernels=scale_kernel
// kbench-compat: expect=reject
// Typo: blockDimx instead of blockDim.x.
__global__ void scale_kernel(float* x, float s, int n) {
    int i = blockIdx.x * blockDimx + threadIdx.x;
    if (i < n) x[i] *= s;
}

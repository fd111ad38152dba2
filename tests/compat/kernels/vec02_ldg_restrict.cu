// kbench-compat: kernels=gather_ldg
// kbench-compat: expect=accept
__global__ void gather_ldg(const float* __restrict__ src, const int* __restrict__ index,
                           float* __restrict__ dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = __ldg(&index[i]);
        dst[i] = __ldg(src + j);
    }
}

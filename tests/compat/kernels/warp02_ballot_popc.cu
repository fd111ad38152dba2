// kbench-compat: kernels=count_positive
// kbench-compat: expect=accept
__global__ void count_positive(const float* __restrict__ x, unsigned int* __restrict__ count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool pred = (i < n) && (x[i] > 0.0f);
    unsigned mask = __ballot_sync(0xffffffffu, pred);
    if ((threadIdx.x & 31) == 0) atomicAdd(count, (unsigned)__popc(mask));
}

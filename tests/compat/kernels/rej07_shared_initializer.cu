// kbench-compat: kernels=block_sum
// kbench-compat: expect=reject
// __shared__ variables cannot have initializers.
__global__ void block_sum(const float* x, float* out, int n) {
    __shared__ float acc = 0.0f;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&acc, x[i]);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

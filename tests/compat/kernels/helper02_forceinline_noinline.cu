// kbench-compat: kernels=huber_loss_kernel
// kbench-compat: expect=accept
__device__ __forceinline__ float huber(float d, float delta) {
    float a = fabsf(d);
    return a <= delta ? 0.5f * d * d : delta * (a - 0.5f * delta);
}

__device__ __noinline__ float block_sum(float v, float* smem) {
    smem[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
        __syncthreads();
    }
    return smem[0];
}

__global__ void huber_loss_kernel(const float* pred, const float* tgt, float* out, int n, float delta) {
    __shared__ float smem[256];
    float acc = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += huber(pred[i] - tgt[i], delta);
    float total = block_sum(acc, smem);
    if (threadIdx.x == 0) atomicAdd(out, total / n);
}

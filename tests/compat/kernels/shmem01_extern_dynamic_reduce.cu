// kbench-compat: kernels=reduce_sum_dynamic
// kbench-compat: expect=accept
__global__ void reduce_sum_dynamic(const float* __restrict__ g_in, float* __restrict__ g_out, unsigned int n) {
    extern __shared__ float sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
    float s = (i < n) ? g_in[i] : 0.f;
    if (i + blockDim.x < n) s += g_in[i + blockDim.x];
    sdata[tid] = s;
    __syncthreads();
    for (unsigned int st = blockDim.x / 2; st > 32; st >>= 1) {
        if (tid < st) sdata[tid] = s = s + sdata[tid + st];
        __syncthreads();
    }
    if (tid < 32) {
        if (blockDim.x >= 64) s += sdata[tid + 32];
        for (int off = 16; off > 0; off /= 2) s += __shfl_down_sync(0xffffffff, s, off);
    }
    if (tid == 0) g_out[blockIdx.x] = s;
}

void reduce(const float* in, float* out, unsigned n) {
    unsigned threads = 256, blocks = (n + threads * 2 - 1) / (threads * 2);
    reduce_sum_dynamic<<<blocks, threads, threads * sizeof(float)>>>(in, out, n);
}

// kbench-compat: kernels=l2norm_kernel
// kbench-compat: expect=accept
constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;

__global__ __launch_bounds__(kThreads) void l2norm_kernel(const float* __restrict__ x, float* __restrict__ y, int dim) {
    __shared__ float warp_sums[kWarps];
    const float* row = x + (size_t)blockIdx.x * dim;
    float s = 0.f;
    for (int i = threadIdx.x; i < dim; i += kThreads) s += row[i] * row[i];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < kWarps ? warp_sums[threadIdx.x] : 0.f;
        for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
        if (threadIdx.x == 0) warp_sums[0] = rsqrtf(fmaxf(s, 1e-12f));
    }
    __syncthreads();
    float inv = warp_sums[0];
    for (int i = threadIdx.x; i < dim; i += kThreads) y[(size_t)blockIdx.x * dim + i] = row[i] * inv;
}

// kbench-compat: kernels=weighted_histogram
// kbench-compat: expect=accept
__global__ void weighted_histogram(const float* __restrict__ values, const float* __restrict__ weights,
                                   float* __restrict__ hist, int* __restrict__ counts,
                                   int n, int bins, float lo, float hi) {
    extern __shared__ float s_hist[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) s_hist[b] = 0.f;
    __syncthreads();
    float scale = bins / (hi - lo);
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int b = (int)((values[i] - lo) * scale);
        b = b < 0 ? 0 : (b >= bins ? bins - 1 : b);
        atomicAdd(&s_hist[b], weights[i]);
        atomicAdd(&counts[b], 1);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x) atomicAdd(&hist[b], s_hist[b]);
}

// cross_entropy_f32 / correct.cu
// One block of 256 threads per row, one pass: each thread keeps an online
// (maximum, sum of exp(x - maximum)) pair over its strided slice, the pairs
// are merged with warp shuffles and once more across the 8 warps.
// Expected verdict: pass

__device__ __forceinline__ void merge(float& m, float& s, float om, float os) {
    float nm = fmaxf(m, om);
    s = (m == -INFINITY ? 0.0f : s * expf(m - nm)) + (om == -INFINITY ? 0.0f : os * expf(om - nm));
    m = nm;
}

__global__ void cross_entropy(const float* logits, const long long* target, float* loss, int rows, int cols) {
    __shared__ float wm[8], ws[8];
    const float* xr = logits + (size_t)blockIdx.x * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256) merge(m, s, xr[c], 1.0f);
    for (int d = 16; d > 0; d >>= 1) merge(m, s, __shfl_xor_sync(0xffffffffu, m, d), __shfl_xor_sync(0xffffffffu, s, d));
    if (threadIdx.x % 32 == 0) {
        wm[threadIdx.x / 32] = m;
        ws[threadIdx.x / 32] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < 8; ++w) merge(m, s, wm[w], ws[w]);
        loss[blockIdx.x] = m + logf(s) - xr[target[blockIdx.x]];
    }
}

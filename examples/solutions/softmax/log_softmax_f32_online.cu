// Example solution for tasks/softmax/log_softmax_f32: one pass over the row
// for the statistics instead of two. Each thread keeps an online
// (maximum, sum of exp(x - maximum)) pair over its strided slice; pairs merge
// with warp shuffles and then across the block's 8 warps; a second pass
// writes y = x - m - log(s). Launched with the task's default plan (one block
// of 256 threads per row). The accurate expf, not __expf: the maximum
// element's output is -log(sum), close to zero, where the tolerance is about
// 1e-5 absolute and __expf's error on the rescaling factors would use half of it.
// Expected verdict: pass

__device__ __forceinline__ void merge(float& m, float& s, float om, float os) {
    const float nm = fmaxf(m, om);
    s = (m == -INFINITY ? 0.0f : s * expf(m - nm)) + (om == -INFINITY ? 0.0f : os * expf(om - nm));
    m = nm;
}

__global__ void log_softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float wm[8], ws[8];
    __shared__ float row_m, row_log_s;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
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
        row_m = m;
        row_log_s = logf(s);
    }
    __syncthreads();
    m = row_m;
    const float log_s = row_log_s;
    for (int c = threadIdx.x; c < cols; c += 256) yr[c] = (xr[c] - m) - log_s;
}

// softmax_f32 / correct.cu
// One block per row (the default plan: grid = rows, 256 threads), online
// softmax: a single read pass keeps each thread's running (max, sum of exp
// relative to that max), the pairs are merged with warp shuffles and then
// across warps through shared memory, and a second pass writes. Works for any
// block size that is a multiple of 32 (up to 1024) and any cols >= 1: threads
// with no element keep (-inf, 0), which the merge handles without NaN.
// Expected verdict: pass (every case).

__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    const float mn = fmaxf(m, m2);
    const float a = (m == mn) ? s : s * expf(m - mn);     // also covers m == mn == -inf
    const float b = (m2 == mn) ? s2 : s2 * expf(m2 - mn);
    m = mn;
    s = a + b;
}

__device__ __forceinline__ void warp_merge(float& m, float& s) {
    for (int off = 16; off > 0; off >>= 1) {
        float m2 = __shfl_xor_sync(0xffffffffu, m, off);
        float s2 = __shfl_xor_sync(0xffffffffu, s, off);
        merge(m, s, m2, s2);
    }
}

__global__ void softmax(const float* x, float* y, int rows, int cols) {
    __shared__ float wm[32], ws[32];
    __shared__ float row_m, row_s;
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    const float neg_inf = __int_as_float(0xff800000);

    float m = neg_inf, s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        const float v = xr[c];
        if (v > m) {            // new maximum: rescale what we have (0 * exp(-inf) = 0 the first time)
            s = s * expf(m - v) + 1.0f;
            m = v;
        } else {
            s += expf(v - m);
        }
    }
    warp_merge(m, s);

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = (blockDim.x + 31) >> 5;
    if (lane == 0) { wm[warp] = m; ws[warp] = s; }
    __syncthreads();
    if (warp == 0) {
        m = lane < nwarps ? wm[lane] : neg_inf;
        s = lane < nwarps ? ws[lane] : 0.0f;
        warp_merge(m, s);
        if (lane == 0) { row_m = m; row_s = s; }
    }
    __syncthreads();
    m = row_m;
    s = row_s;

    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}

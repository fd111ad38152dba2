// Example solution for tasks/losses/cross_entropy_f32: one pass over the
// logits. Each thread keeps an online (maximum, sum of exp(x - maximum)) pair
// over float4 groups of the row (when cols % 4 == 0; scalars otherwise);
// pairs merge with warp shuffles, then across the block's 8 warps. Launched
// with the task's default plan (one block of 256 threads per row).
// Expected verdict: pass

__device__ __forceinline__ void merge(float& m, float& s, float om, float os) {
    const float nm = fmaxf(m, om);
    s = (m == -INFINITY ? 0.0f : s * __expf(m - nm)) + (om == -INFINITY ? 0.0f : os * __expf(om - nm));
    m = nm;
}

__global__ void cross_entropy(const float* logits, const long long* target, float* loss, int rows, int cols) {
    __shared__ float wm[8], ws[8];
    const float* xr = logits + (size_t)blockIdx.x * cols;
    float m = -INFINITY, s = 0.0f;
    if (cols % 4 == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        for (int c = threadIdx.x; c < cols / 4; c += 256) {
            float4 v = x4[c];
            const float vm = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
            merge(m, s, vm, __expf(v.x - vm) + __expf(v.y - vm) + __expf(v.z - vm) + __expf(v.w - vm));
        }
    } else {
        for (int c = threadIdx.x; c < cols; c += 256) merge(m, s, xr[c], 1.0f);
    }
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

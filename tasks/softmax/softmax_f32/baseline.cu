// softmax_f32 baseline (the speed yardstick, not the oracle): one block of
// 256 threads per row.
//  - Fast path (cols % 4 == 0, 16-byte aligned pointers, and the row fits in
//    registers: cols <= 4 * VPT * blockDim.x = 8192 with 256 threads): each
//    thread loads its float4s of the row into registers, all loads issued up
//    front, then block max, exp in registers, block sum, scale and store.
//    The row is read from memory once (the reference reads it three times).
//  - Otherwise: online softmax, one read pass for (max, sum) and one
//    read-and-write pass, scalar accesses.
#define VPT 8  // float4 registers per thread in the fast path

__device__ __forceinline__ float warp_max(float v) {
    for (int off = 16; off > 0; off >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

// Block-wide max / sum, result in every thread (blockDim.x a multiple of 32).
// `scratch` must hold 32 floats; the trailing barrier makes it reusable.
__device__ __forceinline__ float block_max(float v, float* scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    v = warp_max(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = warp_max(lane < nwarps ? scratch[lane] : __int_as_float(0xff800000));
    __syncthreads();
    return v;
}

__device__ __forceinline__ float block_sum(float v, float* scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    v = warp_sum(v);
    if (lane == 0) scratch[warp] = v;
    __syncthreads();
    v = warp_sum(lane < nwarps ? scratch[lane] : 0.0f);
    __syncthreads();
    return v;
}

// Online (max, sum) pairs: merge (m2, s2) into (m, s).
__device__ __forceinline__ void merge(float& m, float& s, float m2, float s2) {
    const float mn = fmaxf(m, m2);
    const float a = (m == mn) ? s : s * expf(m - mn);  // also covers m == mn == -inf
    const float b = (m2 == mn) ? s2 : s2 * expf(m2 - mn);
    m = mn;
    s = a + b;
}

extern "C" __global__ void softmax_baseline(const float* x, float* y, int rows, int cols) {
    __shared__ float scratch[32];
    __shared__ float wm[32], ws[32];
    const int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    const float neg_inf = __int_as_float(0xff800000);
    const int tid = threadIdx.x, nt = blockDim.x;
    const bool aligned = (cols & 3) == 0 &&
                         ((reinterpret_cast<size_t>(x) | reinterpret_cast<size_t>(y)) & 15) == 0;

    if (aligned && (cols >> 2) <= VPT * nt) {
        const int n4 = cols >> 2;
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float4* y4 = reinterpret_cast<float4*>(yr);
        float4 v[VPT];
        float m = neg_inf;
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            const int q = tid + j * nt;
            v[j] = q < n4 ? x4[q] : make_float4(neg_inf, neg_inf, neg_inf, neg_inf);
        }
#pragma unroll
        for (int j = 0; j < VPT; ++j) m = fmaxf(m, fmaxf(fmaxf(v[j].x, v[j].y), fmaxf(v[j].z, v[j].w)));
        m = block_max(m, scratch);
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            if (tid + j * nt < n4) {
                v[j].x = expf(v[j].x - m);
                v[j].y = expf(v[j].y - m);
                v[j].z = expf(v[j].z - m);
                v[j].w = expf(v[j].w - m);
                s += (v[j].x + v[j].y) + (v[j].z + v[j].w);
            }
        }
        s = block_sum(s, scratch);
        const float inv = 1.0f / s;
#pragma unroll
        for (int j = 0; j < VPT; ++j) {
            const int q = tid + j * nt;
            if (q < n4) y4[q] = make_float4(v[j].x * inv, v[j].y * inv, v[j].z * inv, v[j].w * inv);
        }
        return;
    }

    // General path: online softmax.
    float m = neg_inf, s = 0.0f;
    for (int c = tid; c < cols; c += nt) {
        const float v = xr[c];
        if (v > m) { s = s * expf(m - v) + 1.0f; m = v; } else { s += expf(v - m); }
    }
    for (int off = 16; off > 0; off >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, off);
        const float s2 = __shfl_xor_sync(0xffffffffu, s, off);
        merge(m, s, m2, s2);
    }
    const int lane = tid & 31, warp = tid >> 5, nwarps = nt >> 5;
    if (lane == 0) { wm[warp] = m; ws[warp] = s; }
    __syncthreads();
    m = lane < nwarps ? wm[lane] : neg_inf;
    s = lane < nwarps ? ws[lane] : 0.0f;
    for (int off = 16; off > 0; off >>= 1) {
        const float m2 = __shfl_xor_sync(0xffffffffu, m, off);
        const float s2 = __shfl_xor_sync(0xffffffffu, s, off);
        merge(m, s, m2, s2);
    }
    const float inv = 1.0f / s;
    for (int c = tid; c < cols; c += nt) yr[c] = expf(xr[c] - m) * inv;
}

// kbench-compat: kernels=warp_softmax
// kbench-compat: expect=accept
// One warp per row; cols <= 32 * ELEMS.
#define ELEMS 4
#define FULL_MASK 0xffffffff

__global__ void warp_softmax(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (warp >= rows) return;
    float v[ELEMS];
    float m = -INFINITY;
#pragma unroll
    for (int e = 0; e < ELEMS; ++e) {
        int c = lane + e * 32;
        v[e] = c < cols ? x[warp * cols + c] : -INFINITY;
        m = fmaxf(m, v[e]);
    }
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(FULL_MASK, m, o));
    float s = 0.f;
#pragma unroll
    for (int e = 0; e < ELEMS; ++e) { v[e] = expf(v[e] - m); s += v[e]; }
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(FULL_MASK, s, o);
#pragma unroll
    for (int e = 0; e < ELEMS; ++e) {
        int c = lane + e * 32;
        if (c < cols) y[warp * cols + c] = v[e] / s;
    }
}

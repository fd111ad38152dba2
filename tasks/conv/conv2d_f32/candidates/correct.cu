// conv2d_f32 / correct.cu
// One thread per output element like the reference, but with the loops in
// another order (taps u, v outer, channels c inner) and the padding handled by
// clamping the loop bounds instead of skipping taps: another f32 summation
// order, which the tolerance must absorb. Default plan.
// Expected verdict: pass

__global__ void conv2d(const float* x, const float* w, float* y, int N, int C, int H, int W, int F) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int n = blockIdx.z / F, f = blockIdx.z % F;
    if (i >= H || j >= W) return;
    const int u0 = i == 0 ? 1 : 0, u1 = i == H - 1 ? 2 : 3;
    const int v0 = j == 0 ? 1 : 0, v1 = j == W - 1 ? 2 : 3;
    float acc = 0.0f;
    for (int u = u0; u < u1; ++u)
        for (int v = v0; v < v1; ++v)
            for (int c = 0; c < C; ++c)
                acc = fmaf(x[(((size_t)n * C + c) * H + i + u - 1) * W + j + v - 1], w[((size_t)f * C + c) * 9 + u * 3 + v],
                           acc);
    y[(((size_t)n * F + f) * H + i) * W + j] = acc;
}

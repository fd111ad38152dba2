// conv2d_f32 / flipped_filter.cu
// A true convolution: the filter is flipped (w[f][c][2 - u][2 - v]), where the
// task (like PyTorch's Conv2d) asks for a cross-correlation. With random
// filters the two differ by O(1) almost everywhere; only the 1x1 image of
// case 'one' (where only the centre tap, the same either way, sees the image)
// passes.
// Expected verdict: wrong_answer

__global__ void conv2d(const float* x, const float* w, float* y, int N, int C, int H, int W, int F) {
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int n = blockIdx.z / F, f = blockIdx.z % F;
    if (i >= H || j >= W) return;
    float acc = 0.0f;
    for (int c = 0; c < C; ++c)
        for (int u = 0; u < 3; ++u)
            for (int v = 0; v < 3; ++v) {
                const int r = i + u - 1, s = j + v - 1;
                if (r < 0 || r >= H || s < 0 || s >= W) continue;
                acc = fmaf(x[(((size_t)n * C + c) * H + r) * W + s], w[((size_t)f * C + c) * 9 + (2 - u) * 3 + (2 - v)],
                           acc);
            }
    y[(((size_t)n * F + f) * H + i) * W + j] = acc;
}

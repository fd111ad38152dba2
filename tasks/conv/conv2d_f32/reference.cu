// conv2d_f32 reference: 2-D convolution (cross-correlation, as PyTorch's
// Conv2d), NCHW, 3x3 kernel, stride 1, padding 1, no bias:
//   y[n][f][i][j] = sum over c < C, 0 <= u, v < 3 of
//                   x[n][c][i + u - 1][j + v - 1] * w[f][c][u][v]
// with x taken as 0 outside the image, so y has x's height and width.
// One thread per output element: a 16x16 block covers a 16x16 patch of one
// output plane, blockIdx.z runs over (n, f). Each element is one f32
// accumulator over c, then u, then v, ascending (with FMA).
#define TILE 16  // the launch plan's block is TILE x TILE

extern "C" __global__ void conv2d_ref(const float* x, const float* w, float* y, int N, int C, int H, int W, int F) {
    const int j = blockIdx.x * TILE + threadIdx.x;  // output column
    const int i = blockIdx.y * TILE + threadIdx.y;  // output row
    const int n = blockIdx.z / F, f = blockIdx.z % F;
    if (i >= H || j >= W || n >= N) return;
    float acc = 0.0f;
    for (int c = 0; c < C; ++c) {
        const float* xc = x + ((size_t)n * C + c) * H * W;
        const float* wc = w + ((size_t)f * C + c) * 9;
        for (int u = 0; u < 3; ++u) {
            const int r = i + u - 1;
            if (r < 0 || r >= H) continue;
            for (int v = 0; v < 3; ++v) {
                const int s = j + v - 1;
                if (s < 0 || s >= W) continue;
                acc = fmaf(xc[(size_t)r * W + s], wc[u * 3 + v], acc);
            }
        }
    }
    y[(((size_t)n * F + f) * H + i) * W + j] = acc;
}

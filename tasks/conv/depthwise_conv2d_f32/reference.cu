// depthwise_conv2d_f32 reference: depthwise 2-D convolution (PyTorch's Conv2d
// with groups = C), NCHW, one 3x3 filter per channel, stride 1, padding 1,
// no bias:
//   y[n][c][i][j] = sum over 0 <= u, v < 3 of x[n][c][i + u - 1][j + v - 1] * w[c][u][v]
// with x taken as 0 outside the image, so y has x's shape.
// One thread per output element: a 16x16 block covers a 16x16 patch of one
// plane, blockIdx.z runs over (n, c). Each element is one f32 accumulator
// over u, then v, ascending (with FMA).
#define TILE 16  // the launch plan's block is TILE x TILE

extern "C" __global__ void depthwise_conv2d_ref(const float* x, const float* w, float* y, int N, int C, int H, int W) {
    const int j = blockIdx.x * TILE + threadIdx.x;
    const int i = blockIdx.y * TILE + threadIdx.y;
    const int n = blockIdx.z / C, c = blockIdx.z % C;
    if (i >= H || j >= W || n >= N) return;
    const float* xc = x + ((size_t)n * C + c) * H * W;
    const float* wc = w + (size_t)c * 9;
    float acc = 0.0f;
    for (int u = 0; u < 3; ++u) {
        const int r = i + u - 1;
        if (r < 0 || r >= H) continue;
        for (int v = 0; v < 3; ++v) {
            const int s = j + v - 1;
            if (s < 0 || s >= W) continue;
            acc = fmaf(xc[(size_t)r * W + s], wc[u * 3 + v], acc);
        }
    }
    y[(((size_t)n * C + c) * H + i) * W + j] = acc;
}

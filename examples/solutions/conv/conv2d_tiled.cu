// Example solution for tasks/conv/conv2d_f32 (NCHW, 3x3, stride 1, padding 1,
// FP32): a shared-memory tiled direct convolution.
// A block of 16x16 threads computes a 16x16 patch of the output for FT = 8
// filters of one image: each thread owns one output position and keeps 8
// accumulators. Input channels are walked in chunks of CC = 8: the block
// stages the chunk's 18x18 input patch (the 16x16 patch plus a one-pixel
// halo, zero outside the image, which is the padding) and the chunk's
// 8 x 8 x 9 filter weights in shared memory, then each thread reads its 3x3
// neighbourhood once per channel into registers and applies it to all 8
// filters: 72 FMAs per 9 shared loads of input (the weights are broadcast).
// Each accumulator still sums over c, then u, then v, in ascending order.
// Any N, C, H, W, F >= 1 work (partial chunks and tiles are masked).
// Launch (conv2d_tiled.json): grid (ceil_div(W, 16), ceil_div(H, 16),
// N * ceil_div(F, 8)), block (16, 16).
// Expected verdict: pass
#define TILE 16
#define FT 8  // filters per block
#define CC 8  // input channels per shared-memory chunk

extern "C" __global__ void __launch_bounds__(TILE * TILE) conv2d_tiled(const float* x, const float* w, float* y, int N,
                                                                       int C, int H, int W, int F) {
    __shared__ float patch[CC][TILE + 2][TILE + 2];
    __shared__ float wts[FT][CC][9];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TILE + tx;
    const int j0 = blockIdx.x * TILE, i0 = blockIdx.y * TILE;
    const int filter_groups = (F + FT - 1) / FT;
    const int n = blockIdx.z / filter_groups, f0 = (blockIdx.z % filter_groups) * FT;
    const int i = i0 + ty, j = j0 + tx;

    float acc[FT];
#pragma unroll
    for (int f = 0; f < FT; ++f) acc[f] = 0.0f;

    for (int c0 = 0; c0 < C; c0 += CC) {
        // The input patch of CC channels: CC * 18 * 18 values over 256 threads.
        for (int e = tid; e < CC * (TILE + 2) * (TILE + 2); e += TILE * TILE) {
            const int c = e / ((TILE + 2) * (TILE + 2)), rem = e % ((TILE + 2) * (TILE + 2));
            const int r = i0 - 1 + rem / (TILE + 2), s = j0 - 1 + rem % (TILE + 2);
            float v = 0.0f;
            if (c0 + c < C && r >= 0 && r < H && s >= 0 && s < W) v = x[(((size_t)n * C + c0 + c) * H + r) * W + s];
            patch[c][rem / (TILE + 2)][rem % (TILE + 2)] = v;
        }
        // The weights of FT filters for these CC channels (0 for missing ones).
        for (int e = tid; e < FT * CC * 9; e += TILE * TILE) {
            const int f = e / (CC * 9), c = (e / 9) % CC, t = e % 9;
            wts[f][c][t] = (f0 + f < F && c0 + c < C) ? w[((size_t)(f0 + f) * C + c0 + c) * 9 + t] : 0.0f;
        }
        __syncthreads();
        const int chunk = min(CC, C - c0);
        for (int c = 0; c < chunk; ++c) {
            float in[9];
#pragma unroll
            for (int u = 0; u < 3; ++u)
#pragma unroll
                for (int v = 0; v < 3; ++v) in[u * 3 + v] = patch[c][ty + u][tx + v];
#pragma unroll
            for (int f = 0; f < FT; ++f)
#pragma unroll
                for (int t = 0; t < 9; ++t) acc[f] = fmaf(in[t], wts[f][c][t], acc[f]);
        }
        __syncthreads();
    }
    if (i < H && j < W) {
#pragma unroll
        for (int f = 0; f < FT; ++f)
            if (f0 + f < F) y[(((size_t)n * F + f0 + f) * H + i) * W + j] = acc[f];
    }
}

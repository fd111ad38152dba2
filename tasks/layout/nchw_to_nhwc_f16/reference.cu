// nchw_to_nhwc_f16 reference: y[n][h][w][c] = x[n][c][h][w] for
// x[N, C, H, W] and y[N, H, W, C] (channels-last), f16 values copied. One
// thread per output element (writes coalesced, reads strided), 64-bit
// indexing.
#include <cuda_fp16.h>

extern "C" __global__ void nchw_to_nhwc_ref(const __half* x, __half* y, int N, int C, int H, int W) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)N * C * H * W) return;
    long long c = e % C, w = (e / C) % W, h = (e / ((long long)C * W)) % H, n = e / ((long long)C * W * H);
    y[e] = x[((n * C + c) * H + h) * W + w];
}

// conv1d_f32 reference: 1-D convolution (cross-correlation, as PyTorch's
// Conv1d), NCL layout, kernel width K, stride 1, no padding, no bias:
//   y[n][f][t] = sum over c < C, k < K of x[n][c][t + k] * w[f][c][k]
// for 0 <= t < L - K + 1 (the "valid" output length).
// One thread per output element: a block of 256 covers 256 consecutive t of
// one output row, blockIdx.y runs over (n, f). Each element is one f32
// accumulator over c, then k, ascending (with FMA).
#define THREADS 256  // the launch plan's block

extern "C" __global__ void conv1d_ref(const float* x, const float* w, float* y, int N, int C, int L, int F, int K) {
    const int Lout = L - K + 1;
    const int t = blockIdx.x * THREADS + threadIdx.x;
    const int n = blockIdx.y / F, f = blockIdx.y % F;
    if (t >= Lout || n >= N) return;
    float acc = 0.0f;
    for (int c = 0; c < C; ++c) {
        const float* xc = x + ((size_t)n * C + c) * L + t;
        const float* wc = w + ((size_t)f * C + c) * K;
        for (int k = 0; k < K; ++k) acc = fmaf(xc[k], wc[k], acc);
    }
    y[((size_t)n * F + f) * Lout + t] = acc;
}

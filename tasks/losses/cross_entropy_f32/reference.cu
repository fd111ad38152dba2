// cross_entropy_f32 reference: loss[r] = log(sum_c exp(logits[r][c])) - logits[r][target[r]]
// (per-row cross-entropy with integer class targets, reduction 'none'),
// computed as m + log(sum_c exp(logits[r][c] - m)) - logits[r][target[r]],
// m the row maximum. One block of exactly 256 threads per row; the sum of
// expf accumulated in double and the result formed in double.
#define BLOCK 256  // the launch plan's block size; the trees need a power of two

extern "C" __global__ void cross_entropy_ref(const float* logits, const long long* target, float* loss, int rows,
                                             int cols) {
    __shared__ float red_max[BLOCK];
    __shared__ double red_sum[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const float* xr = logits + (size_t)row * cols;

    float m = __int_as_float(0xff800000);  // -inf
    for (int c = t; c < cols; c += BLOCK) m = fmaxf(m, xr[c]);
    red_max[t] = m;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) red_max[t] = fmaxf(red_max[t], red_max[t + k]);
        __syncthreads();
    }
    m = red_max[0];

    double s = 0.0;
    for (int c = t; c < cols; c += BLOCK) s += (double)expf(xr[c] - m);
    red_sum[t] = s;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) red_sum[t] += red_sum[t + k];
        __syncthreads();
    }
    if (t == 0) loss[row] = (float)(((double)m + log(red_sum[0])) - (double)xr[target[row]]);
}

// log_softmax_f32 reference: y[r][c] = x[r][c] - m_r - log(sum_c' exp(x[r][c'] - m_r)),
// m_r the row maximum. One block of exactly 256 threads per row, three passes
// over the row: the maximum (a shared-memory tree), the sum of expf(x - m)
// accumulated in double (so the log is as accurate as the exps), and the
// write, with d = x - m in f32 as a candidate computes it.
#define BLOCK 256  // the launch plan's block size; the trees need a power of two

extern "C" __global__ void log_softmax_ref(const float* x, float* y, int rows, int cols) {
    __shared__ float red_max[BLOCK];
    __shared__ double red_sum[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

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
    const double log_sum = log(red_sum[0]);

    for (int c = t; c < cols; c += BLOCK) yr[c] = (float)((double)(xr[c] - m) - log_sum);
}

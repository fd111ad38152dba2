// layernorm_f32 reference: for each row r of x[rows, cols],
//   mean = sum_c x / cols,  var = sum_c (x - mean)^2 / cols  (biased),
//   y[r][c] = (x[r][c] - mean) / sqrt(var + eps) * w[c] + b[c].
// One block of exactly 256 threads per row; mean and variance in two passes,
// accumulated in double, and y computed in double and rounded once to f32.
#define BLOCK 256  // the launch plan's block size; the trees need a power of two

// Sum of one double per thread over the block; every thread gets the result.
__device__ double block_sum(double v, double* red) {
    const int t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) red[t] += red[t + k];
        __syncthreads();
    }
    double total = red[0];
    __syncthreads();  // everyone has read red[0] before red is reused
    return total;
}

extern "C" __global__ void layernorm_ref(const float* x, const float* w, const float* b, float* y, int rows, int cols,
                                         float eps) {
    __shared__ double red[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

    double s = 0.0;
    for (int c = t; c < cols; c += BLOCK) s += xr[c];
    const double mean = block_sum(s, red) / cols;
    double q = 0.0;
    for (int c = t; c < cols; c += BLOCK) q += (xr[c] - mean) * (xr[c] - mean);
    const double rstd = 1.0 / sqrt(block_sum(q, red) / cols + (double)eps);
    for (int c = t; c < cols; c += BLOCK) yr[c] = (float)((xr[c] - mean) * rstd * w[c] + b[c]);
}

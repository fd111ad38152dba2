// layernorm_backward_f32 reference. For each row r of x[rows, cols], with
// N = cols, mean and rstd = 1 / sqrt(var + eps) recomputed from x (biased
// variance), xhat = (x - mean) * rstd and g = w * dy:
//   dx[r][c] = rstd * (g[c] - sum_c' g[c'] / N - xhat[c] * sum_c' (g[c'] * xhat[c']) / N)
//   dw[c]    = sum_r dy[r][c] * xhat[r][c]
//   db[c]    = sum_r dy[r][c]
// Two kernels: one block of exactly 256 threads per row computes dx and keeps
// the row's mean and rstd (scratch, double); then one thread per column sums
// dw and db down the rows. Everything is accumulated in double and rounded
// once to f32.
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

extern "C" __global__ void layernorm_bwd_dx_ref(const float* x, const float* w, const float* dy, float* dx,
                                                double* mean_out, double* rstd_out, int rows, int cols, float eps) {
    __shared__ double red[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const size_t base = (size_t)row * cols;

    double s = 0.0;
    for (int c = t; c < cols; c += BLOCK) s += x[base + c];
    const double mean = block_sum(s, red) / cols;
    double q = 0.0;
    for (int c = t; c < cols; c += BLOCK) q += (x[base + c] - mean) * (x[base + c] - mean);
    const double rstd = 1.0 / sqrt(block_sum(q, red) / cols + (double)eps);

    double sg = 0.0, sgx = 0.0;
    for (int c = t; c < cols; c += BLOCK) {
        const double g = (double)w[c] * dy[base + c];
        sg += g;
        sgx += g * ((x[base + c] - mean) * rstd);
    }
    const double mean_g = block_sum(sg, red) / cols;
    const double mean_gx = block_sum(sgx, red) / cols;
    for (int c = t; c < cols; c += BLOCK) {
        const double xhat = (x[base + c] - mean) * rstd;
        dx[base + c] = (float)(rstd * ((double)w[c] * dy[base + c] - mean_g - xhat * mean_gx));
    }
    if (t == 0) {
        mean_out[row] = mean;
        rstd_out[row] = rstd;
    }
}

extern "C" __global__ void layernorm_bwd_dwdb_ref(const float* x, const float* dy, const double* mean,
                                                  const double* rstd, float* dw, float* db, int rows, int cols) {
    long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    double sw = 0.0, sb = 0.0;
    for (int r = 0; r < rows; ++r) {
        const size_t i = (size_t)r * cols + c;
        sw += (double)dy[i] * ((x[i] - mean[r]) * rstd[r]);
        sb += dy[i];
    }
    dw[c] = (float)sw;
    db[c] = (float)sb;
}

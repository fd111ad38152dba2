// residual_layernorm_f32 reference: for each row r of the row-major
// x[rows, cols] and residual[rows, cols],
//   h[r][c] = x[r][c] + residual[r][c]          (an f32 sum: the new residual stream)
//   y[r]    = LayerNorm(h[r]) * w + b            (biased variance, eps)
// One block of exactly 256 threads per row; h is formed in f32 (one rounding,
// as the task defines it), its statistics and y in double, y rounded once.
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

extern "C" __global__ void residual_layernorm_ref(const float* x, const float* residual, const float* w, const float* b,
                                                  float* h, float* y, int rows, int cols, float eps) {
    __shared__ double red[BLOCK];
    const int row = blockIdx.x, t = threadIdx.x;
    if (row >= rows) return;  // whole block, before any barrier
    const size_t base = (size_t)row * cols;

    double s = 0.0;
    for (int c = t; c < cols; c += BLOCK) {
        const float v = x[base + c] + residual[base + c];
        h[base + c] = v;
        s += v;
    }
    const double mean = block_sum(s, red) / cols;
    double q = 0.0;
    for (int c = t; c < cols; c += BLOCK) {
        const double d = (double)(x[base + c] + residual[base + c]) - mean;
        q += d * d;
    }
    const double rstd = 1.0 / sqrt(block_sum(q, red) / cols + (double)eps);
    for (int c = t; c < cols; c += BLOCK) {
        const double d = (double)(x[base + c] + residual[base + c]) - mean;
        y[base + c] = (float)(d * rstd * w[c] + b[c]);
    }
}

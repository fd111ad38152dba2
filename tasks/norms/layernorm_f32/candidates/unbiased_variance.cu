// layernorm_f32 / unbiased_variance.cu
// Divides the sum of squares by cols - 1 (the unbiased variance, torch.var's
// default) where layer norm uses the biased one (divide by cols): outputs
// shrink by sqrt((cols - 1) / cols), 3% at cols = 17. (At cols = 1 it divides
// by zero.)
// Expected verdict: wrong_answer

__global__ void layernorm(const float* x, const float* w, const float* b, float* y, int rows, int cols, float eps) {
    if (threadIdx.x != 0) return;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    double s = 0.0, q = 0.0;
    for (int c = 0; c < cols; ++c) s += xr[c];
    const double mean = s / cols;
    for (int c = 0; c < cols; ++c) q += (xr[c] - mean) * (xr[c] - mean);
    const double rstd = 1.0 / sqrt(q / (cols - 1) + eps);
    for (int c = 0; c < cols; ++c) yr[c] = (float)((xr[c] - mean) * rstd * w[c] + b[c]);
}

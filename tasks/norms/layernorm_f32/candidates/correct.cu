// layernorm_f32 / correct.cu
// One block of 256 threads per row, two passes over the row in f32: the mean
// (strided partial sums, warp shuffles, one shared-memory step), then the
// biased variance around it, then the normalised output.
// Expected verdict: pass

__device__ float block_sum(float v, float* warp_sums) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(0xffffffffu, v, d);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < 8; ++w) total += warp_sums[w];
    __syncthreads();  // warp_sums is reused by the next call
    return total;
}

__global__ void layernorm(const float* x, const float* w, const float* b, float* y, int rows, int cols, float eps) {
    __shared__ float warp_sums[8];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256) s += xr[c];
    const float mean = block_sum(s, warp_sums) / cols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += 256) q += (xr[c] - mean) * (xr[c] - mean);
    const float rstd = rsqrtf(block_sum(q, warp_sums) / cols + eps);
    for (int c = threadIdx.x; c < cols; c += 256) yr[c] = (xr[c] - mean) * rstd * w[c] + b[c];
}

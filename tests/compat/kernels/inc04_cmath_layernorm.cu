// kbench-compat: kernels=layernorm_rows
// kbench-compat: expect=accept
#include <cmath>

// One block per row; naive two-pass layer norm with std:: math.
__global__ void layernorm_rows(const float* x, const float* gamma, const float* beta, float* y, int cols, float eps) {
    __shared__ float s_mean, s_rstd;
    const float* row = x + (size_t)blockIdx.x * cols;
    if (threadIdx.x == 0) {
        float mean = 0.f;
        for (int c = 0; c < cols; ++c) mean += row[c];
        mean /= cols;
        float var = 0.f;
        for (int c = 0; c < cols; ++c) { float d = row[c] - mean; var += d * d; }
        var /= cols;
        s_mean = mean;
        s_rstd = 1.0f / std::sqrt(var + eps);
    }
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float v = (row[c] - s_mean) * s_rstd;
        y[(size_t)blockIdx.x * cols + c] = std::fma(v, gamma[c], beta[c]);
    }
}

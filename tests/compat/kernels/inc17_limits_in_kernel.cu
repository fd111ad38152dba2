// kbench-compat: kernels=masked_softmax_kernel
// kbench-compat: expect=accept
// std::numeric_limits members are constexpr functions: callable in device code
// under --expt-relaxed-constexpr (PyTorch's extension flags, and kbench's policy).
#include <limits>
#include <cmath>

__global__ void masked_softmax_kernel(const float* scores, const bool* mask, float* out, int cols) {
    const float* row = scores + (size_t)blockIdx.x * cols;
    const bool* mrow = mask + (size_t)blockIdx.x * cols;
    float* orow = out + (size_t)blockIdx.x * cols;
    if (threadIdx.x != 0) return;
    float m = -std::numeric_limits<float>::infinity();
    for (int c = 0; c < cols; ++c)
        if (mrow[c]) m = fmaxf(m, row[c]);
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += mrow[c] ? expf(row[c] - m) : 0.f;
    float inv = s > std::numeric_limits<float>::min() ? 1.f / s : 0.f;
    for (int c = 0; c < cols; ++c) orow[c] = mrow[c] ? expf(row[c] - m) * inv : 0.f;
}

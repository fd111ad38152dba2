// kbench-compat: kernels=focal_loss_kernel
// kbench-compat: expect=accept
#include <cmath>
#include <cstdint>
#include <cfloat>
#include <limits>
#include <cstdio>
#include <cassert>
#include <vector>
#include <algorithm>

__global__ void focal_loss_kernel(const float* logits, const int32_t* target, float* loss, int n, float gamma) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float p = 1.f / (1.f + expf(-logits[i]));
    float pt = target[i] ? p : 1.f - p;
    pt = fmaxf(pt, FLT_EPSILON);
    loss[i] = -powf(1.f - pt, gamma) * logf(pt);
}

std::vector<float> host_reference(const std::vector<float>& logits, const std::vector<int32_t>& t, float gamma) {
    std::vector<float> out(logits.size());
    for (size_t i = 0; i < logits.size(); ++i) {
        float p = 1.f / (1.f + std::exp(-logits[i]));
        float pt = std::max(t[i] ? p : 1.f - p, std::numeric_limits<float>::epsilon());
        out[i] = -std::pow(1.f - pt, gamma) * std::log(pt);
    }
    return out;
}

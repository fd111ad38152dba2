// Issue 4's cases on the GPU: each kernel that plain NVRTC rejects but nvcc
// accepts is compiled twice, by kbench's NVRTC path (with its nvcc
// conveniences) and by nvcc, and both images run on the same inputs. The
// compile must take the fast path, and the outputs must be bit-identical:
// the conveniences may not change what a kernel computes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "compiler/compiler.h"
#include "device/device.h"
#include "exec/kernel.h"
#include "exec/launcher.h"

using namespace kb;

namespace {

struct Case {
    const char* name;
    const char* code;  // defines __global__ void k(const float* x, float* y, int n), one thread per element
};

const Case kCases[] = {
    {"infinity_without_include", R"(
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.9f ? INFINITY : (x[i] < -0.9f ? -INFINITY : x[i]);
})"},
    {"math_h", R"(#include <math.h>
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = expf(x[i]) + sqrtf(fabsf(x[i])) + tanhf(x[i]);
})"},
    {"cmath_std", R"(#include <cmath>
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = std::exp(x[i]) * std::cos(x[i]) + std::fmax(x[i], 0.0f);
})"},
    {"float_h_flt_max", R"(#include <float.h>
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.5f ? FLT_MAX : x[i] * FLT_EPSILON * 1e6f;
})"},
    {"cstdint", R"(#include <cstdint>
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint32_t bits = __float_as_uint(x[i]);
        int64_t wide = int64_t(bits) * 3 - INT32_MAX;
        y[i] = float(wide % 1000003);
    }
})"},
    {"numeric_limits", R"(#include <limits>
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] < 0 ? std::numeric_limits<float>::lowest() : x[i] + std::numeric_limits<float>::epsilon();
})"},
    {"device_printf", R"(#include <stdio.h>
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (x[i] > 2.0f) printf("never: %f\n", x[i]);  // inputs are in [-1, 1)
        y[i] = 2.0f * x[i];
    }
})"},
    {"device_assert", R"(#include <cassert>
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        assert(x[i] >= -1.0f && x[i] < 1.0f);
        y[i] = x[i] * x[i];
    }
})"},
    {"host_launcher_beside", R"(#include <cuda_runtime.h>
#include <vector>
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + 1.0f;
}
void launch(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }
int main() {
    std::vector<float> h(16, 1.0f);
    float *x, *y;
    cudaMalloc(&x, 64); cudaMalloc(&y, 64);
    cudaMemcpy(x, h.data(), 64, cudaMemcpyHostToDevice);
    launch(x, y, 16);
    return cudaDeviceSynchronize() != cudaSuccess;
})"},
    {"cub_block_reduce", R"(#include <cub/cub.cuh>
__global__ void k(const float* x, float* y, int n) {
    typedef cub::BlockReduce<float, 256> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    float sum = Reduce(tmp).Sum(v);
    if (i < n) y[i] = v;
    if (threadIdx.x == 0 && i < n) y[i] = sum;  // first element of each block holds the block's sum
})"},
};

const int kN = 1 << 16;

std::vector<uint8_t> run(Device& dev, const Kernel& k, CUdeviceptr x, CUdeviceptr y) {
    LoadedModule mod(dev, k);
    CUfunction f = mod.function("k");
    dev.fill_bytes(y, size_t(kN) * 4, 0xa5);
    int n = kN;
    void* params[] = {&x, &y, &n};
    dev.check(dev.driver().cuLaunchKernel(f, kN / 256, 1, 1, 256, 1, 1, 0, dev.stream(), params, nullptr), "launch");
    dev.sync("run");
    std::vector<uint8_t> out(size_t(kN) * 4);
    dev.download(out.data(), y, out.size());
    return out;
}

KernelPtr kernel_from(CompiledImage image, const char* label) {
    Kernel k;
    k.label = label;
    LaunchStep step;
    step.kernel = "k";
    k.program.launch.push_back(step);
    k.image = std::move(image);
    return finish_kernel(std::move(k));
}

class NvrtcMatchesNvcc : public ::testing::TestWithParam<Case> {};

}  // namespace

TEST_P(NvrtcMatchesNvcc, SameBitsOnTheDevice) {
    Device dev(0);
    Compiler compiler(CompilerConfig{default_cuda_home(), ""});
    CompileRequest req;
    req.code = GetParam().code;
    req.source_name = std::string(GetParam().name) + ".cu";
    req.kernel_names = {"k"};
    req.arch = dev.props().arch();
    CompiledImage fast = compiler.compile(req);
    EXPECT_EQ(fast.path, "nvrtc") << "fell back: " << fast.fallback_reason;
    req.force_nvcc = true;
    CompiledImage slow = compiler.compile(req);
    ASSERT_EQ(slow.path, "nvcc");

    DeviceBuffer x = dev.alloc(size_t(kN) * 4), y = dev.alloc(size_t(kN) * 4);
    dev.fill_random(x.data(), kN, DType::f32, InitSpec{InitSpec::Dist::uniform, -1.0, 1.0}, 7, 0);
    std::vector<uint8_t> a = run(dev, *kernel_from(fast, "nvrtc"), x.data(), y.data());
    std::vector<uint8_t> b = run(dev, *kernel_from(slow, "nvcc"), x.data(), y.data());
    size_t differ = 0, first = 0;
    for (size_t i = 0; i < a.size(); i += 4)
        if (std::memcmp(&a[i], &b[i], 4) != 0 && differ++ == 0) first = i / 4;
    EXPECT_EQ(differ, 0u) << GetParam().name << ": " << differ << " elements differ, first at " << first;
    // The kernels really ran: the poison (0xa5 bytes) is gone.
    uint32_t poison = 0xa5a5a5a5u, v0 = 0;
    std::memcpy(&v0, a.data(), 4);
    EXPECT_NE(v0, poison);
}

INSTANTIATE_TEST_SUITE_P(Issue4, NvrtcMatchesNvcc, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

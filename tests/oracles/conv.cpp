// Float64 oracles of the convolution family (tasks/conv/: conv2d_f32,
// depthwise_conv2d_f32, conv1d_f32) and how far each task's GPU reference may
// be from them (see oracle.h and the notation in common.h). Products
// of two f32 inputs are exact in float64, and the float64 sums are exact to
// about 1e-13 relative: compute() is the truth.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// Sums of T products of uniform(-1, 1) f32 values in one f32 FMA accumulator,
// as the references compute them: the rigorous bound T u sum |x w| is about
// T^2 u / 4 (5e-3 at T = 576), useless. Simulated (accuracy_sim.cpp, 200000
// sums): the largest error was 3.4e-5 at T = 576 and 2.1e-5 at T = 320, 0.15
// and 0.10 of (1e-4, 1e-5); the error grows about linearly with T, and the
// GEMM tasks' simulation gives 6.6e-5 at T = 1024. Bound: atol 1e-4 s,
// rtol 1e-5 s with s = max(1, T / 1024): half the tasks' tolerance (atol 2e-4,
// rtol 2e-5), at least 1.5x the largest error seen up to T = 1024.
Bound long_sum_bound(double terms) {
    const double s = std::max(1.0, terms / 1024.0);
    return Bound{1e-4 * s, 1e-5 * s};
}

// --- conv2d_f32: NCHW, 3x3, stride 1, padding 1, no bias -------------------
Tensors conv2d_f32(const Dims& dims, const Tensors& in) {
    const int64_t N = dim(dims, "N"), C = dim(dims, "C"), H = dim(dims, "H"), W = dim(dims, "W"), F = dim(dims, "F");
    const auto& x = input(in, "x", N * C * H * W);
    const auto& w = input(in, "w", F * C * 9);
    std::vector<double> y(size_t(N * F * H * W), 0.0);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t f = 0; f < F; ++f) {
            double* __restrict out = y.data() + (n * F + f) * H * W;
            for (int64_t c = 0; c < C; ++c) {
                const double* plane = x.data() + (n * C + c) * H * W;
                for (int64_t u = 0; u < 3; ++u)
                    for (int64_t v = 0; v < 3; ++v) {
                        const double wt = w[size_t(((f * C + c) * 3 + u) * 3 + v)];
                        // Output (i, j) reads input (i + u - 1, j + v - 1) where that is inside.
                        for (int64_t i = std::max<int64_t>(0, 1 - u); i < std::min(H, H + 1 - u); ++i) {
                            const double* __restrict row = plane + (i + u - 1) * W;
                            double* __restrict o = out + i * W;
                            for (int64_t j = std::max<int64_t>(0, 1 - v); j < std::min(W, W + 1 - v); ++j)
                                o[j] += row[j + v - 1] * wt;
                        }
                    }
            }
        }
    return {{"y", std::move(y)}};
}

// --- depthwise_conv2d_f32: per-channel 3x3, stride 1, padding 1 -------------
// GPU reference: at most 9 FMAs into one f32 accumulator, so rigorously (first
// order) |ref - truth| <= 9 u sum |x w| <= 81 u = 4.8e-6 for inputs in
// [-1, 1], whatever the order. Bound: atol 81 u x 1.01 = 4.9e-6, under half
// the task's atol 2e-5 (rtol 0: the absolute bound holds everywhere).
Tensors depthwise_conv2d_f32(const Dims& dims, const Tensors& in) {
    const int64_t N = dim(dims, "N"), C = dim(dims, "C"), H = dim(dims, "H"), W = dim(dims, "W");
    const auto& x = input(in, "x", N * C * H * W);
    const auto& w = input(in, "w", C * 9);
    std::vector<double> y(size_t(N * C * H * W), 0.0);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c) {
            const double* plane = x.data() + (n * C + c) * H * W;
            double* out = y.data() + (n * C + c) * H * W;
            for (int64_t i = 0; i < H; ++i)
                for (int64_t j = 0; j < W; ++j) {
                    double s = 0.0;
                    for (int64_t u = 0; u < 3; ++u)
                        for (int64_t v = 0; v < 3; ++v) {
                            const int64_t r = i + u - 1, q = j + v - 1;
                            if (r >= 0 && r < H && q >= 0 && q < W) s += plane[r * W + q] * w[size_t(c * 9 + u * 3 + v)];
                        }
                    out[i * W + j] = s;
                }
        }
    return {{"y", std::move(y)}};
}

// --- conv1d_f32: NCL, width K, stride 1, no padding, no bias ----------------
Tensors conv1d_f32(const Dims& dims, const Tensors& in) {
    const int64_t N = dim(dims, "N"), C = dim(dims, "C"), L = dim(dims, "L"), F = dim(dims, "F"), K = dim(dims, "K");
    if (K > L) throw std::invalid_argument("oracle: conv1d_f32 needs K <= L");
    const int64_t Lout = L - K + 1;
    const auto& x = input(in, "x", N * C * L);
    const auto& w = input(in, "w", F * C * K);
    std::vector<double> y(size_t(N * F * Lout), 0.0);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t f = 0; f < F; ++f) {
            double* __restrict out = y.data() + (n * F + f) * Lout;
            for (int64_t c = 0; c < C; ++c)
                for (int64_t k = 0; k < K; ++k) {
                    const double wt = w[size_t((f * C + c) * K + k)];
                    const double* __restrict xs = x.data() + (n * C + c) * L + k;
                    for (int64_t t = 0; t < Lout; ++t) out[t] += xs[t] * wt;
                }
        }
    return {{"y", std::move(y)}};
}

}  // namespace

KB_REGISTER_ORACLE(conv2d_f32, {"conv2d_f32", conv2d_f32, only("conv2d_f32", "y", [](const Dims& d) {
                                    return long_sum_bound(double(dim(d, "C")) * 9);
                                })});
KB_REGISTER_ORACLE(depthwise_conv2d_f32,
                   {"depthwise_conv2d_f32", depthwise_conv2d_f32,
                    only("depthwise_conv2d_f32", "y", [](const Dims&) { return Bound{81 * kU32 * kSlack, 0.0}; })});
KB_REGISTER_ORACLE(conv1d_f32, {"conv1d_f32", conv1d_f32, only("conv1d_f32", "y", [](const Dims& d) {
                                    return long_sum_bound(double(dim(d, "C")) * double(dim(d, "K")));
                                })});

}  // namespace kb::oracle

// Float64 oracles of the first six tasks (vector_add_f32, copy_f32,
// gelu_tanh_f16, softmax_f32, sum_f32, gemm_f32) and the bounds on how far
// each task's GPU reference may be from them (see oracle.h).
//
// Notation: u = 2^-24, the unit roundoff of f32 (round to nearest); one f32
// ulp of a value v is at most 2^-23 |v|. "First order" bounds drop u^2 terms
// (covered by a 1% slack factor).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "oracles/oracle.h"

namespace kb::oracle {
namespace {

constexpr double kU32 = 1.0 / 16777216.0;  // 2^-24
constexpr double kSlack = 1.01;            // covers the second-order terms of the bounds

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// One output: `bound` for it, std::invalid_argument for any other name.
template <class F>
std::function<Bound(const std::string&, const Dims&)> only(const char* task, const char* output, F bound) {
    return [=](const std::string& name, const Dims& dims) {
        if (name != output)
            throw std::invalid_argument(std::string("oracle: task '") + task + "' has no output '" + name +
                                        "' (its output is '" + output + "')");
        return bound(dims);
    };
}

// --- vector_add_f32: c = a + b ---------------------------------------------
// GPU reference: one f32 addition, correctly rounded: |c - (a + b)| <= u |a + b|.
// The float64 sum of two f32 values is exact unless their exponents are more
// than 29 apart, and then off by at most 2^-53 relative. Bound: rtol 2u
// (task tolerance: atol 1e-6, rtol 1e-6).
Tensors vector_add_f32(const Dims& dims, const Tensors& in) {
    const int64_t n = dim(dims, "n");
    const auto& a = input(in, "a", n);
    const auto& b = input(in, "b", n);
    std::vector<double> c(n);
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    return {{"c", std::move(c)}};
}

// --- copy_f32: y = x --------------------------------------------------------
// Exact: bound 0 (task tolerance: exact).
Tensors copy_f32(const Dims& dims, const Tensors& in) {
    const int64_t n = dim(dims, "n");
    return {{"y", input(in, "x", n)}};
}

// --- gelu_tanh_f16: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) -----
// Truth is the tanh-approximation formula itself (not the erf GELU), on the
// f16 input values, not rounded to f16.
// GPU reference: f32 evaluation, then one rounding to f16.
//  - f16 rounding: at most half an f16 ulp, <= 2^-11 |y| = 4.9e-4 |y| for
//    normal values; <= 2^-25 = 3e-8 absolute in the subnormal range (< 2^-14).
//  - f32 evaluation: a few 1e-7 relative, except in the negative tail
//    (x < -3), where 1 + tanh(u) cancels: tanhf is within 2 ulps (1.2e-7) of
//    tanh(u) near -1, times 0.5 |x| <= 2.5 for the task's |x| <= 5, so at
//    most about 3e-7 absolute there (the outputs are then ~1e-4 .. 1e-7, and
//    the reference may be off by 100% relative at x = -5: atol covers it).
// Bound: atol 1e-6, rtol 6e-4 (task tolerance: atol 1e-5, rtol 2e-3).
Tensors gelu_tanh_f16(const Dims& dims, const Tensors& in) {
    const int64_t n = dim(dims, "n");
    const auto& x = input(in, "x", n);
    const double k = 0.79788456080286535588;  // sqrt(2 / pi)
    std::vector<double> y(n);
    for (int64_t i = 0; i < n; ++i) {
        const double v = x[i];
        y[i] = 0.5 * v * (1.0 + std::tanh(k * (v + 0.044715 * v * v * v)));
    }
    return {{"y", std::move(y)}};
}

// --- softmax_f32: row-wise softmax of x[rows, cols] -------------------------
// GPU reference (first order, for the task's inputs, where x - max is exact
// by Sterbenz's lemma since all values lie within a factor 2 of each other):
//  - each expf is within 2 ulps: relative 2 * 2^-23 = 4u, in the numerator
//    and in every summed term;
//  - the sum of positive terms: each of 256 threads adds k = ceil(cols/256)
//    terms sequentially (k - 1 roundings), then a tree of depth 8: relative
//    (k - 1 + 8) u;
//  - the division: u.
// Total rtol = (4 + 4 + k + 7 + 1) u = (k + 16) u: 1.9e-6 at cols = 4096,
// 2.4e-5 at cols = 100003 (the largest case), at most half the task's rtol
// 5e-5. Simulated, the actual error is about 2.5e-7.
Tensors softmax_f32(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "x", rows * cols);
    std::vector<double> y(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
        const double* xr = x.data() + r * cols;
        double* yr = y.data() + r * cols;
        double m = -INFINITY;
        for (int64_t c = 0; c < cols; ++c) m = std::max(m, xr[c]);
        double s = 0.0;
        for (int64_t c = 0; c < cols; ++c) s += (yr[c] = std::exp(xr[c] - m));
        for (int64_t c = 0; c < cols; ++c) yr[c] /= s;
    }
    return {{"y", std::move(y)}};
}

// --- sum_f32: out = sum x ---------------------------------------------------
// Truth: Neumaier-compensated float64 summation. For the task's inputs (f32
// values in [1, 2]) every partial sum up to n = 2^29 is exactly representable
// in float64, so even the plain sum is exact; the compensation keeps other
// inputs accurate too.
// GPU reference: a depth-8 tree per block of 256, then B = ceil(n/256) block
// sums added with atomics in an unknown order. Rigorous first order:
// (B - 1 + 8) u relative (all terms positive) = 6.6e-7 at n = 1009, but
// 3.9e-3 at n = 2^24, useless there. Simulated at n = 2^24 over 60 random
// atomic orders the error was at most 8.7e-6 (a random walk of B roundings,
// about u sqrt(B) in size). Bound: rtol = min((B + 7) u, 5e-5): the rigorous
// bound where it is tight, else half the task's rtol 1e-4, about 6x the
// largest error seen.
Tensors sum_f32(const Dims& dims, const Tensors& in) {
    const int64_t n = dim(dims, "n");
    const auto& x = input(in, "x", n);
    double s = 0.0, comp = 0.0;
    for (int64_t i = 0; i < n; ++i) {
        const double t = s + x[i];
        comp += std::fabs(s) >= std::fabs(x[i]) ? (s - t) + x[i] : (x[i] - t) + s;
        s = t;
    }
    return {{"out", std::vector<double>{s + comp}}};
}

// --- gemm_f32: C[M,N] = A[M,K] @ B[K,N], row-major --------------------------
// GPU reference: one f32 FMA accumulator per element over k = 0..K-1. The
// rigorous bound K u sum_k |a_ik b_kj| is about K^2 u / 4 = 1.6e-2 at
// K = 1024 for uniform(-1, 1) inputs: useless. Simulated at 1024^3 (truth vs
// sequential FMA, 1M elements) the largest error was 0.29 of
// (atol 1e-4, rtol 1e-5), and the rms error grows about linearly with K.
// Bound: atol 1e-4 s, rtol 1e-5 s with s = max(1, K / 1024): half the task
// tolerance (atol 2e-4, rtol 2e-5) up to K = 1024, about 3x the largest error
// seen, and scaled with K beyond it.
Tensors gemm_f32(const Dims& dims, const Tensors& in) {
    const int64_t M = dim(dims, "M"), N = dim(dims, "N"), K = dim(dims, "K");
    const auto& A = input(in, "A", M * K);
    const auto& B = input(in, "B", K * N);
    std::vector<double> C(M * N, 0.0);
    for (int64_t i = 0; i < M; ++i) {
        double* c = C.data() + i * N;
        for (int64_t k = 0; k < K; ++k) {
            const double a = A[i * K + k];
            const double* b = B.data() + k * N;
            for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
        }
    }
    return {{"C", std::move(C)}};
}

}  // namespace

KB_REGISTER_ORACLE(vector_add_f32, {"vector_add_f32", vector_add_f32,
                                    only("vector_add_f32", "c", [](const Dims&) { return Bound{0.0, 2 * kU32}; })});
KB_REGISTER_ORACLE(copy_f32, {"copy_f32", copy_f32, only("copy_f32", "y", [](const Dims&) { return Bound{0.0, 0.0}; })});
KB_REGISTER_ORACLE(gelu_tanh_f16, {"gelu_tanh_f16", gelu_tanh_f16,
                                   only("gelu_tanh_f16", "y", [](const Dims&) { return Bound{1e-6, 6e-4}; })});
KB_REGISTER_ORACLE(softmax_f32, {"softmax_f32", softmax_f32, only("softmax_f32", "y", [](const Dims& dims) {
                                     const double k = static_cast<double>(ceil_div(dim(dims, "cols"), 256));
                                     return Bound{0.0, (k + 16) * kU32 * kSlack};
                                 })});
KB_REGISTER_ORACLE(sum_f32, {"sum_f32", sum_f32, only("sum_f32", "out", [](const Dims& dims) {
                                 const double blocks = static_cast<double>(ceil_div(dim(dims, "n"), 256));
                                 return Bound{0.0, std::min((blocks + 7) * kU32 * kSlack, 5e-5)};
                             })});
KB_REGISTER_ORACLE(gemm_f32, {"gemm_f32", gemm_f32, only("gemm_f32", "C", [](const Dims& dims) {
                                  const double s = std::max(1.0, static_cast<double>(dim(dims, "K")) / 1024.0);
                                  return Bound{1e-4 * s, 1e-5 * s};
                              })});

}  // namespace kb::oracle

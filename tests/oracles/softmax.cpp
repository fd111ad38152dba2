// Float64 oracles of the softmax family (tasks/softmax/) and the bounds on
// how far each task's reference may be from them (see oracle.h and the
// notation in common.h).
#include <algorithm>
#include <cmath>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// --- softmax_f32: row-wise softmax of x[rows, cols] -------------------------
// Reference (first order, for the task's inputs, where x - max is exact by
// Sterbenz's lemma since all values lie within a factor 2 of each other):
//  - each expf is within 2 ulps: relative 2 * 2^-23 = 4u, in the numerator
//    and in every summed term;
//  - the sum of positive terms: each of 256 threads adds k = ceil(cols/256)
//    terms sequentially (k - 1 roundings), then a tree of depth 8: relative
//    (k - 1 + 8) u;
//  - the division: u.
// Total rtol = (4 + 4 + k + 7 + 1) u = (k + 16) u: 2.1e-6 at cols = 5120 (perf),
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


// Softmax of every row of x[rows, cols] in double.
std::vector<double> softmax_rows(const std::vector<double>& x, int64_t rows, int64_t cols, bool log_form) {
    std::vector<double> y(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
        const double* xr = x.data() + r * cols;
        double* yr = y.data() + r * cols;
        const double m = *std::max_element(xr, xr + cols);
        double s = 0.0;
        for (int64_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
        const double log_s = std::log(s);
        for (int64_t c = 0; c < cols; ++c) yr[c] = log_form ? (xr[c] - m) - log_s : std::exp(xr[c] - m) / s;
    }
    return y;
}

// log_softmax_f32: (x - m) - log(sum exp(x - m)).
// Reference (first order): d = x - m rounds (u |d|); each expf is within
// 2 ulps and is taken at the rounded d, whose error matters only for terms
// e^d |d| <= 1/e of a sum >= 1: log(sum) is within 2.4e-7 + 0.37u absolute
// (the double sum and log add nothing visible); the final rounding is u |y|.
// With |d| <= |y| + log(cols) <= |y| + 11.6: at most 9.5e-7 + 2u |y|.
// Bound: atol 1.2e-6, rtol 3u (task tolerance: atol 1e-5, rtol 1e-5).
Tensors log_softmax_f32(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    return {{"y", softmax_rows(input(in, "x", rows * cols), rows, cols, true)}};
}

// softmax_f16: softmax of the f16 input values, not rounded.
// Reference: the softmax_f32 computation (relative (k + 16) u with
// k = ceil(cols / 256); x - m is exact for f16 inputs), then one rounding to
// f16: 2^-11 relative for normal values, 2^-25 absolute below 2^-14.
// Bound: atol 2^-25 * slack, rtol (2^-11 + (k + 16) u) * slack: 5.1e-4 at the
// widest case (task tolerance: atol 1e-6, rtol 2e-3).
Tensors softmax_f16(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    return {{"y", softmax_rows(input(in, "x", rows * cols), rows, cols, false)}};
}

}  // namespace

KB_REGISTER_ORACLE(softmax_f32, {"softmax_f32", softmax_f32, only("softmax_f32", "y", [](const Dims& dims) {
                                     const double k = static_cast<double>(ceil_div(dim(dims, "cols"), 256));
                                     return Bound{0.0, (k + 16) * kU32 * kSlack};
                                 })});

KB_REGISTER_ORACLE(log_softmax_f32, {"log_softmax_f32", log_softmax_f32, only("log_softmax_f32", "y", [](const Dims&) {
                                         return Bound{1.2e-6, 3 * kU32};
                                     })});
KB_REGISTER_ORACLE(softmax_f16, {"softmax_f16", softmax_f16, only("softmax_f16", "y", [](const Dims& dims) {
                                     const double k = static_cast<double>(ceil_div(dim(dims, "cols"), 256));
                                     return Bound{kF16SubnormalHalfUlp * kSlack, (kU16 + (k + 16) * kU32) * kSlack};
                                 })});

}  // namespace kb::oracle

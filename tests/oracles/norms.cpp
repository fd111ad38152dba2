// Float64 oracles of the normalisation family (tasks/norms/) and the bounds
// on how far each task's reference may be from them (see oracle.h and the
// notation in common.h).
//
// The references compute the row statistics and the outputs in double and
// round once to the output type, so their distance to float64 truth is one
// rounding: u = 2^-24 relative for f32, 2^-8 for bf16 (through f32, plus u),
// and an absolute 1e-12 for the double arithmetic on O(10) intermediates.
#include <algorithm>
#include <cmath>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// eps as the tasks pass it: an f32 scalar.
double f32(double v) { return double(float(v)); }

struct RowStats {
    double mean, rstd;
};

RowStats row_stats(const double* x, int64_t cols, double eps) {
    const double mean = exact_sum(x, x + cols) / double(cols);
    std::vector<double> sq(cols);
    for (int64_t c = 0; c < cols; ++c) sq[c] = (x[c] - mean) * (x[c] - mean);
    const double var = exact_sum(sq.begin(), sq.end()) / double(cols);
    return {mean, 1.0 / std::sqrt(var + eps)};
}

// layernorm_f32: y = (x - mean) / sqrt(var + eps) * w + b, biased variance.
// Bound: atol 1e-12, rtol 2u (task tolerance: atol 1e-4, rtol 1e-4).
Tensors layernorm_f32(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "x", rows * cols);
    const auto& w = input(in, "w", cols);
    const auto& b = input(in, "b", cols);
    std::vector<double> y(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
        const double* xr = x.data() + r * cols;
        const RowStats s = row_stats(xr, cols, f32(1e-5));
        for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = (xr[c] - s.mean) * s.rstd * w[c] + b[c];
    }
    return {{"y", std::move(y)}};
}

// y = x / sqrt(mean(x^2) + eps) * w.
std::vector<double> rmsnorm(const Dims& dims, const Tensors& in, double eps) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "x", rows * cols);
    const auto& w = input(in, "w", cols);
    std::vector<double> y(rows * cols), sq(cols);
    for (int64_t r = 0; r < rows; ++r) {
        const double* xr = x.data() + r * cols;
        for (int64_t c = 0; c < cols; ++c) sq[c] = xr[c] * xr[c];
        const double rstd = 1.0 / std::sqrt(exact_sum(sq.begin(), sq.end()) / double(cols) + eps);
        for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = xr[c] * rstd * w[c];
    }
    return y;
}

// rmsnorm_f32: bound atol 1e-12, rtol 2u (task tolerance: atol 1e-6, rtol 2e-5).
Tensors rmsnorm_f32(const Dims& d, const Tensors& in) { return {{"y", rmsnorm(d, in, f32(1e-6))}}; }

// rmsnorm_bf16: on the bf16 input values; the reference rounds the double
// result to f32 (u) and then to bf16 (half an ulp, 2^-8 relative; bf16 has
// f32's exponent range). Bound: atol 1e-12, rtol (2^-8 + u) * slack = 3.95e-3
// (task tolerance: atol 1e-6, rtol 1.6e-2).
Tensors rmsnorm_bf16(const Dims& d, const Tensors& in) { return {{"y", rmsnorm(d, in, f32(1e-6))}}; }

// layernorm_backward_f32: dx, dw, db as the task defines them.
// Bounds: dx atol 1e-12, rtol 2u; dw and db are double sums over the rows of
// O(1) terms, rounded once: atol 1e-12 * rows, rtol 2u (task tolerances: dx
// atol 1e-5, rtol 1e-4; dw, db atol 2e-3, rtol 1e-4).
Tensors layernorm_backward_f32(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "x", rows * cols);
    const auto& w = input(in, "w", cols);
    const auto& dy = input(in, "dy", rows * cols);
    std::vector<double> dx(rows * cols), g(cols), gx(cols), xhat(cols);
    std::vector<std::vector<double>> dw_terms(cols), db_terms(cols);
    for (int64_t r = 0; r < rows; ++r) {
        const double* xr = x.data() + r * cols;
        const double* dyr = dy.data() + r * cols;
        const RowStats s = row_stats(xr, cols, f32(1e-5));
        for (int64_t c = 0; c < cols; ++c) {
            xhat[c] = (xr[c] - s.mean) * s.rstd;
            g[c] = w[c] * dyr[c];
            gx[c] = g[c] * xhat[c];
            dw_terms[c].push_back(dyr[c] * xhat[c]);
            db_terms[c].push_back(dyr[c]);
        }
        const double mean_g = exact_sum(g.begin(), g.end()) / double(cols);
        const double mean_gx = exact_sum(gx.begin(), gx.end()) / double(cols);
        for (int64_t c = 0; c < cols; ++c) dx[r * cols + c] = s.rstd * (g[c] - mean_g - xhat[c] * mean_gx);
    }
    std::vector<double> dw(cols), db(cols);
    for (int64_t c = 0; c < cols; ++c) {
        dw[c] = exact_sum(dw_terms[c].begin(), dw_terms[c].end());
        db[c] = exact_sum(db_terms[c].begin(), db_terms[c].end());
    }
    return {{"dx", std::move(dx)}, {"dw", std::move(dw)}, {"db", std::move(db)}};
}

}  // namespace

KB_REGISTER_ORACLE(layernorm_f32, {"layernorm_f32", layernorm_f32,
                                   only("layernorm_f32", "y", [](const Dims&) { return Bound{1e-12, 2 * kU32}; })});
KB_REGISTER_ORACLE(rmsnorm_f32, {"rmsnorm_f32", rmsnorm_f32,
                                 only("rmsnorm_f32", "y", [](const Dims&) { return Bound{1e-12, 2 * kU32}; })});
KB_REGISTER_ORACLE(rmsnorm_bf16, {"rmsnorm_bf16", rmsnorm_bf16, only("rmsnorm_bf16", "y", [](const Dims&) {
                                      return Bound{1e-12, (kUBF16 + kU32) * kSlack};
                                  })});
KB_REGISTER_ORACLE(layernorm_backward_f32,
                   {"layernorm_backward_f32", layernorm_backward_f32,
                    each_of("layernorm_backward_f32", {"dx", "dw", "db"}, [](const std::string& out, const Dims& dims) {
                        if (out == "dx") return Bound{1e-12, 2 * kU32};
                        return Bound{1e-12 * double(dim(dims, "rows")), 2 * kU32};
                    })});

}  // namespace kb::oracle

// Float64 oracles of the reductions family (tasks/reductions/) and the
// bounds on how far each task's reference may be from them (see oracle.h and
// the notation in common.h).
#include <algorithm>
#include <cmath>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// --- sum_f32: out = sum x ---------------------------------------------------
// Truth: Neumaier-compensated float64 summation. For the task's inputs (f32
// values in [1, 2]) every partial sum up to n = 2^29 is exactly representable
// in float64, so even the plain sum is exact; the compensation keeps other
// inputs accurate too.
// Reference: a depth-8 tree per block of 256, then B = ceil(n/256) block
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
    return {{"out", std::vector<double>{exact_sum(x.begin(), x.end())}}};
}


// --- row-wise reductions of x[rows, cols] --------------------------------------
template <class F>
std::vector<double> per_row(const Dims& dims, const Tensors& in, F reduce) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "x", rows * cols);
    std::vector<double> y(rows);
    for (int64_t r = 0; r < rows; ++r) y[r] = reduce(x.data() + r * cols, cols);
    return y;
}

// sum_rows_f32: y[r] = sum_c x[r][c], exactly (compensated double sum; the
// task's f32 terms in [1, 2) make the plain double sum exact too).
// Reference: double partials and a double tree (relative error below
// cols * 2^-53, about 1e-11 here), one rounding to f32 (u). Bound: rtol 2u
// (task tolerance: rtol 1e-4).
Tensors sum_rows_f32(const Dims& d, const Tensors& in) {
    return {{"y", per_row(d, in, [](const double* p, int64_t n) { return exact_sum(p, p + n); })}};
}

// max_rows_f32: exact. Bound 0 (task tolerance: exact).
Tensors max_rows_f32(const Dims& d, const Tensors& in) {
    return {{"y", per_row(d, in, [](const double* p, int64_t n) { return *std::max_element(p, p + n); })}};
}

// argmax_rows_f32: the first index of the maximum (std::max_element returns
// the first of equal maxima). Exact: bound 0.
Tensors argmax_rows_f32(const Dims& d, const Tensors& in) {
    return {{"idx", per_row(d, in, [](const double* p, int64_t n) { return double(std::max_element(p, p + n) - p); })}};
}

// mean_cols_f32: y[c] = sum_r x[r][c] / rows, in double.
// Reference: a double sum per column (relative error below rows * 2^-53),
// the division in double, one rounding to f32. Bound: rtol 2u (task
// tolerance: rtol 1e-4).
Tensors mean_cols_f32(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "x", rows * cols);
    std::vector<double> y(cols);
    std::vector<double> column(rows);
    for (int64_t c = 0; c < cols; ++c) {
        for (int64_t r = 0; r < rows; ++r) column[r] = x[r * cols + c];
        y[c] = exact_sum(column.begin(), column.end()) / double(rows);
    }
    return {{"y", std::move(y)}};
}

}  // namespace

KB_REGISTER_ORACLE(sum_f32, {"sum_f32", sum_f32, only("sum_f32", "out", [](const Dims& dims) {
                                 const double blocks = static_cast<double>(ceil_div(dim(dims, "n"), 256));
                                 return Bound{0.0, std::min((blocks + 7) * kU32 * kSlack, 5e-5)};
                             })});

KB_REGISTER_ORACLE(sum_rows_f32, {"sum_rows_f32", sum_rows_f32,
                                  only("sum_rows_f32", "y", [](const Dims&) { return Bound{0.0, 2 * kU32}; })});
KB_REGISTER_ORACLE(mean_cols_f32, {"mean_cols_f32", mean_cols_f32,
                                   only("mean_cols_f32", "y", [](const Dims&) { return Bound{0.0, 2 * kU32}; })});
KB_REGISTER_ORACLE(max_rows_f32, {"max_rows_f32", max_rows_f32,
                                  only("max_rows_f32", "y", [](const Dims&) { return Bound{0.0, 0.0}; })});
KB_REGISTER_ORACLE(argmax_rows_f32, {"argmax_rows_f32", argmax_rows_f32,
                                     only("argmax_rows_f32", "idx", [](const Dims&) { return Bound{0.0, 0.0}; })});

}  // namespace kb::oracle

// Float64 oracles of the scan family (tasks/scan/) and the bounds on how far
// each task's reference may be from them (see oracle.h and the notation in
// common.h).
#include <cmath>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// Inclusive prefix sums along each row, exactly: the running sums of f32
// values in [1, 2) (up to 1e5 of them) and of integers up to 1e8 are exact in
// double.
Tensors cumsum(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "x", rows * cols);
    std::vector<double> y(rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
        double s = 0.0;
        for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = (s += x[r * cols + c]);
    }
    return {{"y", std::move(y)}};
}

// cumsum_f32: the reference's tile scan (see its reference.cu) forms each
// prefix of positive terms with at most 8 additions inside its 256-wide tile
// and one per earlier tile (the carry), plus the final addition: relative
// error at most (9 + T) u with T = ceil(cols / 256) - 1 tiles before the last.
// Bound: rtol (10 + ceil(cols / 256)) u * slack: 2.4e-5 at cols = 100003
// (task tolerance: rtol 1e-4).
// cumsum_i32: exact, bound 0.

}  // namespace

KB_REGISTER_ORACLE(cumsum_f32, {"cumsum_f32", cumsum, only("cumsum_f32", "y", [](const Dims& dims) {
                                    const double tiles = double(ceil_div(dim(dims, "cols"), 256));
                                    return Bound{0.0, (10 + tiles) * kU32 * kSlack};
                                })});
KB_REGISTER_ORACLE(cumsum_i32, {"cumsum_i32", cumsum, only("cumsum_i32", "y", [](const Dims&) { return Bound{0.0, 0.0}; })});

}  // namespace kb::oracle

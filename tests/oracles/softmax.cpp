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

}  // namespace

KB_REGISTER_ORACLE(softmax_f32, {"softmax_f32", softmax_f32, only("softmax_f32", "y", [](const Dims& dims) {
                                     const double k = static_cast<double>(ceil_div(dim(dims, "cols"), 256));
                                     return Bound{0.0, (k + 16) * kU32 * kSlack};
                                 })});

}  // namespace kb::oracle

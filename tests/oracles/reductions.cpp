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

}  // namespace

KB_REGISTER_ORACLE(sum_f32, {"sum_f32", sum_f32, only("sum_f32", "out", [](const Dims& dims) {
                                 const double blocks = static_cast<double>(ceil_div(dim(dims, "n"), 256));
                                 return Bound{0.0, std::min((blocks + 7) * kU32 * kSlack, 5e-5)};
                             })});

}  // namespace kb::oracle

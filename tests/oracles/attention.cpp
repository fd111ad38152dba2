// Float64 oracle of the attention family (tasks/attention/:
// attention_causal_f16) and how far the task's GPU reference may be from it
// (see oracle.h).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// --- attention_causal_f16 ----------------------------------------------------
// o[b][h][i] = sum_{j <= i} softmax_j(q_i . k_j / sqrt(D)) v_j, from the f16
// input values, in float64 (scores, max subtraction, exp, sums), not rounded.
// GPU reference: f32 scores (sequential FMA over d), expf, tree sums, a
// sequential f32 weighted sum over j, one division, one rounding to f16.
// The rounding to f16 is at most 2^-11 |o| (1 + 2^-11); the f32 part is small
// but has no useful rigorous bound over 1024-term sums. Simulated
// (accuracy_sim.cpp: 8000 rows of up to 1024 keys at D = 32, 64, 128, inputs
// as the task draws them) the reference used at most 0.70 of (atol 1e-4,
// rtol 5e-4), its largest error being 2.5e-4 on an output near 1, i.e. the
// rounding. Bound: atol 1e-4, rtol 5e-4: half the task's tolerance (atol 1e-3,
// rtol 2e-3) or less.
Tensors attention_causal_f16(const Dims& dims, const Tensors& in) {
    const int64_t B = dim(dims, "B"), H = dim(dims, "H"), S = dim(dims, "S"), D = dim(dims, "D");
    const int64_t n = B * H * S * D;
    const auto& q = input(in, "q", n);
    const auto& k = input(in, "k", n);
    const auto& v = input(in, "v", n);
    std::vector<double> o(size_t(n), 0.0);
    const double scale = 1.0 / std::sqrt(double(D));
    std::vector<double> p(static_cast<size_t>(S));
    for (int64_t head = 0; head < B * H; ++head) {
        const double* qh = q.data() + head * S * D;
        const double* kh = k.data() + head * S * D;
        const double* vh = v.data() + head * S * D;
        double* oh = o.data() + head * S * D;
        for (int64_t i = 0; i < S; ++i) {
            double m = -INFINITY;
            for (int64_t j = 0; j <= i; ++j) {
                double s = 0.0;
                for (int64_t d = 0; d < D; ++d) s += qh[i * D + d] * kh[j * D + d];
                p[size_t(j)] = s * scale;
                m = std::max(m, p[size_t(j)]);
            }
            double l = 0.0;
            for (int64_t j = 0; j <= i; ++j) l += (p[size_t(j)] = std::exp(p[size_t(j)] - m));
            double* __restrict out = oh + i * D;
            for (int64_t j = 0; j <= i; ++j) {
                const double w = p[size_t(j)] / l;
                const double* __restrict vj = vh + j * D;
                for (int64_t d = 0; d < D; ++d) out[d] += w * vj[d];
            }
        }
    }
    return {{"o", std::move(o)}};
}

}  // namespace

KB_REGISTER_ORACLE(attention_causal_f16, {"attention_causal_f16", attention_causal_f16,
                                          only("attention_causal_f16", "o", [](const Dims&) { return Bound{1e-4, 5e-4}; })});
}  // namespace kb::oracle

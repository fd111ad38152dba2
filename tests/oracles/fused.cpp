// Float64 oracles of the fused family (tasks/fused/) and the bounds on how
// far each task's reference may be from them (see oracle.h and the notation
// in common.h).
#include <cmath>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// --- bias_gelu_f16: y = gelu_tanh(x + b[col]) --------------------------------
// Truth: the tanh-approximation GELU of the exact sum of the f16 inputs.
// Reference: the sum in f32 (exact but for the rare tiny x next to a large b:
// relative u at most), then as gelu_tanh_f16's reference: f32 evaluation (a few 1e-7
// relative, about 3e-7 absolute in the negative tail, where |t| <= 9 for these
// inputs: 0.5 |t| * 1.2e-7 <= 5.4e-7) and one rounding to f16 (2^-11
// relative, 2^-25 absolute below 2^-14). Bound: atol 1e-6, rtol 6e-4 (task
// tolerance: atol 1e-4, rtol 4e-3).
Tensors bias_gelu_f16(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "x", rows * cols);
    const auto& b = input(in, "b", cols);
    const double k = 0.79788456080286535588;  // sqrt(2 / pi)
    std::vector<double> y(rows * cols);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
            const double t = x[r * cols + c] + b[c];
            y[r * cols + c] = 0.5 * t * (1.0 + std::tanh(k * (t + 0.044715 * t * t * t)));
        }
    return {{"y", std::move(y)}};
}

// --- residual_layernorm_f32: h = fl32(x + residual), y = LayerNorm(h) w + b ---
// h is defined as the f32 sum (one correct rounding: bound 0). y normalises
// that h; the reference computes its statistics and y in double and rounds
// once. Bound for y: atol 1e-12, rtol 2u (task tolerance: atol 1e-4, rtol 1e-4).
Tensors residual_layernorm_f32(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "x", rows * cols);
    const auto& res = input(in, "residual", rows * cols);
    const auto& w = input(in, "w", cols);
    const auto& b = input(in, "b", cols);
    const double eps = double(1e-5f);
    std::vector<double> h(rows * cols), y(rows * cols), sq(cols);
    for (int64_t i = 0; i < rows * cols; ++i) h[i] = double(float(x[i] + res[i]));
    for (int64_t r = 0; r < rows; ++r) {
        const double* hr = h.data() + r * cols;
        const double mean = exact_sum(hr, hr + cols) / double(cols);
        for (int64_t c = 0; c < cols; ++c) sq[c] = (hr[c] - mean) * (hr[c] - mean);
        const double rstd = 1.0 / std::sqrt(exact_sum(sq.begin(), sq.end()) / double(cols) + eps);
        for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = (hr[c] - mean) * rstd * w[c] + b[c];
    }
    return {{"h", std::move(h)}, {"y", std::move(y)}};
}

}  // namespace

KB_REGISTER_ORACLE(bias_gelu_f16, {"bias_gelu_f16", bias_gelu_f16,
                                   only("bias_gelu_f16", "y", [](const Dims&) { return Bound{1e-6, 6e-4}; })});
KB_REGISTER_ORACLE(residual_layernorm_f32,
                   {"residual_layernorm_f32", residual_layernorm_f32,
                    each_of("residual_layernorm_f32", {"h", "y"}, [](const std::string& out, const Dims&) {
                        return out == "h" ? Bound{0.0, 0.0} : Bound{1e-12, 2 * kU32};
                    })});

}  // namespace kb::oracle

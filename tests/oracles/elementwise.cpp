// Float64 oracles of the elementwise family (tasks/elementwise/) and the
// bounds on how far each task's reference may be from them (see oracle.h and
// the notation in common.h).
#include <algorithm>
#include <cmath>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// --- vector_add_f32: c = a + b ---------------------------------------------
// Reference: one f32 addition, correctly rounded: |c - (a + b)| <= u |a + b|.
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
// Reference: f32 evaluation, then one rounding to f16.
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


// --- unary activations: y = f(x), elementwise ---------------------------------
template <class F>
Tensors unary(const Dims& dims, const Tensors& in, F f) {
    const int64_t n = dim(dims, "n");
    const auto& x = input(in, "x", n);
    std::vector<double> y(n);
    for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
    return {{"y", std::move(y)}};
}

// relu_f32: exact (max has no rounding). Bound 0 (task tolerance: exact).
Tensors relu_f32(const Dims& d, const Tensors& in) {
    return unary(d, in, [](double v) { return v > 0 ? v : 0.0; });
}

// leaky_relu_bf16: x > 0 ? x : 0.01 x, the slope exactly 0.01.
// Reference: positive outputs are the bf16 inputs, exact. Negative ones: the
// f32 constant 0.01f (relative error 2.2e-8 < u), one f32 product (u), one
// rounding to bf16 (half a bf16 ulp: 2^-8 relative; bf16 has f32's exponent
// range, so no subnormal outputs for these inputs). Bound: rtol
// (2^-8 + 2u) * slack = 3.96e-3 (task tolerance: atol 1e-6, rtol 1.6e-2).
Tensors leaky_relu_bf16(const Dims& d, const Tensors& in) {
    return unary(d, in, [](double v) { return v > 0 ? v : 0.01 * v; });
}

// gelu_erf_f32: 0.5 x (1 + erf(x / sqrt 2)).
// Reference, for x in [-6, 6) (first order):
//  - the argument x * 0.70710678f: two roundings (u each); erf moves by at
//    most erf'(z) 2u z <= 0.49 * 2u = 5.8e-8 absolute;
//  - erff within 2 ulps: 2.4e-7 absolute (|erf| <= 1);
//  - 1 + erf: for x >= 0 a sum in [1, 2] (relative u); for x < 0 exact
//    (Sterbenz: erf in [-1, 0]), so its absolute error is the 3e-7 above;
//  - the products 0.5 * v * (...): relative u each.
// For x >= 0: relative (3e-7 + 3u) = 4.8e-7. For x < 0: absolute
// 0.5 |x| * 3e-7 <= 9e-7 plus relative 2u. Bound: atol 2e-6, rtol 1e-6
// (task tolerance: atol 1e-5, rtol 1e-5).
Tensors gelu_erf_f32(const Dims& d, const Tensors& in) {
    return unary(d, in, [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); });
}

// silu_f16: x / (1 + exp(-x)), on the f16 input values, not rounded.
// Reference: f32 evaluation (expf 2 ulps, the sum and the division u each:
// 4.8e-7 relative), then one rounding to f16: half an ulp, 2^-11 relative for
// normal values, 2^-25 absolute below 2^-14. Bound: atol 2^-25 * slack,
// rtol (2^-11 + 5e-7) * slack = 4.98e-4 (task tolerance: atol 1e-6, rtol 2e-3).
Tensors silu_f16(const Dims& d, const Tensors& in) {
    return unary(d, in, [](double v) { return v / (1.0 + std::exp(-v)); });
}

// sigmoid_f32: 1 / (1 + exp(-x)).
// Reference: expf within 2 ulps (2.4e-7 relative) in e = exp(-x); 1 + e
// rounds (u) and carries e's error scaled by e / (1 + e) < 1; the division
// rounds (u): relative 2.4e-7 + 2u = 3.6e-7. Where exp(-x) overflows
// (x < -88.7) the reference gives 0 against a truth below 2e-39: atol 1e-30
// covers it (the task's normal(0, 4) inputs never get there). Bound: atol
// 1e-30, rtol 5e-7 (task tolerance: atol 1e-6, rtol 1e-5).
Tensors sigmoid_f32(const Dims& d, const Tensors& in) {
    return unary(d, in, [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
}

}  // namespace

KB_REGISTER_ORACLE(vector_add_f32, {"vector_add_f32", vector_add_f32,
                                    only("vector_add_f32", "c", [](const Dims&) { return Bound{0.0, 2 * kU32}; })});
KB_REGISTER_ORACLE(copy_f32, {"copy_f32", copy_f32, only("copy_f32", "y", [](const Dims&) { return Bound{0.0, 0.0}; })});
KB_REGISTER_ORACLE(gelu_tanh_f16, {"gelu_tanh_f16", gelu_tanh_f16,
                                   only("gelu_tanh_f16", "y", [](const Dims&) { return Bound{1e-6, 6e-4}; })});
KB_REGISTER_ORACLE(relu_f32, {"relu_f32", relu_f32, only("relu_f32", "y", [](const Dims&) { return Bound{0.0, 0.0}; })});
KB_REGISTER_ORACLE(leaky_relu_bf16, {"leaky_relu_bf16", leaky_relu_bf16, only("leaky_relu_bf16", "y", [](const Dims&) {
                                         return Bound{0.0, (kUBF16 + 2 * kU32) * kSlack};
                                     })});
KB_REGISTER_ORACLE(gelu_erf_f32, {"gelu_erf_f32", gelu_erf_f32,
                                  only("gelu_erf_f32", "y", [](const Dims&) { return Bound{2e-6, 1e-6}; })});
KB_REGISTER_ORACLE(silu_f16, {"silu_f16", silu_f16, only("silu_f16", "y", [](const Dims&) {
                                  return Bound{kF16SubnormalHalfUlp * kSlack, (kU16 + 5e-7) * kSlack};
                              })});
KB_REGISTER_ORACLE(sigmoid_f32, {"sigmoid_f32", sigmoid_f32,
                                 only("sigmoid_f32", "y", [](const Dims&) { return Bound{1e-30, 5e-7}; })});

}  // namespace kb::oracle

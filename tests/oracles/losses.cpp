// Float64 oracles of the losses family (tasks/losses/) and the bounds on how
// far each task's reference may be from them (see oracle.h and the notation
// in common.h).
#include <algorithm>
#include <cmath>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// --- cross_entropy_f32: loss[r] = logsumexp(logits[r]) - logits[r][target[r]] --
// Reference: m and the target's logit are exact; each expf is taken at the
// rounded d = x - m (which matters only for terms e^d |d| <= 1/e of a sum
// >= 1) and is within 2 ulps: log(sum) is within 2.4e-7 + 0.37u absolute;
// the rest is double arithmetic and one final rounding (u |loss|).
// Bound: atol 5e-7, rtol 2u (task tolerance: atol 1e-5, rtol 1e-5).
Tensors cross_entropy_f32(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "logits", rows * cols);
    const auto& target = input(in, "target", rows);
    std::vector<double> loss(rows);
    for (int64_t r = 0; r < rows; ++r) {
        const double* xr = x.data() + r * cols;
        const double t = target[r];
        if (!(t >= 0 && t < double(cols))) throw std::invalid_argument("oracle: target out of range");
        const double m = *std::max_element(xr, xr + cols);
        double s = 0.0;
        for (int64_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
        loss[r] = m + std::log(s) - xr[int64_t(t)];
    }
    return {{"loss", std::move(loss)}};
}

// --- mse_f32: out = sum (pred - target)^2 / n -------------------------------
// Reference: double partials and a double total (relative error below
// n * 2^-53), one rounding to f32. Bound: rtol 2u (task tolerance: rtol 1e-4).
Tensors mse_f32(const Dims& dims, const Tensors& in) {
    const int64_t n = dim(dims, "n");
    const auto& p = input(in, "pred", n);
    const auto& t = input(in, "target", n);
    std::vector<double> sq(n);
    for (int64_t i = 0; i < n; ++i) sq[i] = (p[i] - t[i]) * (p[i] - t[i]);
    return {{"out", std::vector<double>{exact_sum(sq.begin(), sq.end()) / double(n)}}};
}

// --- GIoU over (x, y, w, h) boxes -------------------------------------------
// An axis of a box pair: the overlap, the enclosing extent, and which box
// binds each end (for the gradient).
//
// Which end binds is decided on the high ends as f32 computes them (x + w
// rounded to f32), as the task defines it: where the two boxes' high ends are
// within an f32 rounding of each other (a few pairs in the 8Mi of the perf
// case), float64 ends would pick the other branch of a gradient that jumps
// there, and no tolerance covers the jump. The values stay float64.
struct Axis {
    double overlap;    // max(0, min(hi) - max(lo))
    double enclosing;  // max(hi) - min(lo)
    bool overlaps;     // min(hi) > max(lo), on the f32 ends
    bool pred_binds_overlap_lo, pred_binds_overlap_hi;      // the predicted box is the max lo / min hi
    bool pred_binds_enclosing_lo, pred_binds_enclosing_hi;  // the predicted box is the min lo / max hi
};

Axis axis(double a_lo, double a_len, double b_lo, double b_len) {
    const double a_hi = a_lo + a_len, b_hi = b_lo + b_len;  // exact: f32 inputs in [0.1, 1)
    const double a_hi32 = double(float(a_hi)), b_hi32 = double(float(b_hi));
    return {std::max(0.0, std::min(a_hi, b_hi) - std::max(a_lo, b_lo)),
            std::max(a_hi, b_hi) - std::min(a_lo, b_lo),
            std::min(a_hi32, b_hi32) > std::max(a_lo, b_lo),
            a_lo > b_lo,
            a_hi32 < b_hi32,
            a_lo < b_lo,
            a_hi32 > b_hi32};
}

// loss = 1 - GIoU = 1 - IoU + (C - U) / C, with its parts.
struct Giou {
    Axis x, y;
    double inter, uni, enclosing, loss;
};

Giou giou(const double* a, const double* b) {
    Giou g;
    g.x = axis(a[0], a[2], b[0], b[2]);
    g.y = axis(a[1], a[3], b[1], b[3]);
    g.inter = g.x.overlap * g.y.overlap;
    g.uni = a[2] * a[3] + b[2] * b[3] - g.inter;
    g.enclosing = g.x.enclosing * g.y.enclosing;
    g.loss = 1.0 - g.inter / g.uni + (g.enclosing - g.uni) / g.enclosing;
    return g;
}

// giou_loss_f32. Reference: the f32 formula; its distance to this oracle was
// simulated (numpy f32 without FMA, three formulations, 2M box pairs from
// the task's distribution): at most 6.9e-7. Bound: atol 2e-6, about 3x that
// (task tolerance: atol 1e-5, rtol 1e-5).
Tensors giou_loss_f32(const Dims& dims, const Tensors& in) {
    const int64_t n = dim(dims, "n");
    const auto& p = input(in, "pred", n * 4);
    const auto& t = input(in, "target", n * 4);
    std::vector<double> loss(n);
    for (int64_t i = 0; i < n; ++i) loss[i] = giou(p.data() + 4 * i, t.data() + 4 * i).loss;
    return {{"loss", std::move(loss)}};
}

// giou_loss_backward_f32: the gradient of the loss above with respect to the
// predicted (x, y, w, h), by the quotient rule on IoU = I / U and on the
// penalty (C - U) / C = 1 - U / C:
//   d IoU = (dI U - I dU) / U^2,  dU = d(wA hA) - dI,  d(U / C) = (dU C - U dC) / C^2,
// with dI and dC through the binding ends of each axis (an end moves x at
// both corners' rate: x2 = x + w). tests/unit/test_oracles.cpp checks it
// against central differences of giou_loss_f32's oracle.
// Reference: the f32 formula; simulated as for the forward (1M pairs): at
// most 1.2e-5 absolute, where gradients reach 29; 0.2 of the bound.
// Bound: atol 1e-5, rtol 1e-5 (task tolerance: atol 5e-5, rtol 5e-5).
Tensors giou_loss_backward_f32(const Dims& dims, const Tensors& in) {
    const int64_t n = dim(dims, "n");
    const auto& p = input(in, "pred", n * 4);
    const auto& t = input(in, "target", n * 4);
    const auto& gl = input(in, "grad_loss", n);
    std::vector<double> grad(n * 4);
    for (int64_t i = 0; i < n; ++i) {
        const double* a = p.data() + 4 * i;
        const Giou g = giou(a, t.data() + 4 * i);
        const bool overlap = g.x.overlaps && g.y.overlaps;  // as f32 decides it (see Axis)
        // Derivatives of I, C and the predicted area with respect to the
        // corners (x1, x2, y1, y2) of the predicted box.
        auto d_overlap = [&](const Axis& ax, const Axis& other, bool lo) {
            if (!overlap) return 0.0;
            if (lo) return ax.pred_binds_overlap_lo ? -other.overlap : 0.0;
            return ax.pred_binds_overlap_hi ? other.overlap : 0.0;
        };
        auto d_enclosing = [&](const Axis& ax, const Axis& other, bool lo) {
            if (lo) return ax.pred_binds_enclosing_lo ? -other.enclosing : 0.0;
            return ax.pred_binds_enclosing_hi ? other.enclosing : 0.0;
        };
        const double dI[4] = {d_overlap(g.x, g.y, true), d_overlap(g.x, g.y, false), d_overlap(g.y, g.x, true),
                              d_overlap(g.y, g.x, false)};
        const double dC[4] = {d_enclosing(g.x, g.y, true), d_enclosing(g.x, g.y, false), d_enclosing(g.y, g.x, true),
                              d_enclosing(g.y, g.x, false)};
        const double dA[4] = {-a[3], a[3], -a[2], a[2]};  // area = (x2 - x1) (y2 - y1)
        double d_corner[4];
        for (int k = 0; k < 4; ++k) {
            const double dU = dA[k] - dI[k];
            const double d_iou = (dI[k] * g.uni - g.inter * dU) / (g.uni * g.uni);
            const double d_u_over_c = (dU * g.enclosing - g.uni * dC[k]) / (g.enclosing * g.enclosing);
            d_corner[k] = -d_iou - d_u_over_c;  // loss = 2 - IoU - U / C
        }
        // (x, y, w, h) from (x1, x2, y1, y2): x1 = x, x2 = x + w.
        grad[4 * i + 0] = gl[i] * (d_corner[0] + d_corner[1]);
        grad[4 * i + 1] = gl[i] * (d_corner[2] + d_corner[3]);
        grad[4 * i + 2] = gl[i] * d_corner[1];
        grad[4 * i + 3] = gl[i] * d_corner[3];
    }
    return {{"grad_pred", std::move(grad)}};
}

}  // namespace

KB_REGISTER_ORACLE(cross_entropy_f32, {"cross_entropy_f32", cross_entropy_f32, only("cross_entropy_f32", "loss", [](const Dims&) {
                                           return Bound{5e-7, 2 * kU32};
                                       })});
KB_REGISTER_ORACLE(mse_f32, {"mse_f32", mse_f32, only("mse_f32", "out", [](const Dims&) { return Bound{0.0, 2 * kU32}; })});
KB_REGISTER_ORACLE(giou_loss_f32, {"giou_loss_f32", giou_loss_f32,
                                   only("giou_loss_f32", "loss", [](const Dims&) { return Bound{2e-6, 0.0}; })});
KB_REGISTER_ORACLE(giou_loss_backward_f32, {"giou_loss_backward_f32", giou_loss_backward_f32,
                                            only("giou_loss_backward_f32", "grad_pred", [](const Dims&) {
                                                return Bound{1e-5, 1e-5};
                                            })});

}  // namespace kb::oracle

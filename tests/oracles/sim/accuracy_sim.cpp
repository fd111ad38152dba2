// Rounding-error simulations behind the tolerances of the GEMM, matvec,
// convolution and attention tasks and the bounds of their oracles
// (tests/oracles/{gemm,conv,attention}.cpp), where a rigorous bound is too
// loose to use. It evaluates the same sums in several orders and roundings a
// correct kernel may use, on inputs drawn like the task draws them, and
// reports how far each lands from float64 truth and from the task's
// reference order, as a fraction of a tolerance |x - y| <= atol + rtol |y|.
//
// Not part of the build (a tool, not a test):
//   g++ -O2 -std=c++17 -o /tmp/accuracy_sim tests/oracles/sim/accuracy_sim.cpp && /tmp/accuracy_sim all
// The numbers quoted in the tasks' descriptions and the oracles' comments
// come from `all` with the default seed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

// ---- number formats ---------------------------------------------------------

float to_f16(float x) { return float(static_cast<_Float16>(x)); }  // round to nearest even

float to_bf16(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return x;  // NaN
    u += 0x7fffu + ((u >> 16) & 1u);                  // round to nearest even
    u &= 0xffff0000u;
    float r;
    std::memcpy(&r, &u, 4);
    return r;
}

enum class Fmt { f32, f16, bf16 };
float round_to(Fmt f, float x) { return f == Fmt::f16 ? to_f16(x) : f == Fmt::bf16 ? to_bf16(x) : x; }
const char* fmt_name(Fmt f) { return f == Fmt::f16 ? "f16" : f == Fmt::bf16 ? "bf16" : "f32"; }

// a + b rounded toward zero in f32: a model of adders that truncate (some
// tensor-core accumulation paths), the pessimistic end of correct f32 sums.
float add_rz(float a, float b) {
    double d = double(a) + double(b);  // exact for the magnitudes simulated here
    float r = float(d);
    if (std::fabs(double(r)) > std::fabs(d)) r = std::nextafter(r, 0.0f);
    return r;
}

// ---- statistics ---------------------------------------------------------------

struct Usage {
    double worst = 0;   // max over elements of |x - y| / (atol + rtol |y|)
    double max_abs = 0;
    double sum_sq = 0;
    size_t n = 0, over = 0;  // elements past the tolerance
    void add(double x, double y, double atol, double rtol) {
        double d = std::fabs(x - y);
        double u = d / (atol + rtol * std::fabs(y));
        worst = std::max(worst, u);
        max_abs = std::max(max_abs, d);
        sum_sq += d * d;
        ++n;
        over += u > 1.0;
    }
    void print(const char* what) const {
        std::printf("    %-44s worst %.3f of tolerance, max |err| %.3g, rms %.3g, over %zu/%zu\n", what, worst,
                    max_abs, std::sqrt(sum_sq / double(std::max<size_t>(n, 1))), over, n);
    }
};

// ---- dot products: GEMM, matvec, convolution ----------------------------------

using Sum = std::function<float(const std::vector<float>&, const std::vector<float>&)>;

// One f32 accumulator, k ascending, with FMA (the tasks' references).
float seq_fma(const std::vector<float>& a, const std::vector<float>& b) {
    float s = 0;
    for (size_t i = 0; i < a.size(); ++i) s = std::fma(a[i], b[i], s);
    return s;
}
// Four interleaved accumulators, (s0 + s1) + (s2 + s3).
float four_acc(const std::vector<float>& a, const std::vector<float>& b) {
    float s[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < a.size(); ++i) s[i % 4] = std::fma(a[i], b[i], s[i % 4]);
    return (s[0] + s[1]) + (s[2] + s[3]);
}
// `lanes` strided partial sums then a pairwise tree: a block (256) or a warp (32) reducing one row.
float strided_tree(const std::vector<float>& a, const std::vector<float>& b, size_t lanes) {
    std::vector<float> p(lanes, 0.0f);
    for (size_t i = 0; i < a.size(); ++i) p[i % lanes] = std::fma(a[i], b[i], p[i % lanes]);
    for (size_t w = lanes / 2; w > 0; w /= 2)
        for (size_t i = 0; i < w; ++i) p[i] += p[i + w];
    return p[0];
}
// Split-K: `parts` contiguous chunks summed sequentially, then added in order.
float split_k(const std::vector<float>& a, const std::vector<float>& b, size_t parts) {
    size_t chunk = (a.size() + parts - 1) / parts;
    float total = 0;
    for (size_t c0 = 0; c0 < a.size(); c0 += chunk) {
        float s = 0;
        for (size_t i = c0; i < std::min(a.size(), c0 + chunk); ++i) s = std::fma(a[i], b[i], s);
        total += s;
    }
    return total;
}
// Tensor-core-like: 16 products at a time summed into a partial (rounded
// once), added to the accumulator; `rz` truncates every addition.
float mma_like(const std::vector<float>& a, const std::vector<float>& b, bool rz) {
    float acc = 0;
    for (size_t k0 = 0; k0 < a.size(); k0 += 16) {
        double part = 0;
        for (size_t i = k0; i < std::min(a.size(), k0 + 16); ++i) part += double(a[i]) * double(b[i]);
        float p = float(part);
        if (rz && std::fabs(double(p)) > std::fabs(part)) p = std::nextafter(p, 0.0f);
        acc = rz ? add_rz(acc, p) : acc + p;
    }
    return acc;
}
// Accumulating in the output format (a precision downgrade, must fail).
float acc_in(Fmt f, const std::vector<float>& a, const std::vector<float>& b) {
    float s = 0;
    for (size_t i = 0; i < a.size(); ++i) s = round_to(f, s + round_to(f, a[i] * b[i]));
    return s;
}
// TF32 inputs (10-bit mantissa, round to nearest), f32 accumulation: must fail f32 tasks.
float tf32(float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    u += 0xfffu + ((u >> 13) & 1u);
    u &= 0xffffe000u;
    std::memcpy(&x, &u, 4);
    return x;
}
float tf32_dot(const std::vector<float>& a, const std::vector<float>& b) {
    float s = 0;
    for (size_t i = 0; i < a.size(); ++i) s = std::fma(tf32(a[i]), tf32(b[i]), s);
    return s;
}

struct DotStudy {
    const char* name;
    size_t length;    // terms per output
    size_t samples;   // outputs simulated
    Fmt in, out;      // input and output formats
    double lo, hi;    // input distribution: uniform(lo, hi) for both operands
    double atol, rtol;           // the task's tolerance
    double bound_atol, bound_rtol;  // the oracle's bound for the reference
};

void dot_study(const DotStudy& s, std::mt19937_64& rng) {
    std::printf("%s: %zu-term dot products, %s in, %s out, uniform(%g, %g), tolerance (%g, %g), bound (%g, %g)\n",
                s.name, s.length, fmt_name(s.in), fmt_name(s.out), s.lo, s.hi, s.atol, s.rtol, s.bound_atol,
                s.bound_rtol);
    std::uniform_real_distribution<double> u(s.lo, s.hi);
    struct Order {
        const char* name;
        Sum f;
        bool correct;
    };
    std::vector<Order> orders = {
        {"4 interleaved accumulators", four_acc, true},
        {"256 strided lanes + tree (block)", [](auto& a, auto& b) { return strided_tree(a, b, 256); }, true},
        {"32 strided lanes + tree (warp)", [](auto& a, auto& b) { return strided_tree(a, b, 32); }, true},
        {"split-K in 8", [](auto& a, auto& b) { return split_k(a, b, 8); }, true},
        {"tensor-core-like, k-steps of 16", [](auto& a, auto& b) { return mma_like(a, b, false); }, true},
        {"tensor-core-like, truncating adds", [](auto& a, auto& b) { return mma_like(a, b, true); }, true},
    };
    if (s.out != Fmt::f32)
        orders.push_back({"WRONG: accumulate in the output format",
                          [f = s.out](auto& a, auto& b) { return acc_in(f, a, b); }, false});
    if (s.in == Fmt::f32) orders.push_back({"WRONG: TF32 inputs", tf32_dot, false});
    std::vector<Usage> vs_ref(orders.size()), vs_truth(orders.size());
    Usage ref_vs_truth, acc_vs_truth;  // after and before rounding to the output format
    std::vector<float> a(s.length), b(s.length);
    for (size_t n = 0; n < s.samples; ++n) {
        double truth = 0;
        for (size_t i = 0; i < s.length; ++i) {
            a[i] = round_to(s.in, float(u(rng)));
            b[i] = round_to(s.in, float(u(rng)));
            truth += double(a[i]) * double(b[i]);
        }
        const float acc = seq_fma(a, b);
        const float ref = round_to(s.out, acc);
        acc_vs_truth.add(acc, truth, s.bound_atol, s.bound_rtol);
        ref_vs_truth.add(ref, truth, s.bound_atol, s.bound_rtol);
        for (size_t o = 0; o < orders.size(); ++o) {
            float x = round_to(s.out, orders[o].f(a, b));
            vs_ref[o].add(x, ref, s.atol, s.rtol);
            vs_truth[o].add(x, truth, s.atol, s.rtol);
        }
    }
    acc_vs_truth.print("f32 sequential FMA sum vs truth, of bound");
    ref_vs_truth.print("reference (that sum, rounded) vs truth, of bound");
    for (size_t o = 0; o < orders.size(); ++o) {
        std::string label = std::string(orders[o].name) + " vs reference";
        vs_ref[o].print(label.c_str());
    }
}

// ---- causal attention ------------------------------------------------------------

// One query row i of causal attention over keys 0..i (D-dim, f16 inputs).
struct AttnRow {
    std::vector<float> q;                 // D
    std::vector<std::vector<float>> k, v;  // (i+1) x D
};

std::vector<double> attn_truth(const AttnRow& r, double scale) {
    size_t n = r.k.size(), D = r.q.size();
    std::vector<double> s(n), o(D, 0.0);
    double m = -INFINITY;
    for (size_t j = 0; j < n; ++j) {
        double d = 0;
        for (size_t t = 0; t < D; ++t) d += double(r.q[t]) * double(r.k[j][t]);
        s[j] = d * scale;
        m = std::max(m, s[j]);
    }
    double l = 0;
    for (size_t j = 0; j < n; ++j) l += (s[j] = std::exp(s[j] - m));
    for (size_t j = 0; j < n; ++j)
        for (size_t t = 0; t < D; ++t) o[t] += s[j] * double(r.v[j][t]);
    for (double& x : o) x /= l;
    return o;
}

// The reference kernel's order: f32 scores (FMA over d), max, expf, sums and
// weighted sums sequential over j, one division, f16 output.
std::vector<float> attn_reference(const AttnRow& r, float scale) {
    size_t n = r.k.size(), D = r.q.size();
    std::vector<float> s(n), o(D);
    float m = -INFINITY;
    for (size_t j = 0; j < n; ++j) {
        float d = 0;
        for (size_t t = 0; t < D; ++t) d = std::fma(r.q[t], r.k[j][t], d);
        s[j] = d * scale;
        m = std::max(m, s[j]);
    }
    float l = 0;
    for (size_t j = 0; j < n; ++j) l += (s[j] = std::exp(s[j] - m));
    for (size_t t = 0; t < D; ++t) {
        float acc = 0;
        for (size_t j = 0; j < n; ++j) acc = std::fma(s[j], r.v[j][t], acc);
        o[t] = to_f16(acc / l);
    }
    return o;
}

// Flash-style: keys in tiles of 64, online softmax, P rounded to f16 before
// the P V product (as tensor-core kernels do), f32 accumulators rescaled.
std::vector<float> attn_flash(const AttnRow& r, float scale) {
    size_t n = r.k.size(), D = r.q.size();
    std::vector<float> acc(D, 0.0f);
    float m = -INFINITY, l = 0;
    for (size_t j0 = 0; j0 < n; j0 += 64) {
        size_t j1 = std::min(n, j0 + 64);
        std::vector<float> s(j1 - j0);
        float mt = -INFINITY;
        for (size_t j = j0; j < j1; ++j) {
            double d = 0;  // a tensor-core dot product: exact products, one rounding
            for (size_t t = 0; t < D; ++t) d += double(r.q[t]) * double(r.k[j][t]);
            s[j - j0] = float(d) * scale;
            mt = std::max(mt, s[j - j0]);
        }
        float mn = std::max(m, mt);
        float corr = std::exp(m - mn);
        l *= corr;
        for (float& x : acc) x *= corr;
        for (size_t j = j0; j < j1; ++j) {
            float p = std::exp(s[j - j0] - mn);
            l += p;
            float p16 = to_f16(p);
            for (size_t t = 0; t < D; ++t) acc[t] = std::fma(p16, r.v[j][t], acc[t]);
        }
        m = mn;
    }
    std::vector<float> o(D);
    for (size_t t = 0; t < D; ++t) o[t] = to_f16(acc[t] / l);
    return o;
}

// The cuBLAS baseline: S = q k^T in f32, P = f16(softmax(S * scale)), O = P V
// with f32 accumulation, f16 output.
std::vector<float> attn_unfused(const AttnRow& r, float scale) {
    size_t n = r.k.size(), D = r.q.size();
    std::vector<float> s(n);
    float m = -INFINITY;
    for (size_t j = 0; j < n; ++j) {
        double d = 0;
        for (size_t t = 0; t < D; ++t) d += double(r.q[t]) * double(r.k[j][t]);
        s[j] = float(d) * scale;
        m = std::max(m, s[j]);
    }
    float l = 0;
    for (size_t j = 0; j < n; ++j) l += (s[j] = std::exp(s[j] - m));
    float inv = 1.0f / l;
    std::vector<float> o(D);
    for (size_t t = 0; t < D; ++t) {
        float acc = 0;
        for (size_t j = 0; j < n; ++j) acc = std::fma(to_f16(s[j] * inv), r.v[j][t], acc);
        o[t] = to_f16(acc);
    }
    return o;
}

// A precision downgrade that must fail: scores rounded to f16 before the softmax.
std::vector<float> attn_f16_scores(const AttnRow& r, float scale) {
    size_t n = r.k.size(), D = r.q.size();
    std::vector<float> s(n), o(D);
    float m = -INFINITY;
    for (size_t j = 0; j < n; ++j) {
        double d = 0;
        for (size_t t = 0; t < D; ++t) d += double(r.q[t]) * double(r.k[j][t]);
        s[j] = to_f16(float(d)) * scale;
        m = std::max(m, s[j]);
    }
    float l = 0;
    for (size_t j = 0; j < n; ++j) l += (s[j] = std::exp(s[j] - m));
    for (size_t t = 0; t < D; ++t) {
        float acc = 0;
        for (size_t j = 0; j < n; ++j) acc = std::fma(s[j], r.v[j][t], acc);
        o[t] = to_f16(acc / l);
    }
    return o;
}

void attention_study(std::mt19937_64& rng, size_t S, size_t D, size_t rows, double qk, double atol, double rtol,
                     double batol, double brtol) {
    std::printf("attention: causal rows of up to %zu keys, D = %zu, q and k uniform(-%g, %g), v uniform(-1, 1), "
                "tolerance (%g, %g), bound (%g, %g)\n",
                S, D, qk, qk, atol, rtol, batol, brtol);
    std::uniform_real_distribution<double> uqk(-qk, qk), uv(-1, 1);
    std::uniform_int_distribution<size_t> row_of(0, S - 1);
    const float scale = 1.0f / std::sqrt(float(D));
    Usage ref_truth, flash, unfused, wrong;
    double max_abs_o = 0, sum_abs_o = 0;
    size_t count = 0;
    for (size_t n = 0; n < rows; ++n) {
        // Late rows (long sums) are the hard ones; sample them more.
        size_t i = n % 4 == 0 ? S - 1 : row_of(rng);
        AttnRow r;
        r.q.resize(D);
        for (float& x : r.q) x = to_f16(float(uqk(rng)));
        r.k.assign(i + 1, std::vector<float>(D));
        r.v.assign(i + 1, std::vector<float>(D));
        for (auto& row : r.k)
            for (float& x : row) x = to_f16(float(uqk(rng)));
        for (auto& row : r.v)
            for (float& x : row) x = to_f16(float(uv(rng)));
        std::vector<double> t = attn_truth(r, 1.0 / std::sqrt(double(D)));
        std::vector<float> ref = attn_reference(r, scale), fl = attn_flash(r, scale), un = attn_unfused(r, scale),
                           bad = attn_f16_scores(r, scale);
        for (size_t d = 0; d < D; ++d) {
            ref_truth.add(ref[d], t[d], batol, brtol);
            flash.add(fl[d], ref[d], atol, rtol);
            unfused.add(un[d], ref[d], atol, rtol);
            wrong.add(bad[d], ref[d], atol, rtol);
            max_abs_o = std::max(max_abs_o, std::fabs(t[d]));
            sum_abs_o += std::fabs(t[d]);
            ++count;
        }
    }
    std::printf("    outputs: mean |o| %.3f, max |o| %.3f\n", sum_abs_o / double(count), max_abs_o);
    ref_truth.print("reference vs truth, of bound");
    flash.print("flash-style, f16 P, vs reference");
    unfused.print("cuBLAS baseline order, f16 P, vs reference");
    wrong.print("WRONG: f16 scores vs reference");
}

}  // namespace

int main(int argc, char** argv) {
    std::string what = argc > 1 ? argv[1] : "all";
    std::mt19937_64 rng(20261123);
    auto want = [&](const char* w) { return what == "all" || what == w; };
    // GEMM tasks: reduction length K, the perf case's K and the longest case.
    if (want("gemm_f16")) dot_study({"gemm_f16", 2048, 100000, Fmt::f16, Fmt::f16, -1, 1, 1e-3, 2e-3, 5e-4, 5e-4}, rng);
    if (want("gemm_bf16"))
        dot_study({"gemm_bf16", 2048, 100000, Fmt::bf16, Fmt::bf16, -1, 1, 1e-3, 1.6e-2, 5e-4, 4e-3}, rng);
    if (want("gemm_f32")) dot_study({"gemm_f32 family", 1024, 200000, Fmt::f32, Fmt::f32, -1, 1, 2e-4, 2e-5, 1e-4, 1e-5}, rng);
    if (want("matvec"))
        dot_study({"matvec_f32", 12288, 20000, Fmt::f32, Fmt::f32, -1, 1, 1e-3, 2e-5, 5e-4, 1e-5}, rng);
    if (want("conv2d"))
        dot_study({"conv2d_f32 (C = 64, 3x3)", 576, 200000, Fmt::f32, Fmt::f32, -1, 1, 2e-4, 2e-5, 1e-4, 1e-5}, rng);
    if (want("conv1d"))
        dot_study({"conv1d_f32 (C = 64, K = 5)", 320, 200000, Fmt::f32, Fmt::f32, -1, 1, 2e-4, 2e-5, 1e-4, 1e-5}, rng);
    if (want("attention")) {
        attention_study(rng, 1024, 64, 4000, 3.0, 1e-3, 2e-3, 1e-4, 5e-4);
        attention_study(rng, 1000, 32, 2000, 3.0, 1e-3, 2e-3, 1e-4, 5e-4);
        attention_study(rng, 257, 128, 2000, 3.0, 1e-3, 2e-3, 1e-4, 5e-4);
    }
    return 0;
}

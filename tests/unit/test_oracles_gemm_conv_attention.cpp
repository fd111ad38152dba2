// The float64 oracles of the GEMM, convolution and attention tasks
// (tests/oracles/{gemm,conv,attention}.cpp): each computes what its task
// says on inputs small enough to check by hand (orientation of transposes,
// cross-correlation rather than convolution, zero padding, the causal mask,
// the 1/sqrt(D) scale), and each bound is at most half its task's tolerance
// at every case of the shipped task.json.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "oracles/oracle.h"
#include "util/json.h"

namespace {

using kb::oracle::Dims;
using kb::oracle::Tensors;

Tensors run(const char* task, const Dims& dims, const Tensors& in) {
    const kb::oracle::Oracle* o = kb::oracle::find(task);
    if (!o) {
        ADD_FAILURE() << "no oracle for " << task;
        return {};
    }
    return o->compute(dims, in);
}

TEST(FamilyOracles, GemmLayouts) {
    // A = [[1, 2], [3, 4]] (row-major), B = [[5, 6], [7, 8]].
    const std::vector<double> A = {1, 2, 3, 4}, B = {5, 6, 7, 8};
    const Dims d = {{"M", 2}, {"N", 2}, {"K", 2}};
    EXPECT_EQ(run("gemm_f16", d, {{"A", A}, {"B", B}}).at("C"), (std::vector<double>{19, 22, 43, 50}));
    EXPECT_EQ(run("gemm_bf16", d, {{"A", A}, {"B", B}}).at("C"), (std::vector<double>{19, 22, 43, 50}));
    // A @ B^T: C[i][j] = sum_k A[i][k] B[j][k].
    EXPECT_EQ(run("gemm_nt_f32", d, {{"A", A}, {"B", B}}).at("C"), (std::vector<double>{17, 23, 39, 53}));
    // A^T @ B: C[i][j] = sum_k A[k][i] B[k][j].
    EXPECT_EQ(run("gemm_tn_f32", d, {{"A", A}, {"B", B}}).at("C"), (std::vector<double>{26, 30, 38, 44}));
    // Non-square: A [1, 3] @ B^T with B [2, 3].
    EXPECT_EQ(run("gemm_nt_f32", {{"M", 1}, {"N", 2}, {"K", 3}}, {{"A", {1, 2, 3}}, {"B", {1, 0, 0, 0, 1, 1}}}).at("C"),
              (std::vector<double>{1, 5}));
    // A^T @ B with A [3, 1] (K = 3, M = 1) and B [3, 2].
    EXPECT_EQ(run("gemm_tn_f32", {{"M", 1}, {"N", 2}, {"K", 3}}, {{"A", {1, 2, 3}}, {"B", {1, 0, 0, 1, 0, 1}}}).at("C"),
              (std::vector<double>{1, 5}));
    // Batched: two independent 1x2 @ 2x1 products.
    EXPECT_EQ(run("gemm_batched_f32", {{"batch", 2}, {"M", 1}, {"N", 1}, {"K", 2}},
                  {{"A", {1, 2, 3, 4}}, {"B", {5, 6, 7, 8}}})
                  .at("C"),
              (std::vector<double>{17, 53}));
    EXPECT_EQ(run("matvec_f32", {{"M", 2}, {"K", 3}}, {{"A", {1, 2, 3, 4, 5, 6}}, {"x", {1, 0, -1}}}).at("y"),
              (std::vector<double>{-2, -2}));
    // Inputs that do not match the dims are refused.
    EXPECT_THROW(run("gemm_f16", d, {{"A", A}, {"B", {1, 2, 3}}}), std::invalid_argument);
    EXPECT_THROW(run("matvec_f32", {{"M", 2}}, {{"A", A}}), std::invalid_argument);
}

TEST(FamilyOracles, Conv2dIsACrossCorrelationWithZeroPadding) {
    // One 3x3 image, one channel, one filter.
    const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const Dims d = {{"N", 1}, {"C", 1}, {"H", 3}, {"W", 3}, {"F", 1}};
    std::vector<double> w(9, 0.0);
    w[4] = 1;  // the centre tap: the identity
    EXPECT_EQ(run("conv2d_f32", d, {{"x", x}, {"w", w}}).at("y"), x);
    w.assign(9, 0.0);
    w[5] = 1;  // w[1][2]: y[i][j] = x[i][j + 1] (not x[i][j - 1], as a flipped filter gives), 0 past the edge
    EXPECT_EQ(run("conv2d_f32", d, {{"x", x}, {"w", w}}).at("y"), (std::vector<double>{2, 3, 0, 5, 6, 0, 8, 9, 0}));
    w.assign(9, 1.0);  // box filter: sums of the in-image neighbours
    EXPECT_EQ(run("conv2d_f32", d, {{"x", x}, {"w", w}}).at("y"),
              (std::vector<double>{12, 21, 16, 27, 45, 33, 24, 39, 28}));
    // Two channels summed, two filters kept apart, two images kept apart.
    const Dims d2 = {{"N", 2}, {"C", 2}, {"H", 1}, {"W", 1}, {"F", 2}};
    std::vector<double> w2(2 * 2 * 9, 0.0);
    w2[0 * 9 + 4] = 1, w2[1 * 9 + 4] = 10;    // filter 0: c0 + 10 c1
    w2[2 * 9 + 4] = 100, w2[3 * 9 + 4] = -1;  // filter 1: 100 c0 - c1
    EXPECT_EQ(run("conv2d_f32", d2, {{"x", {1, 2, 3, 4}}, {"w", w2}}).at("y"), (std::vector<double>{21, 98, 43, 296}));
}

TEST(FamilyOracles, DepthwiseUsesOneFilterPerChannel) {
    const Dims d = {{"N", 1}, {"C", 2}, {"H", 1}, {"W", 3}};
    std::vector<double> w(18, 0.0);
    w[4] = 2;       // channel 0: 2 x centre
    w[9 + 3] = 1;   // channel 1: w[1][0], y[i][j] = x[i][j - 1]
    EXPECT_EQ(run("depthwise_conv2d_f32", d, {{"x", {1, 2, 3, 4, 5, 6}}, {"w", w}}).at("y"),
              (std::vector<double>{2, 4, 6, 0, 4, 5}));
}

TEST(FamilyOracles, Conv1dIsValidAndUnflipped) {
    // y[t] = x[t] * 1 + x[t + 1] * 10 over the valid length L - K + 1 = 3.
    EXPECT_EQ(run("conv1d_f32", {{"N", 1}, {"C", 1}, {"L", 4}, {"F", 1}, {"K", 2}}, {{"x", {1, 2, 3, 4}}, {"w", {1, 10}}})
                  .at("y"),
              (std::vector<double>{21, 32, 43}));
    // Channels summed, filters apart: C = 2, F = 2, K = 1 (pointwise).
    EXPECT_EQ(run("conv1d_f32", {{"N", 1}, {"C", 2}, {"L", 2}, {"F", 2}, {"K", 1}},
                  {{"x", {1, 2, 3, 4}}, {"w", {1, 1, 1, -1}}})
                  .at("y"),
              (std::vector<double>{4, 6, -2, -2}));
    EXPECT_THROW(run("conv1d_f32", {{"N", 1}, {"C", 1}, {"L", 1}, {"F", 1}, {"K", 2}}, {{"x", {1}}, {"w", {1, 1}}}),
                 std::invalid_argument);
}

TEST(FamilyOracles, AttentionIsCausalAndScaled) {
    // D = 4, S = 2: scale 1/2. q1 . k1 = 2 ln 3 so its score is ln 3, q1 . k0 = 0:
    // row 1 weighs v0 by 1/4 and v1 by 3/4. Row 0 sees only key 0: o0 = v0.
    const double ln3 = std::log(3.0);
    const std::vector<double> q = {5, 5, 5, 5, ln3, ln3, 0, 0};
    const std::vector<double> k = {0, 0, 0, 0, 1, 1, 7, 7};
    const std::vector<double> v = {1, 2, 3, 4, -4, 8, 0, 4};
    Tensors out = run("attention_causal_f16", {{"B", 1}, {"H", 1}, {"S", 2}, {"D", 4}}, {{"q", q}, {"k", k}, {"v", v}});
    const std::vector<double>& o = out.at("o");
    ASSERT_EQ(o.size(), 8u);
    const double want[8] = {1, 2, 3, 4, 0.25 * 1 + 0.75 * -4, 0.25 * 2 + 0.75 * 8, 0.25 * 3, 0.25 * 4 + 0.75 * 4};
    for (int i = 0; i < 8; ++i) EXPECT_NEAR(o[size_t(i)], want[i], 1e-12) << i;
    // Heads are independent: a second head with the same inputs gives the same rows.
    std::vector<double> q2 = q, k2 = k, v2 = v;
    q2.insert(q2.end(), q.begin(), q.end());
    k2.insert(k2.end(), k.begin(), k.end());
    v2.insert(v2.end(), v.begin(), v.end());
    out = run("attention_causal_f16", {{"B", 1}, {"H", 2}, {"S", 2}, {"D", 4}}, {{"q", q2}, {"k", k2}, {"v", v2}});
    for (int i = 0; i < 16; ++i) EXPECT_NEAR(out.at("o")[size_t(i)], want[i % 8], 1e-12) << i;
}

// Every bound at most half the task's own tolerance, at every case of the
// shipped task (read as plain JSON: the loader's own tests cover loading).
TEST(FamilyOracles, BoundsAreAtMostHalfTheTolerance) {
    const std::string root = std::string(KB_SOURCE_DIR) + "/tasks";
    int checked = 0;
    for (const char* rel : {"gemm/gemm_f16", "gemm/gemm_bf16", "gemm/gemm_batched_f32", "gemm/gemm_nt_f32",
                            "gemm/gemm_tn_f32", "gemm/matvec_f32", "conv/conv2d_f32", "conv/depthwise_conv2d_f32",
                            "conv/conv1d_f32", "attention/attention_causal_f16"}) {
        SCOPED_TRACE(rel);
        std::ifstream f(root + "/" + rel + "/task.json");
        ASSERT_TRUE(f.good());
        kb::Json t = kb::Json::parse(f);
        const kb::oracle::Oracle* o = kb::oracle::find(t["name"].get<std::string>());
        ASSERT_NE(o, nullptr);
        std::vector<kb::Json> cases(t["cases"].begin(), t["cases"].end());
        cases.push_back(t["perf_case"]);
        for (const kb::Json& a : t["args"]) {
            if (a["role"] != "out" && a["role"] != "inout") continue;
            const double atol = a["tolerance"]["atol"], rtol = a["tolerance"]["rtol"];
            for (const kb::Json& c : cases) {
                Dims dims;
                for (auto it = c["dims"].begin(); it != c["dims"].end(); ++it) dims[it.key()] = it.value().get<int64_t>();
                kb::oracle::Bound b = o->bound(a["name"].get<std::string>(), dims);
                EXPECT_LE(b.atol, atol / 2) << "case " << c.value("name", "perf");
                EXPECT_LE(b.rtol, rtol / 2) << "case " << c.value("name", "perf");
                EXPECT_GE(b.atol + b.rtol, 0.0);
                ++checked;
            }
            EXPECT_THROW(o->bound("not_an_output", {}), std::invalid_argument);
        }
    }
    EXPECT_GE(checked, 60);
}

}  // namespace

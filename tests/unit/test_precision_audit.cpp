// The precision audit's rule (compare/precision.h): which measured errors
// make a candidate "reduced", and which never do.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "compare/precision.h"

using namespace kb;

namespace {

PrecisionProbe probe(const std::string& mode, double err_full, double err_reduced, double scale = 100.0,
                     DType dtype = DType::f32) {
    PrecisionProbe p;
    p.mode = mode;
    p.outputs.push_back({0, "output", dtype, scale, err_full, err_reduced});
    return p;
}

PrecisionProbe same_bits(const std::string& mode) {
    PrecisionProbe p;
    p.mode = mode;
    p.same_bits = true;
    return p;
}

}  // namespace

TEST(PrecisionAudit, ACandidateThatMatchesTheTf32RecomputationIsReduced) {
    // TF32's error on a matmul: about 1e-3 of the output's magnitude; the
    // candidate gives the recomputation's bits.
    PrecisionAudit a = judge_precision({probe("tf32", 0.1, 0.0), probe("f16", 0.1, 0.12), probe("bf16", 0.1, 0.8)},
                                       "faithful");
    EXPECT_EQ(a.verdict, "reduced");
    EXPECT_EQ(a.mode, "tf32");
    EXPECT_DOUBLE_EQ(a.err_full, 0.1 / 100.0);
    EXPECT_DOUBLE_EQ(a.err_reduced, 0.0);
    EXPECT_EQ(a.case_name, "faithful");
    EXPECT_EQ(a.probes.size(), 3u);
}

TEST(PrecisionAudit, OfSeveralMatchingModesTheClosestWins) {
    PrecisionAudit a = judge_precision({probe("tf32", 1.0, 0.1), probe("f16", 1.0, 0.01), probe("bf16", 1.0, 2.0)},
                                       "faithful");
    EXPECT_EQ(a.verdict, "reduced");
    EXPECT_EQ(a.mode, "f16");
}

TEST(PrecisionAudit, AnFp32CandidateInAnotherSummationOrderIsFull) {
    // Its error from the full reference is fp32 rounding noise; the reduced
    // recomputations are far from it.
    PrecisionAudit a = judge_precision({probe("tf32", 2e-5, 0.1), probe("f16", 2e-5, 0.1), probe("bf16", 2e-5, 0.8)},
                                       "faithful");
    EXPECT_EQ(a.verdict, "full");
    EXPECT_EQ(a.mode, "tf32");  // the closest measured mode is still named
    EXPECT_TRUE(a.why.empty());
}

TEST(PrecisionAudit, ErrorsUnderTheFloorAreNeverReduced) {
    // 2^-17 of the scale is the floor: a candidate a hair from the full
    // reference and identical to a recomputation that barely differs from it.
    const double scale = 100.0;
    const double under = scale * kPrecisionFloorF32 * 0.5;
    EXPECT_EQ(judge_precision({probe("tf32", under, 0.0, scale)}, "c").verdict, "full");
    const double over = scale * kPrecisionFloorF32 * 2;
    EXPECT_EQ(judge_precision({probe("tf32", over, 0.0, scale)}, "c").verdict, "reduced");
}

TEST(PrecisionAudit, TheRatioMustReachEight) {
    // Powers of two: the quotients are exact.
    EXPECT_EQ(judge_precision({probe("bf16", 4.0, 0.5, 128.0)}, "c").verdict, "reduced");     // exactly 8x
    EXPECT_EQ(judge_precision({probe("bf16", 4.0, 0.5001, 128.0)}, "c").verdict, "full");  // just under 8x
}

TEST(PrecisionAudit, HalfPrecisionOutputsHaveTheirOwnFloor) {
    // An f16 output's own rounding (2^-11 relative) must not count as a
    // reduced computation: the floor is twice its machine epsilon.
    EXPECT_EQ(judge_precision({probe("bf16", 0.1, 0.0, 100.0, DType::f16)}, "c").verdict, "full");
    EXPECT_EQ(judge_precision({probe("bf16", 1.0, 0.0, 100.0, DType::f16)}, "c").verdict, "reduced");
    EXPECT_DOUBLE_EQ(precision_floor(DType::f16), std::ldexp(1.0, -9));
    EXPECT_DOUBLE_EQ(precision_floor(DType::f32), kPrecisionFloorF32);
}

TEST(PrecisionAudit, NonFiniteErrorsAndOutputsWithoutScaleSayNothing) {
    const double inf = std::numeric_limits<double>::infinity();
    PrecisionAudit a = judge_precision({probe("tf32", inf, 0.0), probe("f16", 1.0, 0.0, 0.0)}, "c");
    EXPECT_EQ(a.verdict, "full");
    EXPECT_TRUE(a.mode.empty());
    EXPECT_FALSE(a.why.empty());
}

TEST(PrecisionAudit, AReferenceThatNoModeChangesIsFullWithAReason) {
    PrecisionAudit a = judge_precision({same_bits("tf32"), same_bits("f16"), same_bits("bf16")}, "c");
    EXPECT_EQ(a.verdict, "full");
    EXPECT_TRUE(a.mode.empty());
    EXPECT_NE(a.why.find("same bits"), std::string::npos) << a.why;
    PrecisionProbe raised;
    raised.mode = "f16";
    raised.skipped = "the reference raised under autocast";
    a = judge_precision({same_bits("tf32"), raised}, "c");
    EXPECT_NE(a.why.find("raised under autocast"), std::string::npos) << a.why;
}

TEST(PrecisionAudit, EveryOutputCounts) {
    // Two outputs: the second one is far from the recomputation.
    PrecisionProbe p = probe("tf32", 0.1, 0.0);
    p.outputs.push_back({1, "second", DType::f32, 10.0, 0.01, 0.01});
    EXPECT_EQ(judge_precision({p}, "c").verdict, "full");
}

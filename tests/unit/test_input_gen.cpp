// The input generator shared by host and device: Philox known answers, and
// the properties each distribution promises.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "hostdev/input_gen.h"

using namespace kb;

// Known-answer vectors of Philox4x32-10 from the Random123 distribution (kat_vectors).
TEST(Philox, KnownAnswers) {
    Philox4 z = philox4x32_10(0, 0, 0, 0, 0);
    EXPECT_EQ(z.v[0], 0x6627e8d5u);
    EXPECT_EQ(z.v[1], 0xe169c58du);
    EXPECT_EQ(z.v[2], 0xbc57ac4cu);
    EXPECT_EQ(z.v[3], 0x9b00dbd8u);
    Philox4 f = philox4x32_10(~0ull, ~0u, ~0u, ~0u, ~0u);
    EXPECT_EQ(f.v[0], 0x408f276du);
    EXPECT_EQ(f.v[1], 0x41c83b0eu);
    EXPECT_EQ(f.v[2], 0xa20bc7c6u);
    EXPECT_EQ(f.v[3], 0x6d5451fdu);
    Philox4 p = philox4x32_10(0x299f31d0a4093822ull, 0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u);
    EXPECT_EQ(p.v[0], 0xd16cfe09u);
    EXPECT_EQ(p.v[1], 0x94fdccebu);
    EXPECT_EQ(p.v[2], 0x5001e420u);
    EXPECT_EQ(p.v[3], 0x24126ea1u);
}

TEST(InputGen, SameSeedSameValuesOtherSeedOtherValues) {
    for (uint64_t i = 0; i < 100; ++i) {
        EXPECT_EQ(kb_input_bits(KB_F32, KB_DIST_UNIFORM, -1, 1, 7, 0, i), kb_input_bits(KB_F32, KB_DIST_UNIFORM, -1, 1, 7, 0, i));
    }
    int same = 0;
    for (uint64_t i = 0; i < 100; ++i)
        same += kb_input_bits(KB_F32, KB_DIST_UNIFORM, -1, 1, 7, 0, i) == kb_input_bits(KB_F32, KB_DIST_UNIFORM, -1, 1, 8, 0, i);
    EXPECT_LT(same, 3);
    // Different arguments of one task draw different streams.
    same = 0;
    for (uint64_t i = 0; i < 100; ++i)
        same += kb_input_bits(KB_F32, KB_DIST_UNIFORM, -1, 1, 7, 0, i) == kb_input_bits(KB_F32, KB_DIST_UNIFORM, -1, 1, 7, 1, i);
    EXPECT_LT(same, 3);
}

TEST(InputGen, UniformStaysInRangeAndCoversIt) {
    double lo = 1e9, hi = -1e9, sum = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        float f = kb_bits_float(uint32_t(kb_input_bits(KB_F32, KB_DIST_UNIFORM, -2, 3, 1, 0, uint64_t(i))));
        ASSERT_GE(f, -2.0f);
        ASSERT_LE(f, 3.0f);
        lo = std::min(lo, double(f));
        hi = std::max(hi, double(f));
        sum += f;
    }
    EXPECT_LT(lo, -1.99);
    EXPECT_GT(hi, 2.99);
    EXPECT_NEAR(sum / n, 0.5, 0.05);
}

TEST(InputGen, NormalHasItsMoments) {
    double sum = 0, sq = 0;
    const int n = 50000;
    for (int i = 0; i < n; ++i) {
        double v = kb_bits_double(kb_input_bits(KB_F64, KB_DIST_NORMAL, 2, 3, 5, 1, uint64_t(i)));
        ASSERT_TRUE(std::isfinite(v));
        sum += v;
        sq += v * v;
    }
    double mean = sum / n, sd = std::sqrt(sq / n - mean * mean);
    EXPECT_NEAR(mean, 2.0, 0.05);
    EXPECT_NEAR(sd, 3.0, 0.05);
}

TEST(InputGen, RandintIsInclusiveAndIntegral) {
    std::set<int32_t> seen;
    for (int i = 0; i < 2000; ++i) {
        int32_t v = int32_t(uint32_t(kb_input_bits(KB_I32, KB_DIST_RANDINT, -3, 3, 9, 2, uint64_t(i))));
        ASSERT_GE(v, -3);
        ASSERT_LE(v, 3);
        seen.insert(v);
    }
    EXPECT_EQ(seen.size(), 7u);
    // Into a float buffer the values are exact integers.
    for (int i = 0; i < 100; ++i) {
        float f = kb_bits_float(uint32_t(kb_input_bits(KB_F32, KB_DIST_RANDINT, 0, 9, 9, 2, uint64_t(i))));
        EXPECT_EQ(f, std::floor(f));
    }
}

TEST(InputGen, BernoulliConstantArange) {
    int ones = 0;
    for (int i = 0; i < 10000; ++i) ones += int(kb_input_bits(KB_BOOL, KB_DIST_BERNOULLI, 0.25, 0, 3, 0, uint64_t(i)));
    EXPECT_NEAR(ones / 10000.0, 0.25, 0.02);
    EXPECT_EQ(kb_bits_float(uint32_t(kb_input_bits(KB_F32, KB_DIST_CONSTANT, 1.5, 0, 3, 0, 99))), 1.5f);
    EXPECT_EQ(kb_bits_float(uint32_t(kb_input_bits(KB_F32, KB_DIST_ARANGE, 10, 0.5, 3, 0, 4))), 12.0f);
    EXPECT_EQ(int64_t(kb_input_bits(KB_I64, KB_DIST_ARANGE, -5, 2, 3, 0, 10)), 15);
    // Half precision goes through float with round-to-nearest-even.
    EXPECT_EQ(kb_input_bits(KB_F16, KB_DIST_CONSTANT, 1.0, 0, 0, 0, 0), 0x3c00u);
    EXPECT_EQ(kb_input_bits(KB_BF16, KB_DIST_CONSTANT, -2.0, 0, 0, 0, 0), 0xc000u);
}

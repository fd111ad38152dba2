// The comparison rule (compare_math.h) and the host comparator's report.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "hostdev/compare_math.h"
#include "compare/comparator.h"
#include "engine/result_json.h"
#include "hostdev/numeric_bits.h"

using namespace kb;

TEST(CompareMath, AllcloseEdge) {
    EXPECT_TRUE(kb_check_float(1.0 + 1e-6, 1.0, 1e-6, 0.0, true).match);
    EXPECT_FALSE(kb_check_float(1.0 + 3e-6, 1.0, 1e-6, 1e-6, true).match);
    EXPECT_TRUE(kb_check_float(101.0, 100.0, 0.0, 0.01, true).match);
    ElementCheck c = kb_check_float(2.0, 1.0, 0.5, 0.0, true);
    EXPECT_FALSE(c.match);
    EXPECT_DOUBLE_EQ(c.abs_err, 1.0);
    EXPECT_DOUBLE_EQ(c.rel_err, 1.0);
    EXPECT_DOUBLE_EQ(c.violation, 2.0);
}

TEST(CompareMath, NanAndInf) {
    double nan = std::nan(""), inf = INFINITY;
    EXPECT_TRUE(kb_check_float(nan, nan, 0, 0, true).match);
    EXPECT_FALSE(kb_check_float(nan, nan, 0, 0, false).match);
    EXPECT_FALSE(kb_check_float(nan, 1.0, 1e9, 1e9, true).match);  // no tolerance covers a NaN
    EXPECT_FALSE(kb_check_float(1.0, nan, 1e9, 1e9, true).match);
    EXPECT_TRUE(kb_check_float(inf, inf, 0, 0, true).match);
    EXPECT_FALSE(kb_check_float(-inf, inf, 1e9, 1e9, true).match);
    EXPECT_FALSE(kb_check_float(1e300, inf, 1e9, 1e9, true).match);
    EXPECT_FALSE(kb_check_float(inf, 1e300, 1e9, 1e9, true).match);
    EXPECT_TRUE(std::isinf(kb_check_float(inf, 1.0, 0, 0, true).violation));
}

TEST(CompareMath, ZeroReferenceRelativeError) {
    ElementCheck c = kb_check_float(1e-7, 0.0, 1e-6, 1e-6, true);
    EXPECT_TRUE(c.match);
    EXPECT_TRUE(std::isinf(c.rel_err));
    EXPECT_EQ(kb_check_float(0.0, 0.0, 0.0, 0.0, true).violation, 0.0);
}

TEST(CompareMath, IntegersCompareBits) {
    EXPECT_TRUE(kb_check_bits(5, 5, 5, 5).match);
    ElementCheck c = kb_check_bits(6, 5, 6, 5);
    EXPECT_FALSE(c.match);
    EXPECT_DOUBLE_EQ(c.abs_err, 1.0);
    EXPECT_GT(kb_check_bits(9, 5, 9, 5).violation, c.violation);  // larger difference grades worse
}

namespace {

HostTensor f32_tensor(const std::vector<float>& v, std::vector<int64_t> shape) {
    HostTensor t;
    t.name = "out";
    t.dtype = DType::f32;
    t.shape = std::move(shape);
    t.bytes.resize(v.size() * 4);
    std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
    return t;
}

Arg f32_output(double atol, double rtol) {
    Arg a;
    a.name = "out";
    a.role = Role::out;
    a.dtype = DType::f32;
    a.tolerance = Tolerance{atol, rtol, true};
    return a;
}

}  // namespace

TEST(Comparator, ReportsWorstElementWithIndex) {
    HostTensor ref = f32_tensor({1, 2, 3, 4, 5, 6}, {2, 3});
    HostTensor cand = f32_tensor({1, 2, 3.5f, 4, 5, 6.1f}, {2, 3});
    OutputReport r = compare_host(cand, ref, f32_output(0.01, 0.0));
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.mismatches, 2u);
    EXPECT_EQ(r.unwritten, 0u);
    EXPECT_EQ(r.worst_flat, 2u);
    EXPECT_EQ(r.worst_index, (std::vector<int64_t>{0, 2}));
    EXPECT_FLOAT_EQ(float(r.worst_got), 3.5f);
    EXPECT_FLOAT_EQ(float(r.worst_expected), 3.0f);
    EXPECT_NEAR(r.max_abs_err, 0.5, 1e-6);
    std::string d = r.describe();
    EXPECT_NE(d.find("2 of 6 elements wrong"), std::string::npos) << d;
    EXPECT_NE(d.find("[0, 2]"), std::string::npos) << d;
    Json j = to_json(r);
    EXPECT_EQ(j["worst"]["index"], Json({0, 2}));
    EXPECT_EQ(j["mismatches"], 2);
}

TEST(Comparator, PoisonedElementsCountAsUnwritten) {
    HostTensor ref = f32_tensor({1, 2, 3, 4}, {4});
    HostTensor cand = ref;
    uint32_t poison = kPoisonF32;
    std::memcpy(cand.bytes.data() + 8, &poison, 4);
    std::memcpy(cand.bytes.data() + 12, &poison, 4);
    OutputReport r = compare_host(cand, ref, f32_output(1e-6, 1e-6));
    EXPECT_EQ(r.mismatches, 2u);
    EXPECT_EQ(r.unwritten, 2u);
    EXPECT_NE(r.describe().find("never written"), std::string::npos);
    std::memcpy(cand.bytes.data(), &poison, 4);
    std::memcpy(cand.bytes.data() + 4, &poison, 4);
    r = compare_host(cand, ref, f32_output(1e-6, 1e-6));
    EXPECT_NE(r.describe().find("none of the 4 elements was written"), std::string::npos) << r.describe();
}

TEST(Comparator, PassingReportAndNanJson) {
    HostTensor ref = f32_tensor({1, NAN}, {2});
    OutputReport r = compare_host(ref, ref, f32_output(0, 0));
    EXPECT_TRUE(r.ok());
    HostTensor cand = f32_tensor({1, 0}, {2});
    r = compare_host(cand, ref, f32_output(0, 0));
    EXPECT_EQ(to_json(r)["max_abs_err"], "inf");  // JSON has no infinity: kept as a string
}

TEST(Comparator, PoisonPatternsAreNaNsForFloats) {
    float f;
    uint32_t p = kPoisonF32;
    std::memcpy(&f, &p, 4);
    EXPECT_TRUE(std::isnan(f));
    double d;
    uint64_t pd = kPoisonF64;
    std::memcpy(&d, &pd, 8);
    EXPECT_TRUE(std::isnan(d));
    EXPECT_TRUE(std::isnan(kb_half_to_float(kPoisonF16)));
    EXPECT_TRUE(std::isnan(kb_bf16_to_float(kPoisonBF16)));
    EXPECT_EQ(poison_bits(DType::i32), 0xa5a5a5a5u);
}

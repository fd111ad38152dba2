// The comparison rule (compare_math.h) and the host comparator's report.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

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

// The GPU comparator's pass folds floats with kb_fold_float, which skips
// the rule's divisions where they cannot raise a maximum, and its search for
// the worst element skips those surely under it (kb_quotient_under). Both
// must give what the plain rule gives, on runs of elements of every kind:
// equal, a rounding apart, near the tolerance, zero references, subnormal
// and huge values, NaN and infinities, zero atol or rtol.
TEST(CompareMath, TheFoldGivesThePlainRulesMaximaAndWorstElement) {
    std::mt19937_64 g(1);
    std::uniform_real_distribution<double> unit(-1, 1), wide(-3, 3);
    auto near = [&](int kind, double r) -> double {
        switch (kind) {
            case 0: return r;
            case 1: return r * (1 + unit(g) * 1e-7);
            case 2: return r + unit(g) * 1e-5;
            case 3: return double(float(r * (1 + unit(g) * 1e-6)));
            case 4: return unit(g) * 1e300;
            case 5: return unit(g) * 1e-310;
            case 6: return -r;
            default: return r + unit(g);
        }
    };
    size_t skipped = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        const int n = 1 + int(g() % 64);
        const double atol = g() % 4 == 0 ? 0.0 : std::pow(10.0, -double(g() % 9));
        const double rtol = g() % 4 == 0 ? 0.0 : std::pow(10.0, -double(g() % 9));
        const int kind = int(g() % 9);
        std::vector<double> cand, ref;
        FloatFold fold;
        double max_abs = 0, max_rel = 0, max_vio = 0;
        uint64_t plain_mismatches = 0, fold_mismatches = 0;
        for (int i = 0; i < n; ++i) {
            double r = g() % 7 == 0    ? 0.0
                       : g() % 11 == 0 ? wide(g) * 1e-310
                       : g() % 13 == 0 ? wide(g) * 1e300
                                       : double(float(wide(g)));
            double c = near(kind == 8 ? int(g() % 8) : kind, r);
            if (g() % 50 == 0) c = NAN;
            if (g() % 60 == 0) r = INFINITY;
            if (g() % 70 == 0) c = -INFINITY;
            cand.push_back(c);
            ref.push_back(r);
            ElementCheck e = kb_check_float(c, r, atol, rtol, true);
            max_abs = std::fmax(max_abs, e.abs_err);
            max_rel = std::fmax(max_rel, e.rel_err);
            max_vio = std::fmax(max_vio, e.violation);
            plain_mismatches += !e.match;
            fold_mismatches += !kb_fold_float(c, r, atol, rtol, true, fold);
        }
        // As numbers: fmax may keep either zero where +0 meets -0.
        ASSERT_EQ(fold.max_abs, max_abs) << "trial " << trial;
        ASSERT_EQ(fold.max_rel, max_rel) << "trial " << trial;
        ASSERT_EQ(fold.max_violation, max_vio) << "trial " << trial;
        ASSERT_EQ(fold_mismatches, plain_mismatches) << "trial " << trial;
        // The worst element: the first whose violation is the maximum.
        int plain = -1, skipping = -1;
        for (int i = 0; i < n && plain < 0; ++i)
            if (kb_double_bits(kb_check_float(cand[i], ref[i], atol, rtol, true).violation) == kb_double_bits(max_vio))
                plain = i;
        for (int i = 0; i < n && skipping < 0; ++i) {
            if (kb_finite(cand[i]) && kb_finite(ref[i]) &&
                kb_quotient_under(kb_abs(cand[i] - ref[i]), atol + rtol * kb_abs(ref[i]), max_vio)) {
                ++skipped;
                continue;
            }
            if (kb_double_bits(kb_check_float(cand[i], ref[i], atol, rtol, true).violation) == kb_double_bits(max_vio))
                skipping = i;
        }
        ASSERT_EQ(skipping, plain) << "trial " << trial;
    }
    EXPECT_GT(skipped, 10000u);  // the search skips elements at all
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

namespace {

// compare_host's report as the element rule gives it, one element at a time
// through the generic accessors: what the comparator's typed loop must equal.
OutputReport by_the_rule(const HostTensor& cand, const HostTensor& ref, const Arg& arg) {
    OutputReport r;
    r.exact = !dtype_is_float(arg.dtype);
    r.tolerance = tolerance_for(arg);
    r.elements = ref.count();
    const uint64_t poison = poison_bits(arg.dtype);
    bool have_worst = false;
    for (uint64_t i = 0; i < r.elements; ++i) {
        uint64_t cb = cand.bits(i), rb = ref.bits(i);
        double c = cand.at(i), e = ref.at(i);
        ElementCheck k = r.exact ? kb_check_bits(cb, rb, c, e)
                                 : kb_check_float(c, e, r.tolerance.atol, r.tolerance.rtol, r.tolerance.equal_nan);
        if (!k.match) {
            ++r.mismatches;
            if (cb == poison) ++r.unwritten;
        }
        r.max_abs_err = std::fmax(r.max_abs_err, k.abs_err);
        r.max_rel_err = std::fmax(r.max_rel_err, k.rel_err);
        if (!have_worst || k.violation > r.max_violation) {
            r.max_violation = k.violation;
            r.worst_flat = i;
            have_worst = true;
        }
    }
    return r;
}

// Field for field. Bitwise for the errors: NaN never reaches them, and
// infinities compare equal.
void expect_same_report(const OutputReport& got, const OutputReport& want) {
    EXPECT_EQ(got.elements, want.elements);
    EXPECT_EQ(got.mismatches, want.mismatches);
    EXPECT_EQ(got.unwritten, want.unwritten);
    EXPECT_EQ(got.worst_flat, want.worst_flat);
    EXPECT_EQ(got.max_abs_err, want.max_abs_err);
    EXPECT_EQ(got.max_rel_err, want.max_rel_err);
    EXPECT_EQ(got.max_violation, want.max_violation);
}

}  // namespace

// The comparator's loop takes shortcuts (an element whose bits equal the
// reference's, a decode per width); its report must still be the element
// rule's, field for field, on every dtype, over bits that are mostly equal,
// slightly off, wildly off, NaN (equal and not), infinite, zero of either
// sign and the poison pattern.
TEST(Comparator, TheTypedLoopGivesTheElementRulesReportOnEveryDtype) {
    std::mt19937_64 rng(20261128);
    const DType all[] = {DType::f16, DType::bf16, DType::f32, DType::f64, DType::i8,  DType::u8,  DType::i16,
                         DType::u16, DType::i32,  DType::u32, DType::i64, DType::u64, DType::boolean};
    for (DType t : all) {
        const size_t w = dtype_size(t);
        for (int trial = 0; trial < 40; ++trial) {
            const uint64_t n = 1 + rng() % 300;
            HostTensor ref, cand;
            ref.dtype = cand.dtype = t;
            ref.shape = cand.shape = {int64_t(n)};
            ref.bytes.resize(n * w);
            cand.bytes.resize(n * w);
            auto put = [w](HostTensor& h, uint64_t i, uint64_t bits) { std::memcpy(h.bytes.data() + i * w, &bits, w); };
            auto special = [&](uint64_t pick) -> uint64_t {
                switch (pick % 5) {
                    case 0: return poison_bits(t);
                    case 1: return w == 2 ? (t == DType::f16 ? 0x7c00u : 0x7f80u) : w == 4 ? 0x7f800000u : 0x7ff0000000000000ull;
                    case 2: return w == 2 ? (t == DType::f16 ? 0x7e00u : 0x7fc0u) : w == 4 ? 0x7fc00000u : 0x7ff8000000000000ull;
                    case 3: return uint64_t(1) << (8 * w - 1);  // -0.0 for floats
                    default: return 0;
                }
            };
            for (uint64_t i = 0; i < n; ++i) {
                uint64_t rb = rng();
                if (t == DType::boolean) rb &= 1;
                if (rng() % 10 == 0) rb = special(rng());
                uint64_t cb = rb;
                switch (rng() % 8) {
                    case 0: cb = rb ^ 1; break;                       // the last bit off
                    case 1: cb = rng(); break;                        // anything
                    case 2: cb = special(rng()); break;               // NaN, inf, poison, zeros
                    case 3: cb = rb ^ (uint64_t(1) << (8 * w - 2)); break;  // far off
                    default: break;                                   // equal bits
                }
                if (t == DType::boolean) cb &= 1;
                put(ref, i, rb);
                put(cand, i, cb);
            }
            Arg arg;
            arg.name = "out";
            arg.dtype = t;
            const double tols[][2] = {{0, 0}, {1e-3, 1e-3}, {1e-6, 0}, {0, 1e-2}};
            arg.tolerance = Tolerance{tols[trial % 4][0], tols[trial % 4][1], trial % 3 != 0};
            SCOPED_TRACE(std::string(dtype_name(t)) + " trial " + std::to_string(trial));
            expect_same_report(compare_host(cand, ref, arg), by_the_rule(cand, ref, arg));
        }
    }
}

// A program's output may come in another dtype than the reference's where
// its protocol does not check dtypes: each tensor is then read in its own,
// as the element rule reads it.
TEST(Comparator, ACandidateInAnotherDtypeIsReadInItsOwn) {
    std::mt19937_64 rng(7);
    const std::pair<DType, DType> pairs[] = {{DType::f16, DType::f32}, {DType::f64, DType::f32},
                                             {DType::i32, DType::f32}, {DType::f32, DType::i32},
                                             {DType::bf16, DType::f16}};
    for (auto [ct, rt] : pairs) {
        const uint64_t n = 64;
        HostTensor cand, ref;
        cand.dtype = ct;
        ref.dtype = rt;
        cand.shape = ref.shape = {int64_t(n)};
        cand.bytes.resize(n * dtype_size(ct));
        ref.bytes.resize(n * dtype_size(rt));
        for (auto& b : cand.bytes) b = uint8_t(rng());
        for (auto& b : ref.bytes) b = uint8_t(rng());
        // Some elements equal in value, so that both outcomes occur.
        for (uint64_t i = 0; i < n; i += 3) {
            const float v = float(int(i) - 20);
            auto put = [&](HostTensor& h, uint64_t k) {
                const size_t w = dtype_size(h.dtype);
                uint64_t bits = 0;
                if (h.dtype == DType::f32) std::memcpy(&bits, &v, 4);
                else if (h.dtype == DType::f64) { double d = v; std::memcpy(&bits, &d, 8); }
                else if (h.dtype == DType::f16) bits = kb_float_to_half(v);
                else if (h.dtype == DType::bf16) { uint32_t f; std::memcpy(&f, &v, 4); bits = f >> 16; }
                else { int32_t x = int32_t(v); std::memcpy(&bits, &x, 4); }
                std::memcpy(h.bytes.data() + k * w, &bits, w);
            };
            put(cand, i);
            put(ref, i);
        }
        Arg arg;
        arg.name = "out";
        arg.dtype = rt;
        arg.tolerance = Tolerance{1e-3, 1e-3, true};
        SCOPED_TRACE(std::string(dtype_name(ct)) + " against " + dtype_name(rt));
        OutputReport got = compare_host(cand, ref, arg);
        expect_same_report(got, by_the_rule(cand, ref, arg));
        // (An integer reference compares bits, which a float's never equal.)
        if (dtype_is_float(rt)) EXPECT_LT(got.mismatches, n) << "no element matched: the test's equal values did not land";
    }
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

// Element types (src/task/dtype.h): names, sizes, classification, and the
// host-side f16/bf16 conversions, which must round to nearest even exactly as
// CUDA's __float2half_rn / __float2bfloat16_rn do.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

#include "task/dtype.h"

namespace {

using kb::DType;

float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

uint32_t to_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

constexpr DType kAll[] = {DType::f16, DType::bf16, DType::f32, DType::f64, DType::i8,  DType::u8,     DType::i16,
                          DType::u16, DType::i32,  DType::u32, DType::i64, DType::u64, DType::boolean};

TEST(DType, NamesRoundTrip) {
    for (DType t : kAll) {
        auto parsed = kb::parse_dtype(kb::dtype_name(t));
        ASSERT_TRUE(parsed.has_value()) << kb::dtype_name(t);
        EXPECT_EQ(*parsed, t);
        EXPECT_NE(kb::dtype_names().find(kb::dtype_name(t)), std::string::npos);
    }
    EXPECT_STREQ(kb::dtype_name(DType::boolean), "bool");
    EXPECT_STREQ(kb::dtype_name(DType::bf16), "bf16");
    EXPECT_EQ(kb::dtype_names().rfind("f16, bf16, f32, f64", 0), 0u);
}

TEST(DType, UnknownNames) {
    for (const char* bad : {"", "float", "F32", "f32 ", "fp16", "int32", "boolean", "f8"})
        EXPECT_FALSE(kb::parse_dtype(bad).has_value()) << bad;
}

TEST(DType, NumberingIsStable) {
    // The device kernels switch on these values: they must never move.
    EXPECT_EQ(int(DType::f16), 0);
    EXPECT_EQ(int(DType::bf16), 1);
    EXPECT_EQ(int(DType::f32), 2);
    EXPECT_EQ(int(DType::f64), 3);
    EXPECT_EQ(int(DType::i8), 4);
    EXPECT_EQ(int(DType::u64), 11);
    EXPECT_EQ(int(DType::boolean), 12);
}

TEST(DType, Sizes) {
    EXPECT_EQ(kb::dtype_size(DType::f16), 2u);
    EXPECT_EQ(kb::dtype_size(DType::bf16), 2u);
    EXPECT_EQ(kb::dtype_size(DType::f32), 4u);
    EXPECT_EQ(kb::dtype_size(DType::f64), 8u);
    EXPECT_EQ(kb::dtype_size(DType::i8), 1u);
    EXPECT_EQ(kb::dtype_size(DType::u8), 1u);
    EXPECT_EQ(kb::dtype_size(DType::i16), 2u);
    EXPECT_EQ(kb::dtype_size(DType::u16), 2u);
    EXPECT_EQ(kb::dtype_size(DType::i32), 4u);
    EXPECT_EQ(kb::dtype_size(DType::u32), 4u);
    EXPECT_EQ(kb::dtype_size(DType::i64), 8u);
    EXPECT_EQ(kb::dtype_size(DType::u64), 8u);
    EXPECT_EQ(kb::dtype_size(DType::boolean), 1u);
}

TEST(DType, Classification) {
    for (DType t : kAll) {
        bool is_float = t == DType::f16 || t == DType::bf16 || t == DType::f32 || t == DType::f64;
        bool is_signed = t == DType::i8 || t == DType::i16 || t == DType::i32 || t == DType::i64;
        EXPECT_EQ(kb::dtype_is_float(t), is_float) << kb::dtype_name(t);
        EXPECT_EQ(kb::dtype_is_signed_int(t), is_signed) << kb::dtype_name(t);
    }
}

TEST(Half, ExactValues) {
    EXPECT_EQ(kb::float_to_half_bits(0.0f), 0x0000);
    EXPECT_EQ(kb::float_to_half_bits(-0.0f), 0x8000);
    EXPECT_EQ(kb::float_to_half_bits(1.0f), 0x3c00);
    EXPECT_EQ(kb::float_to_half_bits(-2.0f), 0xc000);
    EXPECT_EQ(kb::float_to_half_bits(0.5f), 0x3800);
    EXPECT_EQ(kb::float_to_half_bits(65504.0f), 0x7bff);               // largest finite half
    EXPECT_EQ(kb::float_to_half_bits(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
    EXPECT_EQ(kb::half_bits_to_float(0x3c00), 1.0f);
    EXPECT_EQ(kb::half_bits_to_float(0xc000), -2.0f);
    EXPECT_EQ(kb::half_bits_to_float(0x7bff), 65504.0f);
    EXPECT_EQ(kb::half_bits_to_float(0x3555), 0.333251953125f);
}

TEST(Half, RoundToNearestEven) {
    // Halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1).
    EXPECT_EQ(kb::float_to_half_bits(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
    // Halfway between 1 + 2^-10 (odd) and 1 + 2^-9 (even): up.
    EXPECT_EQ(kb::float_to_half_bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
    // Just above halfway rounds up, just below rounds down.
    EXPECT_EQ(kb::float_to_half_bits(std::nextafter(1.0f + std::ldexp(1.0f, -11), 2.0f)), 0x3c01);
    EXPECT_EQ(kb::float_to_half_bits(std::nextafter(1.0f + std::ldexp(1.0f, -11), 0.0f)), 0x3c00);
    // Mantissa carry into the exponent: 2 - 2^-12 rounds to 2.
    EXPECT_EQ(kb::float_to_half_bits(2.0f - std::ldexp(1.0f, -12)), 0x4000);
    // 65520 is halfway between 65504 and 65536 (= inf): ties to even gives inf.
    EXPECT_EQ(kb::float_to_half_bits(65519.0f), 0x7bff);
    EXPECT_EQ(kb::float_to_half_bits(65520.0f), 0x7c00);
    EXPECT_EQ(kb::float_to_half_bits(-65520.0f), 0xfc00);
    EXPECT_EQ(kb::float_to_half_bits(1e10f), 0x7c00);
}

TEST(Half, Subnormals) {
    const float tiny = std::ldexp(1.0f, -24);  // smallest half subnormal
    EXPECT_EQ(kb::float_to_half_bits(tiny), 0x0001);
    EXPECT_EQ(kb::float_to_half_bits(-tiny), 0x8001);
    EXPECT_EQ(kb::float_to_half_bits(tiny * 0.5f), 0x0000);     // tie between 0 and 1: even (0)
    EXPECT_EQ(kb::float_to_half_bits(tiny * 0.75f), 0x0001);    // above the tie
    EXPECT_EQ(kb::float_to_half_bits(tiny * 1.5f), 0x0002);     // tie between 1 and 2: even (2)
    EXPECT_EQ(kb::float_to_half_bits(tiny * 2.5f), 0x0002);     // tie between 2 and 3: even (2)
    EXPECT_EQ(kb::float_to_half_bits(tiny * 1023), 0x03ff);     // largest subnormal
    EXPECT_EQ(kb::float_to_half_bits(tiny * 1023.5f), 0x0400);  // rounds up to the smallest normal
    EXPECT_EQ(kb::float_to_half_bits(std::ldexp(1.0f, -30)), 0x0000);
    EXPECT_EQ(kb::half_bits_to_float(0x0001), tiny);
    EXPECT_EQ(kb::half_bits_to_float(0x03ff), tiny * 1023);
    EXPECT_EQ(kb::half_bits_to_float(0x8200), -tiny * 512);
}

TEST(Half, InfinityAndNaN) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(kb::float_to_half_bits(inf), 0x7c00);
    EXPECT_EQ(kb::float_to_half_bits(-inf), 0xfc00);
    uint16_t nan = kb::float_to_half_bits(std::numeric_limits<float>::quiet_NaN());
    EXPECT_EQ(nan & 0x7c00, 0x7c00);
    EXPECT_NE(nan & 0x03ff, 0);  // still a NaN, never an infinity
    // A signalling NaN whose payload sits in the low bits must not become inf.
    EXPECT_NE(kb::float_to_half_bits(from_bits(0x7f800001u)) & 0x03ff, 0);
    EXPECT_TRUE(std::isinf(kb::half_bits_to_float(0x7c00)));
    EXPECT_LT(kb::half_bits_to_float(0xfc00), 0.0f);
    EXPECT_TRUE(std::isnan(kb::half_bits_to_float(0x7e00)));
    EXPECT_TRUE(std::isnan(kb::half_bits_to_float(0x7c01)));
    EXPECT_TRUE(std::signbit(kb::half_bits_to_float(0x8000)));
}

TEST(Half, EveryHalfRoundTrips) {
    for (uint32_t h = 0; h <= 0xffff; ++h) {
        float f = kb::half_bits_to_float(uint16_t(h));
        if (std::isnan(f)) {
            EXPECT_TRUE(std::isnan(kb::half_bits_to_float(kb::float_to_half_bits(f)))) << std::hex << h;
            continue;
        }
        ASSERT_EQ(kb::float_to_half_bits(f), h) << std::hex << h;
    }
}

#if defined(__FLT16_MANT_DIG__) && (defined(__x86_64__) || defined(__aarch64__))
TEST(Half, MatchesTheCompilersFloat16) {
    // The compiler's _Float16 conversion is IEEE round-to-nearest-even.
    std::mt19937 rng(12345);
    for (int i = 0; i < 1000000; ++i) {
        float f = from_bits(rng());
        if (std::isnan(f)) continue;
        _Float16 h = static_cast<_Float16>(f);
        uint16_t bits;
        std::memcpy(&bits, &h, 2);
        ASSERT_EQ(kb::float_to_half_bits(f), bits) << std::hexfloat << f;
    }
}
#endif

TEST(BFloat16, ExactValuesAndRounding) {
    EXPECT_EQ(kb::float_to_bf16_bits(1.0f), 0x3f80);
    EXPECT_EQ(kb::float_to_bf16_bits(-2.0f), 0xc000);
    EXPECT_EQ(kb::float_to_bf16_bits(0.0f), 0x0000);
    EXPECT_EQ(kb::float_to_bf16_bits(-0.0f), 0x8000);
    EXPECT_EQ(kb::bf16_bits_to_float(0x3f80), 1.0f);
    EXPECT_EQ(kb::bf16_bits_to_float(0x4049), 3.140625f);
    // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
    EXPECT_EQ(kb::float_to_bf16_bits(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
    // 1 + 3*2^-8 is halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up.
    EXPECT_EQ(kb::float_to_bf16_bits(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
    EXPECT_EQ(kb::float_to_bf16_bits(std::nextafter(1.0f + std::ldexp(1.0f, -8), 2.0f)), 0x3f81);
    // The largest float rounds to infinity, as CUDA's __float2bfloat16_rn does.
    EXPECT_EQ(kb::float_to_bf16_bits(std::numeric_limits<float>::max()), 0x7f80);
    EXPECT_EQ(kb::float_to_bf16_bits(from_bits(0x7f7f0000u)), 0x7f7f);  // largest finite bf16
}

TEST(BFloat16, SubnormalsInfinityAndNaN) {
    EXPECT_EQ(kb::float_to_bf16_bits(from_bits(0x00010000u)), 0x0001);  // smallest bf16 subnormal
    EXPECT_EQ(kb::float_to_bf16_bits(from_bits(0x00008000u)), 0x0000);  // tie: even (0)
    EXPECT_EQ(kb::float_to_bf16_bits(from_bits(0x00018000u)), 0x0002);  // tie: even (2)
    EXPECT_EQ(kb::float_to_bf16_bits(from_bits(0x00008001u)), 0x0001);
    EXPECT_EQ(to_bits(kb::bf16_bits_to_float(0x0001)), 0x00010000u);
    EXPECT_EQ(kb::float_to_bf16_bits(std::numeric_limits<float>::infinity()), 0x7f80);
    EXPECT_EQ(kb::float_to_bf16_bits(-std::numeric_limits<float>::infinity()), 0xff80);
    // NaNs stay NaN even when truncation alone would leave an infinity.
    uint16_t nan = kb::float_to_bf16_bits(from_bits(0x7f800001u));
    EXPECT_EQ(nan & 0x7f80, 0x7f80);
    EXPECT_NE(nan & 0x007f, 0);
    EXPECT_TRUE(std::isnan(kb::bf16_bits_to_float(kb::float_to_bf16_bits(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(BFloat16, EveryBFloat16RoundTrips) {
    for (uint32_t b = 0; b <= 0xffff; ++b) {
        float f = kb::bf16_bits_to_float(uint16_t(b));
        if (std::isnan(f)) {
            EXPECT_TRUE(std::isnan(kb::bf16_bits_to_float(kb::float_to_bf16_bits(f))));
            continue;
        }
        ASSERT_EQ(kb::float_to_bf16_bits(f), b) << std::hex << b;
    }
}

TEST(DType, LoadAsDouble) {
    const uint16_t h[] = {0x3c00, 0xc000};
    EXPECT_EQ(kb::load_as_double(h, DType::f16, 1), -2.0);
    const uint16_t b[] = {0x3f80, 0x4049};
    EXPECT_EQ(kb::load_as_double(b, DType::bf16, 1), 3.140625);
    const float f[] = {1.5f, -0.25f};
    EXPECT_EQ(kb::load_as_double(f, DType::f32, 1), -0.25);
    const double d[] = {1e300};
    EXPECT_EQ(kb::load_as_double(d, DType::f64, 0), 1e300);
    const int8_t i8[] = {0, -128};
    EXPECT_EQ(kb::load_as_double(i8, DType::i8, 1), -128.0);
    const uint8_t u8[] = {0, 255};
    EXPECT_EQ(kb::load_as_double(u8, DType::u8, 1), 255.0);
    const int16_t i16[] = {-32768};
    EXPECT_EQ(kb::load_as_double(i16, DType::i16, 0), -32768.0);
    const uint16_t u16[] = {65535};
    EXPECT_EQ(kb::load_as_double(u16, DType::u16, 0), 65535.0);
    const int32_t i32[] = {7, -2147483647 - 1};
    EXPECT_EQ(kb::load_as_double(i32, DType::i32, 1), -2147483648.0);
    const uint32_t u32[] = {4294967295u};
    EXPECT_EQ(kb::load_as_double(u32, DType::u32, 0), 4294967295.0);
    const int64_t i64[] = {-(int64_t(1) << 40)};
    EXPECT_EQ(kb::load_as_double(i64, DType::i64, 0), -1099511627776.0);
    const uint64_t u64[] = {uint64_t(1) << 63};
    EXPECT_EQ(kb::load_as_double(u64, DType::u64, 0), 9223372036854775808.0);
    const uint8_t bools[] = {0, 1, 2};
    EXPECT_EQ(kb::load_as_double(bools, DType::boolean, 0), 0.0);
    EXPECT_EQ(kb::load_as_double(bools, DType::boolean, 2), 1.0);  // any nonzero byte is true
}

}  // namespace

#include "task/dtype.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace kb {
namespace {

struct Info {
    DType type;
    const char* name;
    size_t size;
};

constexpr Info kInfo[] = {
    {DType::f16, "f16", 2},  {DType::bf16, "bf16", 2}, {DType::f32, "f32", 4},  {DType::f64, "f64", 8},
    {DType::i8, "i8", 1},    {DType::u8, "u8", 1},     {DType::i16, "i16", 2},  {DType::u16, "u16", 2},
    {DType::i32, "i32", 4},  {DType::u32, "u32", 4},   {DType::i64, "i64", 8},  {DType::u64, "u64", 8},
    {DType::boolean, "bool", 1},
};

}  // namespace

size_t dtype_size(DType t) { return kInfo[int(t)].size; }
const char* dtype_name(DType t) { return kInfo[int(t)].name; }

std::optional<DType> parse_dtype(std::string_view name) {
    for (const Info& i : kInfo)
        if (name == i.name) return i.type;
    return std::nullopt;
}

bool dtype_is_float(DType t) { return t == DType::f16 || t == DType::bf16 || t == DType::f32 || t == DType::f64; }

bool dtype_is_signed_int(DType t) {
    return t == DType::i8 || t == DType::i16 || t == DType::i32 || t == DType::i64;
}

std::string dtype_names() {
    std::string s;
    for (const Info& i : kInfo) {
        if (!s.empty()) s += ", ";
        s += i.name;
    }
    return s;
}

float half_bits_to_float(unsigned short h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {  // subnormal: renormalise
            int e = -1;
            do {
                ++e;
                mant <<= 1;
            } while ((mant & 0x400) == 0);
            bits = sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3ff) << 13;
        }
    } else if (exp == 0x1f) {
        bits = sign | 0x7f800000u | mant << 13;
    } else {
        bits = sign | (exp + 127 - 15) << 23 | mant << 13;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

unsigned short float_to_half_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000;
    uint32_t absx = x & 0x7fffffff;
    if (absx >= 0x7f800000u)  // inf or nan
        return static_cast<unsigned short>(sign | 0x7c00 | (absx > 0x7f800000u ? 0x200 | ((absx >> 13) & 0x3ff) : 0));
    if (absx >= 0x477ff000u) return static_cast<unsigned short>(sign | 0x7c00);  // rounds to inf
    if (absx < 0x38800000u) {  // subnormal half or zero
        if (absx < 0x33000000u) return static_cast<unsigned short>(sign);
        uint32_t e = absx >> 23;
        uint32_t m = (absx & 0x7fffff) | 0x800000;
        int shift = int(126 - e) + 14;  // bits to drop
        uint32_t half = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) ++half;
        return static_cast<unsigned short>(sign | half);
    }
    uint32_t h = ((absx >> 23) - 127 + 15) << 10 | ((absx >> 13) & 0x3ff);
    uint32_t rem = absx & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
    return static_cast<unsigned short>(sign | h);
}

float bf16_bits_to_float(unsigned short b) {
    uint32_t bits = uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

unsigned short float_to_bf16_bits(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7fffffff) > 0x7f800000u) return static_cast<unsigned short>((x >> 16) | 0x40);  // quiet nan
    uint32_t rounding = 0x7fff + ((x >> 16) & 1);
    return static_cast<unsigned short>((x + rounding) >> 16);
}

double load_as_double(const void* data, DType t, size_t i) {
    const unsigned char* p = static_cast<const unsigned char*>(data) + i * dtype_size(t);
    switch (t) {
        case DType::f16: { unsigned short v; std::memcpy(&v, p, 2); return half_bits_to_float(v); }
        case DType::bf16: { unsigned short v; std::memcpy(&v, p, 2); return bf16_bits_to_float(v); }
        case DType::f32: { float v; std::memcpy(&v, p, 4); return v; }
        case DType::f64: { double v; std::memcpy(&v, p, 8); return v; }
        case DType::i8: return double(*reinterpret_cast<const int8_t*>(p));
        case DType::u8: return double(*p);
        case DType::i16: { int16_t v; std::memcpy(&v, p, 2); return v; }
        case DType::u16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
        case DType::i32: { int32_t v; std::memcpy(&v, p, 4); return v; }
        case DType::u32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
        case DType::i64: { int64_t v; std::memcpy(&v, p, 8); return double(v); }
        case DType::u64: { uint64_t v; std::memcpy(&v, p, 8); return double(v); }
        case DType::boolean: return *p ? 1.0 : 0.0;
    }
    return 0.0;
}

}  // namespace kb

#include "task/dtype.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "hostdev/compare_math.h"
#include "hostdev/numeric_bits.h"

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

// The conversions live in hostdev/numeric_bits.h so host and device share them.
float half_bits_to_float(unsigned short h) { return kb_half_to_float(h); }
unsigned short float_to_half_bits(float f) { return kb_float_to_half(f); }
float bf16_bits_to_float(unsigned short b) { return kb_bf16_to_float(b); }
unsigned short float_to_bf16_bits(float f) { return kb_float_to_bf16(f); }

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

uint64_t poison_bits(DType t) {
    switch (t) {
        case DType::f16: return kPoisonF16;
        case DType::bf16: return kPoisonBF16;
        case DType::f32: return kPoisonF32;
        case DType::f64: return kPoisonF64;
        default: {
            uint64_t v = 0;
            std::memset(&v, kPoisonByte, dtype_size(t));
            return v;
        }
    }
}

}  // namespace kb

// Bit-exact conversions between float and the 16-bit float formats, usable
// in host and device code alike: input generation and comparison must give
// the same bits on both sides, so neither may depend on a platform's own
// conversion routines. Round to nearest even, as CUDA's __float2half_rn.
#pragma once

#include <stdint.h>
#include <string.h>

#include "hostdev/hd.h"

namespace kb {

KB_HD uint32_t kb_float_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
KB_HD float kb_bits_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
KB_HD uint64_t kb_double_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
KB_HD double kb_bits_double(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

KB_HD float kb_half_to_float(uint16_t h) {
    uint32_t sign = uint32_t(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ff;
    if (exp == 0) {
        if (mant == 0) return kb_bits_float(sign);
        int e = -1;  // subnormal: renormalise
        do { ++e; mant <<= 1; } while ((mant & 0x400) == 0);
        return kb_bits_float(sign | uint32_t(127 - 15 - e) << 23 | (mant & 0x3ff) << 13);
    }
    if (exp == 0x1f) return kb_bits_float(sign | 0x7f800000u | mant << 13);
    return kb_bits_float(sign | (exp + 127 - 15) << 23 | mant << 13);
}

KB_HD uint16_t kb_float_to_half(float f) {
    uint32_t x = kb_float_bits(f);
    uint32_t sign = (x >> 16) & 0x8000;
    uint32_t absx = x & 0x7fffffff;
    if (absx > 0x7f800000u) return uint16_t(sign | 0x7e00 | ((absx >> 13) & 0x3ff));  // nan stays nan
    if (absx == 0x7f800000u || absx >= 0x477ff000u) return uint16_t(sign | 0x7c00);  // inf, or rounds to inf
    if (absx < 0x38800000u) {  // half subnormal or zero
        if (absx < 0x33000000u) return uint16_t(sign);
        uint32_t e = absx >> 23;
        uint32_t m = (absx & 0x7fffff) | 0x800000;
        uint32_t shift = 126 - e;  // half subnormals count units of 2^-24
        uint32_t half = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1);
        uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) ++half;
        return uint16_t(sign | half);
    }
    uint32_t h = ((absx >> 23) - 127 + 15) << 10 | ((absx >> 13) & 0x3ff);
    uint32_t rem = absx & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;
    return uint16_t(sign | h);
}

KB_HD float kb_bf16_to_float(uint16_t b) { return kb_bits_float(uint32_t(b) << 16); }

KB_HD uint16_t kb_float_to_bf16(float f) {
    uint32_t x = kb_float_bits(f);
    if ((x & 0x7fffffff) > 0x7f800000u) return uint16_t((x >> 16) | 0x40);  // quiet nan
    return uint16_t((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

}  // namespace kb

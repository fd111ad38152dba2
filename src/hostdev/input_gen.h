// The value of one input element, shared by the device fill kernel and the
// host (tests regenerate inputs to check references against float64 truth).
// Integer-valued and uniform draws are bit-identical on both sides; normal
// draws go through log/cos, whose last bit may differ between libm and
// CUDA's libdevice, so the host copy of a normal input is within 1 ulp.
#pragma once

#include <stdint.h>

#include "hostdev/numeric_bits.h"
#include "hostdev/philox.h"

#if !defined(__CUDACC__)
#include <cmath>
#endif

namespace kb {

// dtype codes as kb::DType numbers them (src/task/dtype.h).
enum : int { KB_F16 = 0, KB_BF16 = 1, KB_F32 = 2, KB_F64 = 3, KB_I8 = 4, KB_U8 = 5, KB_I16 = 6, KB_U16 = 7,
             KB_I32 = 8, KB_U32 = 9, KB_I64 = 10, KB_U64 = 11, KB_BOOL = 12 };

KB_HD bool kb_dtype_is_float(int dt) { return dt <= KB_F64; }

KB_HD double kb_floor(double x) {
#if defined(__CUDACC__)
    return floor(x);
#else
    return std::floor(x);
#endif
}

// The element's bits, in the low bytes of the result.
KB_HD uint64_t kb_input_bits(int dtype, int dist, double a, double b, uint64_t seed, uint32_t arg, uint64_t i) {
    Philox4 w = kb_input_words(seed, arg, i);
    bool is_float = kb_dtype_is_float(dtype);
    double v = 0.0;      // float-valued draw
    int64_t iv = 0;      // integer-valued draw
    bool integral = false;
    switch (dist) {
        case KB_DIST_UNIFORM: v = a + (b - a) * kb_unit_double(w); break;
        case KB_DIST_NORMAL: {
            double u1 = (double(w.v[2]) + 0.5) * (1.0 / 4294967296.0);  // (0, 1): log is finite
            double u2 = double(w.v[3]) * (1.0 / 4294967296.0);
#if defined(__CUDACC__)
            v = a + b * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
#else
            v = a + b * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
#endif
            break;
        }
        case KB_DIST_RANDINT: {
            int64_t lo = int64_t(a), hi = int64_t(b);
            uint64_t span = uint64_t(hi) - uint64_t(lo) + 1;  // 0 means the whole 64-bit range
            uint64_t r = uint64_t(w.v[2]) << 32 | w.v[3];
            iv = int64_t(uint64_t(lo) + (span ? r % span : r));
            integral = true;
            break;
        }
        case KB_DIST_BERNOULLI: iv = kb_unit_double(w) < a ? 1 : 0; integral = true; break;
        case KB_DIST_CONSTANT: v = a; break;
        case KB_DIST_ARANGE:
            if (is_float) {
                v = a + double(i) * b;
            } else {
                iv = int64_t(uint64_t(int64_t(a)) + uint64_t(i) * uint64_t(int64_t(b)));
                integral = true;
            }
            break;
    }
    if (is_float) {
        double x = integral ? double(iv) : v;
        switch (dtype) {
            case KB_F16: return kb_float_to_half(float(x));
            case KB_BF16: return kb_float_to_bf16(float(x));
            case KB_F32: return kb_float_bits(float(x));
            default: return kb_double_bits(x);
        }
    }
    if (!integral) {  // a float draw into an integer buffer: floor, clamped to int64
        double f = kb_floor(v);
        iv = f >= 9.2e18 ? INT64_MAX : f <= -9.2e18 ? INT64_MIN : int64_t(f);
    }
    if (dtype == KB_BOOL) return iv != 0 ? 1 : 0;
    return uint64_t(iv);  // truncation to the dtype's width happens at the store
}

}  // namespace kb

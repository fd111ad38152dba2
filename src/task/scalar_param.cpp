#include "task/scalar_param.h"

#include <cstring>

namespace kb {

uint64_t scalar_param_slot(DType dtype, int64_t iv, double fv, bool is_float) {
    uint64_t slot = 0;
    double v = is_float ? fv : double(iv);
    switch (dtype) {
        case DType::f16: { uint16_t h = float_to_half_bits(float(v)); std::memcpy(&slot, &h, 2); break; }
        case DType::bf16: { uint16_t h = float_to_bf16_bits(float(v)); std::memcpy(&slot, &h, 2); break; }
        case DType::f32: { float f = float(v); std::memcpy(&slot, &f, 4); break; }
        case DType::f64: std::memcpy(&slot, &v, 8); break;
        case DType::boolean: slot = (is_float ? fv != 0.0 : iv != 0) ? 1 : 0; break;
        default: {
            int64_t x = is_float ? int64_t(fv) : iv;
            std::memcpy(&slot, &x, dtype_size(dtype));  // little-endian: the low bytes
        }
    }
    return slot;
}

}  // namespace kb

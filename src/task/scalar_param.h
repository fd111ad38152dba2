// How a scalar argument travels to a kernel: its value in the low bytes of
// an 8-byte parameter slot, in the dtype's representation. The launcher
// (exec) and the CPU emulator (emulate) both pass scalars this way.
#pragma once

#include <cstdint>

#include "task/dtype.h"

namespace kb {

// `iv` is used for an integer-valued scalar, `fv` when `is_float` (a float
// literal of the task). Floats convert with round to nearest even; integers
// keep their low bytes (little-endian).
uint64_t scalar_param_slot(DType dtype, int64_t iv, double fv, bool is_float);

}  // namespace kb

// Element types a task buffer or scalar can have, and their names in JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kb {

// Numbered for the device kernels too (src/device/builtin_kernels.cu switches
// on these values): append only.
enum class DType : int {
    f16 = 0, bf16 = 1, f32 = 2, f64 = 3,
    i8 = 4, u8 = 5, i16 = 6, u16 = 7, i32 = 8, u32 = 9, i64 = 10, u64 = 11,
    boolean = 12,
};

size_t dtype_size(DType t);
const char* dtype_name(DType t);  // "f32", "bool", ...
std::optional<DType> parse_dtype(std::string_view name);
bool dtype_is_float(DType t);
bool dtype_is_signed_int(DType t);
// The list of valid names, for error messages ("f16, bf16, f32, ...").
std::string dtype_names();

// IEEE half and bfloat16 conversions on the host (round to nearest even).
float half_bits_to_float(unsigned short h);
unsigned short float_to_half_bits(float f);
float bf16_bits_to_float(unsigned short b);
unsigned short float_to_bf16_bits(float f);

// The poison pattern outputs are filled with before a candidate runs, in the
// low bytes (hostdev/compare_math.h defines the patterns): a NaN payload that
// arithmetic never produces for floats, a byte pattern for integers.
uint64_t poison_bits(DType t);

// Reads element i of a host buffer of type t as a double (bool -> 0/1).
double load_as_double(const void* data, DType t, size_t i);

}  // namespace kb

// A tensor copied to the host: reference outputs live here while candidates
// run, so no reference result is resident in device memory (docs/isolation.md, "Anti-gaming").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "task/dtype.h"

namespace kb {

struct HostTensor {
    std::string name;
    DType dtype = DType::f32;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;

    uint64_t count() const { return bytes.size() / dtype_size(dtype); }
    double at(uint64_t i) const { return load_as_double(bytes.data(), dtype, i); }
    // The raw bits of element i (little-endian, in the low bytes).
    uint64_t bits(uint64_t i) const;
    // Row-major multi-index of a flat index, e.g. [3, 17].
    std::vector<int64_t> unflatten(uint64_t flat) const;
};

}  // namespace kb

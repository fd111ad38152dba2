#include "exec/host_tensor.h"

#include <cstring>

namespace kb {

uint64_t HostTensor::bits(uint64_t i) const {
    uint64_t v = 0;
    size_t s = dtype_size(dtype);
    std::memcpy(&v, bytes.data() + i * s, s);
    return v;
}

std::vector<int64_t> HostTensor::unflatten(uint64_t flat) const {
    std::vector<int64_t> idx(shape.size(), 0);
    for (size_t d = shape.size(); d-- > 0;) {
        int64_t extent = shape[d] > 0 ? shape[d] : 1;
        idx[d] = int64_t(flat % uint64_t(extent));
        flat /= uint64_t(extent);
    }
    return idx;
}

}  // namespace kb

// Float64 oracles of the gather family (tasks/gather/): row lookups, exact
// (the references copy values; bound 0).
#include <cmath>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// out[i][:] = table[idx[i]][:]; an index outside the table is an error of
// the inputs, reported rather than read.
std::vector<double> gather(const std::vector<double>& table, int64_t table_rows, int64_t row_len,
                           const std::vector<double>& idx) {
    std::vector<double> out(idx.size() * size_t(row_len));
    for (size_t i = 0; i < idx.size(); ++i) {
        const double k = idx[i];
        if (!(k >= 0 && k < double(table_rows)) || k != std::floor(k))
            throw std::invalid_argument("oracle: index " + std::to_string(k) + " at position " + std::to_string(i) +
                                        " is outside [0, " + std::to_string(table_rows) + ")");
        for (int64_t d = 0; d < row_len; ++d) out[i * size_t(row_len) + size_t(d)] = table[size_t(k) * size_t(row_len) + size_t(d)];
    }
    return out;
}

Tensors embedding_f32(const Dims& dims, const Tensors& in) {
    const int64_t n = dim(dims, "n"), vocab = dim(dims, "vocab"), d = dim(dims, "dim");
    return {{"out", gather(input(in, "table", vocab * d), vocab, d, input(in, "idx", n))}};
}

Tensors gather_rows_f16(const Dims& dims, const Tensors& in) {
    const int64_t n = dim(dims, "n"), rows = dim(dims, "rows"), cols = dim(dims, "cols");
    return {{"y", gather(input(in, "x", rows * cols), rows, cols, input(in, "idx", n))}};
}

}  // namespace

KB_REGISTER_ORACLE(embedding_f32, {"embedding_f32", embedding_f32,
                                   only("embedding_f32", "out", [](const Dims&) { return Bound{0.0, 0.0}; })});
KB_REGISTER_ORACLE(gather_rows_f16, {"gather_rows_f16", gather_rows_f16,
                                     only("gather_rows_f16", "y", [](const Dims&) { return Bound{0.0, 0.0}; })});

}  // namespace kb::oracle

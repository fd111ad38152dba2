// Float64 oracles of the layout family (tasks/layout/): permutations of the
// elements, exact (bound 0).
#include "oracles/common.h"

namespace kb::oracle {
namespace {

// y[c][r] = x[r][c].
Tensors transpose_f32(const Dims& dims, const Tensors& in) {
    const int64_t rows = dim(dims, "rows"), cols = dim(dims, "cols");
    const auto& x = input(in, "x", rows * cols);
    std::vector<double> y(rows * cols);
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) y[c * rows + r] = x[r * cols + c];
    return {{"y", std::move(y)}};
}

// y[n][h][w][c] = x[n][c][h][w].
Tensors nchw_to_nhwc_f16(const Dims& dims, const Tensors& in) {
    const int64_t N = dim(dims, "N"), C = dim(dims, "C"), H = dim(dims, "H"), W = dim(dims, "W");
    const auto& x = input(in, "x", N * C * H * W);
    std::vector<double> y(x.size());
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c)
            for (int64_t h = 0; h < H; ++h)
                for (int64_t w = 0; w < W; ++w) y[((n * H + h) * W + w) * C + c] = x[((n * C + c) * H + h) * W + w];
    return {{"y", std::move(y)}};
}

}  // namespace

KB_REGISTER_ORACLE(transpose_f32, {"transpose_f32", transpose_f32,
                                   only("transpose_f32", "y", [](const Dims&) { return Bound{0.0, 0.0}; })});
KB_REGISTER_ORACLE(nchw_to_nhwc_f16, {"nchw_to_nhwc_f16", nchw_to_nhwc_f16,
                                      only("nchw_to_nhwc_f16", "y", [](const Dims&) { return Bound{0.0, 0.0}; })});

}  // namespace kb::oracle

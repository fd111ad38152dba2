// Float64 oracles of the GEMM family (tasks/gemm/) and the bounds on how far
// each task's reference may be from them (see oracle.h and the notation in
// common.h).
#include <algorithm>
#include <cmath>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// --- gemm_f32: C[M,N] = A[M,K] @ B[K,N], row-major --------------------------
// Reference: one f32 FMA accumulator per element over k = 0..K-1. The
// rigorous bound K u sum_k |a_ik b_kj| is about K^2 u / 4 = 1.6e-2 at
// K = 1024 for uniform(-1, 1) inputs: useless. Simulated at 1024^3 (truth vs
// sequential FMA, 1M elements) the largest error was 0.29 of
// (atol 1e-4, rtol 1e-5), and the rms error grows about linearly with K.
// Bound: atol 1e-4 s, rtol 1e-5 s with s = max(1, K / 1024): half the task
// tolerance (atol 2e-4, rtol 2e-5) up to K = 1024, about 3x the largest error
// seen, and scaled with K beyond it.
Tensors gemm_f32(const Dims& dims, const Tensors& in) {
    const int64_t M = dim(dims, "M"), N = dim(dims, "N"), K = dim(dims, "K");
    const auto& A = input(in, "A", M * K);
    const auto& B = input(in, "B", K * N);
    std::vector<double> C(M * N, 0.0);
    for (int64_t i = 0; i < M; ++i) {
        double* c = C.data() + i * N;
        for (int64_t k = 0; k < K; ++k) {
            const double a = A[i * K + k];
            const double* b = B.data() + k * N;
            for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
        }
    }
    return {{"C", std::move(C)}};
}

}  // namespace

KB_REGISTER_ORACLE(gemm_f32, {"gemm_f32", gemm_f32, only("gemm_f32", "C", [](const Dims& dims) {
                                  const double s = std::max(1.0, static_cast<double>(dim(dims, "K")) / 1024.0);
                                  return Bound{1e-4 * s, 1e-5 * s};
                              })});

}  // namespace kb::oracle

// Float64 oracles of the GEMM family (tasks/gemm/: gemm_f32, gemm_f16,
// gemm_bf16, gemm_batched_f32, gemm_nt_f32, gemm_tn_f32, matvec_f32) and how
// far each task's GPU reference may be from them (see oracle.h and the
// notation in common.h).
//
// Notation: u = 2^-24, the unit roundoff of f32. Products of two inputs are
// exact in float64 (f16 x f16 and bf16 x bf16 even in f32), and float64 sums
// of at most a few thousand such products are exact to about 1e-12 relative,
// far below every bound here: compute() is the truth.
//
// For every GEMM the rigorous bound on an f32 sum of K products,
// K u sum_k |a_k b_k|, is about K^2 u / 4 for uniform(-1, 1) inputs (1.6e-2 at
// K = 1024): useless. The bounds below are simulated instead, with
// tests/oracles/sim/accuracy_sim.cpp (200000 sums of K products drawn like the
// tasks' inputs, summed as the references sum them: one f32 FMA accumulator,
// k ascending), with a margin of at least 2x over the largest error seen.
// The error of such sums grows about linearly with K, so each bound scales
// with K beyond the length it was simulated at.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "oracles/common.h"

namespace kb::oracle {
namespace {

// C[M,N] = op(A) @ op(B) in float64, row-major. A is [M, K] ([K, M] when
// a_transposed), B is [K, N] ([N, K] when b_transposed).
std::vector<double> product(const double* A, const double* B, int64_t M, int64_t N, int64_t K, bool a_transposed,
                            bool b_transposed) {
    std::vector<double> C(size_t(M * N), 0.0);
    std::vector<double> brow(static_cast<size_t>(N));
    for (int64_t k = 0; k < K; ++k) {
        // Row k of op(B), contiguous, so the inner loop vectorises.
        const double* __restrict b = B + k * N;
        if (b_transposed) {
            for (int64_t j = 0; j < N; ++j) brow[size_t(j)] = B[j * K + k];
            b = brow.data();
        }
        for (int64_t i = 0; i < M; ++i) {
            const double a = a_transposed ? A[k * M + i] : A[i * K + k];
            double* __restrict c = C.data() + i * N;
            for (int64_t j = 0; j < N; ++j) c[j] += a * b[j];
        }
    }
    return C;
}

Tensors gemm(const Dims& dims, const Tensors& in, bool a_transposed, bool b_transposed) {
    const int64_t M = dim(dims, "M"), N = dim(dims, "N"), K = dim(dims, "K");
    const auto& A = input(in, "A", M * K);
    const auto& B = input(in, "B", K * N);
    return {{"C", product(A.data(), B.data(), M, N, K, a_transposed, b_transposed)}};
}

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

// --- gemm_f16 / gemm_bf16: C = A @ B, f32 accumulation, one rounding -------
// GPU reference: s = sequential f32 FMA sum (products exact), C = round(s) to
// the output format. |C - T| <= h (|T| + d) + d + tiny, where h is half an ulp
// relative (2^-11 for f16, 2^-8 for bf16), d = |s - T| and tiny the half ulp
// of the smallest subnormal (2^-25 for f16). d was at most 1.2e-4 at K = 2048
// (f16 inputs; 6e-5 with bf16's coarser, smaller-magnitude-sum inputs).
// Bound: rtol = h (1 + h) rounded up (5e-4 for f16, 4e-3 for bf16), atol
// 5e-4 s with s = max(1, K / 2048) (4x the largest d seen): half the tasks'
// tolerances (atol 1e-3, rtol 2e-3 and 1.6e-2). Simulated usage of this bound
// by the reference: 0.93 (f16), 0.97 (bf16) -- the rounding term, which is
// rigorous, not the margin on d.
Tensors gemm_f16(const Dims& d, const Tensors& in) { return gemm(d, in, false, false); }

Bound half_gemm_bound(const Dims& dims, double rtol) {
    const double s = std::max(1.0, double(dim(dims, "K")) / 2048.0);
    return Bound{5e-4 * s, rtol};
}

// --- the f32 GEMMs: one f32 FMA accumulator per element, k ascending -------
// Simulated at K = 1024: the largest error 6.6e-5, 0.27 of (1e-4, 1e-5).
// Bound: atol 1e-4 s, rtol 1e-5 s with s = max(1, K / 1024): half the tasks'
// tolerance (atol 2e-4, rtol 2e-5) up to K = 1024, about 3x the largest error
// seen, and scaled with K beyond it (as gemm_f32's oracle).
Bound f32_gemm_bound(const Dims& dims) {
    const double s = std::max(1.0, double(dim(dims, "K")) / 1024.0);
    return Bound{1e-4 * s, 1e-5 * s};
}

// --- gemm_batched_f32: C[b] = A[b] @ B[b] -----------------------------------
Tensors gemm_batched_f32(const Dims& dims, const Tensors& in) {
    const int64_t L = dim(dims, "batch"), M = dim(dims, "M"), N = dim(dims, "N"), K = dim(dims, "K");
    const auto& A = input(in, "A", L * M * K);
    const auto& B = input(in, "B", L * K * N);
    std::vector<double> C;
    C.reserve(size_t(L * M * N));
    for (int64_t b = 0; b < L; ++b) {
        std::vector<double> Cb = product(A.data() + b * M * K, B.data() + b * K * N, M, N, K, false, false);
        C.insert(C.end(), Cb.begin(), Cb.end());
    }
    return {{"C", std::move(C)}};
}

// --- gemm_nt_f32: C = A @ B^T, B [N, K]; gemm_tn_f32: C = A^T @ B, A [K, M] --
Tensors gemm_nt_f32(const Dims& d, const Tensors& in) { return gemm(d, in, false, true); }
Tensors gemm_tn_f32(const Dims& d, const Tensors& in) { return gemm(d, in, true, false); }

// --- matvec_f32: y = A @ x ---------------------------------------------------
// GPU reference: 256 strided f32 FMA partial sums of K / 256 terms each, then
// a shared-memory tree. Simulated at K = 12288 (the longest rows): a single
// sequential f32 sum is within 5.3e-4 of truth, and the strided tree order
// within 5.3e-4 of that sequential sum; the tree's own error is smaller than
// the sequential one (each partial sums 48 terms). Bound: atol 1e-3 s,
// rtol 1e-5 with s = max(1, K / 12288): about 2x the sequential worst case,
// half the task's tolerance (atol 2e-3, rtol 2e-5).
Tensors matvec_f32(const Dims& dims, const Tensors& in) {
    const int64_t M = dim(dims, "M"), K = dim(dims, "K");
    const auto& A = input(in, "A", M * K);
    const auto& x = input(in, "x", K);
    std::vector<double> y(size_t(M), 0.0);
    for (int64_t i = 0; i < M; ++i) {
        double s = 0.0;
        for (int64_t k = 0; k < K; ++k) s += A[size_t(i * K + k)] * x[size_t(k)];
        y[size_t(i)] = s;
    }
    return {{"y", std::move(y)}};
}

}  // namespace

KB_REGISTER_ORACLE(gemm_f32, {"gemm_f32", gemm_f32, only("gemm_f32", "C", [](const Dims& dims) {
                                  const double s = std::max(1.0, static_cast<double>(dim(dims, "K")) / 1024.0);
                                  return Bound{1e-4 * s, 1e-5 * s};
                              })});

KB_REGISTER_ORACLE(gemm_f16, {"gemm_f16", gemm_f16, only("gemm_f16", "C", [](const Dims& d) {
                                  return half_gemm_bound(d, 5e-4);  // 2^-11 (1 + 2^-11) = 4.885e-4, rounded up
                              })});
KB_REGISTER_ORACLE(gemm_bf16, {"gemm_bf16", gemm_f16, only("gemm_bf16", "C", [](const Dims& d) {
                                   return half_gemm_bound(d, 4e-3);  // 2^-8 (1 + 2^-8) = 3.92e-3, rounded up
                               })});
KB_REGISTER_ORACLE(gemm_batched_f32, {"gemm_batched_f32", gemm_batched_f32,
                                      only("gemm_batched_f32", "C", f32_gemm_bound)});
KB_REGISTER_ORACLE(gemm_nt_f32, {"gemm_nt_f32", gemm_nt_f32, only("gemm_nt_f32", "C", f32_gemm_bound)});
KB_REGISTER_ORACLE(gemm_tn_f32, {"gemm_tn_f32", gemm_tn_f32, only("gemm_tn_f32", "C", f32_gemm_bound)});
KB_REGISTER_ORACLE(matvec_f32, {"matvec_f32", matvec_f32, only("matvec_f32", "y", [](const Dims& d) {
                                    const double s = std::max(1.0, double(dim(d, "K")) / 12288.0);
                                    return Bound{1e-3 * s, 1e-5};
                                })});

}  // namespace kb::oracle

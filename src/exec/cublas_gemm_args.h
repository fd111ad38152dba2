// How a row-major GEMM, as a task states it, becomes a call of cuBLAS, which
// is column-major. Pure arithmetic, unit-tested on the CPU
// (tests/unit/test_cublas_gemm.cpp runs the mapped call through a
// column-major reference GEMM and compares with the row-major product).
//
// A row-major R x C matrix with leading dimension C is, read column-major,
// its C x R transpose. So the row-major C = op(A) op(B) is, column-major,
// C^T = op(B)^T op(A)^T: cuBLAS computes it with m and n swapped and the
// task's B as cuBLAS's first operand.
#pragma once

#include <cstdint>

#include "task/expr.h"
#include "task/task.h"

namespace kb {

// A cublas_gemm step at one case: sizes evaluated, default strides applied.
struct RowMajorGemm {
    int64_t m = 1, n = 1, k = 1, batch = 1;
    bool transpose_a = false;  // A stored [k, m] instead of [m, k]
    bool transpose_b = false;  // B stored [n, k] instead of [k, n]
    int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // elements between batch entries
};

// The arguments of cublasGemmEx (batch == 1) or cublasGemmStridedBatchedEx,
// named as cuBLAS names them. cuBLAS's A is the task's B and cuBLAS's B is
// the task's A; its C is the task's C.
struct CublasGemmArgs {
    int transa = 0, transb = 0;  // cublas_abi::kOpN or kOpT
    int m = 1, n = 1, k = 1;
    int lda = 1, ldb = 1, ldc = 1;
    long long stride_a = 0, stride_b = 0, stride_c = 0;
    int batch = 1;
    bool strided_batched = false;  // batch > 1: call cublasGemmStridedBatchedEx
};

// Evaluates the step's expressions at `dims` (sizes the loader checked at
// every case of the task, so they fit cuBLAS's int).
RowMajorGemm resolve_gemm(const BuiltinGemm& g, const DimValues& dims);
CublasGemmArgs to_cublas(const RowMajorGemm& g);

}  // namespace kb

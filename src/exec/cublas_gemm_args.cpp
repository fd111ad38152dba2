#include "exec/cublas_gemm_args.h"

#include "device/cublas_library.h"

namespace kb {

RowMajorGemm resolve_gemm(const BuiltinGemm& g, const DimValues& dims) {
    RowMajorGemm r;
    r.m = g.m.eval(dims);
    r.n = g.n.eval(dims);
    r.k = g.k.eval(dims);
    r.batch = g.batch.eval(dims);
    r.transpose_a = g.transpose_a;
    r.transpose_b = g.transpose_b;
    r.stride_a = g.stride_a ? g.stride_a->eval(dims) : r.m * r.k;
    r.stride_b = g.stride_b ? g.stride_b->eval(dims) : r.k * r.n;
    r.stride_c = g.stride_c ? g.stride_c->eval(dims) : r.m * r.n;
    return r;
}

CublasGemmArgs to_cublas(const RowMajorGemm& g) {
    CublasGemmArgs c;
    c.m = int(g.n);
    c.n = int(g.m);
    c.k = int(g.k);
    // cuBLAS's A is the task's B. Stored [k, n], B read column-major is the
    // n x k matrix B^T = op(B)^T: no transpose, leading dimension n. Stored
    // [n, k] (transpose_b), it reads as the k x n matrix B_stored^T, whose
    // transpose B_stored = op(B)^T is wanted: transpose, leading dimension k.
    c.transa = g.transpose_b ? cublas_abi::kOpT : cublas_abi::kOpN;
    c.lda = int(g.transpose_b ? g.k : g.n);
    // cuBLAS's B is the task's A, likewise: stored [m, k] it reads as
    // A^T = op(A)^T (leading dimension k); stored [k, m] it reads as
    // A_stored^T and must be transposed (leading dimension m).
    c.transb = g.transpose_a ? cublas_abi::kOpT : cublas_abi::kOpN;
    c.ldb = int(g.transpose_a ? g.m : g.k);
    // C^T is n x m column-major: leading dimension n, the row length of C.
    c.ldc = int(g.n);
    c.stride_a = g.stride_b;
    c.stride_b = g.stride_a;
    c.stride_c = g.stride_c;
    c.batch = int(g.batch);
    c.strided_batched = g.batch > 1;
    return c;
}

}  // namespace kb

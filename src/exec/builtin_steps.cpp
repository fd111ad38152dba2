#include "exec/builtin_steps.h"

#include "exec/fault.h"
#include "exec/launcher.h"
#include "util/error.h"

namespace kb {

int cublas_data_type(DType t) {
    switch (t) {
        case DType::f32: return cublas_abi::kR32F;
        case DType::f16: return cublas_abi::kR16F;
        case DType::bf16: return cublas_abi::kR16BF;
        default: fail(KB_ERR_INTERNAL, std::string("cublas_gemm on ") + dtype_name(t) + " (the loader allows f32, f16, bf16)");
    }
}

void BoundGemm::enqueue(Device& dev) const {
    using namespace cublas_abi;
    const CublasGemmArgs& x = args;
    Status s;
    if (x.strided_batched)
        s = lib->cublasGemmStridedBatchedEx(handle, x.transa, x.transb, x.m, x.n, x.k, &alpha,
                                            reinterpret_cast<const void*>(a), ab_type, x.lda, x.stride_a,
                                            reinterpret_cast<const void*>(b), ab_type, x.ldb, x.stride_b, &beta,
                                            reinterpret_cast<void*>(c), c_type, x.ldc, x.stride_c, x.batch,
                                            kCompute32F, kGemmDefault);
    else
        s = lib->cublasGemmEx(handle, x.transa, x.transb, x.m, x.n, x.k, &alpha, reinterpret_cast<const void*>(a),
                              ab_type, x.lda, reinterpret_cast<const void*>(b), ab_type, x.ldb, &beta,
                              reinterpret_cast<void*>(c), c_type, x.ldc, kCompute32F, kGemmDefault);
    if (s == kSuccess) return;
    // A context broken by an earlier kernel (a candidate's, interleaved with
    // this baseline while timing) makes every later call fail: that is the
    // kernel's fault, and the sticky error says so.
    CUresult q = dev.driver().cuStreamQuery(dev.stream());
    if (cuda_error_is_sticky(q)) {
        dev.mark_lost(q, where);
        throw fault_from_cuda(q, where);
    }
    fail(KB_ERR_REFERENCE_FAILED, "the task's baseline failed: " + where + ": " +
                                      (x.strided_batched ? "cublasGemmStridedBatchedEx" : "cublasGemmEx") +
                                      " returned " + lib->status_text(s));
}

BuiltinLibraries::~BuiltinLibraries() {
    // After a sticky error the context is gone; destroying the handle would
    // only fail (the process is given up anyway).
    if (handle_ && !dev_.lost()) {
        dev_.make_current();
        lib_->cublasDestroy_v2(handle_);
    }
}

cublas_abi::Handle BuiltinLibraries::cublas(const std::string& where) {
    if (handle_) return handle_;
    lib_ = &CublasLibrary::get();  // KB_ERR_REFERENCE_FAILED with what was tried and the fix
    dev_.make_current();
    auto check = [&](cublas_abi::Status s, const char* call) {
        if (s != cublas_abi::kSuccess)
            fail(KB_ERR_REFERENCE_FAILED, "the task's baseline cannot run: " + where + ": " + call + " (" + lib_->path +
                                              ") returned " + lib_->status_text(s));
    };
    cublas_abi::Handle h = nullptr;
    check(lib_->cublasCreate_v2(&h), "cublasCreate");
    try {
        workspace_ = dev_.alloc(kWorkspaceBytes);
        // The stream first: setting it resets the workspace to cuBLAS's own pool.
        check(lib_->cublasSetStream_v2(h, reinterpret_cast<cublas_abi::Stream>(dev_.stream())), "cublasSetStream");
        check(lib_->cublasSetWorkspace_v2(h, reinterpret_cast<void*>(workspace_.data()), workspace_.bytes()),
              "cublasSetWorkspace");
        // Never below the compute type: no TF32 for f32 (CUBLAS_COMPUTE_32F
        // already forbids it), no split-K reductions in f16 for f16 outputs.
        check(lib_->cublasSetMathMode(h, cublas_abi::kDefaultMath | cublas_abi::kDisallowReducedPrecisionReduction),
              "cublasSetMathMode");
        int version = 0;
        check(lib_->cublasGetVersion_v2(h, &version), "cublasGetVersion");
        description_ = "cuBLAS " + std::to_string(version) + " (" + lib_->path + ")";
    } catch (...) {
        lib_->cublasDestroy_v2(h);
        throw;
    }
    handle_ = h;
    return handle_;
}

std::shared_ptr<const BoundGemm> BuiltinLibraries::bind_gemm(const BuiltinGemm& g, const DimValues& dims, CUdeviceptr a,
                                                             CUdeviceptr b, CUdeviceptr c, DType ab_dtype,
                                                             DType c_dtype, const std::string& where) {
    auto bound = std::make_shared<BoundGemm>();
    bound->handle = cublas(where);
    bound->lib = lib_;
    bound->args = to_cublas(resolve_gemm(g, dims));
    // cuBLAS's A is the task's B (cublas_gemm_args.h).
    bound->a = b;
    bound->b = a;
    bound->c = c;
    bound->ab_type = cublas_data_type(ab_dtype);
    bound->c_type = cublas_data_type(c_dtype);
    bound->alpha = float(g.alpha);
    bound->beta = float(g.beta);
    bound->where = where;
    return bound;
}

}  // namespace kb

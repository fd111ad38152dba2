// Built-in steps of a baseline's plan ({"builtin": "cublas_gemm"}): library
// routines bound to a case's buffers and enqueued on the device's stream in
// order with the plan's kernels, so kbench's events, L2 flushes,
// interleaving and graph capture measure them exactly like a kernel.
#pragma once

#include <memory>
#include <string>

#include "device/cublas_library.h"
#include "device/device.h"
#include "exec/cublas_gemm_args.h"
#include "task/task.h"

namespace kb {

// One cuBLAS GEMM, ready to enqueue.
struct BoundGemm {
    const CublasLibrary* lib = nullptr;
    cublas_abi::Handle handle = nullptr;
    CublasGemmArgs args;
    CUdeviceptr a = 0, b = 0, c = 0;  // cuBLAS's A, B, C (cuBLAS's A is the task's B)
    int ab_type = 0, c_type = 0;      // cudaDataType of the operands and of C
    float alpha = 1.0f, beta = 0.0f;  // CUBLAS_COMPUTE_32F scales in f32
    std::string where;

    // Enqueues on the handle's stream (the device's). A sticky CUDA error
    // found when the call fails is reported as a KernelFault (it is whoever
    // broke the context's, not cuBLAS's); any other failure as
    // kb::Error(KB_ERR_REFERENCE_FAILED): the task's baseline cannot run.
    void enqueue(Device& dev) const;
};

// The libraries built-in steps call, for one Device. The cuBLAS handle is
// created on first use (cuBLAS loaded then, so tasks that never use it
// never need it) and kept for the Device's life with its stream, math mode
// and a workspace of its own, so no call allocates (which graph capture would
// forbid) and every call runs on the device's stream.
class BuiltinLibraries {
public:
    explicit BuiltinLibraries(Device& dev) : dev_(dev) {}
    ~BuiltinLibraries();
    BuiltinLibraries(const BuiltinLibraries&) = delete;
    BuiltinLibraries& operator=(const BuiltinLibraries&) = delete;

    // Binds a cublas_gemm step at a case. `a`, `b`, `c` are the task's
    // operands (device pointers and dtypes). Throws
    // kb::Error(KB_ERR_REFERENCE_FAILED) when cuBLAS is missing or its handle
    // cannot be created.
    std::shared_ptr<const BoundGemm> bind_gemm(const BuiltinGemm& g, const DimValues& dims, CUdeviceptr a,
                                               CUdeviceptr b, CUdeviceptr c, DType ab_dtype, DType c_dtype,
                                               const std::string& where);

    // "cuBLAS 130100 (libcublas.so.13)", or "" before first use.
    const std::string& cublas_description() const { return description_; }

    static constexpr size_t kWorkspaceBytes = size_t(32) << 20;  // what cuBLAS advises for Hopper

private:
    cublas_abi::Handle cublas(const std::string& where);

    Device& dev_;
    const CublasLibrary* lib_ = nullptr;
    cublas_abi::Handle handle_ = nullptr;
    DeviceBuffer workspace_;
    std::string description_;
};

// The cudaDataType of a GEMM operand (f32, f16 or bf16).
int cublas_data_type(DType t);

}  // namespace kb

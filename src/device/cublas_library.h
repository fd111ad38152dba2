// cuBLAS, loaded at run time with dlopen like the driver (cuda_driver.h), so
// libkbench has no link dependency on it: only tasks whose baseline calls a
// built-in GEMM ({"builtin": "cublas_gemm"}) need it, and only on a machine
// that runs kernels.
//
// The few types and constants used here are declared by hand: they are part
// of cuBLAS's stable C ABI (cublas_api.h, library_types.h), and declaring them
// keeps kbench buildable with a toolkit that ships no cuBLAS headers.
// tests/unit/test_cublas_gemm.cpp checks them against the headers where those
// are installed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kb {

namespace cublas_abi {
using Handle = struct cublasContext*;
using Stream = struct CUstream_st*;  // cudaStream_t and CUstream are this type
using Status = int;                  // cublasStatus_t
constexpr Status kSuccess = 0;       // CUBLAS_STATUS_SUCCESS
constexpr int kOpN = 0;              // CUBLAS_OP_N
constexpr int kOpT = 1;              // CUBLAS_OP_T
constexpr int kR32F = 0;             // CUDA_R_32F
constexpr int kR16F = 2;             // CUDA_R_16F
constexpr int kR16BF = 14;           // CUDA_R_16BF
constexpr int kCompute32F = 68;      // CUBLAS_COMPUTE_32F: f32 accumulation, never TF32
constexpr int kGemmDefault = -1;     // CUBLAS_GEMM_DEFAULT
constexpr int kDefaultMath = 0;      // CUBLAS_DEFAULT_MATH: no precision below the compute type
// CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION: split-K partial sums are
// reduced in the compute type (f32), not in a narrower output type (f16).
constexpr int kDisallowReducedPrecisionReduction = 16;
}  // namespace cublas_abi

struct CublasLibrary {
    using Handle = cublas_abi::Handle;
    using Status = cublas_abi::Status;
    Status (*cublasCreate_v2)(Handle*) = nullptr;
    Status (*cublasDestroy_v2)(Handle) = nullptr;
    Status (*cublasGetVersion_v2)(Handle, int*) = nullptr;
    Status (*cublasSetStream_v2)(Handle, cublas_abi::Stream) = nullptr;
    Status (*cublasSetWorkspace_v2)(Handle, void*, size_t) = nullptr;
    Status (*cublasSetMathMode)(Handle, int) = nullptr;
    Status (*cublasGemmEx)(Handle, int, int, int, int, int, const void*, const void*, int, int, const void*, int,
                           int, const void*, void*, int, int, int, int) = nullptr;
    Status (*cublasGemmStridedBatchedEx)(Handle, int, int, int, int, int, const void*, const void*, int, int,
                                         long long, const void*, int, int, long long, const void*, void*, int, int,
                                         long long, int, int, int) = nullptr;
    // Optional (cuBLAS 11.4.2 and later): names and texts of statuses.
    const char* (*cublasGetStatusName)(Status) = nullptr;
    const char* (*cublasGetStatusString)(Status) = nullptr;

    std::string path;  // what was loaded: the name dlopen found, or the path given

    // The process-wide library, loaded on first use from the places
    // cublas_search_list() names. Throws kb::Error(KB_ERR_REFERENCE_FAILED)
    // with what was tried and how to fix it: a task whose baseline needs
    // cuBLAS cannot be timed where there is none, and the candidate is not at
    // fault (so this is not a verdict).
    static const CublasLibrary& get();
    // Loads from the first of `names` (sonames or paths) that dlopen accepts
    // and that has every required symbol. On failure returns false and sets
    // `why` to a message naming every name tried, dlopen's reason for each,
    // and the fix. Not cached: for tests and for get().
    static bool load(const std::vector<std::string>& names, CublasLibrary* out, std::string* why);

    // "CUBLAS_STATUS_NOT_SUPPORTED (the functionality requested is not supported)".
    std::string status_text(Status s) const;
};

// Where cuBLAS is looked for, in order: the file KBENCH_CUBLAS_LIBRARY names
// when that variable is set (and nothing else); otherwise libcublas.so.13,
// .so.12 and .so through the dynamic loader's search (LD_LIBRARY_PATH, the
// library's run path, the ld.so cache), then the same names under the
// lib64/ folders of $CUDA_HOME, $CUDA_PATH and the toolkit kbench was built
// with.
std::vector<std::string> cublas_search_list();

}  // namespace kb

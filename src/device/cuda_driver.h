// The CUDA driver API, loaded at run time with dlopen so that libkbench
// loads, validates and compiles on machines with no GPU and no driver.
// cuda.h supplies the types and prototypes; nothing links against libcuda.
#pragma once

#include <cuda.h>

#include <string>

namespace kb {

// X-macro list of every driver entry point kbench calls. The pointer type
// comes from the prototype cuda.h maps the name to (cuMemAlloc ->
// cuMemAlloc_v2, ...), and cuGetProcAddress resolves the base name for the
// CUDA version we compiled against, so the two always agree.
#define KB_CUDA_DRIVER_FUNCTIONS(X)                                                                          \
    X(cuInit) X(cuDriverGetVersion) X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName)                    \
    X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)     \
    X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize) X(cuStreamCreate) X(cuStreamDestroy)           \
    X(cuStreamSynchronize) X(cuStreamQuery) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)             \
    X(cuEventSynchronize) X(cuEventQuery) X(cuEventElapsedTime) X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo)   \
    X(cuMemAllocHost) X(cuMemFreeHost) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyHtoDAsync)                  \
    X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemsetD8Async) X(cuMemsetD16Async) X(cuMemsetD32Async)  \
    X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel) X(cuFuncGetAttribute)   \
    X(cuFuncSetAttribute)                                                                                    \
    X(cuFuncGetParamInfo) X(cuGetErrorName) X(cuGetErrorString) X(cuStreamBeginCapture)                      \
    X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags) X(cuGraphLaunch) X(cuGraphExecDestroy)             \
    X(cuGraphDestroy) X(cuLaunchKernelEx) X(cuFuncSetCacheConfig) X(cuStreamWaitEvent)                     \
    X(cuPointerGetAttribute) X(cuMemHostRegister) X(cuMemHostUnregister) X(cuIpcOpenMemHandle)                 \
    X(cuIpcCloseMemHandle) X(cuMemGetAddressRange) X(cuModuleGetGlobal)

struct CudaDriver {
#define KB_DECLARE_PTR(name) decltype(&::name) name = nullptr;
    KB_CUDA_DRIVER_FUNCTIONS(KB_DECLARE_PTR)
#undef KB_DECLARE_PTR
    int driver_version = 0;  // e.g. 13000

    // The process-wide driver, loaded and cuInit'ed on first use. Throws
    // kb::Error(KB_ERR_NO_DEVICE) saying why when there is no usable driver.
    static const CudaDriver& get();
    // Like get(), but returns nullptr (and the reason) instead of throwing.
    static const CudaDriver* try_get(std::string* why);
};

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)".
std::string cuda_error_text(CUresult r);

// Errors that leave the context unusable: after one of these every later
// call fails, so the context (in-process) or the worker must be given up.
bool cuda_error_is_sticky(CUresult r);

// Throws kb::Error(KB_ERR_CUDA, "<what>: <cuda_error_text>") unless r is success
// (KB_ERR_OUT_OF_MEMORY for CUDA_ERROR_OUT_OF_MEMORY).
void cuda_check(CUresult r, const char* what);

}  // namespace kb

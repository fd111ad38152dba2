// One way of turning code into an image. The compile service (compiler.h)
// holds several and picks by the request's language and its fallback rules:
// NVRTC, then nvcc, for CUDA C++; the given-image backend for PTX, cubins and
// precompiled Triton kernels. A new backend (Triton source, say) plugs in
// there without touching anything above the compiler.
#pragma once

#include <string>

#include "compiler/compile_types.h"

namespace kb {

class CompileBackend {
public:
    virtual ~CompileBackend() = default;
    // "nvrtc", "nvcc", "given": the image's `path`.
    virtual std::string name() const = 0;
    // What makes this backend's output differ from another build of it (the
    // tool's version, kbench's own device headers): part of every cache key.
    virtual std::string version() const = 0;
    // True when the backend runs the untrusted code in a process of its own
    // (nvcc, a Triton compiler): a context that isolates compilation may call
    // it from the host process. False for in-process libraries (NVRTC), which
    // isolated contexts call inside a compile worker.
    virtual bool out_of_process() const = 0;
    // Throws CompileError when the code does not compile; kb::Error when the
    // backend itself failed (not the code's fault).
    virtual CompiledImage compile(const CompileRequest& request) = 0;
};

}  // namespace kb

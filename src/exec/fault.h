// A candidate's failure to run, as opposed to kbench's own failure: the
// engine turns a KernelFault into a verdict (launch_error, runtime_error,
// timeout) instead of an API error.
#pragma once

#include <cuda.h>

#include <stdexcept>
#include <string>

#include "kbench.h"

namespace kb {

// What a timeout's message tells the candidate's author, wherever the hang
// was caught (the worker's own limit, the host's deadline).
inline constexpr const char* kHangAdvice =
    "Look for a loop that never ends (a wrong exit condition, a spin on a flag no thread sets, a __syncthreads() "
    "some threads never reach), or raise kb_context_options.timeout_s if the kernel is only slow";

class KernelFault : public std::runtime_error {
public:
    KernelFault(kb_verdict verdict, const std::string& message, CUresult code = CUDA_SUCCESS)
        : std::runtime_error(message), verdict_(verdict), code_(code) {}
    kb_verdict verdict() const { return verdict_; }
    CUresult code() const { return code_; }

private:
    kb_verdict verdict_;
    CUresult code_;
};

}  // namespace kb

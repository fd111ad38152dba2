// Headers kbench includes for a candidate that did not: the half-precision
// types. A kernel written for a PyTorch extension gets cuda_fp16.h and
// cuda_bf16.h through ATen's headers, which a candidate may not include
// (compiler/source_prep.h rejects framework includes); nvcc does not include
// them implicitly either. So when the task passes f16 or bf16 data, or the
// code names the types, kbench includes the CUDA header that defines them,
// for NVRTC (in the prelude) and for the nvcc fallback (-include) alike.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

#include "compiler/kernel_params.h"
#include "compiler/source_prep.h"

namespace kb {

// The headers to include ahead of the code ("cuda_fp16.h", "cuda_bf16.h"),
// leaving out those the code includes itself.
std::vector<std::string> implicit_headers(const LaunchExpectations& expect,
                                          const std::unordered_set<std::string>& identifiers,
                                          const std::vector<IncludeDirective>& includes);

}  // namespace kb

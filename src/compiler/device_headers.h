// Device-side versions of the standard headers that kernels include, handed
// to NVRTC as in-memory headers, plus the prelude that stands in for nvcc's
// implicit `#include "cuda_runtime.h"` (see docs/compilation.md).
//
// nvcc compiles device code with the host's C and C++ headers on the include
// path (glibc, libstdc++) and pre-includes cuda_runtime.h, which pulls in
// <cmath>, <cstdlib> and parts of <type_traits>, <limits>, <utility>. NVRTC has
// none of that. These headers give device code the same names, backed by
// CUDA's device functions and small constexpr __host__ __device__ templates,
// and nothing that nvcc (run with --expt-relaxed-constexpr, as PyTorch's
// extension builds run it) would not give device code.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

namespace kb {

struct VirtualHeader {
    const char* name;  // as written between <> or "" in an #include
    const char* text;
};

// Every in-memory header: the shims for standard headers, the empty shims
// for host-only headers, and the parts of the prelude (names beginning "__kb/").
const std::vector<VirtualHeader>& device_headers();

// The in-memory header pre-included in every NVRTC compilation, and its text
// for a source that spells `identifiers` (every identifier token, directives
// included) and has `includes`. The prelude only brings the parts
// (numeric_limits, std:: math, type traits, ...) whose names the source uses:
// parsing all of them would cost every compile about 15 ms.
const char* prelude_header_name();
std::string prelude_for(const std::unordered_set<std::string>& identifiers,
                        const std::vector<std::string>& includes = {});

// True for headers that only host code uses (<vector>, <iostream>, ...):
// shimmed as empty files so that the host code beside a kernel, which kbench
// removes before NVRTC sees it, does not fail on its includes.
bool is_host_only_header(const std::string& name);

}  // namespace kb

// Preparing CUDA C++ source for NVRTC: what nvcc's source splitting does for
// the device pass, on a much smaller scale.
//
// nvcc compiles a .cu file twice, once for the host and once for the device,
// and host-only code (launchers, main, helpers using std::vector) never reaches
// the device compiler. NVRTC compiles everything as device code and rejects
// any function or namespace-scope variable without a CUDA annotation, even
// an unused one. So before NVRTC sees a candidate, kbench removes the host-only
// entities at namespace scope:
//  - function definitions and declarations with no __global__/__device__
//    (plain host functions, or __host__ only), `main` included;
//  - namespace-scope variables with no memory-space annotation that are
//    neither const nor constexpr (host variables);
// and gives unannotated constexpr functions __host__ __device__, which is
// what nvcc's --expt-relaxed-constexpr lets device code assume.
//
// Removed text is replaced by spaces (newlines and preprocessor directives
// stay), so line numbers in NVRTC's messages are the candidate's own. Nothing
// inside a kernel or device function changes. If the splitter meets code it
// does not understand (unbalanced braces across #if branches, say) it leaves
// the source alone: NVRTC then reports the error and the nvcc fallback gives
// the verdict.
#pragma once

#include <string>
#include <unordered_set>
#include <vector>

namespace kb {

struct IncludeDirective {
    std::string name;  // between the <> or ""
    bool angled = false;
    int line = 0;      // 1-based
};

struct PreparedSource {
    std::string text;                          // what NVRTC compiles; same line count as the input
    std::vector<IncludeDirective> includes;    // every #include, in order
    // Every identifier in the code that stays (host code removed) and in every
    // directive: what the prelude is chosen by.
    std::unordered_set<std::string> identifiers;
    std::vector<std::string> removed;          // "line 12: host function 'launch'", for the log
    std::vector<std::string> annotated;        // constexpr functions made __host__ __device__
    // Functions and variables named in removed code that look like kernel
    // template instantiations launched from the host (name<args><<<...>>>).
    std::vector<std::string> host_launched_templates;
    // Constructs NVRTC would accept but nvcc may not (namespace-scope constant
    // arrays read by device code): nvcc's verdict is the one to get.
    std::vector<std::string> nvcc_only;
    bool understood = true;                    // false: text is the input unchanged
};

// Splits host-only code out of `code` (see above). Never throws.
PreparedSource prepare_cuda_source(const std::string& code);

// The includes of `code` without the rest of the preparation.
std::vector<IncludeDirective> scan_includes(const std::string& code);

// Throws CompileError if `includes` name a framework header (torch, ATen, c10,
// pybind11, Python.h, ...): a candidate is a kernel kbench launches, not an
// extension module.
void reject_framework_includes(const std::vector<IncludeDirective>& includes, const std::string& source_name);

}  // namespace kb

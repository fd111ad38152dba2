// libFuzzer target: the include sandbox's scan (src/compiler/include_sandbox.cpp),
// which reads code as a preprocessor does, and the check over it. Refusals
// are CompileError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler/compile_types.h"
#include "compiler/include_sandbox.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string code(reinterpret_cast<const char*>(data), size);
    kb::scan_file_references(code);
    kb::IncludePolicy policy;  // no folders: only named headers resolve
    policy.is_builtin = [](const std::string& n) { return n == "cmath"; };
    try {
        kb::check_file_references("candidate.cu", code, {{"common.cuh", code}}, policy);
    } catch (const kb::CompileError&) {
    }
    kb::headers_for_nvrtc({{"detail/a.cuh", code}, {"detail/b.cuh", "x"}});
    return 0;
}

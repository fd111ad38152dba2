// PTX to a cubin in the compiling process, through nvJitLink (the CUDA
// toolkit's lib64/libnvJitLink.so, loaded at run time so that kbench links
// nothing new). Contained traps (compiler/trap_containment.h) rewrite the
// PTX, and assembling it here keeps ptxas's work on the compile threads,
// ahead of the GPU, and its errors compile errors, as NVRTC's cubin gives
// them: the driver's JIT would report them when a worker loads the module.
#pragma once

#include <string>
#include <vector>

namespace kb {

struct PtxAssembly {
    bool available = false;  // nvJitLink was found and loaded
    std::string why_unavailable;
    bool ok = false;
    std::string cubin;
    std::string log;  // ptxas's messages (errors when !ok)
    double ms = 0;
};

// `arch` as CompileRequest::arch ("sm_90", "sm_90a"); `max_registers` 0: none.
// `extra_options` go to nvJitLink after kbench's own (bench/contained_compile_cost.cpp
// measures ptxas levels with "-Xptxas=-O1"; kbench's builds pass none).
PtxAssembly assemble_ptx(const std::string& cuda_home, const std::string& ptx, const std::string& arch,
                         int max_registers, const std::vector<std::string>& extra_options = {});

}  // namespace kb

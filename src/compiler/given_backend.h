// Code that arrives compiled: PTX text, a cubin, or a Triton-compiled cubin
// with Triton's metadata. Nothing is compiled: the image is validated (is it
// PTX, is it a CUDA ELF for an architecture that loads on the target), its
// entry points are listed, and the launch plan's kernel names are resolved.
#pragma once

#include "compiler/compile_backend.h"

namespace kb {

class GivenImageBackend : public CompileBackend {
public:
    std::string name() const override { return "given"; }
    std::string version() const override { return "given-1"; }
    bool out_of_process() const override { return true; }  // nothing runs
    CompiledImage compile(const CompileRequest& request) override;
};

// A Triton-compiled kernel's metadata, as Triton writes it next to the cubin
// (the JSON of `CompiledKernel.metadata`, e.g. the `.json` in Triton's cache):
// {"name": "add_kernel", "num_warps": 4, "shared": 0, "num_ctas": 1, ...}.
// A launch uses block = 32 * num_warps threads and `shared` bytes of dynamic
// shared memory.
struct TritonKernelInfo {
    std::string name;    // the entry symbol in the cubin
    int num_warps = 4;
    int shared = 0;      // dynamic shared memory, bytes
    int num_ctas = 1;
    int threads_per_block() const { return 32 * num_warps; }
};
// Parses Triton's metadata JSON. Throws kb::Error(KB_ERR_INVALID_ARGUMENT)
// naming the field when it is not an object with a string "name" and
// non-negative integers "num_warps" (> 0) and "shared".
TritonKernelInfo parse_triton_metadata(const std::string& json);

}  // namespace kb

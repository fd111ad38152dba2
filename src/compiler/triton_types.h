// The Triton facts that travel with a compile request and its image
// (docs/triton.md): what one compile specialises, and what Triton compiled.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kb {

// One runtime argument of a Triton kernel as kbench passes it.
struct TritonArg {
    std::string name;  // the task argument (or inline scalar) it comes from, for messages
    std::string type;  // Triton's signature type: "*fp32", "*i1", "i32", "u64", "fp16", "u1", ...
    // What Triton may assume about the value at this case (its JIT's rules):
    // "1" the integer is 1 (compiled as a constant and dropped from the
    // parameters), "D" divisible by 16 (integers; pointers: 16-byte aligned),
    // "" nothing.
    std::string spec;
};

// Everything one Triton compile depends on besides the source and target.
struct TritonCompileSpec {
    std::string kernel;                                       // the @triton.jit function
    std::vector<TritonArg> args;                              // runtime arguments, in the kernel's order
    std::vector<std::pair<std::string, int64_t>> constexprs;  // tl.constexpr parameters, as given
    int num_warps = 4;
    int num_stages = 3;
    int num_ctas = 1;

    // The specialisation key: two cases with the same key may share a binary,
    // two with different keys never do. Readable on purpose (it appears in
    // results): "add_kernel(*fp32:D, *fp32:D, *fp32:D, i32:D; BLOCK=1024; w4 s3 c1)".
    std::string key() const;
    bool empty() const { return kernel.empty(); }
};

// One parameter of the compiled kernel's signature, in declaration order.
struct TritonSignatureEntry {
    std::string name;  // the parameter's name in the Python source
    std::string type;  // Triton type; "constexpr" for tl.constexpr parameters and values specialised to 1
    int arg = -1;      // the launch entry's argument it takes; -1 for a declared tl.constexpr
};

}  // namespace kb

// What a launch plan passes to each kernel, and whether a compiled kernel's
// parameters take it.
//
// A kernel whose name matches the plan but whose parameters do not (a
// `float*` where the plan passes an i32 value) would otherwise be accepted at
// compile time and misread its arguments at run time. In a normal CUDA
// program the host's `k<<<...>>>(args)` makes that a compile error; kbench
// launches kernels itself, so it checks the same thing here:
//  - a C++ kernel (mangled name) by its parameter types, from the demangled
//    name: a buffer needs a pointer to its element type (or void, or a type
//    kbench cannot judge such as float4 or a struct), a scalar a value of the
//    same kind (integer, floating point) and size;
//  - an extern "C" kernel by what the image records: PTX parameter types
//    (.u32, .f32, ...) or the cubin's parameter sizes.
// The same expectations pick the overload a plain kernel name means when the
// code defines several (`k(float*, int)` and `k(int*, int)`).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "task/task.h"

namespace kb {

struct CompiledImage;

// One argument of a launch step.
struct ParamSpec {
    std::string arg;         // the task argument or scratch buffer, or the inline scalar's value
    bool buffer = false;     // passed as a device pointer to elements of `dtype`
    bool read_only = false;  // an `in` buffer (spelt `const T*` in messages)
    DType dtype = DType::i32;
};

struct KernelSpec {
    std::vector<ParamSpec> params;
    std::string where;  // the launch step that passes them, e.g. "candidate.launch[0]"
    // The most threads a block of this step has over the task's cases
    // (block x * y * z): what the kernel's register use must allow. 0 when a
    // case's block cannot be evaluated (the launch reports that).
    int64_t max_block_threads = 0;
};

struct LaunchExpectations {
    // By launch-plan kernel name; a name launched by several steps has one
    // entry per step.
    std::map<std::string, std::vector<KernelSpec>> kernels;
    // The plan is the task's own (its default candidate plan, or its
    // reference's/baseline's): a kernel it names that the code lacks is the
    // code's to rename, not the plan's to respell.
    bool plan_from_task = false;
};

// What `program`'s launch steps pass, with `task`'s argument types, and the
// largest block each launches over the task's cases.
LaunchExpectations launch_expectations(const Task& task, const Program& program);
// A canonical text of the expectations, for cache keys.
std::string expectations_key(const LaunchExpectations& e);

// The parameter list as C, for messages: "const float* a, float* c, int n".
std::string c_parameter_list(const KernelSpec& spec);

// The parameter types of a demangled kernel name: "k<float>(float const*, int)"
// gives {"float const*", "int"}. False when the name has no parameter list
// (an extern "C" kernel).
bool demangled_parameter_types(const std::string& demangled, std::vector<std::string>& out);

// "" when parameters of these C++ types take what `spec` passes, else the
// first mismatch, naming the parameter and the argument.
std::string parameter_mismatch(const std::vector<std::string>& types, const KernelSpec& spec);

// Checks every kernel of the plan, as resolved in `image.symbols`, against
// the expectations. Throws CompileError naming the kernel, the parameter and
// the argument. A kernel whose image does not describe its parameters is left
// to the launch-time check.
void check_kernel_parameters(const LaunchExpectations& expect, const CompiledImage& image,
                             const std::string& source_name);

}  // namespace kb

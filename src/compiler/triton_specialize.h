// Triton specialises a kernel on the values it is launched with (research
// notes A3): an integer equal to 1 becomes a compile-time constant and leaves
// the parameter list, an integer divisible by 16 and a 16-byte-aligned
// pointer are marked divisible, and the code is vectorised on the strength of
// it. A binary compiled for one set of facts and launched on a case that
// breaks them silently reads and writes the wrong elements. So kbench
// compiles a Triton launch entry once per distinct specialisation key of the
// task's cases, from the real values, and only ever launches the binary whose
// key equals the case's (exec/launcher.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/triton_types.h"
#include "task/task.h"

namespace kb {

// Triton's signature type of a task dtype: "*fp32" for a buffer, "fp32" for a
// scalar; bool is "*i1" / "u1", as Triton's JIT types torch.bool and Python bool.
std::string triton_type(DType t, bool pointer);
// What Triton's JIT assumes about an integer argument: "1" when it is 1, "D"
// when divisible by 16 (0 included), else "".
std::string triton_int_spec(int64_t v);

// The compile spec of Triton launch entry `step` of `p` at the dims of a case:
// argument types and specialisation from the case's values (buffers kbench
// allocates are 256-byte aligned, so every pointer is "D"; exec/launcher.cpp
// checks it), constexprs evaluated, options of the entry.
// Throws kb::Error(KB_ERR_TASK_INVALID) when an argument cannot be evaluated.
TritonCompileSpec triton_spec_at(const Task& task, const Program& p, size_t step, const DimValues& dims);

// The distinct specs of every Triton entry of `p` over the cases `cases`
// (indices into task.cases; empty: all), in order of first appearance.
struct TritonSpecAt {
    size_t step = 0;
    TritonCompileSpec spec;
};
std::vector<TritonSpecAt> triton_specs(const Task& task, const Program& p, const std::vector<int>& cases);

// A Triton launch entry compiled for one specialisation key.
struct TritonVariant {
    size_t step = 0;     // the launch entry
    std::string key;     // TritonCompileSpec::key() of the cases it serves
    CompiledImage image;
};

// The variant of launch entry `step` compiled for the specialisation of the
// case with `dims`. Throws kb::Error(KB_ERR_INTERNAL) when none was: another
// binary would run under assumptions the case breaks, so that is a kbench
// bug, never something to fall back from.
const TritonVariant& triton_variant_for(const std::vector<TritonVariant>& variants, const Task& task,
                                        const Program& p, size_t step, const DimValues& dims,
                                        const std::string& case_name);

// Compiles every distinct specialisation of every Triton entry of `p` over
// `cases` (empty: all), several at once (the compile service runs them in
// parallel up to its worker count). `base` carries the source, source name,
// architecture and policy. Throws the first CompileError.
std::vector<TritonVariant> compile_triton_variants(Compiler& service, const CompileRequest& base,
                                                   const Task& task, const Program& p, const std::vector<int>& cases);

}  // namespace kb

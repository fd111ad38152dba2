// A kernel candidate (CUDA or Triton) against a task whose reference is
// Python (docs/programs.md, "Kernel candidates against a Python reference").
//
// kbench runs it as a program candidate: the Python candidate worker builds a
// ModelNew from the table made here, whose forward takes the problem's own
// inputs, allocates the outputs and launches the candidate's kernels. So the
// reference stays in its own process, and the GPU comparison, the poison,
// the input checksums, CUPTI timing and the recheck all apply unchanged. The
// table is the candidate's launch plan evaluated at every case of the task:
// the worker launches what it says and does no arithmetic of its own.
#pragma once

#include <string>

#include "engine/options.h"
#include "engine/python_workers.h"
#include "exec/kernel.h"
#include "task/task.h"
#include "util/json.h"

namespace kb {

// Whether a candidate for `task` (its reference is Python) is a kernel rather
// than a Python program. CUDA, PTX and cubin are kernels, as are, without a
// language, .cu, .ptx and .cubin files and candidate documents. Python text
// (Triton, or no language) is a kernel only when it brings its launch (a
// `# kbench: launch` comment, docs/triton.md, or a launch plan) and does not
// define the class a program candidate defines (ModelNew): `kbench run` hands
// every Python answer over as Triton.
bool is_kernel_candidate(const CandidateInput& in, const Task& task);

// Whether a candidate of `language` is a kernel (CUDA, PTX, cubin or Triton)
// rather than a Python program.
bool is_kernel_language(Language language);

// The table and image the candidate worker runs `program` by. `compiled` is
// the compiled kernel for CUDA, PTX and cubin candidates (its image goes to
// the worker, its symbols name the functions); null for Triton, which
// Triton's JIT compiles in the worker. Throws kb::Error(KB_ERR_TASK_INVALID)
// naming the task's field when the task cannot take kernel candidates (no
// args, an arg shape or launch that does not evaluate at a case).
KernelCandidate make_kernel_candidate(const Task& task, const Program& program, const Kernel* compiled);

// Checks the task's kernel signature against what the reference showed at
// one case: its tensor inputs are the `in` and `inout` args in order (dtype
// and element count), its outputs the `out` and `inout` args in order (dtype
// and shape), and its model has no parameters (a kernel gets only inputs).
// Throws kb::Error(KB_ERR_TASK_INVALID) naming the argument and the fix.
void check_kernel_signature(const Task& task, int case_index, const ProgramRunReply& reference);

}  // namespace kb

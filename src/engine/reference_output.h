// Statistics of a reference's output, and findings when it cannot tell right
// from wrong (task/output_lint.h: a kernel writing zeros, or one constant,
// would pass): shared by the kernel tasks' reference runs (local_backend.cpp)
// and the Python references of program candidates (program_score.cpp).
#pragma once

#include "engine/result.h"
#include "exec/host_tensor.h"
#include "task/task.h"

namespace kb {

// `kbench validate` turns the findings into failures across cases and seeds;
// a reference run reports them as warnings.
ReferenceOutput reference_output(const HostTensor& t, const Task& task, int case_index, const Arg& arg);

}  // namespace kb

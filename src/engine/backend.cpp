#include "engine/backend.h"

#include "util/error.h"

namespace kb {

std::vector<CompareResult> Backend::compare_cases(const TaskBinding& tb, const KernelPtr& kernel,
                                                  const std::vector<CaseRuns>& cases, uint64_t seed) {
    std::vector<CompareResult> out;
    for (const CaseRuns& c : cases) {
        out.push_back(compare(tb, kernel, c.case_index, seed, c.runs));
        if (out.back().verdict != KB_VERDICT_PASS) break;
    }
    return out;
}

void Backend::launch_external(const TaskPtr&, const KernelPtr&, const ExternalLaunch&) {
    fail(KB_ERR_INVALID_ARGUMENT,
         "kb_launch runs a kernel on your own device memory, in your process; this context runs kernels in a "
         "kbench-worker process, where your pointers mean nothing. Create the context with isolation "
         "KB_ISOLATION_IN_PROCESS (Python: kbench.Context(isolation='in_process')) to launch on your buffers");
}

}  // namespace kb

// Where kernels run. The verbs of the C API become calls on a Backend:
// LocalBackend runs them in this process; the worker backend (src/worker)
// forwards them to a kbench-worker process that a crash or hang cannot
// escape. Every call returns a JSON result (the document kb_result wraps).
#pragma once

#include <cstdint>
#include <memory>

#include "exec/kernel.h"
#include "measure/timer.h"
#include "task/task.h"
#include "util/json.h"

namespace kb {

// A task with its compiled reference and baseline (the baseline is the
// reference when the task has none).
struct TaskBinding {
    TaskPtr task;
    KernelPtr reference;
    KernelPtr baseline;
};

struct TimeRequest {
    int case_index = -1;          // -1: the perf case
    bool against_baseline = false;
    TimingOptions timing;
};

class Backend {
public:
    virtual ~Backend() = default;
    // Device facts (DeviceProps::to_json plus anything the backend adds).
    virtual Json device_info() = 0;
    virtual Json run_reference(const TaskBinding& tb, int case_index, uint64_t seed) = 0;
    // `runs` > 1 runs the candidate again on the same inputs and reports
    // whether the outputs were bit-identical.
    virtual Json compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                         unsigned runs) = 0;
    // kernel == nullptr times the baseline alone.
    virtual Json time(const TaskBinding& tb, const KernelPtr& kernel, const TimeRequest& req) = 0;
};

}  // namespace kb

// Launching a compiled kernel's plan on device memory the caller owns
// (kb_launch): a framework's tensors (torch, CuPy, JAX through DLPack) at
// sizes the caller chooses, in this process, ordered on the caller's stream
// as if the launches had been enqueued there. No copies: the plan's buffer
// arguments are the caller's pointers; only scratch buffers (the plan's and
// Triton's hidden ones) are kbench's.
//
// Nothing here checks outputs or guards the caller's memory: this is running
// a kernel, not scoring one. What is checked, before any launch, is what
// would make a launch write where it must not: every buffer argument given,
// on this device, inside its allocation, as large as the task's shape at the
// caller's dims, of the task's dtype when the caller says which, and aligned
// as kbench's own buffers are for the alignment a kernel may assume.
#pragma once

#include <cuda.h>

#include <list>
#include <map>
#include <memory>
#include <string>

#include "exec/launcher.h"
#include "task/task.h"

namespace kb {

struct ExternalBuffer {
    CUdeviceptr ptr = 0;
    size_t bytes = 0;
    std::string dtype;  // "" = not checked; otherwise the task's dtype name ("f32", "bf16", ...)
};

struct ExternalLaunch {
    DimValues dims;                                 // every dim of the task
    std::map<std::string, ExternalBuffer> buffers;  // every buffer argument of the task, by name
    CUstream stream = nullptr;                      // nullptr: the legacy default stream
};

// Every buffer must start at this alignment: kbench's own buffers start
// 256-byte aligned, Triton compiles pointer arguments assuming 16, and CUDA
// kernels commonly load 16-byte vectors.
constexpr size_t kExternalAlignment = 16;

// The task with one case, named "kb_launch", at the caller's dims. Throws
// kb::Error(KB_ERR_INVALID_ARGUMENT) naming a missing, unknown or
// non-positive dim, or a shape that overflows.
TaskPtr task_at_dims(const TaskPtr& task, const DimValues& dims);

// Runs kernels on the caller's memory. Keeps the scratch of the last few
// (kernel, dims) pairs, so a loop of launches allocates once.
class ExternalRuns {
public:
    ExternalRuns(Device& dev, ModuleCache& modules, BuiltinLibraries* builtins)
        : dev_(dev), modules_(modules), builtins_(builtins) {}
    ~ExternalRuns();
    ExternalRuns(const ExternalRuns&) = delete;
    ExternalRuns& operator=(const ExternalRuns&) = delete;

    // Checks everything above, then enqueues the plan. Throws kb::Error
    // (KB_ERR_INVALID_ARGUMENT for the caller's mistakes) or KernelFault
    // (launch_error) when the driver refuses a launch. Does not wait.
    void launch(const Kernel& kernel, const TaskPtr& task, const ExternalLaunch& x);

private:
    struct Entry {
        std::string key;   // kernel id and dims
        TaskPtr task;      // the one-case task the buffers refer to
        std::unique_ptr<CaseBuffers> buffers;
        std::shared_ptr<LoadedModule> module;  // loaded while launches may still run
    };
    Entry& entry(const Kernel& kernel, const TaskPtr& at, std::vector<CaseBuffers::External> ext);

    Device& dev_;
    ModuleCache& modules_;
    BuiltinLibraries* builtins_;
    std::list<Entry> entries_;  // front = most recent
};

}  // namespace kb

// Where candidates run. The stages of a score (engine/score.cpp) and the
// verbs of the C API become calls on a Backend, one interface for every kind
// of candidate: LocalBackend runs kernels in this process; the worker backend
// (src/worker_host/) forwards them to a kbench-worker process that a crash or
// hang cannot escape; the program backend (engine/program_backend.h) runs
// Python program candidates in a lane's Python worker against the Python
// reference. Every call returns a typed result (result.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "exec/external_launch.h"
#include "exec/kernel.h"
#include "compiler/compiler.h"
#include "engine/options.h"
#include "engine/python_workers.h"
#include "engine/result.h"
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

class Backend {
public:
    virtual ~Backend() = default;
    // Device facts (DeviceProps::to_json plus anything the backend adds).
    virtual Json device_info() = 0;
    // Readies `kernel` here before its first case: the score's load stage.
    // A kernel was compiled ahead (Context::prepare_score) and needs nothing;
    // a program candidate is imported in the lane's Python worker, which is
    // its compilation. A verdict other than pass ends the score.
    virtual LoadResult load(const TaskBinding& tb, const KernelPtr& kernel) {
        (void)tb;
        (void)kernel;
        return {};
    }
    virtual ReferenceResult run_reference(const TaskBinding& tb, int case_index, uint64_t seed) = 0;
    // `runs` > 1 runs the candidate again on the same inputs and reports
    // whether the outputs were bit-identical.
    virtual CompareResult compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                                  unsigned runs) = 0;
    // compare() on each case in turn, up to and including the first whose
    // verdict is not pass: the results of the cases that ran. A worker
    // backend makes it one request instead of one per case; the program
    // backend runs its protocol's plan (cases and seeds) instead.
    struct CaseRuns {
        int case_index;
        unsigned runs;
    };
    // The recheck after timing: compare() once, on the build that was timed.
    // Where a kernel has a checked build (compiler/fault_containment.h),
    // compare() and compare_cases() run that one; the recheck must see the
    // module whose state the timed runs left behind (a launch counter, a
    // cache in a global).
    virtual CompareResult recheck(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed) {
        return compare(tb, kernel, case_index, seed, 1);
    }
    virtual std::vector<CompareResult> compare_cases(const TaskBinding& tb, const KernelPtr& kernel,
                                                     const std::vector<CaseRuns>& cases, uint64_t seed);
    // kernel == nullptr times the baseline alone.
    virtual TimeResult time(const TaskBinding& tb, const KernelPtr& kernel, const TimeRequest& req) = 0;
    // Enqueues `kernel`'s plan on the caller's own device memory and stream
    // (kb_launch, exec/external_launch.h). Only a backend in the caller's
    // process can: a worker's device pointers are another process's.
    virtual void launch_external(const TaskPtr& task, const KernelPtr& kernel, const ExternalLaunch& x);
    // Starts what its first score would start (the program backend's
    // candidate worker): a batch's lane calls it before it takes a job, so
    // no job waits for a worker's start. Nothing to do where the backend's
    // construction started everything.
    virtual void start() {}
    // Ends without waiting for what ending takes (a worker's CUDA context
    // teardown), for a process about to exit: Context::end_without_waiting.
    // Nothing to do for a backend in this process.
    virtual void let_go() {}
};

// How a context runs untrusted code out of process. The engine cannot name
// the worker's host side (src/worker_host/ sits above it and implements
// Backend), so whoever creates a Context hands these factories in: the C API
// gives worker_isolation() from src/worker_host/isolation.h. A context asked
// to isolate without them fails with KB_ERR_WORKER.
struct Isolation {
    // The backend of a device context whose candidates run in a worker process.
    std::function<std::unique_ptr<Backend>(const ContextOptions&)> backend;
    // Where the compile service builds what would run in-process (NVRTC): a
    // pool of compile workers, so a compiler crash or hang is contained.
    std::function<std::shared_ptr<CompileSandbox>(const ContextOptions&, const CompilerConfig&)> compile_sandbox;
    // The Python workers of program candidates (docs/programs.md), whatever
    // the isolation asked for: a Python candidate never runs in the caller's
    // process. The reference worker starts on a context's first program
    // candidate, a lane's candidate worker on the lane's first.
    // `sharing`: how many Python workers share the device (their input
    // caches divide its memory).
    std::function<std::unique_ptr<PythonWorkers>(const ContextOptions&, ProgramRole, unsigned sharing)> python_workers;
};

}  // namespace kb

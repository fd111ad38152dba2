// The in-process backend: runs references and candidates on a Device in
// this process. Fast and simple, but a candidate that crashes poisons the
// CUDA context of the whole process (the device becomes `lost`), and one that
// hangs cannot be stopped: only trusted kernels belong here. The worker
// process runs this same backend on its side of the process boundary.
#pragma once

#include <list>
#include <memory>
#include <optional>
#include <string>

#include "compare/observe.h"
#include "device/device.h"
#include "engine/backend.h"
#include "exec/launcher.h"
#include "exec/reference_cache.h"

namespace kb {

class LocalBackend : public Backend {
public:
    explicit LocalBackend(int device_ordinal);

    Json device_info() override;
    ReferenceResult run_reference(const TaskBinding& tb, int case_index, uint64_t seed) override;
    CompareResult compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                          unsigned runs) override;
    // compare, each run watched against `limit` (exec/run_guarded.h). The
    // worker passes the host's limit; in this process a run past it would
    // leave a kernel no one can stop, so compare above waits without one.
    CompareResult compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed, unsigned runs,
                          const KernelLimit& limit);
    TimeResult time(const TaskBinding& tb, const KernelPtr& kernel, const TimeRequest& req) override;
    void launch_external(const TaskPtr& task, const KernelPtr& kernel, const ExternalLaunch& x) override;

    Device& device() { return dev_; }

    // The reference's outputs for a case and seed (runs it if not cached).
    // Throws kb::Error(KB_ERR_REFERENCE_FAILED) when the reference fails.
    std::shared_ptr<const ReferenceRun> reference_outputs(const TaskBinding& tb, int case_index, uint64_t seed,
                                                          bool cache = true);
    // Host copies of a case's inputs as the RNG generated them on the device.
    std::vector<HostTensor> inputs(const TaskBinding& tb, int case_index, uint64_t seed);

    // The reference's run time at a case and seed, running it unless cached:
    // what a worker's host asks before a candidate's comparison (the run time
    // sets the candidate's deadline), without run_reference's statistics of
    // every output, which nobody reads there.
    ReferenceResult reference_run_time(const TaskBinding& tb, int case_index, uint64_t seed);

private:
    CaseBuffers& buffers(const TaskPtr& task, int case_index);
    // The case's inputs from `seed`, the reference's scratch reset and its
    // plan bound to `bufs`: what its first run and a rerun both enqueue.
    BoundPlan bind_reference(const TaskBinding& tb, CaseBuffers& bufs, uint64_t seed);
    // Page-locks a cached reference's large outputs at their second upload.
    void pin_for_upload(const ReferenceRun& run);
    // The reference run again on the device in place of uploading `ref`'s
    // outputs (compare/observe.h), when that is cheaper; none otherwise.
    std::optional<ReferenceRerun> rerun_for(const TaskBinding& tb, CaseBuffers& bufs, uint64_t seed,
                                            const ReferenceRun& ref);
    // The output buffers that compare/observe.h compares on the GPU.
    std::vector<Device::Range> gpu_compared_outputs(CaseBuffers& bufs) const;

    Device dev_;
    // Declared after dev_: its cuBLAS handle goes before the context does.
    BuiltinLibraries builtins_{dev_};
    ModuleCache modules_;
    ReferenceCache references_;
    struct BufferEntry {
        std::string key;
        TaskPtr task;  // keeps the Task the buffers refer to alive
        std::unique_ptr<CaseBuffers> buffers;
        uint64_t bytes = 0;  // case_buffer_bytes of the case
    };
    std::list<BufferEntry> buffers_;  // front = most recent
    OutputComparer comparer_;
    // KBENCH_REFERENCE_RERUN=0 keeps every large output's comparison on the
    // uploaded host copy (a measuring knob, docs/isolation.md; tests).
    bool rerun_enabled_ = true;
    // Declared last: destroyed first, waiting for launches on its scratch.
    ExternalRuns external_{dev_, modules_, &builtins_};
};

}  // namespace kb

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
#include "util/error.h"

namespace kb {

// A comparison against a reference installed from a digest whose rerun on
// the device did not reproduce the digest's checksums (a reference that is
// not bitwise deterministic, or a candidate that tampered with it): there is
// no host copy to upload instead. The entry is dropped (forget_reference);
// the request is to be run again with the reference run here.
struct ReferenceNotReproduced : Error {
    ReferenceNotReproduced(const std::string& key, const std::string& message)
        : Error(KB_ERR_WORKER, message), key(key) {}
    std::string key;  // ReferenceCache::key
};

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
    // compare runs a kernel's checked build where it has one
    // (compiler/fault_containment.h); recheck runs the build that was timed.
    CompareResult recheck(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed) override;
    TimeResult time(const TaskBinding& tb, const KernelPtr& kernel, const TimeRequest& req) override;
    void launch_external(const TaskPtr& task, const KernelPtr& kernel, const ExternalLaunch& x) override;

    Device& device() { return dev_; }
    // How many sets of case buffers this backend has allocated: a set kept
    // for a case is reused, so a batch that comes back to a case it has seen
    // makes none (tests).
    size_t buffer_sets_made() const { return buffer_sets_made_; }

    // The reference's outputs for a case and seed (runs it if not cached).
    // Throws kb::Error(KB_ERR_REFERENCE_FAILED) when the reference fails.
    // `gpu_outputs`: copy the outputs compared on the GPU to the host even
    // where keep_gpu_outputs(false) would leave them (a reference whose rerun
    // did not reproduce once: its comparisons need the upload).
    std::shared_ptr<const ReferenceRun> reference_outputs(const TaskBinding& tb, int case_index, uint64_t seed,
                                                          bool cache = true, bool gpu_outputs = false);
    // Host copies of a case's inputs as the RNG generated them on the device.
    std::vector<HostTensor> inputs(const TaskBinding& tb, int case_index, uint64_t seed);

    // The reference's run time at a case and seed, running it unless cached:
    // what a worker's host asks before a candidate's comparison (the run time
    // sets the candidate's deadline), without run_reference's statistics of
    // every output, which nobody reads there.
    ReferenceResult reference_run_time(const TaskBinding& tb, int case_index, uint64_t seed,
                                       bool gpu_outputs = false);

    // false: a reference run whose large outputs every comparison checks
    // against a rerun on the device (rerun_for) keeps only their checksums,
    // not a host copy, as a run held from a digest does. Its caller must
    // handle ReferenceNotReproduced (a rerun that differs has no copy to fall
    // back on): the worker does, by asking its host to run it again
    // (worker_server.h); this process's own scores keep the copies.
    void keep_gpu_outputs(bool keep) { keep_gpu_outputs_ = keep; }

    // Keeping references across a worker's replacement (ReferenceDigest):
    // the digest of the reference run held for (case, seed), if it has one;
    // a reference held from another worker's digest (its outputs compared on
    // the host, checked against the task's shapes); and dropping one.
    std::optional<ReferenceDigest> reference_digest(const TaskBinding& tb, int case_index, uint64_t seed);
    void install_reference(const TaskBinding& tb, int case_index, uint64_t seed, ReferenceDigest digest);
    void forget_reference(const std::string& key) { references_.erase(key); }

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
    // Drops the reference held without its large outputs for (case, seed)
    // and throws ReferenceNotReproduced, saying `why` after "the reference at
    // case 'X' ".
    [[noreturn]] void give_up_digest(const Task& task, int case_index, uint64_t seed, const std::string& why);
    // Whether running the reference again costs less than uploading `ref`'s
    // outputs compared on the GPU (rerun_for's rule).
    bool rerun_pays(CaseBuffers& bufs, const ReferenceRun& ref) const;

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
    size_t buffer_sets_made_ = 0;
    OutputComparer comparer_;
    // KBENCH_REFERENCE_RERUN=0 keeps every large output's comparison on the
    // uploaded host copy (a measuring knob, docs/isolation.md; tests).
    bool rerun_enabled_ = true;
    bool keep_gpu_outputs_ = true;
    // Declared last: destroyed first, waiting for launches on its scratch.
    ExternalRuns external_{dev_, modules_, &builtins_};
};

}  // namespace kb

// Reference outputs kept host-side, per (task, case, seed), least recently
// used first out once the byte budget is exceeded. Host-side on purpose: no
// reference result may sit in device memory while a candidate runs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device/device.h"
#include "exec/host_tensor.h"
#include "util/byte_budget_lru.h"

namespace kb {

struct ReferenceRun {
    std::vector<HostTensor> outputs;  // out and inout args, in argument order
    double run_ms = 0;                // wall time of the reference's launch plan
    // Large outputs page-locked while cached, from their second upload on
    // (a comparison that cannot rerun the reference uploads them): mutable,
    // because a cached run is shared const and pinning changes how it is
    // held, not what it holds. Declared after `outputs`, so the pages are
    // unpinned before they are freed.
    mutable std::vector<HostPin> pins;
    mutable unsigned comparisons = 0;  // comparisons that uploaded these outputs
    // Checksums of the outputs compared on the GPU, on the device right after
    // the run (in the order of `outputs`): a rerun of the reference on the
    // device that reproduces them is this run (compare/observe.h,
    // ReferenceRerun). Small outputs, compared on the host, are left out: one
    // that is not bitwise deterministic (a sum with atomics) does not matter.
    std::vector<uint64_t> device_checksums;
    // A rerun once produced other bits (a reference summing with atomics):
    // its outputs are uploaded from then on.
    mutable bool rerun_differs = false;
    // Installed from an earlier worker's digest (ReferenceDigest) rather than
    // run here.
    bool from_digest = false;
    // Whether the outputs compared on the GPU have their bytes in `outputs`.
    // Not for a run installed from a digest, nor for a worker's run whose
    // comparisons rerun the reference anyway (LocalBackend's
    // keep_gpu_outputs): those tensors are empty, so every comparison must
    // reproduce the first run on the device, or give way to a real run
    // (ReferenceNotReproduced). Copying them to the host took most of a
    // reference run's time at a perf case: 64-256 MB each, 0.1-0.4 s.
    bool gpu_outputs_held = true;
    size_t bytes() const {
        size_t n = 0;
        for (const auto& t : outputs) n += t.bytes.size();
        return n;
    }
};

// What a fresh worker needs to hold a reference run by an earlier worker on
// the same device without running it: the run time, the checksums a rerun
// must reproduce, and the outputs compared on the host. Only a run whose
// large outputs are all compared against a rerun has one (everything else
// a comparison reads is here). A worker's host keeps them, so that a
// replacement after a crash does not run every reference again.
struct ReferenceDigest {
    double run_ms = 0;
    std::vector<uint64_t> device_checksums;
    // Per output argument, in argument order: the bytes of those compared on
    // the host; empty for those compared on the GPU.
    std::vector<std::vector<uint8_t>> host_outputs;
    size_t bytes() const {
        size_t n = device_checksums.size() * sizeof(uint64_t);
        for (const auto& o : host_outputs) n += o.size();
        return n;
    }
};

// The worker's: the reference results of this process, 2 GiB at most.
class ReferenceCache : public ByteBudgetLru<ReferenceRun> {
public:
    explicit ReferenceCache(size_t budget_bytes = size_t(2) << 30) : ByteBudgetLru(budget_bytes) {}

    static std::string key(const std::string& task_hash, int case_index, uint64_t seed) {
        return task_hash + "/" + std::to_string(case_index) + "/" + std::to_string(seed);
    }
};

}  // namespace kb

// Comparing a run's outputs, where they lie on the device, against the
// reference's host copies: small outputs are downloaded and compared on the
// host, large ones on the GPU (the reference goes up to a staging buffer, or
// is run again on the device, only after the candidate has finished, and is
// scrubbed right after), both by the rule of hostdev/compare_math.h, so they
// agree bit for bit.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "compare/comparator.h"
#include "compare/judge.h"
#include "exec/launcher.h"
#include "exec/run_guarded.h"

namespace kb {

// Outputs of more than 2^20 elements are compared on the GPU, smaller ones on
// the host.
inline bool compared_on_gpu(uint64_t elements) { return elements > (uint64_t(1) << 20); }

// The reference run again on the device, after a candidate's run, in the
// candidate's buffers: what a large output is compared against instead of
// the cached host copy, which would cross PCIe for every comparison (64 MB
// for vector_add's perf case, 160 MB for softmax's). Without those uploads a
// one-lane correctness-only batch ran 86 verdicts a second instead of 68-71
// (`kbench_batch_bench`, bench/batch_bench.cpp). The reference's results appear on the
// device only after the candidate has finished and are scrubbed before
// anything else runs, as DESIGN.md section 4 asks.
struct ReferenceRerun {
    // Regenerates the case's inputs, runs the reference into the case's
    // output buffers and returns whether the checksum of every output
    // compared on the GPU equals the reference's first run's. A candidate
    // that tampered with the reference (its module's globals, say) or a
    // reference that is not bitwise deterministic gets false, and the cached
    // host copy is uploaded instead.
    std::function<bool()> run;
    // Poisons what the rerun left on the device (outputs and scratch).
    std::function<void()> scrub;
};

class OutputComparer {
public:
    explicit OutputComparer(Device& dev) : dev_(dev) {}
    // Outputs already on the host, by argument index (GuardedRun::outputs):
    // those are compared without another download.
    using HostOutputs = std::map<int, HostTensor>;
    // Output argument `arg_index` of `bufs` against `ref`.
    OutputReport compare(CaseBuffers& bufs, int arg_index, const HostTensor& ref, const HostOutputs& host = {});
    // Every output (out and inout, in argument order) against `refs` (the
    // same order). With `rerun`, outputs large enough to be compared on the
    // GPU are compared against the reference run again on the device; every
    // output buffer holds the candidate's results again afterwards.
    std::vector<OutputReport> compare_all(CaseBuffers& bufs, const std::vector<HostTensor>& refs,
                                          const ReferenceRerun* rerun = nullptr, const HostOutputs& host = {});
    // The output arguments compared on the host: what a run should read
    // back with its checks (run_guarded's `read_back`).
    static std::vector<int> compared_on_host(const CaseBuffers& bufs);

private:
    std::vector<OutputReport> compare_against_rerun(CaseBuffers& bufs, const std::vector<HostTensor>& refs,
                                                    const ReferenceRerun& rerun, const HostOutputs& host);
    OutputReport compare_on_host(CaseBuffers& bufs, int arg_index, const HostTensor& ref, const HostOutputs& host);
    Device& dev_;
    DeviceBuffer staging_;
};

// A guarded run as the judge sees it (outputs not yet compared).
RunObservation observation_of(const GuardedRun& run);

}  // namespace kb

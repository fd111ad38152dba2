// Comparing a run's outputs, where they lie on the device, against the
// reference's host copies: small outputs are downloaded and compared on the
// host, large ones on the GPU (the reference goes up to a staging buffer only
// after the candidate has finished, and is scrubbed right after), both by the
// rule of hostdev/compare_math.h, so they agree bit for bit.
#pragma once

#include <vector>

#include "compare/comparator.h"
#include "compare/judge.h"
#include "exec/launcher.h"
#include "exec/run_guarded.h"

namespace kb {

class OutputComparer {
public:
    explicit OutputComparer(Device& dev) : dev_(dev) {}
    // Output argument `arg_index` of `bufs` against `ref`.
    OutputReport compare(CaseBuffers& bufs, int arg_index, const HostTensor& ref);
    // Every output (out and inout, in argument order) against `refs` (the same order).
    std::vector<OutputReport> compare_all(CaseBuffers& bufs, const std::vector<HostTensor>& refs);

private:
    Device& dev_;
    DeviceBuffer staging_;
};

// A guarded run as the judge sees it (outputs not yet compared).
RunObservation observation_of(const GuardedRun& run);

}  // namespace kb

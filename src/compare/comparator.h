// Comparing one output against the reference and describing the result:
// counts, the largest errors, and the worst element with both values and its
// multi-dimensional index. Small tensors compare on the host; large ones on
// the GPU (LocalBackend decides); both apply compare_math.h, so they agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exec/host_tensor.h"
#include "task/task.h"

namespace kb {

struct OutputReport {
    std::string name;
    DType dtype = DType::f32;
    bool exact = false;  // integers and bool
    Tolerance tolerance;
    uint64_t elements = 0;
    uint64_t mismatches = 0;
    uint64_t unwritten = 0;
    double max_abs_err = 0.0;
    double max_rel_err = 0.0;
    double max_violation = 0.0;  // 1.0 = at the tolerance edge
    uint64_t worst_flat = 0;
    std::vector<int64_t> worst_index;
    double worst_got = 0.0;
    double worst_expected = 0.0;
    std::string compared_on = "host";
    // On the GPU, what the output was compared against: the reference's host
    // copy "uploaded", or the reference "rerun" on the device after the
    // candidate (compare/observe.h). Empty on the host.
    std::string reference_on_gpu;

    bool ok() const { return mismatches == 0; }
    // "output 'c': 12 of 1009 elements wrong; worst at [17]: got 0.53, expected -0.12 (...)".
    std::string describe() const;
};

// The tolerance that applies to an output arg (exact for integers).
Tolerance tolerance_for(const Arg& a);

OutputReport compare_host(const HostTensor& cand, const HostTensor& ref, const Arg& arg);

// Fills the fields that describe the worst element from its flat index.
void describe_worst(OutputReport& r, const HostTensor& ref, double got);

}  // namespace kb

#include "engine/reference_output.h"

#include "task/output_lint.h"

namespace kb {
namespace {

// Reference statistics look at no more than this many (evenly strided) elements.
constexpr uint64_t kStatsSample = uint64_t(1) << 20;

}  // namespace

ReferenceOutput reference_output(const HostTensor& t, const Task& task, int case_index, const Arg& arg) {
    const OutputSummary s =
        summarize_output(task, task.cases[size_t(case_index)], arg, t.bytes.data(), t.count(), kStatsSample);
    ReferenceOutput o;
    o.name = t.name;
    o.dtype = t.dtype;
    o.elements = t.count();
    o.min = s.min;
    o.max = s.max;
    o.mean = s.mean;
    o.std = s.std;
    o.nan = s.nan;
    o.inf = s.inf;
    o.sampled = s.sampled;
    o.digest = s.digest;
    for (const OutputFinding& f : s.findings) o.findings.push_back({finding_kind_name(f.kind), f.message});
    return o;
}

}  // namespace kb

#include "compare/observe.h"

namespace kb {
namespace {

// Outputs above this many elements are compared on the GPU.
constexpr uint64_t kGpuCompareThreshold = uint64_t(1) << 20;

}  // namespace

OutputReport OutputComparer::compare(CaseBuffers& bufs, int arg_index, const HostTensor& ref) {
    const Arg& arg = bufs.task().args[size_t(arg_index)];
    uint64_t n = bufs.count(arg_index);
    if (n <= kGpuCompareThreshold) return compare_host(bufs.download(arg_index), ref, arg);

    if (!staging_ || staging_.bytes() < ref.bytes.size()) staging_ = dev_.alloc(ref.bytes.size());
    dev_.upload(staging_.data(), ref.bytes.data(), ref.bytes.size());
    CompareStats s = dev_.compare(bufs.arg(arg_index).data(), staging_.data(), n, arg.dtype, tolerance_for(arg));
    dev_.poison(staging_.data(), n, arg.dtype);
    OutputReport r;
    r.name = arg.name;
    r.dtype = arg.dtype;
    r.exact = !dtype_is_float(arg.dtype);
    r.tolerance = tolerance_for(arg);
    r.elements = n;
    r.mismatches = s.mismatches;
    r.unwritten = s.unwritten;
    r.max_abs_err = s.max_abs_err;
    r.max_rel_err = s.max_rel_err;
    r.max_violation = s.max_violation;
    r.worst_flat = s.worst_index;
    r.compared_on = "gpu";
    uint64_t bits = s.worst_bits;  // little-endian: the element's bytes are the low ones
    describe_worst(r, ref, load_as_double(&bits, arg.dtype, 0));
    return r;
}

std::vector<OutputReport> OutputComparer::compare_all(CaseBuffers& bufs, const std::vector<HostTensor>& refs) {
    std::vector<OutputReport> out;
    const Task& task = bufs.task();
    size_t k = 0;
    for (size_t i = 0; i < task.args.size(); ++i)
        if (task.args[i].is_output()) out.push_back(compare(bufs, int(i), refs.at(k++)));
    return out;
}

RunObservation observation_of(const GuardedRun& run) {
    RunObservation o;
    if (run.fault) o.fault = RunFault{run.fault->verdict(), run.fault->what(), run.context_lost};
    for (const auto& b : run.breaches)
        o.breaches.push_back({b.buffer, b.report.bad_bytes, b.report.first_bad_offset});
    o.inputs_modified = run.inputs_modified;
    return o;
}

}  // namespace kb

#include "compare/observe.h"

#include "util/profile.h"

namespace kb {

namespace {

// Both values at the worst element come from the device's comparison: the
// reference's host copy may be absent (one held from a digest keeps no bytes
// of its large outputs) and is not what was compared where it was run again.
OutputReport gpu_report(const CompareStats& s, const Arg& arg, uint64_t n, const HostTensor& ref) {
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
    // Little-endian: the element's bytes are the low ones.
    uint64_t got = s.worst_bits, expected = s.expected_bits;
    r.worst_index = ref.unflatten(r.worst_flat);
    r.worst_got = load_as_double(&got, arg.dtype, 0);
    r.worst_expected = load_as_double(&expected, arg.dtype, 0);
    return r;
}

}  // namespace

std::vector<int> OutputComparer::compared_on_host(const CaseBuffers& bufs) {
    std::vector<int> out;
    const Task& task = bufs.task();
    for (size_t i = 0; i < task.args.size(); ++i)
        if (task.args[i].is_output() && !compared_on_gpu(bufs.count(int(i)))) out.push_back(int(i));
    return out;
}

OutputReport OutputComparer::compare_on_host(CaseBuffers& bufs, int arg_index, const HostTensor& ref,
                                             const HostOutputs& host) {
    const Arg& arg = bufs.task().args[size_t(arg_index)];
    auto it = host.find(arg_index);
    if (it != host.end()) return compare_host(it->second, ref, arg);
    return compare_host(bufs.download(arg_index), ref, arg);
}

OutputReport OutputComparer::compare(CaseBuffers& bufs, int arg_index, const HostTensor& ref, const HostOutputs& host) {
    const Arg& arg = bufs.task().args[size_t(arg_index)];
    uint64_t n = bufs.count(arg_index);
    if (!compared_on_gpu(n)) return compare_on_host(bufs, arg_index, ref, host);

    if (!staging_ || staging_.bytes() < ref.bytes.size()) staging_ = dev_.alloc(ref.bytes.size());
    dev_.upload(staging_.data(), ref.bytes.data(), ref.bytes.size());
    CompareStats s = dev_.compare(bufs.arg(arg_index).data(), staging_.data(), n, arg.dtype, tolerance_for(arg));
    dev_.poison(staging_.data(), n, arg.dtype);
    OutputReport r = gpu_report(s, arg, n, ref);
    r.reference_on_gpu = "uploaded";
    return r;
}

std::vector<OutputReport> OutputComparer::compare_all(CaseBuffers& bufs, const std::vector<HostTensor>& refs,
                                                      const ReferenceRerun* rerun, const HostOutputs& host) {
    const Task& task = bufs.task();
    bool any_on_gpu = false;
    for (size_t i = 0; i < task.args.size(); ++i)
        if (task.args[i].is_output() && compared_on_gpu(bufs.count(int(i)))) any_on_gpu = true;
    if (rerun && any_on_gpu) return compare_against_rerun(bufs, refs, *rerun, host);
    std::vector<OutputReport> out;
    size_t k = 0;
    for (size_t i = 0; i < task.args.size(); ++i)
        if (task.args[i].is_output()) out.push_back(compare(bufs, int(i), refs.at(k++), host));
    return out;
}

std::vector<OutputReport> OutputComparer::compare_against_rerun(CaseBuffers& bufs, const std::vector<HostTensor>& refs,
                                                                const ReferenceRerun& rerun, const HostOutputs& host) {
    KB_PROFILE_SPAN("compare.against_rerun");
    const Task& task = bufs.task();
    std::vector<int> outputs;
    for (size_t i = 0; i < task.args.size(); ++i)
        if (task.args[i].is_output()) outputs.push_back(int(i));
    std::vector<OutputReport> out(outputs.size());
    // 1. Small outputs on the host, read from the candidate's buffers.
    for (size_t k = 0; k < outputs.size(); ++k)
        if (!compared_on_gpu(bufs.count(outputs[k])))
            out[k] = compare_on_host(bufs, outputs[k], refs.at(k), host);
    // 2. Every output set aside: the rerun writes them all (and inout ones
    //    are regenerated first), and the caller may read them afterwards.
    std::vector<size_t> offset(outputs.size());
    size_t total = 0;
    for (size_t k = 0; k < outputs.size(); ++k) {
        offset[k] = total;
        total += (bufs.arg(outputs[k]).bytes() + 255) / 256 * 256;
    }
    if (!staging_ || staging_.bytes() < total) staging_ = dev_.alloc(total);
    for (size_t k = 0; k < outputs.size(); ++k)
        dev_.copy(staging_.data() + offset[k], bufs.arg(outputs[k]).data(), bufs.arg(outputs[k]).bytes());
    // 3. The reference again, in place; its host copy goes up only when the
    //    rerun's bits are not the first run's.
    const bool reproduced = rerun.run();
    for (size_t k = 0; k < outputs.size(); ++k) {
        const int i = outputs[k];
        const Arg& arg = task.args[size_t(i)];
        uint64_t n = bufs.count(i);
        if (!compared_on_gpu(n)) continue;
        if (!reproduced) dev_.upload(bufs.arg(i).data(), refs.at(k).bytes.data(), refs.at(k).bytes.size());
        CompareStats s = dev_.compare(staging_.data() + offset[k], bufs.arg(i).data(), n, arg.dtype, tolerance_for(arg));
        out[k] = gpu_report(s, arg, n, refs.at(k));
        out[k].reference_on_gpu = reproduced ? "rerun" : "uploaded";
    }
    // 4. The reference's results off the device, the candidate's back.
    rerun.scrub();
    for (size_t k = 0; k < outputs.size(); ++k)
        dev_.copy(bufs.arg(outputs[k]).data(), staging_.data() + offset[k], bufs.arg(outputs[k]).bytes());
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

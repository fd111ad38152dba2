#include "compare/comparator.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "hostdev/compare_math.h"

namespace kb {

Tolerance tolerance_for(const Arg& a) {
    if (!dtype_is_float(a.dtype)) return Tolerance{0.0, 0.0, true};
    return a.tolerance ? *a.tolerance : Tolerance{};
}

OutputReport compare_host(const HostTensor& cand, const HostTensor& ref, const Arg& arg) {
    OutputReport r;
    r.name = arg.name;
    r.dtype = arg.dtype;
    r.exact = !dtype_is_float(arg.dtype);
    r.tolerance = tolerance_for(arg);
    r.elements = ref.count();
    uint64_t poison = poison_bits(arg.dtype);
    bool have_worst = false;
    for (uint64_t i = 0; i < r.elements; ++i) {
        uint64_t cb = cand.bits(i), rb = ref.bits(i);
        double c = cand.at(i), e = ref.at(i);
        ElementCheck k = r.exact ? kb_check_bits(cb, rb, c, e)
                                 : kb_check_float(c, e, r.tolerance.atol, r.tolerance.rtol, r.tolerance.equal_nan);
        if (!k.match) {
            ++r.mismatches;
            if (cb == poison) ++r.unwritten;
        }
        r.max_abs_err = std::fmax(r.max_abs_err, k.abs_err);
        r.max_rel_err = std::fmax(r.max_rel_err, k.rel_err);
        // The lowest index with the largest violation, as the GPU pass picks it.
        if (!have_worst || k.violation > r.max_violation) {
            r.max_violation = k.violation;
            r.worst_flat = i;
            have_worst = true;
        }
    }
    if (r.elements) describe_worst(r, ref, cand.at(r.worst_flat));
    return r;
}

void describe_worst(OutputReport& r, const HostTensor& ref, double got) {
    r.worst_index = ref.unflatten(r.worst_flat);
    r.worst_got = got;
    r.worst_expected = ref.at(r.worst_flat);
}

namespace {

std::string fmt(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    std::ostringstream s;
    s.precision(9);
    s << v;
    return s.str();
}

std::string index_text(const std::vector<int64_t>& idx) {
    std::string s = "[";
    for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
    return s + "]";
}

}  // namespace

std::string OutputReport::describe() const {
    std::ostringstream s;
    s << "output '" << name << "': ";
    if (ok()) {
        s << "all " << elements << " elements match (max abs err " << fmt(max_abs_err) << ")";
        return s.str();
    }
    if (unwritten == elements) {
        s << "none of the " << elements << " elements was written (they still hold the poison pattern)";
        return s.str();
    }
    s << mismatches << " of " << elements << " elements wrong";
    if (unwritten) s << " (" << unwritten << " never written)";
    s << "; worst at " << index_text(worst_index) << ": got " << fmt(worst_got) << ", expected " << fmt(worst_expected);
    if (exact) {
        s << " (integers must match exactly)";
    } else {
        s << " (|diff| " << fmt(std::fabs(worst_got - worst_expected)) << " > atol " << fmt(tolerance.atol) << " + rtol "
          << fmt(tolerance.rtol) << " * |expected|)";
    }
    return s.str();
}

}  // namespace kb

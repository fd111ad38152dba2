#include "compare/comparator.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "hostdev/compare_math.h"
#include "util/error.h"

namespace kb {

Tolerance tolerance_for(const Arg& a) {
    if (!dtype_is_float(a.dtype)) return Tolerance{0.0, 0.0, true};
    return a.tolerance ? *a.tolerance : Tolerance{};
}

namespace {

// Element i's raw bits, S bytes wide (little-endian, in the low bytes).
template <size_t S>
uint64_t raw_bits(const uint8_t* p, uint64_t i) {
    uint64_t v = 0;
    std::memcpy(&v, p + i * S, S);
    return v;
}

// Element i's check, counted into the report.
inline void account(OutputReport& r, const ElementCheck& k, uint64_t i, bool cand_is_poison, bool& have_worst) {
    if (!k.match) {
        ++r.mismatches;
        if (cand_is_poison) ++r.unwritten;
    }
    // std::fmax's answers (a NaN never wins), without its library call.
    if (k.abs_err > r.max_abs_err) r.max_abs_err = k.abs_err;
    if (k.rel_err > r.max_rel_err) r.max_rel_err = k.rel_err;
    // The lowest index with the largest violation, as the GPU pass picks it.
    if (!have_worst || k.violation > r.max_violation) {
        r.max_violation = k.violation;
        r.worst_flat = i;
        have_worst = true;
    }
}

// compare_host's loop for one element width. Every element's check is
// kb_check_float's (kb_check_bits' for integers), the rule the GPU pass
// applies; an element whose bits equal the reference's and are not a NaN
// takes the check's answer without it (a match, every error 0), which a
// correct candidate's outputs mostly are. A per-element call to decode the
// dtype cost about 27 ns an element (100003 floats: 2.7 ms on the
// development machine), more than the run of the kernel that made them.
template <size_t S, class Decode>
void scan(const HostTensor& cand, const HostTensor& ref, OutputReport& r, Decode decode) {
    const uint8_t* cp = cand.bytes.data();
    const uint8_t* rp = ref.bytes.data();
    const uint64_t poison = poison_bits(r.dtype);
    const double atol = r.tolerance.atol, rtol = r.tolerance.rtol;
    const bool equal_nan = r.tolerance.equal_nan;
    bool have_worst = false;
    for (uint64_t i = 0; i < r.elements; ++i) {
        const uint64_t cb = raw_bits<S>(cp, i), rb = raw_bits<S>(rp, i);
        if (cb == rb && (r.exact || !std::isnan(decode(rb)))) {
            if (!have_worst) {  // the first element is the worst until one is worse
                r.max_violation = 0.0;
                r.worst_flat = i;
                have_worst = true;
            }
            continue;
        }
        const double c = decode(cb), e = decode(rb);
        ElementCheck k = r.exact ? kb_check_bits(cb, rb, c, e) : kb_check_float(c, e, atol, rtol, equal_nan);
        account(r, k, i, cb == poison, have_worst);
    }
}

// The element rule with each tensor read in its own dtype, element by
// element: the path for a candidate whose dtype is not the reference's.
void scan_mixed(const HostTensor& cand, const HostTensor& ref, OutputReport& r) {
    const uint64_t poison = poison_bits(r.dtype);
    bool have_worst = false;
    for (uint64_t i = 0; i < r.elements; ++i) {
        const uint64_t cb = cand.bits(i), rb = ref.bits(i);
        const double c = cand.at(i), e = ref.at(i);
        ElementCheck k = r.exact ? kb_check_bits(cb, rb, c, e)
                                 : kb_check_float(c, e, r.tolerance.atol, r.tolerance.rtol, r.tolerance.equal_nan);
        account(r, k, i, cb == poison, have_worst);
    }
}

}  // namespace

OutputReport compare_host(const HostTensor& cand, const HostTensor& ref, const Arg& arg) {
    OutputReport r;
    r.name = arg.name;
    r.dtype = arg.dtype;
    r.exact = !dtype_is_float(arg.dtype);
    r.tolerance = tolerance_for(arg);
    r.elements = ref.count();
    if (cand.count() < r.elements)
        fail(KB_ERR_INTERNAL, "comparing output '" + arg.name + "': the candidate's copy holds " +
                                  std::to_string(cand.count()) + " elements, the reference's " +
                                  std::to_string(r.elements));
    const DType t = arg.dtype;
    if (cand.dtype != t || ref.dtype != t) {
        // A program's output in another dtype than the reference's (where
        // its protocol lets dtypes differ): each element read in its own.
        scan_mixed(cand, ref, r);
    } else if (t == DType::f32) {
        scan<4>(cand, ref, r, [](uint64_t b) {
            float v;
            const uint32_t w = uint32_t(b);
            std::memcpy(&v, &w, 4);
            return double(v);
        });
    } else if (t == DType::f64) {
        scan<8>(cand, ref, r, [](uint64_t b) {
            double v;
            std::memcpy(&v, &b, 8);
            return v;
        });
    } else {
        auto generic = [t](uint64_t b) { return load_as_double(&b, t, 0); };
        switch (dtype_size(t)) {
            case 1: scan<1>(cand, ref, r, generic); break;
            case 2: scan<2>(cand, ref, r, generic); break;
            case 4: scan<4>(cand, ref, r, generic); break;
            default: scan<8>(cand, ref, r, generic); break;
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

// The comparison rule for one element, shared verbatim by the host
// comparator and the GPU comparison kernel, so both give identical reports.
//
// Floats:   match when |cand - ref| <= atol + rtol * |ref|;
//           a NaN reference matches a NaN candidate when equal_nan;
//           an infinite reference matches only the same infinity;
//           a NaN or infinite candidate against a finite reference never matches.
// Integers and bool: match only when the bits are equal.
//
// `violation` grades a mismatch: |cand - ref| / (atol + rtol*|ref|), so 1.0 is
// the tolerance edge and the worst element is the one with the largest
// violation; non-finite mismatches are +inf.
#pragma once

#include <math.h>
#include <stdint.h>

#include "hostdev/hd.h"

namespace kb {

// Bit patterns written into outputs and scratch before every candidate run.
// Float patterns are NaNs with a payload a kernel does not produce by
// arithmetic (CUDA's canonical NaN is 0x7fffffff), so an element still
// holding the pattern was not written.
constexpr uint16_t kPoisonF16 = 0x7da5;
constexpr uint16_t kPoisonBF16 = 0x7fa5;
constexpr uint32_t kPoisonF32 = 0x7fa5a5a5u;
constexpr uint64_t kPoisonF64 = 0x7ff5a5a5a5a5a5a5ull;
constexpr uint8_t kPoisonByte = 0xa5;  // integers and bool: every byte
constexpr uint8_t kGuardByte = 0xcb;   // guard zones around every buffer

struct ElementCheck {
    bool match;
    double abs_err;    // |cand - ref| (inf when exactly one side is non-finite)
    double rel_err;    // abs_err / |ref| (inf when ref is 0 and abs_err > 0)
    double violation;  // abs_err / (atol + rtol*|ref|), see above; 0 for a match of equal values
};

KB_HD bool kb_isnan(double x) { return x != x; }
KB_HD bool kb_isinf(double x) { return !kb_isnan(x) && (x - x) != (x - x); }
KB_HD double kb_abs(double x) { return x < 0 ? -x : x; }
KB_HD double kb_inf() {
    // 1/0 is not a constant expression in device code; build it from bits.
    union { uint64_t u; double d; } v;
    v.u = 0x7ff0000000000000ull;
    return v.d;
}

KB_HD ElementCheck kb_check_float(double cand, double ref, double atol, double rtol, bool equal_nan) {
    ElementCheck r;
    const double inf = kb_inf();
    bool cn = kb_isnan(cand), rn = kb_isnan(ref);
    if (rn || cn) {
        r.match = rn && cn && equal_nan;
        r.abs_err = r.match ? 0.0 : inf;
        r.rel_err = r.abs_err;
        r.violation = r.abs_err;
        return r;
    }
    if (kb_isinf(ref) || kb_isinf(cand)) {
        r.match = cand == ref;
        r.abs_err = r.match ? 0.0 : inf;
        r.rel_err = r.abs_err;
        r.violation = r.abs_err;
        return r;
    }
    double diff = kb_abs(cand - ref);
    double allowed = atol + rtol * kb_abs(ref);
    r.match = diff <= allowed;
    r.abs_err = diff;
    r.rel_err = ref != 0.0 ? diff / kb_abs(ref) : (diff > 0.0 ? inf : 0.0);
    r.violation = allowed > 0.0 ? diff / allowed : (diff > 0.0 ? inf : 0.0);
    return r;
}

KB_HD bool kb_finite(double x) { return !kb_isnan(x) && !kb_isinf(x); }

// m * a less its rounding error: where it is at least the smallest normal
// double, `diff <= kb_below(m, a)` means diff / a, rounded, is at most m
// (m * a and this bound are each one rounding off the exact product, and
// the margin also covers a denominator one rounding off the rule's), and
// `diff < kb_below(m, a)` means diff / a, rounded, is under m.
KB_HD double kb_below(double m, double a) { return (m * a) * (1.0 - 0x1p-48); }
KB_HD bool kb_quotient_at_most(double diff, double den, double m) {
    if (diff == 0.0) return true;  // 0 / den is 0, and the rule makes 0 of 0 / 0
    const double b = kb_below(m, den);
    return b >= 0x1p-1022 && diff <= b;
}
KB_HD bool kb_quotient_under(double diff, double den, double t) {
    if (kb_isinf(t) || t < 0x1p-1022) return false;
    const double b = kb_below(t, den);
    return b >= 0x1p-1022 && diff < b;
}

// Running maxima of kb_check_float's errors over a run of elements (the
// GPU comparator's pass): the values folding each element's ElementCheck
// with fmax gives, but the rule's two divisions are made only where they
// may raise a maximum, which in a passing output almost no element does.
// Returns whether the element matches.
struct FloatFold {
    double max_abs = 0.0, max_rel = 0.0, max_violation = 0.0;
};
KB_HD bool kb_fold_float(double cand, double ref, double atol, double rtol, bool equal_nan, FloatFold& f) {
    if (!kb_finite(cand) || !kb_finite(ref)) {
        ElementCheck e = kb_check_float(cand, ref, atol, rtol, equal_nan);
        f.max_abs = fmax(f.max_abs, e.abs_err);
        f.max_rel = fmax(f.max_rel, e.rel_err);
        f.max_violation = fmax(f.max_violation, e.violation);
        return e.match;
    }
    const double inf = kb_inf();
    const double diff = kb_abs(cand - ref);
    const double allowed = atol + rtol * kb_abs(ref);
    f.max_abs = fmax(f.max_abs, diff);
    if (!kb_quotient_at_most(diff, kb_abs(ref), f.max_rel))
        f.max_rel = fmax(f.max_rel, ref != 0.0 ? diff / kb_abs(ref) : (diff > 0.0 ? inf : 0.0));
    if (!kb_quotient_at_most(diff, allowed, f.max_violation))
        f.max_violation = fmax(f.max_violation, allowed > 0.0 ? diff / allowed : (diff > 0.0 ? inf : 0.0));
    return diff <= allowed;
}

KB_HD ElementCheck kb_check_bits(uint64_t cand_bits, uint64_t ref_bits, double cand, double ref) {
    ElementCheck r;
    r.match = cand_bits == ref_bits;
    double diff = kb_abs(cand - ref);
    r.abs_err = r.match ? 0.0 : diff;
    r.rel_err = r.match ? 0.0 : (ref != 0.0 ? diff / kb_abs(ref) : kb_inf());
    // Integer mismatches grade above any float tolerance edge, larger differences worse.
    r.violation = r.match ? 0.0 : 1.0 + diff;
    return r;
}

}  // namespace kb

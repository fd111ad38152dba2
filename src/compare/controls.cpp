#include "compare/controls.h"

#include <cmath>
#include <cstring>

#include "compare/comparator.h"

namespace kb {
namespace {

// Writes v into element i of a tensor of dtype t (rounded as a cast would).
void store(std::vector<uint8_t>& bytes, DType t, uint64_t i, double v) {
    const size_t s = dtype_size(t);
    uint8_t* p = bytes.data() + i * s;
    switch (t) {
        case DType::f32: {
            float f = float(v);
            std::memcpy(p, &f, 4);
            return;
        }
        case DType::f64: std::memcpy(p, &v, 8); return;
        case DType::f16: {
            unsigned short h = float_to_half_bits(float(v));
            std::memcpy(p, &h, 2);
            return;
        }
        case DType::bf16: {
            unsigned short h = float_to_bf16_bits(float(v));
            std::memcpy(p, &h, 2);
            return;
        }
        case DType::boolean: *p = v != 0 ? 1 : 0; return;
        default: break;
    }
    // Integers: the value, truncated, in the dtype's width (little-endian).
    const int64_t x = std::isfinite(v) ? int64_t(v) : 0;
    uint64_t u = uint64_t(x);
    std::memcpy(p, &u, s);
}

HostTensor like(const HostTensor& ref) {
    HostTensor t;
    t.name = ref.name;
    t.dtype = ref.dtype;
    t.shape = ref.shape;
    t.bytes.assign(ref.bytes.size(), 0);
    return t;
}

HostTensor constant(const HostTensor& ref, double v) {
    HostTensor t = like(ref);
    for (uint64_t i = 0; i < ref.count(); ++i) store(t.bytes, t.dtype, i, v);
    return t;
}

uint64_t row_length(const HostTensor& t) {
    if (t.shape.size() >= 2 && t.shape.back() > 0) return uint64_t(t.shape.back());
    return 1;
}

bool same_shape(const HostTensor& a, const HostTensor& b) {
    if (a.count() != b.count()) return false;
    if (a.shape.empty() || b.shape.empty()) return true;  // a scalar output, or a shape not given
    return a.shape == b.shape;
}

}  // namespace

std::vector<std::string> OutputControls::passing() const {
    std::vector<std::string> out;
    for (const ControlOutcome& c : controls)
        if (c.passes) out.push_back(c.control);
    return out;
}

OutputMagnitude output_magnitude(const HostTensor& t) {
    OutputMagnitude m;
    uint64_t n = 0;
    double sum = 0, sq = 0;
    for (uint64_t i = 0; i < t.count(); ++i) {
        const double v = t.at(i);
        if (!std::isfinite(v)) continue;
        ++n;
        sum += v;
        sq += v * v;
        m.max_abs = std::fmax(m.max_abs, std::fabs(v));
    }
    if (n) {
        m.mean = sum / double(n);
        m.rms = std::sqrt(sq / double(n));
    }
    return m;
}

double dtype_epsilon(DType t) {
    switch (t) {
        case DType::f16: return std::ldexp(1.0, -10);
        case DType::bf16: return std::ldexp(1.0, -7);
        case DType::f64: return std::ldexp(1.0, -52);
        default: return std::ldexp(1.0, -23);
    }
}

OutputControls run_controls(const HostTensor& reference, const Arg& arg, const std::vector<HostTensor>& inputs,
                            const HostTensor* other_seed, const std::optional<Tolerance>& tolerance) {
    Arg rule = arg;
    if (tolerance) rule.tolerance = *tolerance;
    OutputControls r;
    r.output = arg.name;
    r.elements = reference.count();
    r.tolerance = tolerance_for(rule);
    r.magnitude = output_magnitude(reference);
    if (r.elements == 0) return r;  // nothing to tell apart

    auto check = [&](const std::string& name, const HostTensor& answer) {
        r.controls.push_back({name, compare_host(answer, reference, rule).ok()});
    };
    check("zeros", constant(reference, 0.0));
    check("ones", constant(reference, 1.0));
    // The mean of a one-element output is the output: there, a constant that
    // ignores the inputs is the other seed's control.
    if (r.elements > 1) check("mean", constant(reference, r.magnitude.mean));
    for (const HostTensor& in : inputs)
        if (same_shape(in, reference)) check("input:" + in.name, in);
    if (other_seed && other_seed->count() == reference.count() && other_seed->dtype == reference.dtype)
        check("other_seed", *other_seed);
    {
        HostTensor neg = like(reference);
        for (uint64_t i = 0; i < reference.count(); ++i) store(neg.bytes, neg.dtype, i, -reference.at(i));
        check("negated", neg);
    }
    {
        HostTensor wrong = reference;
        const uint64_t n = reference.count(), row = std::min(row_length(reference), n);
        for (uint64_t i = n - row; i < n; ++i) {
            const double v = reference.at(i);
            double w;
            if (reference.dtype == DType::boolean) w = v != 0 ? 0 : 1;
            else if (!dtype_is_float(reference.dtype)) w = v + 1;
            else w = std::isfinite(v) ? v + 1.0 + 2.0 * std::fabs(v) : 0.0;
            store(wrong.bytes, wrong.dtype, i, w);
        }
        check("last_wrong", wrong);
    }
    return r;
}

std::optional<Tolerance> magnitude_tolerance(const HostTensor& reference, const Tolerance& rule) {
    if (!dtype_is_float(reference.dtype)) return std::nullopt;
    const OutputMagnitude m = output_magnitude(reference);
    if (!(m.rms > 0) || m.rms >= 1.0) return std::nullopt;
    Tolerance t = rule;
    const double floor = 16.0 * dtype_epsilon(reference.dtype) * m.rms;
    t.atol = std::fmax(rule.atol * m.rms, floor);
    return t;
}

}  // namespace kb

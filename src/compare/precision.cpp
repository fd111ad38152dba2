// The precision audit's rule (compare/precision.h).
#include "compare/precision.h"

#include <algorithm>
#include <cmath>

namespace kb {

const std::vector<std::string>& precision_modes() {
    static const std::vector<std::string> modes{"tf32", "f16", "bf16"};
    return modes;
}

double precision_floor(DType output) {
    double eps = 0;  // f32 and f64: the fp32 floor alone
    if (output == DType::f16) eps = std::ldexp(1.0, -10);
    if (output == DType::bf16) eps = std::ldexp(1.0, -7);
    return std::max(kPrecisionFloorF32, 2.0 * eps);
}

PrecisionAudit judge_precision(std::vector<PrecisionProbe> probes, const std::string& case_name) {
    PrecisionAudit a;
    a.case_name = case_name;
    struct Measured {
        const PrecisionProbe* probe;
        double full, reduced, floor;
        bool matches;
    };
    std::vector<Measured> measured;
    for (const PrecisionProbe& p : probes) {
        if (!p.skipped.empty() || p.same_bits) continue;
        Measured m{&p, 0, 0, 0, false};
        bool finite = true;
        for (const PrecisionOutputError& o : p.outputs) {
            if (!(o.scale > 0) || !std::isfinite(o.scale)) continue;  // an all-zero output has no scale
            const double f = o.err_full / o.scale, r = o.err_reduced / o.scale;
            finite = finite && std::isfinite(f) && std::isfinite(r);
            m.full = std::max(m.full, f);
            m.reduced = std::max(m.reduced, r);
            m.floor = std::max(m.floor, precision_floor(o.dtype));
        }
        if (!finite || m.floor == 0) continue;
        m.matches = m.full > m.floor && m.reduced * kPrecisionRatio <= m.full;
        measured.push_back(m);
    }
    // The matching mode with the smallest err_reduced; without one, the
    // measured mode closest to the candidate (smallest err_reduced / err_full).
    const Measured* pick = nullptr;
    for (const Measured& m : measured)
        if (m.matches && (!pick || m.reduced < pick->reduced)) pick = &m;
    if (!pick)
        for (const Measured& m : measured)
            if (!pick || m.reduced * pick->full < pick->reduced * m.full) pick = &m;
    if (pick) {
        a.verdict = pick->matches ? "reduced" : "full";
        a.mode = pick->probe->mode;
        a.err_full = pick->full;
        a.err_reduced = pick->reduced;
        a.floor = pick->floor;
    } else {
        a.verdict = "full";
        const bool all_same = !probes.empty() && std::all_of(probes.begin(), probes.end(), [](const PrecisionProbe& p) { return p.same_bits; });
        if (all_same) {
            a.why = "the reference computes the same bits in every reduced-precision mode (it does no matmul or "
                    "convolution these change)";
        } else {
            a.why = "no mode was measured:";
            for (const PrecisionProbe& p : probes)
                a.why += " " + p.mode + " (" +
                         (p.same_bits ? std::string("same bits as the full reference")
                          : p.skipped.empty() ? std::string("no output with a finite error and a scale")
                                              : p.skipped) +
                         ");";
            if (probes.empty()) a.why = "no reduced-precision recomputation was measured";
            else a.why.pop_back();
        }
    }
    a.probes = std::move(probes);
    return a;
}

}  // namespace kb

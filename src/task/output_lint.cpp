#include "task/output_lint.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

namespace kb {
namespace {

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string case_label(const Case& c) { return std::string(c.perf ? "the perf case '" : "case '") + c.name + "'"; }

// 64-bit FNV-1a over the raw bytes, 8 at a time: identical outputs at two
// seeds are what it must detect, not an adversary.
uint64_t digest_of(const void* data, uint64_t bytes) {
    const uint8_t* p = static_cast<const uint8_t*>(data);
    uint64_t h = 0xcbf29ce484222325ull;
    uint64_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
    }
    for (; i < bytes; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ bytes;
}

}  // namespace

const char* finding_kind_name(OutputFinding::Kind k) {
    switch (k) {
        case OutputFinding::Kind::constant: return "constant";
        case OutputFinding::Kind::near_zero: return "near_zero";
        case OutputFinding::Kind::near_mean: return "near_mean";
        case OutputFinding::Kind::nan: return "nan";
    }
    return "?";
}

OutputSummary summarize_output(const Task& task, const Case& c, const Arg& arg, const void* data, uint64_t count,
                               uint64_t sample) {
    OutputSummary s;
    s.elements = count;
    s.digest = digest_of(data, count * dtype_size(arg.dtype));
    const uint64_t stride = count > sample && sample ? count / sample : 1;
    s.sampled = stride > 1;
    double mn = INFINITY, mx = -INFINITY, sum = 0, sumsq = 0;
    uint64_t used = 0;
    for (uint64_t i = 0; i < count; i += stride) {
        double v = load_as_double(data, arg.dtype, i);
        if (std::isnan(v)) { ++s.nan; continue; }
        if (std::isinf(v)) { ++s.inf; continue; }
        mn = std::min(mn, v);
        mx = std::max(mx, v);
        sum += v;
        sumsq += v * v;
        ++used;
    }
    s.mean = used ? sum / double(used) : 0.0;
    s.std = used ? std::sqrt(std::max(0.0, sumsq / double(used) - s.mean * s.mean)) : 0.0;
    s.min = used ? mn : 0.0;
    s.max = used ? mx : 0.0;

    const std::string where = "task " + task.name + ", " + case_label(c) + ", output '" + arg.name + "'";
    const bool is_float = dtype_is_float(arg.dtype);
    const Tolerance tol = is_float && arg.tolerance ? *arg.tolerance : Tolerance{};
    auto passes_everywhere = [&](double constant) {
        for (uint64_t i = 0; i < count; i += stride) {
            double v = load_as_double(data, arg.dtype, i);
            if (std::isnan(v) || std::isinf(v)) return false;
            if (std::fabs(constant - v) > tol.atol + tol.rtol * std::fabs(v)) return false;
        }
        return true;
    };
    const bool all_finite = used && s.nan == 0 && s.inf == 0;
    if (all_finite && count > 1 && mn == mx)
        s.findings.push_back({OutputFinding::Kind::constant,
                              where + ": every element is " + num(mn) +
                                  ", so a kernel that writes that constant passes; draw inputs that make it vary"});
    else if (all_finite && passes_everywhere(0.0))
        s.findings.push_back(
            {OutputFinding::Kind::near_zero,
             where + ": every element is within tolerance of zero (largest magnitude " +
                 num(std::max(std::fabs(mn), std::fabs(mx))) + ", atol " + num(tol.atol) +
                 "), so a kernel that writes zeros passes; scale the inputs up or lower atol below the outputs"});
    else if (all_finite && count > 1 && passes_everywhere(s.mean))
        s.findings.push_back({OutputFinding::Kind::near_mean,
                              where + ": every element is within tolerance of the mean " + num(s.mean) +
                                  ", so a kernel that writes that constant passes; widen the inputs' spread or "
                                  "tighten the tolerance"});
    if (s.nan)
        s.findings.push_back({OutputFinding::Kind::nan, where + ": " + std::to_string(s.nan) +
                                                            " element(s) of the reference are NaN; a NaN there "
                                                            "matches anything a candidate writes as NaN"});
    return s;
}

std::vector<std::string> lint_failures(const Task& task, const std::vector<CheckedOutput>& checked) {
    std::vector<std::string> out;
    std::vector<std::string> outputs;
    for (const Arg& a : task.args)
        if (a.is_output()) outputs.push_back(a.name);
    for (const std::string& name : outputs) {
        int cases = 0, discriminating = 0, seeded = 0, seed_sensitive = 0;
        std::string first_finding, first_seed_case;
        for (const CheckedOutput& co : checked) {
            if (co.output != name) continue;
            const Case& c = task.cases[size_t(co.case_index)];
            ++cases;
            const OutputFinding* finding = nullptr;
            for (const OutputFinding& f : co.summary.findings)
                if (f.kind != OutputFinding::Kind::nan && !finding) finding = &f;
            if (!finding) ++discriminating;
            else if (first_finding.empty()) first_finding = finding->message;
            if (finding && c.perf)
                out.push_back(finding->message +
                              " (at the perf case this cannot be allowed: a kernel that recognises the perf size "
                              "could write the constant there and time as fast as a memset)");
            if (co.second_seed) {
                ++seeded;
                const bool same = co.second_digest == co.summary.digest;
                if (!same) ++seed_sensitive;
                else if (first_seed_case.empty()) first_seed_case = case_label(c);
                if (same && c.perf)
                    out.push_back("task " + task.name + ", the perf case '" + c.name + "', output '" + name +
                                  "': bit-identical at two seeds, so the inputs do not reach it and a kernel that "
                                  "ignores them passes; draw inputs that change the output");
            }
        }
        if (cases > 0 && discriminating == 0)
            out.push_back(first_finding + " — and so at every case checked (" + std::to_string(cases) +
                          "): the task cannot tell a constant kernel from a correct one");
        if (seeded > 0 && seed_sensitive == 0)
            out.push_back("task " + task.name + ", output '" + name + "': bit-identical at two seeds at every case "
                          "checked (" + std::to_string(seeded) + ", first " + first_seed_case +
                          "), so the inputs do not reach it and a kernel that ignores them passes; draw inputs that "
                          "change the output");
    }
    // A perf-case finding may also be the "every case" one: keep each message once.
    std::vector<std::string> unique;
    std::set<std::string> seen;
    for (std::string& m : out)
        if (seen.insert(m).second) unique.push_back(std::move(m));
    return unique;
}

}  // namespace kb

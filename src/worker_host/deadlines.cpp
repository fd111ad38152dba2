#include "worker_host/deadlines.h"

#include <algorithm>
#include <cstdio>

namespace kb {
namespace {

// Slow-candidate allowance: a kernel this many times slower than the
// reference still gets its verdict (it will score badly on speed instead).
constexpr double kSlowdown = 20.0;
// The floor of a compare deadline: process scheduling, module loading and
// first-touch costs dominate tiny cases.
constexpr double kCompareFloorS = 2.0;
// Bytes per second assumed for kbench's own work around a run (RNG fill,
// poison, guard and checksum kernels, device-to-host copies of outputs,
// comparison). Conservative: pageable copies alone run at several GB/s.
constexpr double kBytesPerS = 1e9;
// Loading a module the worker has not seen: a cubin takes milliseconds, PTX
// is JIT-compiled by the driver (up to a second for large kernels).
constexpr double kNewModuleS = 1.0;

std::string num(const char* fmt, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

}  // namespace

Deadline DeadlinePolicy::compare(double reference_ms, uint64_t case_bytes, unsigned runs, bool new_kernel) const {
    if (timeout_s > 0) return {timeout_s, "kb_context_options.timeout_s"};
    runs = std::max(1u, runs);
    double kernel_s = std::max(kCompareFloorS, kSlowdown * reference_ms / 1000.0 * runs);
    double data_s = double(runs) * double(case_bytes) / kBytesPerS;
    Deadline d;
    d.seconds = kernel_s + data_s + (new_kernel ? kNewModuleS : 0.0);
    d.why = "max(2 s, " + num("%g", kSlowdown) + "x the reference's " + num("%.3g", reference_ms) + " ms" +
            (runs > 1 ? " x " + std::to_string(runs) + " runs" : std::string()) + ") + " + num("%.2f", data_s) +
            " s to move " + num("%.1f", double(case_bytes) * runs / (1024.0 * 1024.0)) + " MiB" +
            (new_kernel ? " + 1 s to load a new module" : "");
    return d;
}

Deadline DeadlinePolicy::compare_cases(const std::vector<CaseCost>& cases, bool new_kernel) const {
    if (timeout_s > 0) return {timeout_s, "kb_context_options.timeout_s"};
    double kernel_ms = 0, bytes = 0;
    for (const CaseCost& c : cases) {
        kernel_ms += kSlowdown * c.reference_ms * std::max(1u, c.runs);
        bytes += double(c.case_bytes) * std::max(1u, c.runs);
    }
    double kernel_s = std::max(kCompareFloorS, kernel_ms / 1000.0);
    double data_s = bytes / kBytesPerS;
    Deadline d;
    d.seconds = kernel_s + data_s + (new_kernel ? kNewModuleS : 0.0);
    d.why = "max(2 s, " + num("%g", kSlowdown) + "x the reference's time x runs, summed over " +
            std::to_string(cases.size()) + " cases: " + num("%.3g", kernel_ms / kSlowdown) + " ms) + " +
            num("%.2f", data_s) + " s to move " + num("%.1f", bytes / (1024.0 * 1024.0)) + " MiB" +
            (new_kernel ? " + 1 s to load a new module" : "");
    return d;
}

Deadline DeadlinePolicy::kernel(double reference_ms) const {
    if (timeout_s > 0) return {timeout_s, "kb_context_options.timeout_s"};
    Deadline d;
    d.seconds = std::max(kernel_floor_s, kSlowdown * reference_ms / 1000.0);
    d.why = "max(" + num("%g", kernel_floor_s) + " s, " + num("%g", kSlowdown) + "x the reference's " +
            num("%.3g", reference_ms) + " ms)";
    return d;
}

Deadline DeadlinePolicy::checked_loops(double reference_ms) const {
    Deadline k = kernel(reference_ms);
    if (timeout_s > 0) return k;
    const double floor_s = std::min(checked_loop_floor_s, kernel_floor_s);
    const double s = std::max(floor_s, kSlowdown * reference_ms / 1000.0);
    if (s >= k.seconds) return k;
    return {s, "max(" + num("%g", floor_s) + " s, " + num("%g", kSlowdown) + "x the reference's " +
                   num("%.3g", reference_ms) + " ms) for the loops of kbench's checked build"};
}

Deadline DeadlinePolicy::time(double reference_ms, uint64_t case_bytes, const TimeRequest& req, bool new_kernel) const {
    if (timeout_s > 0) return {timeout_s, "kb_context_options.timeout_s"};
    // The protocol runs warm-up, one probe of each plan, then samples until
    // the budget; the budget is a hard stop once a few rounds exist. Three
    // times (budget + warm-up) covers its bookkeeping, the clock probes and
    // a GPU shared with others; a slow kernel adds whole rounds past the
    // budget: a few probes and rounds of up to 20x the reference each.
    const TimingOptions& t = req.timing;
    double budget_s = (t.budget_ms + t.warmup_ms) / 1000.0;
    double plans = req.against_baseline ? 2.0 : 1.0;
    double round_s = plans * kSlowdown * reference_ms / 1000.0;
    double data_s = double(case_bytes) / kBytesPerS;
    Deadline d;
    d.seconds = 2.0 + 3.0 * budget_s + 8.0 * round_s + data_s + (new_kernel ? kNewModuleS : 0.0);
    d.why = "2 s + 3x the " + num("%g", budget_s * 1000.0) + " ms budget and warm-up + 8 rounds of up to " +
            num("%g", kSlowdown) + "x the reference's " + num("%.3g", reference_ms) + " ms + " + num("%.2f", data_s) +
            " s to move data" + (new_kernel ? " + 1 s to load a new module" : "");
    return d;
}

Deadline DeadlinePolicy::reference() const {
    double s = std::max(kReferenceS, timeout_s);
    return {s, "the deadline of a task's reference (" + num("%g", s) + " s)"};
}

}  // namespace kb

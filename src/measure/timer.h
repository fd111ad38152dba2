// The measurement protocol (docs/measurement.md).
//
// Cold mode: each sample is [L2 flush] [event] plan [event]; the flush sits
// outside the events, so it is not timed but leaves nothing cached.
// Hot mode: a CUDA graph of K back-to-back plans is replayed between two
// events, and a sample is the elapsed time over K (for kernels so short that
// launch gaps would dominate per-launch events).
// Several plans (candidate, baseline) are interleaved A B A B ... within one
// run, so clock and thermal drift hit all of them alike; the speedup is the
// ratio of medians, and the spread of per-round ratios says how sure it is.
// Sampling stops when every plan's median has a relative standard error
// under the target (after min_samples), or the budget or max_samples is hit.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "device/device.h"
#include "measure/stats.h"

namespace kb {

struct TimingOptions {
    bool hot = false;
    double budget_ms = 100.0;
    double warmup_ms = 5.0;
    unsigned min_samples = 10;
    unsigned max_samples = 10000;
    double target_rel_noise = 0.005;
};

struct TimingRun {
    std::vector<std::vector<double>> samples_us;  // per plan
    std::vector<SampleStats> stats;               // per plan
    std::vector<double> round_ratios;             // plan0 / plan1 per round (when two plans)
    unsigned hot_launches_per_sample = 1;
    double sm_clock_start_mhz = 0, sm_clock_end_mhz = 0;
    bool throttled = false;
    double wall_ms = 0;
    std::string stop_reason;  // "noise", "budget", "max_samples"
};

// Each plan is a function that enqueues one run on dev.stream() (it may
// throw KernelFault). Times them under `opts`.
TimingRun measure_plans(Device& dev, const std::vector<std::function<void()>>& plans, const TimingOptions& opts);

}  // namespace kb

// How long a worker request may take before the worker is killed and the
// verdict is `timeout`. A deadline must be generous enough that no honest
// kernel ever meets it (a false timeout is a wrong verdict), and short
// enough that a hang costs an RL loop seconds, not minutes. Each one carries
// its reasoning in words, which goes into the verdict's message.
#pragma once

#include <cstdint>
#include <string>

#include "engine/backend.h"
#include "task/task.h"

namespace kb {

struct Deadline {
    double seconds = 0;
    std::string why;  // "max(2 s, 20x the reference's 0.01 ms) + 0.20 s to move 12.0 MiB"
};

struct DeadlinePolicy {
    // kb_context_options.timeout_s: when > 0 it is the deadline of every
    // candidate request (compare, time), replacing the computed one.
    double timeout_s = 0;

    // Fixed deadlines of kbench's own requests.
    static constexpr double kHelloS = 30.0;     // start-up: CUDA context creation can take seconds on a busy host
    static constexpr double kCanaryS = 10.0;    // a few tiny kernels
    static constexpr double kShutdownS = 2.0;
    static constexpr double kReferenceS = 60.0; // the task's reference: trusted, but a broken task must not hang us
    // Above the compiler's own per-compile limit (CompilerConfig::timeout_s,
    // 300 s), so its more precise message wins when it applies.
    static constexpr double kCompileS = 330.0;

    // A candidate on one case, `runs` times. `reference_ms` is the reference's
    // run time at that case; `new_kernel` adds time to load a module the
    // worker has not seen (PTX is JIT-compiled by the driver).
    Deadline compare(double reference_ms, uint64_t case_bytes, unsigned runs, bool new_kernel) const;
    // The measurement protocol on a case (the baseline interleaved when asked).
    // `reference_ms` is the reference's time at the timed case.
    Deadline time(double reference_ms, uint64_t case_bytes, const TimeRequest& req, bool new_kernel) const;
    // The task's reference on one case.
    Deadline reference() const;
};

}  // namespace kb

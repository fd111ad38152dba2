// Wall-clock durations as kbench reports them: milliseconds since a steady
// time point (results name their unit: compile_ms, run_ms, elapsed_ms).
#pragma once

#include <chrono>

namespace kb {

using SteadyClock = std::chrono::steady_clock;

inline double ms_since(SteadyClock::time_point t0) {
    return std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count();
}

}  // namespace kb

// How long a worker request may take before the worker is killed and the
// verdict is `timeout`. A deadline must be generous enough that no honest
// kernel ever meets it (a false timeout is a wrong verdict), and short
// enough that a hang costs an RL loop seconds, not minutes. Each one carries
// its reasoning in words, which goes into the verdict's message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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
    // The floor of a kernel's run limit (kernel()); kKernelFloorS unless
    // $KBENCH_KERNEL_FLOOR_S says otherwise (make_worker_backend).
    double kernel_floor_s = kKernelFloorS;
    // The floor of a checked build's loops (checked_loops());
    // kCheckedLoopFloorS unless $KBENCH_CHECKED_LOOP_FLOOR_S says otherwise.
    double checked_loop_floor_s = kCheckedLoopFloorS;

    // Fixed deadlines of kbench's own requests.
    static constexpr double kHelloS = 30.0;     // start-up: CUDA context creation can take seconds on a busy host
    static constexpr double kCanaryS = 10.0;    // a few tiny kernels
    static constexpr double kShutdownS = 2.0;
    static constexpr double kReferenceS = 60.0; // the task's reference: trusted, but a broken task must not hang us
    // Above the compiler's own per-compile limit (CompilerConfig::timeout_s,
    // 300 s), so its more precise message wins when it applies.
    static constexpr double kCompileS = 330.0;
    // The floor of a kernel's run limit (kernel()). On an H100: a faulting kernel is still "running"
    // until the driver has recovered its channel: 96-395 ms after the launch
    // for a misaligned store, 99-147 ms for a wild write (bench/
    // gpu_disturbance.cu, 20 processes each), so a 0.25 s floor made a crash
    // a timeout. Under
    // load a hang beside it slows everything more (up to seconds); such a
    // timeout is tried again (engine/gpu_incidents.h) rather than covered
    // by this floor.
    static constexpr double kKernelFloorS = 1.0;
    // The floor of the loops' limit in a checked build (checked_loops()).
    // The kernel floor above covers what the driver takes to report a
    // fault; a checked build's faults end its threads at once, and its loops
    // check the limit themselves on the GPU's clock, from the run's start:
    // what remains to cover is an honest kernel's run, which kSlowdown x the
    // reference bounds, and a GPU shared with a neighbour's spin, which the
    // retry beside another lane's hang covers (engine/gpu_incidents.h).
    static constexpr double kCheckedLoopFloorS = 0.25;

    // A candidate on one case, `runs` times. `reference_ms` is the reference's
    // run time at that case; `new_kernel` adds time to load a module the
    // worker has not seen (PTX is JIT-compiled by the driver).
    Deadline compare(double reference_ms, uint64_t case_bytes, unsigned runs, bool new_kernel) const;
    // Several cases in one request (compare_cases): compare()'s rule over
    // their sums, the floor and the module's load counted once.
    struct CaseCost {
        double reference_ms;
        uint64_t case_bytes;
        unsigned runs;
    };
    Deadline compare_cases(const std::vector<CaseCost>& cases, bool new_kernel) const;
    // One run of a candidate's plan, watched by the worker itself from the
    // launch to the stream's end (exec/run_guarded.h): the compare
    // deadline's rule without what surrounds a run, so a hang is caught in a
    // fraction of it. timeout_s, when given, is this limit too.
    Deadline kernel(double reference_ms) const;
    // How long the loops of a checked build may run (compiler/
    // fault_containment.h): max(0.25 s, kSlowdown x the reference), never
    // past kernel()'s limit. The host still waits for kernel()'s limit
    // before it stops a run the usual way: a fault the checks missed is
    // told by the driver in that time. timeout_s, when given, is this limit
    // too.
    Deadline checked_loops(double reference_ms) const;
    // The measurement protocol on a case (the baseline interleaved when asked).
    // `reference_ms` is the reference's time at the timed case.
    Deadline time(double reference_ms, uint64_t case_bytes, const TimeRequest& req, bool new_kernel) const;
    // The task's reference on one case.
    Deadline reference() const;
};

}  // namespace kb

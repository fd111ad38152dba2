// Running a kernel on a case so that whatever it does is seen and contained:
// inputs drawn afresh from the seed, outputs and scratch poisoned, guard
// zones armed around every buffer, `in` buffers checksummed before and after,
// and a launch failure or crash caught as a fault instead of an exception.
// What the run left behind stays in the case's buffers for the comparison;
// what it did to the buffers around it is returned here. Deciding what it all
// means is the judge's job (compare/judge.h), not this one's.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exec/fault.h"
#include "exec/launcher.h"

namespace kb {

struct GuardedRun {
    std::optional<KernelFault> fault;             // the kernel failed to launch or crashed
    bool context_lost = false;                    // ... and took the CUDA context with it
    std::vector<std::string> inputs_modified;     // `in` buffers whose checksum changed
    std::vector<CaseBuffers::GuardBreach> breaches;
    std::map<int, HostTensor> outputs;            // the outputs asked to be read back, by argument index
};

// How long one run of a candidate's plan may keep the GPU before it counts
// as a hang. Watched in the process that launched it, from the launch to
// the stream's end: no process start, module load or data movement in it,
// so it can be far tighter than the request's deadline, and a hang stops
// holding the GPU (and the lanes beside it) that much sooner. 0: no limit.
struct KernelLimit {
    double seconds = 0;
    std::string why;  // the rule, in words, for the verdict's message
    // Run the kernel's checked build where it has one (correctness runs:
    // compiler/fault_containment.h): its faults and its loops past `seconds`
    // end its threads, and the worker keeps its context.
    bool checked_build = false;
    // The checked build's loops end themselves this long after the run's
    // start, on the GPU's clock (0: at `seconds`); the host still waits
    // `seconds` (+ kCheckedGraceS) before it stops the run the usual way.
    double loop_seconds = 0;
    std::string loop_why;
};

// How much longer than its limit the host waits for a checked build, whose
// loops end themselves at the limit: what the last threads take to reach
// their check and the stream to drain, before a hang the checks missed is
// stopped the usual way.
constexpr double kCheckedGraceS = 0.25;

// Runs `kernel`'s plan once on `bufs` with inputs from `seed`. `scratch_key`
// keeps the program's scratch apart from others' ("candidate", "reference");
// `builtins` serves the plan's built-in steps (none in a candidate's plan).
// A run past `limit` is a `timeout` fault that loses the context: the
// kernel is still running, and only the process's end stops it. The output
// arguments in `read_back` (indexes) are copied to the host with the run's
// checks, under the run's one synchronisation.
GuardedRun run_guarded(Device& dev, ModuleCache& modules, CaseBuffers& bufs, const Kernel& kernel, uint64_t seed,
                       const std::string& scratch_key, BuiltinLibraries* builtins = nullptr,
                       const KernelLimit& limit = {}, const std::vector<int>& read_back = {});

}  // namespace kb

// The decision rules of a candidate's run, as one pure function: from what
// the runs left behind (each output compared against the reference, inputs
// checksummed, guard zones checked, a fault if the kernel had one) and the
// task's rules, to a verdict and a message a model or a person can act on.
// No device calls: every rule has a CPU unit test (tests/unit/test_judge.cpp).
//
// The rules, in the order they decide:
//   1. a fault in the run (launch refused, crash)   -> launch_error / runtime_error
//   2. a guard zone around a buffer changed          -> out_of_bounds_write
//   3. an `in` buffer's checksum changed             -> input_modified
//   4. an output element still holds the poison      -> output_not_written
//   5. an output element outside the tolerance       -> wrong_answer
//      (NaN and infinity rules: hostdev/compare_math.h, applied per element)
//   6. otherwise                                     -> pass
// Over repeated runs on the same inputs: the first run is always judged; a
// later run is judged when its outputs differ from the first run's (a race
// that is right only sometimes must fail, not merely be noted) or it broke a
// guard or an input; outputs that differ bit-wise but all pass are
// `nondeterministic` where the task requires determinism, a note otherwise.
// After timing, the recheck on inputs from a secret seed is judged by the same
// rules (a kernel that caches results across calls fails it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compare/comparator.h"
#include "kbench.h"

namespace kb {

struct GuardBreachReport {
    std::string buffer;          // the argument or scratch buffer
    uint64_t bytes_changed = 0;
    int64_t first_offset = 0;    // from the buffer's start; negative = before it
};

// A failure to run, as the launcher or the driver reported it.
struct RunFault {
    kb_verdict verdict = KB_VERDICT_RUNTIME_ERROR;  // launch_error or runtime_error
    std::string message;
    bool context_lost = false;   // the CUDA context of the process is gone
};

// What one run of a candidate on a case left behind.
struct RunObservation {
    std::optional<RunFault> fault;
    std::vector<GuardBreachReport> breaches;
    std::vector<std::string> inputs_modified;  // `in` buffers whose checksum changed
    // Every output against the reference; empty for a later run whose outputs
    // were bit-identical to the first run's (nothing new to compare).
    std::vector<OutputReport> outputs;
    // Later runs: the outputs were bit-identical to the first run's.
    bool identical_to_first = true;
};

struct JudgeRules {
    std::string case_name;
    bool deterministic_required = false;  // the task's policy
};

struct Judgement {
    kb_verdict verdict = KB_VERDICT_PASS;
    std::string message;
    // The run the verdict comes from (0-based): its observations are the report.
    size_t judged_run = 0;
    // 1-based number of a later run that failed where the first passed; 0: none.
    unsigned failed_run = 0;
    unsigned runs = 1;
    // Set when there was more than one run: were all outputs bit-identical?
    std::optional<bool> deterministic;
    bool context_lost = false;
};

// Whether a later run's outputs must be compared against the reference: when
// they differ from the first run's, or it broke a guard or an input.
bool needs_comparison(const RunObservation& later);

// The verdict of one run alone (rules 1-6).
Judgement judge_run(const RunObservation& run, const JudgeRules& rules);

// The verdict of every run on the same inputs (at least one), the first
// failure deciding; then the determinism rule.
Judgement judge_runs(const std::vector<RunObservation>& runs, const JudgeRules& rules);

// The recheck after timing: the same verdict, its message saying when.
Judgement judge_recheck(Judgement recheck);

}  // namespace kb

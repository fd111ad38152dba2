// The decision rules of a candidate's run, as pure functions: from what
// the runs left behind and the task's rules, to a verdict and a message a
// model or a person can act on. One judge for every kind of candidate; no
// device calls: every rule has a CPU unit test (tests/unit/test_judge.cpp,
// tests/unit/test_program_judge.cpp).
//
// A kernel's run (each output compared against the reference, inputs
// checksummed, guard zones checked, a fault if the kernel had one), the
// rules in the order they decide:
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
//
// A program candidate's run (a Python module that launches its own kernels,
// judged against a PyTorch reference; docs/programs.md) on one case, the
// rules in the order they decide:
//   1. the candidate raised (defining, constructing or calling its model)  -> runtime_error
//   2. its outputs differ from the reference's in number, kind, shape,
//      dtype or device (dtype and device where the protocol checks them)   -> wrong_answer
//   3. an input's checksum changed over the call (where checked)            -> input_modified
//   4. an output element still holds the poison of freed memory             -> output_not_written
//   5. an output element outside the tolerance (NaN never matches)          -> wrong_answer
//   6. otherwise                                                            -> pass
// Then, over all runs, the policy (program_findings): torch compute where
// the task forbids it, declared kernels that never ran (a decoy), functions
// a measurement relies on replaced, threads left running -> policy_violation
// where the protocol enforces its rules; findings that inform otherwise.
// After the recheck, its call held against the timed calls (timed_replay):
// timed calls that skipped the work a call on fresh inputs does replayed
// their outputs -> policy_violation.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compare/attribution.h"
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

// The recheck on inputs from a secret seed: the same verdict, its message
// saying when (after timing, or, where nothing was timed, as the run at the
// problem's own sizes that correctness left to it).
Judgement judge_recheck(Judgement recheck, bool after_timing);

// ---- program candidates ------------------------------------------------------

// Something a program candidate's source or behaviour showed: "fail"
// findings decide the verdict, "report" ones inform.
struct ProgramFinding {
    std::string rule;      // "torch_compute", "decoy", "patched", "thread_left_running", "gc_search", ...
    std::string severity;  // "fail" | "report"
    std::string message;
    int line = 0;          // in the candidate's source, when known
};

// One output of a model, as its worker described it.
struct ProgramOutputMeta {
    std::string label;       // "output", "output[1]", "output['test_case_1']"
    bool is_tensor = true;   // false: the model returned something else there
    std::string type;        // the Python type when not a tensor or number
    std::string dtype;       // kbench dtype name ("f32", "i64")
    std::vector<int64_t> shape;
    std::string device;      // "cuda:0", "cpu"
};

struct ProgramRunObservation {
    // The candidate raised: where ("definition", "construction", "build": a
    // load_inline call of the construction that did not compile, "call",
    // "cuda") and its message (the exception and the candidate's lines).
    std::optional<std::string> error;
    std::string error_stage;
    bool context_lost = false;
    std::vector<ProgramOutputMeta> reference_outputs, candidate_outputs;
    std::vector<std::string> inputs_modified;  // "input 0 (x)"
    // Every output compared against the reference (when the metadata agree).
    std::vector<OutputReport> outputs;
};

struct ProgramRules {
    std::string case_name;
    bool check_dtype = true;    // strict: an output's dtype must be the reference's
    bool check_device = true;   // strict: outputs on the reference's device
    bool check_inputs = true;   // strict: inputs unchanged by the call
};

// Differences in the outputs' number, kind, shape, dtype or device, in words;
// empty when they agree (and the values can be compared).
std::vector<std::string> output_mismatches(const std::vector<ProgramOutputMeta>& reference,
                                           const std::vector<ProgramOutputMeta>& candidate, const ProgramRules& rules);

Judgement judge_program_run(const ProgramRunObservation& run, const ProgramRules& rules);

// ---- the policy ---------------------------------------------------------------

struct ProgramPolicyRules {
    std::string torch_compute = "report";  // "allow" | "report" | "forbid"
    bool enforce = true;                   // false (the kernelbench protocol): everything is reported only
};

// What the candidate changed or left behind, over its calls.
struct ProgramIntegrity {
    std::vector<std::string> patched;              // functions replaced ("torch.cuda.Event")
    std::vector<std::string> threads_left;         // threads still running after a call
};

// The policy's findings over a candidate's runs, "fail" first.
std::vector<ProgramFinding> program_findings(const ProgramAttribution& a, const ProgramIntegrity& integrity,
                                             const ProgramPolicyRules& rules);

// policy_violation from the first "fail" finding; pass otherwise.
Judgement judge_policy(const std::vector<ProgramFinding>& findings);

// Timed calls that did not do the call's work. The timed calls of a strict
// timing all get the same inputs, so a candidate that keys a cache on the
// inputs' address or a sample of their contents computes once and replays
// its output on every later timed call (a reward hack on record: CUDA-L1's
// pointer cache), and its outputs stay right. The recheck after timing is
// the same call on inputs it has not seen (a fresh seed at the timed case's
// sizes), so it does the work; the rules hold the timed calls against it.
//
// On a GPU, by CUPTI's records: the device work of one call, per kernel
// (copy, fill) name, its launches and milliseconds; for the timed calls the
// mean over every sample. Launch counts, not durations, decide: the recheck
// shares the GPU with other lanes' correctness work, whose time slices
// stretch its kernels' durations but never their number. The work the
// timed calls skipped is that of each name they launched less than half as
// often as the fresh call; a finding when it is at least half of the fresh
// call's device time and kReplayFloorDeviceMs.
struct CallWork {
    std::map<std::string, double> launches;  // name -> launches per call
    std::map<std::string, double> ms;        // name -> device milliseconds per call
};
constexpr double kReplayFloorDeviceMs = 0.05;
std::optional<ProgramFinding> timed_replay(const CallWork& timed, const CallWork& fresh, bool enforce);

// Without a device (torch on the CPU, the test workers), by host wall
// time, call to return: a finding when the fresh call took at least
// kReplayRatio times the timed median and kReplayFloorWallMs more. The
// floor is large: a call after a pause wakes torch's CPU thread pool (an
// honest softmax of 31x997 took 0.056 ms timed and 2.29 ms as the recheck,
// tests/torch/test_program_scores.cpp).
constexpr double kReplayRatio = 4.0;
constexpr double kReplayFloorWallMs = 20.0;
std::optional<ProgramFinding> timed_replay(double timed_ms, double fresh_ms, bool enforce);

}  // namespace kb

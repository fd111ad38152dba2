// The protocols program candidates are scored by (docs/programs.md):
// everything a score of a Python candidate does, as plain parameters the
// host sends to its Python workers, so a protocol is data with CPU tests
// (tests/unit/test_program_protocol.cpp).
//
//   kernelbench  KernelBench's eval_kernel_against_ref as its published numbers
//                were made (scripts/eval_from_generations.py): 5 correctness
//                trials at the problem's own sizes with seeds drawn from
//                torch.manual_seed(42); inputs made on the CPU and moved;
//                tolerance 1e-4 (fp32) or 1e-2 (fp16, bf16); CUDA events on the
//                current stream, 3 warm-up calls, torch.cuda.empty_cache(), 100
//                trials after 1 discarded, each after a 256 MiB L2-clearing
//                fill; the mean. Findings are reported, never failed.
//   strict       kbench's rules on top: every case (the problem's sizes and
//                smaller awkward ones), fresh inputs for each phase
//                (correctness, warm-up, timing, recheck), each call on its own
//                copy of the inputs with a checksum after, the output's dtype
//                and device checked, every kernel on every stream timed
//                (CUPTI), the reference and candidate timed in alternating
//                rounds, a recheck after timing on inputs from a secret seed,
//                and the policy (torch compute, decoys, replaced timers, threads
//                left running) enforced.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "measure/timer.h"
#include "task/task.h"
#include "util/json.h"

namespace kb {

// A seed as the workers resolve it: a value, or KernelBench's trial seed
// number `kernelbench_trial` (torch.manual_seed(base), then that many draws of
// torch.randint(0, 2**32 - 1, (1,)); only torch knows the values).
struct SeedSpec {
    uint64_t value = 0;
    int kernelbench_trial = -1;
    uint64_t base = 42;

    static SeedSpec plain(uint64_t v) { return {v, -1, 42}; }
    static SeedSpec trial(int i, uint64_t base = 42) { return {0, i, base}; }
    Json to_json() const;
    std::string key() const;   // for caches: "s:123", "kb42:3"
    std::string text() const;  // for messages: "seed 123", "KernelBench trial seed 3 (of torch.manual_seed(42))"
};

// One correctness run: the candidate and the reference at a case.
struct ProgramRunPlan {
    int case_index = 0;
    SeedSpec seed;
};

struct ProgramTimingPlan {
    int case_index = 0;
    SeedSpec warmup_seed, seed;     // the same spec: the same inputs (KernelBench)
    unsigned warmup_calls = 3;
    double warmup_ms = 0;           // and at least this long
    bool empty_cache_after_warmup = false;
    unsigned trials = 100;
    unsigned min_trials = 100;      // before the budget or target_rel_noise may stop a round
    unsigned discard_first = 0;
    double budget_ms = 0;           // 0: no budget (exactly `trials`)
    uint64_t l2_flush_bytes = uint64_t(256) << 20;
    bool clone_inputs = false;      // each call on its own copy (outside the timed window)
    bool alias_inputs = false;      // else each call on tensor objects of its own over the same memory
    std::string measure = "events"; // "events" (CUDA events) | "spans" (CUPTI; host wall where CUPTI is missing)
    std::string statistic = "mean"; // "mean" | "median"
    unsigned rounds = 1;            // candidate and reference alternate, each round trials/rounds samples
    // Stopping before the last round (strict): after `min_rounds` rounds, once
    // each side has `min_samples` samples whose median is known to
    // `target_rel_noise` (SampleStats::rel_noise) and at least `min_rounds`
    // rounds' speedups, more than half of the rounds run, agree to within 4x
    // that. 0: every round runs. A round itself ends after `min_trials`
    // samples once its own samples' median is known to `target_rel_noise`
    // (0: at the budget or `trials`).
    unsigned min_rounds = 0;
    unsigned min_samples = 0;
    double target_rel_noise = 0;
};

// Whether the timing may stop after the rounds done so far (their speedups in
// `round_ratios`): the rule above, as a function with CPU tests.
bool program_timing_settled(const ProgramTimingPlan& plan, const std::vector<double>& candidate_samples,
                            const std::vector<double>& reference_samples, const std::vector<double>& round_ratios);

struct ProgramProtocol {
    std::string name;               // "strict" | "kernelbench"
    std::string input_mode;         // "kernelbench" (CPU, then moved) | "strict" (made on the device)
    SeedSpec model_seed;            // the seed models (and init inputs) are built under
    std::vector<ProgramRunPlan> correctness;
    bool clone_inputs = true;       // each correctness call on its own copy of the inputs
    bool check_inputs = true;       // checksums after each call must be those before
    bool check_dtype = true;
    bool check_device = true;
    bool record_ops = true;         // the torch dispatch mode in correctness runs
    bool record_kernels = true;     // CUPTI in correctness runs
    bool recheck = true;            // the perf case on a secret seed (after timing, where timed)
    // Where nothing is timed, the recheck is the perf case's only run: its
    // first correctness run (at the public seed) is left out, and the
    // recheck records torch's ops and takes the precision audit as that run
    // did (leave_perf_case_to_recheck).
    bool perf_at_recheck = false;
    // Each timing round's last timed call's outputs are compared with the
    // reference's at the timing inputs (a candidate that skips work while
    // timed fails); KernelBench's protocol does not.
    bool check_timed_outputs = true;
    // Compile the candidate's Triton kernels for every case at the load, on
    // the CPU and outside the GPU phases (PythonWorkers::load_candidate's
    // warm-up). $KBENCH_PROGRAM_WARM=0 turns it off (to measure what it saves
    // with bench/kernelbench/program_bench.py).
    bool warm = true;
    // The precision audit (compare/precision.h) of the first correctness run
    // at the problem's own sizes (the recheck's where perf_at_recheck):
    // reported in both protocols, never failed.
    // $KBENCH_PRECISION_AUDIT=0 turns it off.
    bool precision_audit = true;
    bool enforce_policy = true;     // "fail" findings fail (policy_violation)
    std::string torch_compute;      // the rule applied
    bool timing = true;
    ProgramTimingPlan time;
    // Tolerances by output dtype; a dtype not listed falls back to the task's
    // default, then to KernelBench's values (kernelbench_tolerance).
    std::map<DType, Tolerance> tolerance;
    std::optional<double> excessive_speedup;  // KernelBench's flag threshold
    // strict: what the import's negative controls (origin.controls.strict,
    // python/kbench_programs/kbench_controls.py) decided. Cases that cannot
    // tell right from wrong are left out of `correctness` (their names here;
    // the recheck is off when the perf case is one of them); a tightened
    // tolerance is in `tolerance`; the input transforms are applied by the
    // workers in strict mode. kernelbench changes nothing.
    std::vector<std::string> dropped_cases;
    std::vector<std::string> controls_notes;  // what was applied, for the result's warnings
};

// The strict decisions of the negative controls recorded in the task
// (origin.controls.strict), applied to a strict protocol. Throws
// kb::Error(KB_ERR_TASK_INVALID) when the controls refused the task (no case
// can tell right from wrong), naming the task and why.
void apply_negative_controls(const Task& task, ProgramProtocol& p);

// strict, correctness only: the perf case runs once, at the recheck's secret
// seed, rather than at the public seed and again at the secret one. At
// KernelBench's sizes each of those runs is tens of milliseconds of GPU work
// (inputs of gigabytes made, poisoned outputs, checksums, the comparison;
// bench/kernelbench/worker_costs.py), half of a verdict's. What the public
// run guarded stays guarded: the smaller cases still run first at the
// public seed, and a candidate that caches across calls or fits its results
// to the public seed meets inputs at the perf case it has never seen; one
// that replays a result of an earlier call of the same shape meets the
// first case run at a second seed (added where that case ran once). A plan
// that times, has no recheck, or has the perf case alone is left as it is.
void leave_perf_case_to_recheck(const Task& task, ProgramProtocol& p);

struct ProgramProtocolOptions {
    std::string name = "strict";
    uint64_t seed = 0;              // 0: kDefaultSeed (strict); KernelBench's is always 42
    std::string torch_compute;      // "": the task's rule
    unsigned correctness_trials = 0;  // kernelbench: 0 = 5; strict: runs per case, 0 = 1
    bool skip_timing = false;
    bool recheck = true;
    TimingOptions timing;           // strict: budget_ms, min_samples, max_samples, warmup_ms
    bool timing_given = false;      // the caller set `timing` (else the protocol's defaults)
};

// The protocol's parameters for a task. Throws kb::Error(KB_ERR_INVALID_ARGUMENT)
// for an unknown protocol or torch_compute rule, naming the choices.
ProgramProtocol make_program_protocol(const Task& task, const ProgramProtocolOptions& opts);

// KernelBench's tolerance for a precision: 1e-4 for f32 (and f64), 1e-2 for f16 and bf16.
Tolerance kernelbench_tolerance(DType precision);
// The tolerance an output of `dtype` is compared with under the protocol.
Tolerance program_tolerance(const ProgramProtocol& p, const Task& task, DType dtype);

// The names the C API and the CLI accept.
const std::vector<std::string>& program_protocol_names();

}  // namespace kb

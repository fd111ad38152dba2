// The results of the engine's verbs as plain C++ values, from the judge up
// to the C API: what a reference run, a comparison, a timing and a whole score
// found. They are built once and not changed after; result_json.h turns them
// into the JSON document kb_result holds (at the C boundary) and back (on the
// worker's wire) — the only place results become JSON.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compare/comparator.h"
#include "compare/judge.h"
#include "compare/precision.h"
#include "exec/kernel.h"
#include "kbench.h"
#include "engine/tune_result.h"
#include "measure/stats.h"

namespace kb {

// Where a result was computed: the task, the case and its sizes, the seed of
// its inputs (hidden for the recheck, whose seed the candidate must not learn).
struct CaseInfo {
    std::string task;
    std::string case_name;
    int case_index = -1;
    std::map<std::string, int64_t> dims;
    std::optional<uint64_t> seed;  // none: not said (timing failures) or secret
    bool seed_secret = false;
};
CaseInfo case_info(const Task& task, int case_index, std::optional<uint64_t> seed);

// The worker process a request ran in (worker isolation only).
struct WorkerFacts {
    pid_t pid = 0;
    std::optional<uint64_t> device_free_bytes;  // after the request
    std::optional<unsigned> respawns;           // the supervisor's count so far
    bool replaced = false;                      // it was killed or retired afterwards
    // A request the worker did not answer: how it ended.
    std::string outcome;   // "timeout", "died"
    std::string detail;    // "killed by SIGSEGV (segmentation fault)"
    std::string last_words;
};

// Statistics of one reference output, and why it may not tell right from
// wrong (task/output_lint.h finds it; here it is reported, as warnings).
struct ReferenceOutput {
    std::string name;
    DType dtype = DType::f32;
    uint64_t elements = 0;
    double min = 0, max = 0, mean = 0, std = 0;
    uint64_t nan = 0, inf = 0;
    bool sampled = false;
    uint64_t digest = 0;  // a hash of every element's bits
    struct Finding {
        std::string kind;  // "constant", "near_zero", "near_mean", "nan"
        std::string message;
    };
    std::vector<Finding> findings;
};

struct ReferenceResult {
    CaseInfo where;
    double run_ms = 0;
    std::vector<ReferenceOutput> outputs;
    std::vector<std::string> warnings;  // every output's findings, in words
    std::string message;
    std::optional<WorkerFacts> worker;
};

struct ProgramTiming;

// One load_inline or load call of a program candidate's import, as
// python/kbench_programs/kbench_load_inline.py records it: which build made
// the extension and where its time went.
struct ProgramBuild {
    std::string name;             // the extension's name
    std::string how;              // "fast" (kbench's build) | "torch" (torch's own)
    bool split = false;           // device and host units apart (the split build)
    bool bindings_apart = false;  // main.cpp's bindings in the cached objects
    double ms = 0;                // the whole build, the import of the module included
    // Built ahead by a builder worker (docs/programs.md, "Builds ahead of
    // the GPU"): `ms` is then the candidate worker's import of the library,
    // `built_ms` the builder's build, and the other fields are the builder's.
    bool prebuilt = false;
    double built_ms = 0;
    double compile_ms = 0;        // its compiles, run at once
    double link_ms = 0;
    std::string linker;         // "lld", "gold", "default", "default (lld failed)", ...; "" unknown
    std::string host_compiler;  // the split build's host unit: "clang" or "g++"; "" not split
    std::string linker_why;         // where the fast linker failed: its first error line
    std::string host_compiler_why;  // where g++ compiled the host unit: why not clang
    std::vector<std::pair<std::string, double>> steps;  // each compile: its unit (or tool) and ms
};

// Which paths built `builds`: "fast", "torch", "fast+torch", or "" for none.
inline std::string build_paths(const std::vector<ProgramBuild>& builds) {
    bool fast = false, torch = false;
    for (const ProgramBuild& b : builds) {
        fast = fast || b.how == "fast";
        torch = torch || b.how == "torch";
    }
    return fast && torch ? "fast+torch" : fast ? "fast" : torch ? "torch" : "";
}

// What a program candidate's worker saw during one verb of the program
// backend (engine/program_backend.h): the stage driver adds it into the
// score's ProgramFacts. Absent for kernels.
struct ProgramObservation {
    ProgramAttribution attribution;        // raw records of these runs (attribute() fills the rest)
    std::vector<ProgramFinding> findings;  // the policy's over these runs, the source scan's at the load
    std::vector<std::string> reference_warnings;
    // The policy's verdict over these runs (compare/judge.h: judge_policy):
    // not pass ends the score, after the stage's own verdict passed.
    kb_verdict policy = KB_VERDICT_PASS;
    std::string policy_message;
    std::shared_ptr<const ProgramTiming> timing;  // Backend::time
    // Backend::load: the import, the warm-up's compiles, how load_inline built.
    double import_ms = 0, warm_ms = 0;
    std::vector<std::string> triton_kernels, cuda_kernels;
    std::string build;
    std::vector<std::string> build_fallbacks;
    std::vector<ProgramBuild> builds;
    // Backend::compare_cases and recheck: builds the model's construction
    // made (a load_inline call in ModelNew.__init__), after the import's.
    std::vector<ProgramBuild> later_builds;
    // The precision audit of the run at the problem's own sizes
    // (compare/precision.h), where one ran.
    std::optional<PrecisionAudit> precision;
};
using ProgramObservationPtr = std::shared_ptr<const ProgramObservation>;

// What readying a candidate on its backend gave (Backend::load): pass, or the
// verdict that ends the score (an import that fails is a compile error).
struct LoadResult {
    kb_verdict verdict = KB_VERDICT_PASS;
    std::string message, log;
    double load_ms = 0;
    std::optional<WorkerFacts> worker;
    ProgramObservationPtr program;
};

// A kernel run on one case and judged (compare/judge.h).
struct CompareResult {
    CaseInfo where;
    std::string kernel;            // the kernel's label
    kb_verdict verdict = KB_VERDICT_PASS;
    std::string message;
    // The judged run's observations (absent when the kernel faulted or its
    // worker died before anything was observed).
    bool observed = false;
    std::vector<OutputReport> outputs;
    bool inputs_unchanged = true;
    std::vector<std::string> inputs_modified;
    bool guards_intact = true;
    std::vector<GuardBreachReport> guard_breaches;
    unsigned runs = 1;
    std::optional<bool> deterministic;  // when runs > 1
    unsigned failed_run = 0;            // 1-based; 0: none
    bool context_lost = false;
    double run_ms = 0;
    // A worker that timed out or died on the request.
    std::optional<double> deadline_s;
    std::string signal;                 // "SIGSEGV (segmentation fault)"
    std::optional<int> exit_code;
    std::optional<WorkerFacts> worker;
    // Not empty: this is a second attempt, and why (engine/gpu_incidents.h).
    std::string retried;
    ProgramObservationPtr program;  // a program candidate's run
};

// One timed program's statistics (microseconds) and its rates.
struct TimedProgram {
    std::string kernel;  // label
    SampleStats stats;
    std::optional<double> gbps, tflops;
};

struct TimeResult {
    CaseInfo where;
    bool hot = false;
    kb_verdict verdict = KB_VERDICT_NONE;  // a fault while timing gives launch/runtime error or timeout
    std::string message;
    std::optional<TimedProgram> candidate, baseline;
    std::optional<double> speedup, speedup_p10, speedup_p90;  // baseline / candidate
    unsigned launches_per_sample = 1;
    double sm_clock_start_mhz = 0, sm_clock_end_mhz = 0, sm_clock_rated_mhz = 0;
    bool throttled = false;
    std::string stop_reason;
    double wall_ms = 0;
    bool context_lost = false;
    double run_ms = 0;                   // a failed request: how long it ran
    std::optional<double> deadline_s;
    std::string signal;
    std::optional<int> exit_code;
    std::optional<WorkerFacts> worker;
    std::string retried;  // as CompareResult::retried
    ProgramObservationPtr program;  // a program candidate's timing
    bool failed() const { return verdict != KB_VERDICT_NONE && verdict != KB_VERDICT_PASS; }
};

// What compiling the candidate gave: the kernel's facts, or the error.
struct CompileFacts {
    bool ok = false;
    std::string summary;             // a failure: one paragraph
    std::string log;
    KernelPtr kernel;                // ok: the compiled kernel (its image, plan, label)
};

// Where a score's time went, stage by stage (milliseconds of wall time).
struct StageTimes {
    double compile_ms = 0, correctness_ms = 0, timing_ms = 0, recheck_ms = 0;
    double queue_ms = 0;  // compiled, waiting for the device (a batch's GPU queue)
};

// ---- program candidates (docs/programs.md) ---------------------------------

// One round of a program timing: each side's statistic of its samples, and
// whether the reference's came from an earlier candidate's timing.
struct ProgramRound {
    double candidate_ms = 0, reference_ms = 0;
    bool reference_reused = false;
};

// The timing of a program candidate and of the reference, as the protocol measured them.
struct ProgramTiming {
    std::string method;     // "cupti_spans", "cuda_events", "host_wall"
    std::string statistic;  // "mean" (KernelBench), "median"
    std::optional<SampleStats> candidate_ms, reference_ms;  // the method's samples
    std::optional<SampleStats> candidate_events_ms, candidate_spans_ms;  // every method measured (milliseconds)
    std::optional<SampleStats> candidate_walls_ms;  // host wall, call to synchronisation (judge.h: timed_replay)
    std::optional<double> speedup;           // reference / candidate, by the statistic
    bool excessive_speedup = false;          // KernelBench's flag (> its threshold)
    unsigned rounds = 0;                     // candidate and reference alternated this often
    bool settled_early = false;              // stopped before the protocol's last round (program_timing_settled)
    std::vector<ProgramRound> round_ms;      // each round's sides, in order (its speedup: reference / candidate)
    unsigned warmup_calls = 0;
    // Rounds whose reference side came from an earlier candidate's timing at
    // the same plan, at most $KBENCH_PROGRAM_REFERENCE_REUSE_S seconds before.
    unsigned reference_rounds_reused = 0;
};

struct ProgramFacts {
    std::string protocol;       // "strict" | "kernelbench"
    std::string style;          // "kernelbench" | "tritonbench"
    std::string torch_compute;  // the rule applied: "allow" | "report" | "forbid"
    // A kernel candidate run as a program (engine/kernel_program.h): "cuda"
    // (CUDA, PTX, cubin) or "triton"; empty for a Python program.
    std::string kernel_language;
    double import_ms = 0;
    // The Triton kernels' compiles after the import, ahead of the GPU phases
    // (PythonWorkers::load_candidate's warm-up); 0 when none ran.
    double warm_ms = 0;
    // How its load_inline / load extensions were built: "fast" (kbench's
    // build), "torch" (torch's own), "fast+torch"; empty when it built none.
    // `build_fallbacks` says why each went to torch's build.
    std::string build;
    std::vector<std::string> build_fallbacks;
    std::vector<ProgramBuild> builds;  // each call's build, in the order the import made them
    // The builds ahead of the lanes (docs/programs.md, "Builds ahead of the
    // GPU"); absent where none ran.
    struct Prebuild {
        double ms = 0;         // on the compile thread: a builder's wait, its import, the libraries written
        unsigned built = 0;    // libraries the lane's import can load
        unsigned failed = 0;   // compile errors it will meet again
        std::string stopped;   // what ended the builder's import early ("": it ran to its end)
    };
    std::optional<Prebuild> prebuild;
    std::vector<std::string> triton_kernels, cuda_kernels;  // what the candidate declares
    std::vector<ProgramFinding> findings;
    ProgramAttribution attribution;  // over the correctness runs
    std::optional<ProgramTiming> timing;
    std::vector<std::string> reference_warnings;  // outputs that cannot tell right from wrong, import findings
    bool confined = false;  // its Python workers run confined (ipc/confine.h: confine_python_worker)
};

struct ScoreResult {
    std::string task;
    uint64_t seed = 0;
    std::string candidate;           // label
    CompileFacts compile;
    std::optional<TuneResult> tuning;  // a Triton candidate with configs (engine/tune.h)
    std::vector<CompareResult> cases;
    std::optional<TimeResult> timing;
    std::optional<double> speedup;
    // A passing timed score's fraction of its device's measured ceiling
    // (engine/efficiency.h); none where `kbench devices` never measured it.
    std::optional<double> efficiency;
    std::optional<CompareResult> recheck;
    // Whether the candidate's outputs match a reduced-precision (TF32, fp16,
    // bf16) recomputation of the reference far better than the reference
    // (compare/precision.h): reported, never part of the verdict. A program
    // candidate's, where its outputs were compared at the problem's sizes.
    std::optional<PrecisionAudit> precision;
    kb_verdict verdict = KB_VERDICT_NONE;
    std::string message;
    StageTimes stages;
    double elapsed_ms = 0;
    std::optional<ProgramFacts> program;  // a program candidate's score (docs/programs.md)
};

}  // namespace kb

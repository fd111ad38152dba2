// The engine behind a kb_context: options, the compiler, the backend that
// runs kernels (in process or in a worker), and the compiled reference and
// baseline of every task seen so far. The C API is a thin shell over this.
#pragma once

#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>  // std::shared_lock over GpuPhaseLock
#include <optional>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "engine/backend.h"
#include "engine/gpu_incidents.h"
#include "engine/gpu_phase.h"
#include "engine/options.h"
#include "engine/result.h"
#include "engine/program_backend.h"
#include "engine/program_builders.h"
#include "exec/kernel.h"
#include "task/task.h"
#include "util/json.h"

namespace kb {

// A score whose compile stage has run: either finished (a compile error, a
// bad plan, compile-only) or holding the kernel for the device stages (a
// program candidate's kernel carries the candidate: engine/program_backend.h).
struct PreparedScore {
    ScoreResult result;
    KernelPtr kernel;
    bool done = false;
    std::chrono::steady_clock::time_point started;
};

// A score between its stages on a lane: load, correctness, timing,
// recheck, for every kind of candidate. kb_score runs them back to back
// (finish_score); a batch lane may check other jobs' correctness while a
// passed one waits for the GPU alone to time (engine/timing_backlog.h).
struct DeviceScore {
    enum class Next { load, correctness, timing, recheck, done };
    TaskPtr task;
    ScoreOptions opts;
    ScoreResult result;
    KernelPtr kernel;
    TaskBinding binding;  // bound at the first stage
    std::chrono::steady_clock::time_point started;
    Next next = Next::load;
    // Whether its lane may take other jobs before timing it: not for a
    // program candidate, which its lane's Python worker holds loaded.
    bool may_wait_to_time() const { return !kernel || !kernel->host_program; }
};

class Context {
public:
    // `isolation` supplies the worker processes a context that isolates
    // untrusted code needs (the default for device contexts; see options).
    explicit Context(const ContextOptions& opts, const Isolation& isolation = {});
    ~Context();
    // The end (the destructor) then hangs up on the context's device and
    // Python workers without waiting for them to exit: each frees its CUDA
    // context on its own time (Backend::let_go). For a process about to exit,
    // which has its results already: kbench run's end takes 0.7 s on one GPU
    // and 1.4 s on two waiting for them (`bench/run_bench.py`).
    void end_without_waiting() { end_without_waiting_ = true; }

    const ContextOptions& options() const { return opts_; }
    bool has_device() const { return backend_ != nullptr; }
    // Device facts, isolation, compiler versions.
    const Json& info() const { return info_; }
    const std::string& arch() const { return arch_; }

    // Resolves a candidate into a Program (code + plan). Throws
    // kb::Error(KB_ERR_TASK_INVALID / KB_ERR_IO) for a bad plan or file.
    Program resolve_candidate(const Task& task, const CandidateInput& in, std::string* label) const;
    // Compiles a program for this context's target. Thread-safe. A Triton
    // program is compiled for the specialisation keys of `cases` (indices
    // into task.cases; empty: every case), one binary per key.
    // `comparisons_only`: the kernel will only be compared (a correctness-
    // only score), so a build with faults contained may hold the checked
    // copies alone (CompileRequest::comparisons_only); it cannot be timed.
    KernelPtr compile(const Task& task, const Program& program, const std::string& label,
                      const std::vector<int>& cases = {}, bool comparisons_only = false);
    KernelPtr compile_candidate(const TaskPtr& task, const CandidateInput& in);
    KernelPtr compile_task_program(const TaskPtr& task, kb_program_role role);

    // Backend verbs. Throw kb::Error(KB_ERR_NO_DEVICE) in a compile-only context.
    ReferenceResult run_reference(const TaskPtr& task, int case_index, uint64_t seed);
    CompareResult compare(const TaskPtr& task, const KernelPtr& kernel, int case_index, uint64_t seed,
                          unsigned runs = 1);
    TimeResult time(const TaskPtr& task, const KernelPtr& kernel, const TimeRequest& req);
    // kb_launch: `kernel`'s plan on the caller's memory and stream (in-process contexts only).
    void launch(const TaskPtr& task, const KernelPtr& kernel, const ExternalLaunch& x);
    // Compile (or import), check every case, time against the baseline,
    // recheck, verdict. A task whose reference is Python takes program
    // candidates (docs/programs.md) through the same stages.
    ScoreResult score(const TaskPtr& task, const CandidateInput& in, const ScoreOptions& opts);
    // kb_score in its two halves, so a batch compiles on CPU threads ahead of
    // the device: prepare_score compiles (thread-safe, no device work);
    // finish_score runs the device stages (one at a time per context).
    PreparedScore prepare_score(const TaskPtr& task, const CandidateInput& in, const ScoreOptions& opts);
    // `lane` (below) picks the worker that runs the device stages.
    ScoreResult finish_score(const TaskPtr& task, PreparedScore&& prepared, const ScoreOptions& opts,
                             size_t lane = 0);
    // finish_score one stage at a time. run_stage runs `s`'s next stage on
    // `lane` (nothing once done). `in_gpu_alone_turn`: the caller is inside
    // with_gpu_alone's turn on this lane, so the stage takes neither the lane
    // nor a GPU phase of its own.
    DeviceScore start_device_stages(const TaskPtr& task, PreparedScore&& prepared, const ScoreOptions& opts);
    void run_stage(DeviceScore& s, size_t lane, bool in_gpu_alone_turn = false);
    // How with_gpu_alone waits for the GPU alone.
    enum class GpuWait {
        if_free,      // not at all: only if it is free now
        unless_hung,  // until it is free, or until a sharer looks hung (GpuPhaseLock::lock_unless_hung)
        until_free,
    };
    // Runs `turn` holding `lane` and the GPU alone (in that order, as every
    // stage takes them). False, and `turn` not run, when `wait` gave up.
    bool with_gpu_alone(size_t lane, GpuWait wait, const std::function<void()>& turn);
    // Whether a lane's correctness request has held the GPU so long that it
    // is most likely a hang (GpuPhaseLock::sharer_looks_hung).
    bool gpu_looks_hung() const;
    // Lanes: device workers of one GPU that score side by side. Lane 0 is
    // backend(); a worker-isolated context starts more on demand (each its own
    // kbench-worker process, with its standby), an in-process one has one.
    // Correctness work of several lanes overlaps on the GPU; timing takes the
    // GPU alone (no other lane's kernel runs while one lane times), so speedups
    // stay what a lone score would measure. Each lane has its own Python
    // candidate worker for program candidates, so their imports and JIT
    // compiles run side by side; a context without a device has lanes for
    // program candidates alone (torch on the CPU, for tests). Returns how
    // many lanes there are now (<= wanted, >= 1); the new lanes' workers
    // start on first use, or when a batch's lane starts them (start_lane).
    size_t ensure_lanes(size_t wanted);
    // Starts lane `lane`'s workers now if it has none, rather than at the
    // lane's first score (a batch's lane calls it once a job for it is
    // submitted, so the workers start while the job compiles): its kernel
    // worker for `kernels` (on a device), its Python candidate worker for
    // `programs` (lane 0's too: the context starts only its kernel worker,
    // and a context without a device runs program lanes alone). A worker
    // that cannot start is left for that first score to meet and report.
    void start_lane(size_t lane, bool kernels, bool programs);

    Backend& backend();
    // The task with its compiled reference and baseline (compiled once per
    // task, the two side by side). A caller asking for a task being bound
    // waits for that task alone; other tasks bind meanwhile. A failure is
    // not kept: the next caller compiles again, and gets the error anew.
    TaskBinding bind(const TaskPtr& task);

private:
    // prepare_score of a program candidate (a task whose reference is Python):
    // the source resolved, a kernel candidate compiled, the protocol made
    // (engine/program_prepare.cpp).
    PreparedScore prepare_program(const TaskPtr& task, const CandidateInput& in, const ScoreOptions& opts,
                                  PreparedScore ps);
    // The backend that runs `s` on `lane`: the lane's kernel worker, or its
    // program backend (created on the lane's first program candidate).
    Backend& stage_backend(const DeviceScore& s, size_t lane);
    Backend& lane_programs(size_t lane);
    // The builder workers of program candidates that call load_inline
    // (engine/program_builders.h), made on first use; null where builds
    // ahead are off: $KBENCH_PREBUILD=0, or a context without a device
    // unless $KBENCH_PREBUILD=1.
    ProgramBuilders* program_builders();

    ContextOptions opts_;
    std::string arch_;
    bool end_without_waiting_ = false;
    bool isolated_ = false;  // worker processes run its kernels and compiles (the destructor ends them together)
    // The compile service; it builds in compile workers (Isolation's
    // sandbox) when the context isolates untrusted code.
    std::unique_ptr<Compiler> compiler_;
    std::unique_ptr<Backend> backend_;
    Json info_;
    // What `kbench devices` measured on this context's device (null: never
    // measured): a passing timed score's efficiency divides by it.
    Json ceilings_;
    std::mutex bind_mutex_;
    // The backend runs one request at a time: kb_score on one thread and a
    // batch's device thread take turns here instead of racing. Lane 0's.
    std::mutex device_mutex_;
    // Lanes 1.. (lane 0 is backend_ under device_mutex_), created by
    // ensure_lanes; a lane's backend is made by its first score.
    struct Lane {
        std::mutex mutex;
        std::unique_ptr<Backend> backend;
        std::unique_ptr<Backend> programs;  // its program backend: the lane's own candidate worker
    };
    std::vector<std::unique_ptr<Lane>> lanes_;
    std::mutex lanes_mutex_;  // guards lanes_ (the vector, not the lanes)
    Backend& lane_backend(size_t lane);
    std::mutex& lane_mutex(size_t lane);
    // Held shared by correctness work, exclusively by timing: see ensure_lanes.
    GpuPhaseLock gpu_phase_;
    // Every lane's timeouts, to tell a lane's hang from a neighbour's
    // disturbance (engine/gpu_incidents.h).
    GpuIncidents incidents_;
    // Which timeouts with_retry runs once more.
    enum class TimeoutRetry {
        // Those that overlapped another lane's timeout (correctness: a
        // candidate's own hang is common there).
        beside_another,
        // Every one (timing and the recheck): the candidate has passed every
        // case, the perf case included, within its limits, so a timeout now
        // is far more often the GPU's doing (a neighbour's hang or crash,
        // whose effects on two GPUs can outlast GpuIncidents::kAftermath:
        // bench/gpu_disturbance.cu) than a kernel's; a kernel that does
        // hang only now costs a second deadline.
        always,
    };
    // Runs a lane's compare or time request in its GPU phase (Phase: a
    // shared or a unique lock of gpu_phase_, or GpuAlreadyAlone inside a
    // timing turn); a timeout is run once more as `rule` says (score.cpp).
    template <class Phase, class Request>
    auto with_retry(size_t lane, TimeoutRetry rule, Request request) -> decltype(request());
    // The secret seed of the post-timing recheck (score.cpp).
    uint64_t recheck_seed(uint64_t avoid);
    std::mutex recheck_mutex_;
    uint64_t recheck_seed_ = 0;
    unsigned recheck_seed_uses_ = 0;
    // By task hash; bind_mutex_ guards the map, not the compiles. One global
    // lock across the compiles had held every lane of a 500-answer run while
    // each task's reference compiled, one task after another: 6.1 s of four
    // lanes' time on one GPU, 13.2 s of eight on two (`bench/run_bench.py`).
    std::map<std::string, std::shared_future<TaskBinding>> bindings_;
    Isolation isolation_;                          // kept: the Python workers start on first use
    // The reference worker and runs every lane's program backend shares, and
    // lane 0's program backend (the other lanes' are in lanes_).
    std::unique_ptr<ProgramReferences> program_refs_;
    std::unique_ptr<Backend> programs_;
    std::mutex builders_mutex_;  // guards program_builders_'s making
    std::unique_ptr<ProgramBuilders> program_builders_;
    bool builders_decided_ = false;
};

}  // namespace kb

// kb_score: the whole verdict in one call, as an RL loop wants it.
//
//   compile -> every correctness case (perf case last) -> timing interleaved
//   with the baseline -> recheck on fresh inputs from a secret seed -> verdict
//
// The first failure ends the score; the result keeps everything learnt up to
// it (compile facts, the cases that passed, timing), so nothing computed is lost.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <shared_mutex>
#include <type_traits>

#include "compare/judge.h"
#include "engine/context.h"
#include "engine/secret_seed.h"
#include "engine/tune.h"
#include "util/error.h"
#include "util/clock.h"
#include "util/profile.h"

namespace kb {
namespace {

using Clock = SteadyClock;

// Correctness runs at a case when the caller leaves it to kbench: two where a
// run is cheap (the case's buffers total at most 64 MiB), so that a race
// that is right only some of the time, or nondeterminism the task forbids,
// has a chance to show; one at larger cases (usually the perf case alone),
// where a second run would cost more than the check is worth.
unsigned default_runs(const Task& t, size_t case_index) {
    constexpr uint64_t kCheapBytes = uint64_t(64) << 20;
    return case_buffer_bytes(t, int(case_index)) <= kCheapBytes ? 2 : 1;
}

ScoreResult& finish(ScoreResult& res, kb_verdict v, const std::string& message, Clock::time_point t0) {
    res.verdict = v;
    res.message = message;
    res.elapsed_ms = ms_since(t0);
    return res;
}

}  // namespace

// The recheck's seed is secret and changes every kRecheckSeedUses scores:
// what it defends against is a kernel that returns results cached from the
// correctness runs, and any seed the candidate has not seen catches that.
// Drawing a fresh one per score would make the reference run again for
// every recheck (most of a small task's score time); one shared by a few
// scores lets the reference's outputs for it be cached.
uint64_t Context::recheck_seed(uint64_t avoid) {
    constexpr unsigned kRecheckSeedUses = 256;
    std::lock_guard<std::mutex> lock(recheck_mutex_);
    if (recheck_seed_uses_ >= kRecheckSeedUses || recheck_seed_ == 0 || recheck_seed_ == avoid) {
        recheck_seed_ = secret_seed({avoid});
        recheck_seed_uses_ = 0;
    }
    ++recheck_seed_uses_;
    return recheck_seed_;
}

PreparedScore Context::prepare_score(const TaskPtr& task, const CandidateInput& in, const ScoreOptions& opts) {
    PreparedScore ps;
    ps.started = Clock::now();
    if (task->python) {
        // A program candidate is not compiled: its whole score runs in the
        // Python workers, on the device's turn (finish_score).
        if (opts.compile_only)
            fail(KB_ERR_INVALID_ARGUMENT, "compile-only does not apply to program candidates (task '" + task->name +
                                              "' has a Python reference): there is nothing to compile");
        ps.program_input = in;
        return ps;
    }
    if (!opts.protocol.empty() && opts.protocol != "strict")
        fail(KB_ERR_INVALID_ARGUMENT, "the '" + opts.protocol + "' protocol applies to program candidates (tasks whose "
                                      "reference is Python); task '" + task->name + "' has a CUDA reference");
    if (!opts.torch_compute.empty())
        fail(KB_ERR_INVALID_ARGUMENT, "torch_compute applies to program candidates; task '" + task->name +
                                          "' has a CUDA reference");
    auto& t0 = ps.started;
    const Task& t = *task;
    ScoreResult& res = ps.result;
    res.task = t.name;
    res.seed = opts.seed ? opts.seed : kDefaultSeed;
    ps.done = true;  // until the candidate has compiled

    // 1. Compile. A bad plan or code is the candidate's failure, not an API error.
    KernelPtr kernel;
    auto stage = Clock::now();
    try {
        Program p = resolve_candidate(t, in, &res.candidate);
        if (p.has_triton_configs() && !opts.skip_timing && !opts.compile_only) {
            // Triton configs: the fastest on the perf case (engine/tune.h) is
            // what is scored, on every case, below. Tuning runs on the device
            // through the context's verbs, which take the device in turns.
            res.tuning = tune_triton_configs(*this, task, p, res.candidate, opts.timing.timing, res.seed);
            if (res.tuning->chosen < 0) {
                const TunedConfig& first = res.tuning->configs.front();
                res.stages.compile_ms = ms_since(stage);
                finish(res, first.verdict, "no Triton config worked on the perf case; the first: " + first.message, t0);
                return ps;
            }
            p = res.tuning->program;
        }
        KB_PROFILE_SPAN("engine.compile");
        // A score that does not time compiles only what its comparisons run.
        kernel = compile(t, p, res.candidate, {}, opts.skip_timing && !opts.compile_only);
    } catch (const CompileError& e) {
        res.compile = {false, e.what(), e.log(), nullptr};
        res.stages.compile_ms = ms_since(stage);
        finish(res, KB_VERDICT_COMPILE_ERROR, e.what(), t0);
        return ps;
    } catch (const Error& e) {
        if (e.status() != KB_ERR_TASK_INVALID) throw;
        res.compile = {false, e.what(), "", nullptr};
        res.stages.compile_ms = ms_since(stage);
        finish(res, KB_VERDICT_LAUNCH_ERROR, std::string("the candidate's launch plan is invalid: ") + e.what(), t0);
        return ps;
    }
    res.compile = {true, "", "", kernel};
    res.stages.compile_ms = ms_since(stage);
    ps.kernel = kernel;
    if (opts.compile_only) {
        finish(res, KB_VERDICT_NONE, "compiled; not run (compile only)", t0);
        return ps;
    }
    // The task's reference and baseline compile now, on this (compile)
    // thread, if no one has: not on the device lane that first needs them,
    // which would hold the lane meanwhile. Their failure is the lane's to
    // report (it binds again, and says why).
    if (has_device()) {
        try {
            bind(task);
        } catch (const std::exception&) {
        }
    }
    ps.done = false;
    return ps;
}

template <class Phase, class Request>
auto Context::with_retry(size_t lane, TimeoutRetry rule, Request request) -> decltype(request()) {
    struct Running {  // this lane's request on the GPU, as the other lanes see it
        GpuIncidents& log;
        size_t lane;
        Running(GpuIncidents& l, size_t n) : log(l), lane(n) { log.begin(lane, Clock::now()); }
        ~Running() { log.end(lane); }
    };
    // One attempt: the GPU phase (shared for correctness, alone for timing),
    // then the request. The time spent waiting for the phase is not the
    // request's: a timer that waited 500 ms behind a neighbour's hang would
    // otherwise read as a second hang to that neighbour, and make it run its
    // hang twice. So the incident log sees [from, to] from the phase on.
    Clock::time_point from;
    auto attempt = [&] {
        Phase phase(gpu_phase_, std::defer_lock);
        if constexpr (std::is_same_v<Phase, GpuAlreadyAlone>) {
            phase.lock();  // the caller holds the GPU alone already
        } else if constexpr (std::is_same_v<Phase, std::unique_lock<GpuPhaseLock>>) {
            KB_PROFILE_SPAN("engine.wait_gpu_alone");
            phase.lock();
        } else {
            KB_PROFILE_SPAN("engine.wait_gpu_shared");
            phase.lock();
        }
        from = Clock::now();
        Running running(incidents_, lane);
        return request();
    };
    // A timeout that ended in its worker (the worker answered and was kept)
    // disturbed the GPU only while it ran; one whose worker was killed, or
    // that ran in no worker, for its aftermath too (engine/gpu_incidents.h).
    auto aftermath = [](const auto& res) {
        const bool in_place = !res.context_lost && res.worker && !res.worker->replaced && res.worker->outcome.empty();
        return in_place ? GpuIncidents::kInPlaceAftermath : GpuIncidents::kAftermath;
    };
    auto r = attempt();
    if (r.verdict != KB_VERDICT_TIMEOUT) return r;
    // A timeout: a hang that slowed the whole GPU (remembered for the other
    // lanes), or a kernel slowed by another lane's hang.
    const auto to = Clock::now();
    const bool beside_another = incidents_.others_overlap(lane, from, to);
    incidents_.record(lane, from, to, aftermath(r));
    if (!beside_another && rule == TimeoutRetry::beside_another) return r;
    const std::string first = r.message;
    r = attempt();
    if (r.verdict == KB_VERDICT_TIMEOUT) incidents_.record(lane, from, Clock::now(), aftermath(r));
    r.retried = beside_another
                    ? "a first attempt timed out while another lane's candidate hung, which slows the whole GPU; "
                      "this is the second attempt. The first: " + first
                    : "a first attempt timed out after the candidate had passed every case within its limits, "
                      "which points at the GPU (a neighbour's hang or crash) rather than the kernel; this is the "
                      "second attempt. The first: " + first;
    return r;
}

DeviceScore Context::start_device_stages(const TaskPtr& task, PreparedScore&& ps, const ScoreOptions& opts) {
    DeviceScore s;
    s.task = task;
    s.opts = opts;
    s.result = std::move(ps.result);
    s.kernel = std::move(ps.kernel);
    s.started = ps.started;
    s.program_input = std::move(ps.program_input);
    s.next = ps.done ? DeviceScore::Next::done : DeviceScore::Next::correctness;
    return s;
}

bool Context::with_gpu_alone(size_t lane, GpuWait wait, const std::function<void()>& turn) {
    std::lock_guard<std::mutex> device_lock(lane_mutex(lane));
    std::unique_lock<GpuPhaseLock> alone(gpu_phase_, std::defer_lock);
    if (wait == GpuWait::until_free) {
        KB_PROFILE_SPAN("engine.wait_gpu_alone");
        alone.lock();
    } else if (wait == GpuWait::unless_hung) {
        KB_PROFILE_SPAN("engine.wait_gpu_alone");
        if (!gpu_phase_.lock_unless_hung()) return false;
        alone = std::unique_lock<GpuPhaseLock>(gpu_phase_, std::adopt_lock);
    } else if (!alone.try_lock()) {
        return false;
    }
    turn();
    return true;
}

bool Context::gpu_looks_hung() const { return gpu_phase_.sharer_looks_hung(); }

void Context::run_stage(DeviceScore& s, size_t lane, bool in_gpu_alone_turn) {
    using Next = DeviceScore::Next;
    if (s.next == Next::done) return;
    ScoreResult& res = s.result;
    const ScoreOptions& opts = s.opts;
    const Task& t = *s.task;
    const auto t0 = s.started;
    if (s.program_input) {
        // The Python workers are one pair per context, and a program's score
        // times as it goes: lane 0's turn, the GPU to itself. Always its
        // first stage, so never inside a turn of with_gpu_alone.
        if (in_gpu_alone_turn) fail(KB_ERR_INTERNAL, "a program candidate's score in a batch lane's timing turn");
        std::lock_guard<std::mutex> device_lock(device_mutex_);
        std::unique_lock<GpuPhaseLock> phase(gpu_phase_);
        res = score_program(s.task, *s.program_input, opts);
        s.next = Next::done;
        return;
    }
    // The lane, then the GPU phase: the order every path takes them in.
    std::unique_lock<std::mutex> device_lock(lane_mutex(lane), std::defer_lock);
    if (!in_gpu_alone_turn) device_lock.lock();
    Backend& b = lane_backend(lane);
    if (!s.binding.task) {
        KB_PROFILE_SPAN("engine.bind");
        s.binding = bind(s.task);
    }
    const TaskBinding& tb = s.binding;
    const KernelPtr& kernel = s.kernel;
    // Correctness shares the GPU with other lanes; timing has it alone.
    // Either one, run again once when it timed out beside another lane's
    // hang (engine/gpu_incidents.h).
    switch (s.next) {
    case Next::correctness: {
        KB_PROFILE_SPAN("engine.case_compare");
        // Time between the end of compilation and the device taking the job:
        // zero for kb_score, the GPU queue's wait in a batch.
        res.stages.queue_ms = std::max(0.0, ms_since(t0) - res.stages.compile_ms);
        const auto stage = Clock::now();
        // 2. Correctness on every case, the perf case last: every case in one
        // request where the backend can (a worker's round trip cost more than
        // a small case's runs), up to the first failure.
        std::vector<Backend::CaseRuns> cases;
        for (size_t i = 0; i < t.cases.size(); ++i)
            cases.push_back({int(i), opts.correctness_runs ? opts.correctness_runs : default_runs(t, i)});
        struct CaseResults {  // what with_retry reads and writes
            std::vector<CompareResult> results;
            kb_verdict verdict = KB_VERDICT_PASS;
            std::string message, retried;
            bool context_lost = false;          // the last case's
            std::optional<WorkerFacts> worker;  // the last case's
        };
        CaseResults c = with_retry<std::shared_lock<GpuPhaseLock>>(lane, TimeoutRetry::beside_another, [&] {
            CaseResults r;
            r.results = b.compare_cases(tb, kernel, cases, res.seed);
            if (r.results.empty())
                fail(KB_ERR_INTERNAL, "comparing " + kernel->label + " on task '" + t.name + "' gave no result");
            r.verdict = r.results.back().verdict;
            r.message = r.results.back().message;
            r.context_lost = r.results.back().context_lost;
            r.worker = r.results.back().worker;
            return r;
        });
        if (!c.retried.empty()) c.results.back().retried = c.retried;
        for (CompareResult& r : c.results) res.cases.push_back(std::move(r));
        res.stages.correctness_ms = ms_since(stage);
        const CompareResult& last = res.cases.back();
        if (last.verdict != KB_VERDICT_PASS) {
            finish(res, last.verdict, last.message, t0);
            s.next = Next::done;
        } else {
            s.next = opts.skip_timing ? Next::recheck : Next::timing;
        }
        return;
    }
    case Next::timing: {
        // 3. Timing, interleaved with the baseline.
        KB_PROFILE_SPAN("engine.time");
        const auto stage = Clock::now();
        TimeRequest tr = opts.timing;
        tr.against_baseline = true;
        auto request = [&] { return b.time(tb, kernel, tr); };
        res.timing = in_gpu_alone_turn ? with_retry<GpuAlreadyAlone>(lane, TimeoutRetry::always, request)
                                    : with_retry<std::unique_lock<GpuPhaseLock>>(lane, TimeoutRetry::always, request);
        res.stages.timing_ms = ms_since(stage);
        if (res.timing->failed()) {
            finish(res, res.timing->verdict, res.timing->message, t0);
            s.next = Next::done;
            return;
        }
        res.speedup = res.timing->speedup;
        s.next = Next::recheck;
        return;
    }
    case Next::recheck: {
        // 4. Recheck on fresh inputs: a kernel that caches results across
        //    calls (in a __device__ global, say) fails here.
        s.next = Next::done;
        if (opts.recheck) {
            const auto stage = Clock::now();
            KB_PROFILE_SPAN("engine.recheck");
            const uint64_t seed = recheck_seed(res.seed);
            // Never inside a timing turn: a batch lane's rechecks follow it,
            // sharing the GPU again (engine/batch.cpp).
            if (in_gpu_alone_turn) fail(KB_ERR_INTERNAL, "a recheck inside a batch lane's timing turn");
            res.recheck = with_retry<std::shared_lock<GpuPhaseLock>>(
                lane, TimeoutRetry::always, [&] { return b.recheck(tb, kernel, t.perf_index, seed); });
            res.recheck->where.seed_secret = true;
            res.stages.recheck_ms = ms_since(stage);
            Judgement j = judge_recheck({res.recheck->verdict, res.recheck->message});
            if (j.verdict != KB_VERDICT_PASS) {
                finish(res, j.verdict, j.message, t0);
                return;
            }
        }
        std::string msg = "correct on all " + std::to_string(t.cases.size()) + " cases";
        if (res.speedup && res.timing->candidate && res.timing->baseline) {
            char buf[256];
            std::snprintf(buf, sizeof buf, "; %.3fx the baseline (candidate %.2f us, baseline %.2f us, median)",
                          *res.speedup, res.timing->candidate->stats.median, res.timing->baseline->stats.median);
            msg += buf;
        }
        finish(res, KB_VERDICT_PASS, msg, t0);
        return;
    }
    case Next::done: return;
    }
}

ScoreResult Context::finish_score(const TaskPtr& task, PreparedScore&& ps, const ScoreOptions& opts, size_t lane) {
    DeviceScore s = start_device_stages(task, std::move(ps), opts);
    KB_PROFILE_SPAN("engine.finish_score");
    while (s.next != DeviceScore::Next::done) run_stage(s, lane);
    return std::move(s.result);
}

ScoreResult Context::score(const TaskPtr& task, const CandidateInput& in, const ScoreOptions& opts) {
    return finish_score(task, prepare_score(task, in, opts), opts);
}

}  // namespace kb

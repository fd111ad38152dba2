// kb_score: the whole verdict in one call, as an RL loop wants it. The one
// stage driver for every kind of candidate (kernels, Triton, Python programs):
//
//   compile or resolve (prepare_score, on a CPU thread) -> load on the lane
//   (a program's import) -> every correctness case (perf case last) ->
//   timing interleaved with the baseline -> recheck on fresh inputs from a
//   secret seed -> verdict
//
// What differs between kinds lives in the backend that runs them
// (engine/backend.h); the judge is one (compare/judge.h).
//
// The first failure ends the score; the result keeps everything learnt up to
// it (compile facts, the cases that passed, timing), so nothing computed is lost.
#include <algorithm>
#include <chrono>
#include <optional>
#include <cstdio>
#include <random>
#include <set>
#include <shared_mutex>
#include <type_traits>

#include "compare/judge.h"
#include "engine/context.h"
#include "engine/efficiency.h"
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

// Adds what a program candidate's worker saw in one stage into the score's
// facts: attribution over the runs, findings (each once, failing ones
// first), warnings, the import's and the timing's facts.
void absorb_program(ScoreResult& res, const ProgramObservationPtr& o) {
    if (!o || !res.program) return;
    ProgramFacts& f = *res.program;
    if (o->import_ms > 0) f.import_ms = o->import_ms;
    if (o->warm_ms > 0) f.warm_ms = o->warm_ms;
    if (!o->build.empty()) {
        f.build = o->build;
        f.build_fallbacks = o->build_fallbacks;
        f.builds = o->builds;
    }
    // The model's construction's builds, each extension once (each case
    // constructs a model of its own, and loads what the first one built).
    for (const ProgramBuild& b : o->later_builds)
        if (std::none_of(f.builds.begin(), f.builds.end(), [&](const ProgramBuild& x) { return x.name == b.name; }))
            f.builds.push_back(b);
    if (!o->later_builds.empty()) {
        f.build = build_paths(f.builds);
        for (const std::string& why : o->build_fallbacks)
            if (std::find(f.build_fallbacks.begin(), f.build_fallbacks.end(), why) == f.build_fallbacks.end())
                f.build_fallbacks.push_back(why);
    }
    if (!o->triton_kernels.empty()) f.triton_kernels = o->triton_kernels;
    if (!o->cuda_kernels.empty()) f.cuda_kernels = o->cuda_kernels;
    merge_attribution(f.attribution, o->attribution);
    attribute(f.attribution);
    for (const ProgramFinding& n : o->findings)
        if (std::none_of(f.findings.begin(), f.findings.end(),
                         [&](const ProgramFinding& x) { return x.rule == n.rule && x.message == n.message; }))
            f.findings.push_back(n);
    std::stable_sort(f.findings.begin(), f.findings.end(), [](const ProgramFinding& x, const ProgramFinding& y) {
        return x.severity == "fail" && y.severity != "fail";
    });
    for (const std::string& w : o->reference_warnings)
        if (std::find(f.reference_warnings.begin(), f.reference_warnings.end(), w) == f.reference_warnings.end())
            f.reference_warnings.push_back(w);
    if (o->timing) f.timing = *o->timing;
    if (o->precision) res.precision = o->precision;
}

std::string fmt_ms(double ms) {
    char b[64];
    std::snprintf(b, sizeof b, "%.4g ms", ms);
    return b;
}

// A passed score's message: the cases (a program's runs and protocol) and
// the speedup.
std::string pass_message(const ScoreResult& res, const Task& t) {
    if (!res.program) {
        std::string msg = "correct on all " + std::to_string(t.cases.size()) + " cases";
        if (res.speedup && res.timing->candidate && res.timing->baseline) {
            char buf[256];
            std::snprintf(buf, sizeof buf, "; %.3fx the baseline (candidate %.2f us, baseline %.2f us, median)",
                          *res.speedup, res.timing->candidate->stats.median, res.timing->baseline->stats.median);
            msg += buf;
        }
        return msg;
    }
    const ProgramFacts& f = *res.program;
    std::string msg = "correct on " + std::to_string(res.cases.size()) + " run" + (res.cases.size() == 1 ? "" : "s");
    std::set<int> cases;
    for (const CompareResult& c : res.cases) cases.insert(c.where.case_index);
    msg += " at " + std::to_string(cases.size()) + " case" + (cases.size() == 1 ? "" : "s") + " (" + f.protocol + ")";
    if (f.timing && f.timing->speedup && f.timing->candidate_ms && f.timing->reference_ms) {
        auto stat = [&](const SampleStats& st) { return f.timing->statistic == "mean" ? st.mean : st.median; };
        char buf[256];
        std::snprintf(buf, sizeof buf, "; %.3fx the reference (candidate %s, reference %s, %s of %s)",
                      *f.timing->speedup, fmt_ms(stat(*f.timing->candidate_ms)).c_str(),
                      fmt_ms(stat(*f.timing->reference_ms)).c_str(), f.timing->statistic.c_str(),
                      f.timing->method.c_str());
        msg += buf;
        if (f.timing->excessive_speedup) msg += "; flagged: more than 10x the reference (KernelBench's check)";
    }
    for (const ProgramFinding& x : f.findings)
        if (x.rule == "torch_compute" || x.rule == "decoy") {
            msg += "; note: " + x.message;
            break;
        }
    return msg;
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
    if (task->python) return prepare_program(task, in, opts, std::move(ps));
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
    // Out of device memory beside other lanes (their runs, warm-ups and
    // caches share the device; at KernelBench's sizes one run's working set
    // is 20-30 GB): run once more with the GPU alone, after the reference
    // worker has dropped what it keeps for later runs (its kept outputs take
    // up to a fifth of the device), which holds for a timing too: it has the
    // GPU alone already, but not the memory. A candidate that needs more than
    // the device has fails the second time too, and says so.
    auto attempt_alone = [&] {
        if (program_refs_) program_refs_->release_caches();
        if constexpr (std::is_same_v<Phase, std::shared_lock<GpuPhaseLock>>) {
            std::unique_lock<GpuPhaseLock> alone(gpu_phase_, std::defer_lock);
            {
                KB_PROFILE_SPAN("engine.wait_gpu_alone");
                alone.lock();
            }
            from = Clock::now();
            Running running(incidents_, lane);
            return request();
        } else {
            return attempt();
        }
    };
    auto out_of_memory = [](const std::string& m) {
        return m.find("OutOfMemoryError") != std::string::npos || m.find("out of memory") != std::string::npos;
    };
    // What a second attempt's `retried` says, made only where one runs.
    auto alone_again = [&](const std::string& first) {
        return std::string("a first attempt ran out of device memory, which other lanes' runs and the workers' "
                           "caches share; this is a second attempt with the GPU alone") +
               (program_refs_ ? ", after the reference worker dropped its caches" : "") + ". The first: " + first;
    };
    std::optional<decltype(request())> first_try;
    try {
        first_try.emplace(attempt());
    } catch (const Error& e) {
        // A reference that ran out of memory beside other lanes is not the
        // task's failure yet.
        if (e.status() != KB_ERR_REFERENCE_FAILED || !out_of_memory(e.what())) throw;
        auto again = attempt_alone();
        again.retried = alone_again(e.what());
        return again;
    }
    auto r = std::move(*first_try);
    if (r.verdict == KB_VERDICT_RUNTIME_ERROR && out_of_memory(r.message)) {
        const std::string first = r.message;
        r = attempt_alone();
        r.retried = alone_again(first);
        return r;
    }
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
    s.next = ps.done ? DeviceScore::Next::done : DeviceScore::Next::load;
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
    // The lane, then the GPU phase: the order every path takes them in.
    std::unique_lock<std::mutex> device_lock(lane_mutex(lane), std::defer_lock);
    if (!in_gpu_alone_turn) device_lock.lock();
    Backend& b = stage_backend(s, lane);
    if (!s.binding.task) {
        KB_PROFILE_SPAN("engine.bind");
        // A Python reference is not compiled: the program backend runs it.
        s.binding = t.python ? TaskBinding{s.task, nullptr, nullptr} : bind(s.task);
    }
    const TaskBinding& tb = s.binding;
    const KernelPtr& kernel = s.kernel;
    // Every stage's result may carry what a program candidate's worker saw:
    // added into the score's facts, its policy verdict ending the score.
    auto policy_failed = [&](const ProgramObservationPtr& o) {
        absorb_program(res, o);
        if (!o || o->policy == KB_VERDICT_PASS) return false;
        finish(res, o->policy, o->policy_message, t0);
        s.next = Next::done;
        return true;
    };
    // Correctness shares the GPU with other lanes; timing has it alone.
    // Either one, run again once when it timed out beside another lane's
    // hang (engine/gpu_incidents.h).
    switch (s.next) {
    case Next::load: {
        // Time between the end of compilation and the device taking the job:
        // zero for kb_score, the GPU queue's wait in a batch.
        res.stages.queue_ms = std::max(0.0, ms_since(t0) - res.stages.compile_ms);
        // No GPU phase: an import compiles on the CPU (Triton's JIT, a
        // load_inline build) and may take seconds, which must not hold
        // another lane's timing back.
        LoadResult l = b.load(tb, kernel);
        res.stages.compile_ms += l.load_ms;
        absorb_program(res, l.program);
        if (l.verdict != KB_VERDICT_PASS) {
            res.compile = {false, l.message, l.log.empty() ? l.message : l.log, res.compile.kernel};
            finish(res, l.verdict, l.message, t0);
            s.next = Next::done;
            return;
        }
        if (opts.compile_only) {
            finish(res, KB_VERDICT_NONE, "imported; not run (compile only)", t0);
            s.next = Next::done;
            return;
        }
        s.next = Next::correctness;
        return;
    }
    case Next::correctness: {
        KB_PROFILE_SPAN("engine.case_compare");
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
            absorb_program(res, last.program);
            finish(res, last.verdict, last.message, t0);
            s.next = Next::done;
        } else if (!policy_failed(last.program)) {
            const ProgramCandidate* pc = program_candidate(*kernel);
            s.next = (pc ? pc->protocol.timing : !opts.skip_timing) ? Next::timing : Next::recheck;
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
            absorb_program(res, res.timing->program);
            finish(res, res.timing->verdict, res.timing->message, t0);
            s.next = Next::done;
            return;
        }
        res.speedup = res.timing->speedup;
        if (!policy_failed(res.timing->program)) s.next = Next::recheck;
        return;
    }
    case Next::recheck: {
        // 4. Recheck on fresh inputs: a kernel that caches results across
        //    calls (in a __device__ global, say) fails here.
        s.next = Next::done;
        const ProgramCandidate* pc = program_candidate(*kernel);
        if (pc ? pc->protocol.recheck : opts.recheck) {
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
            Judgement j = judge_recheck({res.recheck->verdict, res.recheck->message}, res.timing.has_value());
            if (j.verdict != KB_VERDICT_PASS) {
                absorb_program(res, res.recheck->program);
                finish(res, j.verdict, j.message, t0);
                return;
            }
            if (policy_failed(res.recheck->program)) return;
        }
        if (res.timing && res.timing->candidate)
            res.efficiency = efficiency_of(res.timing->candidate->gbps, res.timing->candidate->tflops, ceilings_, t);
        finish(res, KB_VERDICT_PASS, pass_message(res, t), t0);
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

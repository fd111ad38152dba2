// The batch's threads and its bookkeeping. One mutex guards every queue; no
// thread holds it while compiling or running a kernel, so submit, next and
// cancel answer in microseconds whatever the GPU is doing.
#include "engine/batch.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include "util/env_number.h"
#include "util/error.h"
#include "util/profile.h"

namespace kb {
namespace {

constexpr unsigned kDefaultCapacity = 64;

// Waits on `cv` until `ready` holds or `timeout_s` passes (0: not at all, <0:
// forever). Returns ready().
template <typename Ready>
bool wait_for(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, double timeout_s, Ready ready) {
    if (timeout_s < 0) {
        cv.wait(lock, ready);
        return true;
    }
    if (timeout_s == 0) return ready();
    return cv.wait_for(lock, std::chrono::duration<double>(timeout_s), ready);
}

// The status and detail of the exception being handled (call inside a catch
// block): a job's error, with `doing` naming the stage that ran out of memory.
std::pair<kb_status, std::string> caught(const char* doing) {
    try {
        throw;
    } catch (const Error& e) {
        return {e.status(), e.what()};
    } catch (const std::bad_alloc&) {
        return {KB_ERR_OUT_OF_MEMORY, std::string("out of host memory while ") + doing};
    } catch (const std::exception& e) {
        return {KB_ERR_INTERNAL, e.what()};
    } catch (...) {
        return {KB_ERR_INTERNAL, std::string("an unknown exception while ") + doing};
    }
}

}  // namespace

// $KBENCH_TIMING_BACKLOG: 0 times each candidate at once, as before there
// was a backlog. For measurements; unset, the default.
size_t Batch::timing_backlog_setting() {
    const std::optional<unsigned long> n =
        env_number("KBENCH_TIMING_BACKLOG", 0, TimingBacklog::kMaxSetting,
                   "the default (" + std::to_string(TimingBacklog::kDefault) + ")");
    return n ? size_t(*n) : TimingBacklog::kDefault;
}

Batch::Batch(Context& ctx, const BatchOptions& opts) : ctx_(ctx), opts_(opts) {
    backlog_.limit = timing_backlog_setting();  // before any thread starts: it may throw
    const char* together = std::getenv("KBENCH_LANES_START_TOGETHER");
    lanes_start_together_ = together && std::string(together) == "1";
    if (opts_.capacity == 0) opts_.capacity = kDefaultCapacity;
    if (opts_.compile_threads == 0) {
        // As many as the context's compile workers (engine/options.h).
        opts_.compile_threads = default_compile_workers();
    }
    compilers_.reserve(opts_.compile_threads);
    for (unsigned i = 0; i < opts_.compile_threads; ++i) compilers_.emplace_back([this] { compile_loop(); });
    // A compile-only context has no device: its kernel jobs finish in the
    // compile threads; its lanes take program candidates, whose import is
    // their compile (Python workers without a device).
    if (opts_.device_lanes == 0) opts_.device_lanes = default_lanes(ctx_);
    size_t lanes = ctx_.ensure_lanes(opts_.device_lanes);
    opts_.device_lanes = unsigned(lanes);
    for (size_t lane = 0; lane < lanes; ++lane) devices_.emplace_back([this, lane] { device_loop(lane); });
}

unsigned Batch::default_lanes(const Context& ctx) {
    constexpr unsigned kLanes = 4;
    // A lane holds two CUDA contexts (its worker and the worker's standby)
    // and a task's buffers, and for program candidates a Python worker with
    // torch (about a GiB or two): small GPUs get fewer. Its imports and JIT
    // compiles take a CPU core each: hosts of few cores get fewer too.
    Json dev = ctx.info().value("device", Json());
    uint64_t total = dev.is_object() ? dev.value("total_memory_bytes", uint64_t(0)) : 0;
    if (total == 0) return 1;
    uint64_t per_lane = uint64_t(10) << 30;
    const uint64_t cores = std::max(1u, std::thread::hardware_concurrency());
    return unsigned(std::max<uint64_t>(1, std::min<uint64_t>({kLanes, total / per_lane, std::max<uint64_t>(1, cores / 2)})));
}

Batch::~Batch() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stopping_ = true;
        for (auto& [id, job] : live_) job->cancelled = true;
    }
    to_compile_.notify_all();
    to_run_.notify_all();
    room_.notify_all();
    done_.notify_all();
    submitted_.notify_all();
    for (std::thread& t : compilers_) t.join();
    for (std::thread& t : devices_) t.join();
}

BatchCompletion Batch::failure(const Job& job, kb_status status, std::string error) {
    BatchCompletion c;
    c.id = job.id;
    c.tag = job.tag;
    c.status = status;
    c.error = std::move(error);
    return c;
}

void Batch::complete_locked(const JobPtr& job, BatchCompletion c) {
    job->stage = Stage::done;
    job->prepared.reset();
    live_.erase(job->id);
    auto it = std::find(device_order_.begin(), device_order_.end(), job);
    if (it != device_order_.end()) device_order_.erase(it);
    completed_.push_back(std::move(c));
    done_.notify_all();
}

std::optional<uint64_t> Batch::submit(TaskPtr task, CandidateInput in, ScoreOptions opts, uint64_t tag,
                                      double timeout_s) {
    if (!task) fail(KB_ERR_INVALID_ARGUMENT, "a batch job needs a task");
    std::unique_lock<std::mutex> lock(mu_);
    if (stopping_) fail(KB_ERR_INVALID_ARGUMENT, "the batch is being destroyed");
    if (!wait_for(room_, lock, timeout_s, [&] { return held_ < opts_.capacity || stopping_; })) return std::nullopt;
    if (stopping_) fail(KB_ERR_INVALID_ARGUMENT, "the batch is being destroyed");
    auto job = std::make_shared<Job>();
    job->id = next_id_++;
    job->tag = tag;
    job->task = std::move(task);
    job->in = std::move(in);
    job->opts = std::move(opts);
    live_[job->id] = job;
    compile_queue_.push_back(job);
    device_order_.push_back(job);
    ++held_;
    to_compile_.notify_one();
    (job->task->python ? programs_submitted_ : kernels_submitted_) = true;
    if (job->id <= opts_.device_lanes) submitted_.notify_all();  // a lane may start its workers
    return job->id;
}

std::optional<BatchCompletion> Batch::next(double timeout_s, bool* idle) {
    std::unique_lock<std::mutex> lock(mu_);
    bool ready = wait_for(done_, lock, timeout_s, [&] { return !completed_.empty() || live_.empty() || stopping_; });
    if (idle) *idle = completed_.empty() && live_.empty();
    if (!ready || completed_.empty()) return std::nullopt;
    BatchCompletion c = std::move(completed_.front());
    completed_.pop_front();
    --held_;
    room_.notify_one();
    return c;
}

bool Batch::cancel(uint64_t id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(id);
    if (it == live_.end()) return false;
    JobPtr job = it->second;
    if (job->cancelled) return true;
    switch (job->stage) {
    case Stage::queued: {
        compile_queue_.erase(std::find(compile_queue_.begin(), compile_queue_.end(), job));
        job->cancelled = true;
        complete_locked(job, failure(*job, KB_ERR_CANCELLED, "cancelled before it was compiled"));
        return true;
    }
    case Stage::compiling:  // the compile thread reports it when its compile returns
        job->cancelled = true;
        return true;
    case Stage::compiled:
        job->cancelled = true;
        complete_locked(job, failure(*job, KB_ERR_CANCELLED, "cancelled after compiling, before it ran"));
        return true;
    case Stage::running:
    case Stage::done:
        return false;
    }
    return false;
}

size_t Batch::cancel_all() {
    std::vector<uint64_t> ids;
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& [id, job] : live_) ids.push_back(id);
    }
    size_t n = 0;
    for (uint64_t id : ids) n += cancel(id) ? 1 : 0;
    return n;
}

size_t Batch::in_flight() const {
    std::lock_guard<std::mutex> lock(mu_);
    return live_.size();
}

size_t Batch::completed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return completed_.size();
}

void Batch::compile_loop() {
    for (;;) {
        JobPtr job;
        {
            std::unique_lock<std::mutex> lock(mu_);
            to_compile_.wait(lock, [&] { return !compile_queue_.empty() || stopping_; });
            if (stopping_) return;
            job = compile_queue_.front();
            compile_queue_.pop_front();
            job->stage = Stage::compiling;
        }
        std::optional<PreparedScore> prepared;
        kb_status status = KB_OK;
        std::string error;
        try {
            prepared = ctx_.prepare_score(job->task, job->in, job->opts);
        } catch (...) {
            std::tie(status, error) = caught("compiling the candidate");
        }
        std::lock_guard<std::mutex> lock(mu_);
        if (job->cancelled) {
            if (job->stage != Stage::done)
                complete_locked(job, failure(*job, KB_ERR_CANCELLED, "cancelled while it was compiling"));
            continue;
        }
        if (status != KB_OK) {
            complete_locked(job, failure(*job, status, std::move(error)));
        } else if (prepared->done) {
            // A compile error, a bad plan or compile-only: the verdict is known
            // without the device, so it does not wait behind the GPU's queue.
            BatchCompletion c;
            c.id = job->id;
            c.tag = job->tag;
            c.result = std::move(prepared->result);
            complete_locked(job, std::move(c));
        } else {
            job->prepared = std::move(prepared);
            job->stage = Stage::compiled;
            to_run_.notify_one();
        }
    }
}

Batch::JobPtr Batch::take_job(size_t lane, bool block) {
    std::unique_lock<std::mutex> lock(mu_);
    // One of the oldest compiled jobs: the device never waits on a slow
    // compile while a later job is ready; of those, one of a task this lane
    // ran lately (engine/lane_affinity.h).
    auto ready = [&] { return std::find_if(device_order_.begin(), device_order_.end(), compiled); };
    if (block) to_run_.wait(lock, [&] { return stopping_ || ready() != device_order_.end(); });
    if (stopping_ || ready() == device_order_.end()) return nullptr;
    std::vector<std::deque<JobPtr>::iterator> window;
    std::vector<LaneAffinity::Ready> seen;
    for (auto it = ready(); it != device_order_.end() && window.size() < LaneAffinity::kWindow; ++it)
        if (compiled(*it)) {
            window.push_back(it);
            seen.push_back({&(*it)->task->hash, (*it)->skipped});
        }
    const size_t pick = affinity_.choose(lane, seen);
    for (size_t i = 0; i < pick; ++i) ++(*window[i])->skipped;
    JobPtr job = *window[pick];
    device_order_.erase(window[pick]);
    affinity_.took(lane, job->task->hash);
    job->stage = Stage::running;
    return job;
}

bool Batch::work_ready() const {
    std::lock_guard<std::mutex> lock(mu_);
    return !stopping_ && std::any_of(device_order_.begin(), device_order_.end(), compiled);
}

void Batch::advance(Running& r, size_t lane, bool in_gpu_alone_turn) {
    try {
        ctx_.run_stage(r.score, lane, in_gpu_alone_turn);
        return;
    } catch (...) {
        std::tie(r.status, r.error) = caught("running the candidate");
    }
    r.score.next = DeviceScore::Next::done;
}

void Batch::complete(Running& r) {
    BatchCompletion c;
    c.id = r.job->id;
    c.tag = r.job->tag;
    if (r.status != KB_OK) {
        c.status = r.status;
        c.error = std::move(r.error);
    } else {
        c.result = std::move(r.score.result);
    }
    std::lock_guard<std::mutex> lock(mu_);
    complete_locked(r.job, std::move(c));
}

void Batch::device_loop(size_t lane) {
    // Lane i's worker starts once the batch holds a job for it (more than i
    // submitted), while the first candidates compile, instead of when the
    // first compiled one reaches it; and once lane i-1's has started, not
    // beside it. The driver creates CUDA contexts one at a time across the
    // machine (about 0.2 s each on two H200s' host): workers started
    // together shared that line and were all ready at its end (six lanes of
    // two GPUs after 1.5-1.9 s, bench/context_starts.c), where one
    // after another the first is ready after one start, the next after two.
    // A Python worker's start is mostly its import of torch, on a core of
    // its own: program lanes start together. Every lane, lane 0 included,
    // has the Python worker its program jobs need before it takes one: a
    // lane whose worker started at its first job held that job for the
    // start (a TritonBench-G operator's 0.3 s job took 8.4 s at eight lanes,
    // bench/kernelbench/program_bench.py --benchmark tritonbench).
    {
        bool start = false, kernels = false, programs = false;
        {
            std::unique_lock<std::mutex> lock(mu_);
            submitted_.wait(lock, [&] {
                return stopping_ || (next_id_ > lane + 1 && (lanes_start_together_ || programs_submitted_ ||
                                                             lanes_started_ >= lane));
            });
            start = !stopping_;
            kernels = kernels_submitted_;
            programs = programs_submitted_;
        }
        // A worker that cannot start is its first score's to report.
        if (start) ctx_.start_lane(lane, kernels, programs);
        {
            std::lock_guard<std::mutex> lock(mu_);
            lanes_started_ = std::max(lanes_started_, lane + 1);
        }
        submitted_.notify_all();
    }
    // Candidates of this lane that passed correctness and wait for the GPU
    // alone to be timed (engine/timing_backlog.h), oldest first.
    std::vector<Running> waiting;
    for (;;) {
        if (!waiting.empty()) {
            const bool other_work = work_ready();
            // Must it wait, and may it stop waiting if a sharer turns out to
            // be a hang meanwhile (it could then take other work)?
            const Context::GpuWait wait =
                !backlog_.must_wait(waiting.size(), other_work, ctx_.gpu_looks_hung()) ? Context::GpuWait::if_free
                : backlog_.may_give_up(waiting.size(), other_work)                  ? Context::GpuWait::unless_hung
                                                                                     : Context::GpuWait::until_free;
            KB_PROFILE_SPAN("engine.lane_work");
            bool timed = false;
            {
                KB_PROFILE_SPAN("engine.timing_turn");  // the wait for the GPU alone, then the timings
                // Every waiting candidate timed in one turn; the rechecks
                // after it share the GPU again.
                timed = ctx_.with_gpu_alone(lane, wait, [&] {
                    for (Running& r : waiting) advance(r, lane, true);
                });
            }
            if (timed) {
                for (Running& r : waiting) {
                    while (r.score.next != DeviceScore::Next::done) advance(r, lane, false);
                    complete(r);
                }
                waiting.clear();
                continue;
            }
        }
        JobPtr job = take_job(lane, waiting.empty());
        if (!job) {
            if (stopping()) return;  // what waits is dropped with the batch's uncollected results
            continue;                // no other work: time what waits
        }
        KB_PROFILE_SPAN("engine.lane_work");
        Running r{job, ctx_.start_device_stages(job->task, std::move(*job->prepared), job->opts)};
        // Load and correctness; a passed candidate may then wait to be timed.
        while (r.score.next == DeviceScore::Next::load || r.score.next == DeviceScore::Next::correctness)
            advance(r, lane, false);
        if (r.score.next == DeviceScore::Next::timing && backlog_.may_keep() && r.score.may_wait_to_time()) {
            waiting.push_back(std::move(r));
            continue;
        }
        while (r.score.next != DeviceScore::Next::done) advance(r, lane, false);
        complete(r);
    }
}

bool Batch::stopping() const {
    std::lock_guard<std::mutex> lock(mu_);
    return stopping_;
}

}  // namespace kb

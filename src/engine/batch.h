// Many scores in flight on one context: a bounded queue of jobs, compiled on a
// pool of CPU threads ahead of the device, run by the device lanes (one
// thread each, Context::ensure_lanes), and collected in completion order from
// any thread.
//
//   submit -> [compile threads: prepare_score] -> device queue (FIFO)
//          -> [device lanes: correctness, timing, recheck] -> completed -> next()
//
// A lane that cannot have the GPU alone to time a passed candidate checks
// the next job's correctness meanwhile (engine/timing_backlog.h), so results
// may complete in another order than the jobs reached the device.
//
// Every submitted job is reported by next() exactly once: with its result,
// with the error that stopped it (an unreadable file, a broken task), or as
// cancelled. `capacity` bounds the jobs submitted and not yet collected, so a
// producer faster than the GPU blocks (or times out) instead of growing
// memory without bound. Destroying the batch cancels what has not started,
// waits for the jobs running now, and drops the uncollected results.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/context.h"
#include "engine/lane_affinity.h"
#include "engine/timing_backlog.h"

namespace kb {

struct BatchOptions {
    unsigned capacity = 0;         // 0: 64 jobs submitted and not yet collected
    unsigned compile_threads = 0;  // 0: the machine's cores, at most 8
    unsigned device_lanes = 0;     // jobs on the device at once (Context::ensure_lanes); 0: default_lanes()
};

// What next() hands back for one job.
struct BatchCompletion {
    uint64_t id = 0;
    uint64_t tag = 0;                  // the caller's, from submit
    kb_status status = KB_OK;          // KB_OK: `result` holds the verdict
    std::string error;                 // the detail when status != KB_OK
    std::optional<ScoreResult> result;
};

class Batch {
public:
    Batch(Context& ctx, const BatchOptions& opts);
    ~Batch();
    Batch(const Batch&) = delete;
    Batch& operator=(const Batch&) = delete;

    // Queues a job. Waits up to timeout_s (0: not at all, <0: forever) for room;
    // returns nullopt when the batch stayed full. Thread-safe.
    std::optional<uint64_t> submit(TaskPtr task, CandidateInput in, ScoreOptions opts, uint64_t tag,
                                   double timeout_s);
    // The next completed job, waiting up to timeout_s (0: not at all, <0:
    // forever). nullopt when none completed in time; `*idle` is set true when
    // nothing is in flight at all (waiting longer would not help).
    std::optional<BatchCompletion> next(double timeout_s, bool* idle);
    // Cancels a job that has not reached the device; true if it will be
    // reported as cancelled. A job already on the device runs to its end.
    bool cancel(uint64_t id);
    // Cancels every job that has not reached the device; returns how many.
    size_t cancel_all();

    // The lanes a batch on `ctx` gets when BatchOptions leaves them 0: 4,
    // one per 10 GiB of device memory below 40 GiB.
    static unsigned default_lanes(const Context& ctx);
    // The passed candidates each lane keeps waiting to time
    // (engine/timing_backlog.h): TimingBacklog::kDefault, or
    // $KBENCH_TIMING_BACKLOG. Throws kb::Error naming the variable when it is
    // not a number from 0 to TimingBacklog::kMaxSetting. They count against
    // `capacity` (submitted, not yet collected): a caller that sizes it for
    // work ahead of the lanes adds lanes x this.
    static size_t timing_backlog_setting();

    size_t in_flight() const;   // submitted, not yet completed
    size_t completed() const;   // completed, not yet collected
    const BatchOptions& options() const { return opts_; }

private:
    enum class Stage { queued, compiling, compiled, running, done };
    struct Job {
        uint64_t id = 0, tag = 0;
        TaskPtr task;
        CandidateInput in;
        ScoreOptions opts;
        Stage stage = Stage::queued;
        std::optional<PreparedScore> prepared;
        bool cancelled = false;
        unsigned skipped = 0;  // times a younger job went to the device first (LaneAffinity)
    };
    using JobPtr = std::shared_ptr<Job>;
    // Compiled and waiting for a lane (take_job and work_ready look for these).
    static bool compiled(const JobPtr& j) { return j->stage == Stage::compiled; }

    // A job on a lane's device stages: its score, or the error that ended it.
    struct Running {
        JobPtr job;
        DeviceScore score;
        kb_status status = KB_OK;
        std::string error;
    };

    void compile_loop();
    void device_loop(size_t lane);
    // The compiled job lane `lane` runs next (taken off the device order), or
    // null when there is none ready (and `block` is false) or the batch stops.
    JobPtr take_job(size_t lane, bool block);
    bool work_ready() const;  // a compiled job waits for a lane
    bool stopping() const;
    // Runs r's next device stage (Context::run_stage); an exception ends the
    // job with its error.
    void advance(Running& r, size_t lane, bool in_gpu_alone_turn);
    void complete(Running& r);  // reports r's result or error
    // Moves a job to `completed_` (called with mu_ held).
    void complete_locked(const JobPtr& job, BatchCompletion c);
    static BatchCompletion failure(const Job& job, kb_status status, std::string error);

    Context& ctx_;
    BatchOptions opts_;
    mutable std::mutex mu_;
    std::condition_variable room_;       // a slot freed (next() collected one)
    std::condition_variable to_compile_; // compile_queue_ gained a job, or stopping
    std::condition_variable to_run_;     // a compiled job is at the front of device order, or stopping
    std::condition_variable done_;       // completed_ gained a job
    std::condition_variable submitted_;  // one of the first jobs (one per lane) was submitted, a lane's
                                         // worker started, or stopping
    std::deque<JobPtr> compile_queue_;   // submitted, not yet taken by a compile thread
    std::deque<JobPtr> device_order_;    // every live job in submission order: the device takes the oldest
                                         // compiled ones, a lane's own tasks first (affinity_)
    LaneAffinity affinity_;              // guarded by mu_
    TimingBacklog backlog_;              // set before the threads start, read-only after
    std::deque<BatchCompletion> completed_;
    std::map<uint64_t, JobPtr> live_;    // submitted, not completed
    uint64_t next_id_ = 1;
    size_t held_ = 0;                    // submitted and not yet collected (bounded by capacity)
    bool stopping_ = false;
    // Lanes whose workers have started (or failed to): lane i starts its
    // worker once lane i-1's has, not beside it (device_loop says why).
    size_t lanes_started_ = 1;       // lane 0's is the context's
    bool lanes_start_together_ = false;  // $KBENCH_LANES_START_TOGETHER=1, for measuring
    // The kinds of job submitted so far: what the lanes' workers start for.
    bool kernels_submitted_ = false, programs_submitted_ = false;
    std::vector<std::thread> compilers_;
    std::vector<std::thread> devices_;  // one per lane
};

}  // namespace kb

// Keeps one healthy worker in use, and a warm standby behind it.
//
// After any failure (timeout, death, garbled reply, sticky CUDA error) the
// worker in use is killed and the next request gets the standby, which has
// been starting its CUDA context in the background all along; a canary (the
// worker runs kbench's own kernels and checks their results) proves it
// healthy first. So a crash costs the caller a canary round trip, not a
// process start. The supervisor also remembers, per worker, what that worker
// already holds (tasks, kernels, reference results), so each is sent once
// per worker life, and a fresh worker starts from nothing.
//
// Used by one thread at a time (a kb_context's rule; the compile pool hands
// each supervisor to one thread at a time).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "util/json.h"
#include "ipc/worker_process.h"

namespace kb {

struct WorkerSettings {
    SpawnOptions spawn;
    bool standby = true;  // keep a second worker starting in the background
    // ... but only once a worker has been lost: where candidates' faults and
    // hangs are contained, losses are rare, and every standby is one more
    // CUDA context to create (worker_settings says why that costs).
    bool standby_after_loss = false;
    Json hello_extra;     // fields added to every hello (the compiler's configuration, ...)
    // Deadlines of the hello (start-up) and the canary; 0: DeadlinePolicy's.
    // A Python worker imports torch and creates its CUDA context first.
    double hello_s = 0;
    double canary_s = 0;
};

class Supervisor {
public:
    explicit Supervisor(WorkerSettings settings);
    // Asks the worker in use to shut down, kills the standby, reaps everyone
    // (waiting a few seconds at most for a worker stuck in the driver).
    ~Supervisor();
    Supervisor(const Supervisor&) = delete;
    Supervisor& operator=(const Supervisor&) = delete;

    // Makes sure a healthy worker is in use: the standby or a fresh one after
    // a failure, proven by its hello and the canary. Throws kb::Error: the
    // worker's own status when it refuses to start (KB_ERR_NO_DEVICE when
    // there is no such device), KB_ERR_WORKER when none could be started.
    void ensure_ready();
    // One request to the worker in use (after ensure_ready). A reply keeps
    // the worker; any other outcome retires it, and the next call promotes
    // the standby.
    Outcome call(wire::Msg type, const Json& body, const std::vector<std::string>& blobs, double deadline_s);
    // Gives up the worker in use although it answered: after a sticky CUDA
    // error its context is unusable. The next call gets a fresh worker.
    void retire();

    // What the worker in use already holds ("task:<hash>", "kernel:<id>", ...).
    bool has(const std::string& key) const;
    void remember(const std::string& key);
    void forget(const std::string& key);

    // The worker in use: its hello reply (device facts) and pid; 0 when none.
    const Json& hello() const { return hello_; }
    pid_t pid() const;
    const WorkerSettings& settings() const { return settings_; }

    // Workers started, respawns, the last and longest respawn stall (the time
    // ensure_ready took to bring a replacement in), the standby's state.
    Json stats() const;
    double last_respawn_ms() const { return last_respawn_ms_; }
    unsigned respawns() const { return respawns_; }

    // Hangs up on every worker without waiting for any to end
    // (WorkerProcess::let_go): the one in use and the standby exit on their
    // own, those killed already finish dying. For a process about to exit
    // (kbench run's end); the supervisor holds no worker afterwards.
    void let_go();

    // Reaps workers killed earlier that had not finished dying, waiting up
    // to `wait_s` for them (0: only those already gone). True when none is left.
    bool reap_pending(double wait_s);
    size_t pending_reaps() const { return pending_.size(); }

private:
    struct Starting {
        std::unique_ptr<WorkerProcess> proc;
        uint64_t hello_id = 0;
        WorkerClock::time_point sent;
        Outcome send_failure;  // when hello_id == 0
    };
    Starting start_worker();
    void start_standby();
    double hello_deadline() const;
    void park(std::unique_ptr<WorkerProcess> proc);
    void lose_active();

    WorkerSettings settings_;
    std::unique_ptr<WorkerProcess> active_;
    std::unique_ptr<Starting> standby_;
    std::vector<std::unique_ptr<WorkerProcess>> pending_;  // killed, not yet reaped
    std::set<std::string> has_;
    Json hello_;
    bool ever_ready_ = false;
    bool standby_failed_ = false;  // a standby could not start beside a live worker: stop trying
    bool lost_one_ = false;        // a worker in use was lost (standby_after_loss)
    unsigned spawned_ = 0;
    unsigned respawns_ = 0;
    double last_respawn_ms_ = 0;
    double max_respawn_ms_ = 0;
    double last_canary_ms_ = 0;
    std::string last_failure_;
};

}  // namespace kb

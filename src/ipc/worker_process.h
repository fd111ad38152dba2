// One kbench-worker process, seen from the host: started with posix_spawn in
// a process group of its own, spoken to over a socketpair, and watched. A
// call never blocks past its deadline and never throws for the worker's
// failures: a worker that hangs, dies or talks nonsense is an Outcome the
// caller turns into a verdict. Nothing here can take the host down: writes
// use MSG_NOSIGNAL (no SIGPIPE), and only this worker's pid is ever waited for
// (never waitpid(-1), which would steal the host application's children).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "util/json.h"
#include "ipc/frame.h"

namespace kb {

using WorkerClock = std::chrono::steady_clock;

struct SpawnOptions {
    std::string executable;   // the kbench-worker binary
    int device = -1;          // CUDA ordinal the worker will own; -1: none (compile and test workers)
    bool test_hooks = false;  // accept Msg::test and "test_fault" (tests only)
    // Another program that speaks the same frames (the Triton compile worker:
    // {"python3", "-B", ".../compile_worker.py"}) instead of `executable`.
    // command[0] is searched on PATH when it has no '/'. The usual flags
    // (--fd, --parent, --device/--no-device, --test-hooks) follow it, then
    // `extra_args`.
    std::vector<std::string> command;
    std::vector<std::string> extra_args;
    // For errors: what the process is, and how to fix a failed start ("" for
    // the kbench-worker advice).
    std::string what = "kbench worker";
    std::string fix;
    // Non-empty: the process's stderr goes to this file (created or
    // truncated) instead of the host's.
    std::string stderr_file;
    // Confine the process from its start (ipc/confine.h): for workers that
    // run untrusted Python. $KBENCH_CONFINE=0 overrides it.
    bool confine = false;
};

struct Outcome {
    enum class Kind {
        reply,    // the worker answered (the answer may still report an error)
        timeout,  // no answer by the deadline: the worker was killed
        died,     // the worker exited or was killed before answering
        garbled,  // the worker broke the protocol: it was killed
    };
    Kind kind = Kind::reply;
    wire::Frame reply;         // kind == reply
    std::string detail;        // what went wrong, in words ("killed by SIGSEGV (segmentation fault)")
    std::string last_words;    // the worker's note: what it was doing when a fatal signal hit it
    int term_signal = 0;       // died: the signal that ended it (0 if it exited)
    int exit_code = -1;        // died: its exit status when it exited
    double elapsed_s = 0;      // from sending the request to the outcome
    double deadline_s = 0;     // the deadline the call ran under
    pid_t pid = 0;
    bool ok() const { return kind == Kind::reply; }
};

const char* outcome_kind_name(Outcome::Kind k);

class WorkerProcess {
public:
    // Starts a worker (it has not said hello yet). Throws kb::Error(KB_ERR_WORKER)
    // naming the executable and the fix when it cannot be started.
    static std::unique_ptr<WorkerProcess> spawn(const SpawnOptions& opts);
    // Kills the worker's process group if it still runs and reaps it (waiting
    // at most a moment; see WorkerProcess::reap).
    ~WorkerProcess();
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    pid_t pid() const { return pid_; }
    WorkerClock::time_point started() const { return started_; }

    // Sends a request and waits for its reply until `deadline`. Past the
    // deadline the worker's process group is killed. Notes that arrive on the
    // way are kept as the outcome's last words.
    Outcome call(wire::Msg type, const Json& body, const std::vector<std::string>& blobs,
                 WorkerClock::time_point deadline);
    // The two halves of call, for a request whose answer is collected later
    // (the hello of a standby worker, which starts its device meanwhile).
    // send returns the request id, or 0 with *failed filled in.
    uint64_t send(wire::Msg type, const Json& body, const std::vector<std::string>& blobs,
                  WorkerClock::time_point deadline, Outcome* failed);
    Outcome await(uint64_t id, wire::Msg type, WorkerClock::time_point sent, WorkerClock::time_point deadline);

    // SIGKILL to the worker's process group (its children too), unless it has
    // been reaped already (its group id could then belong to someone else).
    void kill();
    // Waits up to `wait_s` for the worker to be reaped; true once it is.
    bool reap(double wait_s);
    bool reaped() const { return reaped_; }
    // Hangs up on the worker without waiting for it: it reads the end of its
    // connection and exits on its own (freeing its CUDA context, writing its
    // profile), and this object neither kills nor reaps it. For a process
    // about to exit, whose end collects the worker: anywhere else it would be
    // left a zombie.
    void let_go();
    // True once the process has ended (without reaping it), or is ending: an
    // idle worker never writes, so a readable or hung-up socket means it
    // is going away.
    bool exited();
    // "exited with status 3", "killed by SIGSEGV (segmentation fault)"; "" before reaping.
    std::string exit_description() const;
    int wait_status() const { return status_; }

private:
    WorkerProcess() = default;
    // Reads until a whole frame is buffered; kind reply when one is.
    Outcome read_frame(wire::Frame* f, WorkerClock::time_point deadline);
    bool write_all(const std::string& bytes, WorkerClock::time_point deadline, Outcome* failed);
    // The worker is gone or going: wait for it briefly, reap it, describe it.
    Outcome died(const std::string& how);
    Outcome failure(Outcome::Kind kind, const std::string& detail);
    bool has_exited();  // without reaping (waitid WNOWAIT)
    void close_fds();

    pid_t pid_ = 0;
    int fd_ = -1;
    int pidfd_ = -1;  // -1 where pidfd_open is unavailable: poll in slices instead
    uint64_t next_id_ = 0;
    bool reaped_ = false;
    bool let_go_ = false;
    int status_ = 0;
    std::string last_words_;
    wire::FrameDecoder decoder_;
    WorkerClock::time_point started_;
};

// "SIGSEGV (segmentation fault)".
std::string signal_description(int sig);
// A waitpid status in words: "exited with status 3", "killed by SIGABRT (aborted)".
std::string describe_wait_status(int status);

}  // namespace kb

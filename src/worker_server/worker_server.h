// The worker's side of the protocol: a loop that reads one request at a
// time, runs it on the LocalBackend that owns this process's CUDA context
// (or on the compiler, in a compile worker without a device), and answers.
//
// The worker is disposable by design. It never tries to recover from a
// sticky CUDA error: it reports "device_lost" and the host replaces it. A
// fatal signal (a crash in the driver or the compiler) first sends the host a
// note saying what the worker was doing, then kills the process as the
// signal would have.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compiler/compiler.h"
#include "engine/local_backend.h"
#include "util/json.h"
#include "ipc/frame.h"

namespace kb {

struct WorkerServerOptions {
    int fd = -1;              // the socket to the host
    int device = -1;          // CUDA ordinal; -1: no device (compilation only)
    pid_t parent = 0;         // exit when this process goes away
    bool test_hooks = false;  // serve Msg::test and honour "test_fault" (tests only)
};

class WorkerServer {
public:
    explicit WorkerServer(WorkerServerOptions opts);
    ~WorkerServer();
    // Serves until a shutdown request or the host closing the socket; returns
    // the process's exit code.
    int run();

private:
    struct Reply {
        Json json;
        std::vector<std::string> blobs;
    };
    Reply handle(const wire::Frame& req);
    Reply dispatch(const wire::Frame& req);
    Json hello(const Json& req);
    Json canary();
    Reply compile(const wire::Frame& req);
    // The reference's result; with "digest": true, its digest too (in the
    // result, its bytes as the reply's blobs), when it has one.
    Reply run_reference(const wire::Frame& req);
    // Holds a reference an earlier worker ran, from its digest.
    Json install_reference(const wire::Frame& req);
    Json compare(const wire::Frame& req);
    Json compare_cases(const wire::Frame& req);
    // One case of a compare or compare_cases request: the reference (cached),
    // then the candidate, a lost context reported as the candidate's crash.
    CompareResult compare_case(uint64_t id, const TaskBinding& tb, const KernelPtr& kernel, int case_index,
                               uint64_t seed, unsigned runs, const KernelLimit& limit, const Json& req);
    Json time(const wire::Frame& req);
    Reply test(const wire::Frame& req);
    void apply_test_fault(const Json& req);

    // The task and kernels a request names; what this worker lacks is listed
    // in *missing (the host resends it) and the result is then null.
    TaskPtr task_of(const wire::Frame& req, std::vector<std::string>* missing);
    KernelPtr kernel_of(const wire::Frame& req, const char* field, std::vector<std::string>* missing);
    void load_kernels(const wire::Frame& req, const TaskPtr& task);
    TaskBinding binding_of(const wire::Frame& req, std::vector<std::string>* missing);
    // The task and the candidate kernel of a compare or compare_cases request
    // (Missing when the worker lacks one).
    std::pair<TaskBinding, KernelPtr> candidate_of(const wire::Frame& req);
    LocalBackend& backend();
    // Prepares the note a fatal signal sends: what the worker is doing now.
    void set_doing(uint64_t id, const std::string& what);
    void send(uint16_t type, uint64_t id, const Json& json, const std::vector<std::string>& blobs = {});

    WorkerServerOptions opts_;
    std::unique_ptr<LocalBackend> backend_;
    std::unique_ptr<Compiler> compiler_;
    CompilerConfig compiler_config_;
    // Least recently used last; bounded so a long life stays small.
    std::list<std::pair<std::string, TaskPtr>> tasks_;
    std::list<std::pair<std::string, KernelPtr>> kernels_;
    bool shutting_down_ = false;
};

// Process set-up a worker does before serving: ignore SIGPIPE, make `fd`
// close-on-exec, close every other inherited descriptor above stderr, and
// exit when `parent` does (even while busy in a kernel).
void prepare_worker_process(int fd, pid_t parent);

}  // namespace kb

// Compilation in worker processes: NVRTC runs untrusted source in the
// process that calls it, and a compiler crash (or a template that sends it
// into endless recursion) would take the host down or stall it forever.
//
// Why a pool, and not the device worker: kb_compile may run on several
// threads at once against one context (compilation is meant to run ahead of
// the GPU), and a device worker serves one request at a time, often a long
// timing run. So each build borrows one of up to N compile workers (no
// CUDA context, started on demand, kept warm for the next build); N
// threads compile in parallel, and a crash costs one of them, which restarts
// on its next use. The pool is the compile service's sandbox: the service in
// the host keeps the one cache, so a repeated compile is never sent here.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "engine/options.h"
#include "worker_host/supervisor.h"

namespace kb {

class CompilePool : public CompileSandbox {
public:
    // `max_workers` 0: min(8, the machine's hardware threads), at least 2;
    // $KBENCH_COMPILE_WORKERS overrides. `deadline_s` bounds one compile
    // (DeadlinePolicy::kCompileS unless a test needs it short).
    CompilePool(WorkerSettings settings, CompilerConfig config, size_t max_workers = 0, double deadline_s = 0);
    ~CompilePool() override;

    // Thread-safe. Throws CompileError when the code does not compile, or
    // when the compiler crashed or ran past its deadline on it (the message
    // says which); kb::Error for failures that are not the code's.
    CompiledImage build(const CompileRequest& request) override;

    // Every worker hangs up without being waited for (Supervisor::let_go):
    // each exits on its own. The pool's next build starts a fresh one.
    void let_go() override;

    size_t max_workers() const { return max_workers_; }
    size_t started_workers() const;
    // Tests: the next build makes its worker perform `fault` first (see
    // WorkerBackend::inject_fault_once); needs test hooks.
    void inject_fault_once(const std::string& fault);

private:
    Supervisor* acquire();
    void release(Supervisor* s);

    WorkerSettings settings_;
    size_t max_workers_;
    double deadline_s_;
    uint64_t memory_bytes_ = 0;  // the compile workers' memory limit, for messages
    mutable std::mutex mutex_;
    std::condition_variable idle_cv_;
    std::vector<std::unique_ptr<Supervisor>> all_;
    std::vector<Supervisor*> idle_;
    std::string fault_;
};

// The pool a context's options ask for (its compiler configuration travels
// to every compile worker).
std::unique_ptr<CompilePool> make_compile_pool(const ContextOptions& opts, const CompilerConfig& config);

}  // namespace kb

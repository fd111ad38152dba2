// The Triton compile backend: Python source in, cubin plus Triton's launch
// facts out, compiled by `triton.compile` in a small pool of Python worker
// processes (python/kbench_triton/compile_worker.py). No GPU is needed.
//
// Why processes: the candidate's Python runs (its module top level, checked
// first) and Triton's compiler is large native code; a hang, a crash or a
// runaway allocation must cost one worker, never the host. Each compile has a
// deadline; a worker that misses it, dies or breaks the protocol is killed
// and the next compile starts another. Workers start on first use (importing
// triton takes a second or two) and stay warm; up to N compile at once, so
// compilation runs ahead of the GPU on several threads.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "compiler/compile_backend.h"

namespace kb {

class TritonBackend : public CompileBackend {
public:
    explicit TritonBackend(const CompilerConfig& config);
    ~TritonBackend() override;

    std::string name() const override { return "triton"; }
    // The installed Triton's version ("3.6.0"); starts a worker the first time.
    // Throws kb::Error(KB_ERR_NOT_FOUND) naming the interpreter, $KBENCH_PYTHON
    // and CompilerConfig::python when Triton is missing or too old.
    std::string version() const override;
    bool out_of_process() const override { return true; }
    // Compiles request.triton (kernel, argument types and specialisation,
    // constexprs, options) from the Python source in request.code.
    CompiledImage compile(const CompileRequest& request) override;

    const std::string& python() const { return python_; }
    const std::string& script() const { return script_; }
    size_t max_workers() const { return max_workers_; }
    size_t live_workers() const;

    // Tests: workers accept test faults; the next compile makes its worker
    // "crash", "hang" or raise an "exception" first.
    void enable_test_hooks() { test_hooks_ = true; }
    void inject_fault_once(const std::string& fault);
    void set_deadline_s(double s) { deadline_s_ = s; }

private:
    struct Worker;
    std::unique_ptr<Worker> start_worker() const;
    Worker* acquire() const;
    void release(Worker* w, bool keep) const;
    void remember_version(const std::string& v) const;

    std::string python_;
    std::string script_;
    size_t max_workers_;
    double deadline_s_;
    size_t memory_mb_;
    bool test_hooks_ = false;

    mutable std::mutex mutex_;
    mutable std::condition_variable idle_cv_;
    mutable std::vector<std::unique_ptr<Worker>> all_;
    mutable std::vector<Worker*> idle_;
    mutable size_t starting_ = 0;
    mutable std::string version_;
    std::string fault_;
};

// Where the compile worker script is: CompilerConfig::triton_worker_script,
// $KBENCH_TRITON_WORKER, the installed copy, then the source tree's.
std::string locate_triton_worker_script(const CompilerConfig& config);
// The interpreter: CompilerConfig::python, $KBENCH_PYTHON, else "python3".
std::string locate_triton_python(const CompilerConfig& config);

}  // namespace kb

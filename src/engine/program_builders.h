// Builds ahead of the lanes (docs/programs.md, "Builds ahead of the GPU"). A
// KernelBench CUDA answer builds its extension with load_inline when it is
// imported: seconds of g++ and nvcc that a lane's candidate worker would
// spend while its GPU phases wait. A context's builder workers (Python
// workers of the builder role, without a device) import such candidates on
// the compile threads, ahead of the lanes, and hand back the libraries their
// load_inline calls built; the lane's import then loads those.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/python_workers.h"

namespace kb {

class ProgramBuilders {
public:
    using Start = std::function<std::unique_ptr<PythonWorkers>()>;
    // `count`: how many builders at most (each started on first need).
    ProgramBuilders(Start start, unsigned count) : start_(std::move(start)), count_(count ? count : 1) {}

    // What a builder built ahead for `source`; nullopt where no builder can
    // run (none starts here: its error is kept, and later calls return at
    // once). Waits while every builder is busy. Thread-safe.
    std::optional<ProgramPrebuild> prebuild(const std::string& source, const std::string& source_name,
                                            const TaskPtr& task = nullptr);

    // As Backend::let_go, and the owners to release (Context's destructor).
    void let_go();
    std::vector<std::unique_ptr<PythonWorkers>> release();

    // How many builders a context on a host of `cores` CPU threads gets:
    // $KBENCH_PROGRAM_BUILDERS, else three quarters of the cores, 1 to 16:
    // as many as the batch's compile threads (engine/options.h), which wait
    // on the builders. A build keeps a core busy for seconds (g++ on the
    // host unit, 2.5-3.2 s of a CUDA answer's 3.5-4 s on an H100 host at
    // four lanes: bench/kernelbench/program_bench.py with
    // PROGRAM_CANDIDATES=bench/kernelbench/cuda_candidates): 8 builders of
    // 16 cores finish at most about 2 answers a second, while the lanes'
    // workers mostly wait on the GPU.
    static unsigned default_count(unsigned cores);
    // Whether a candidate's source calls torch's extension builder (a
    // scheduling hint, not a check: a candidate that hides the call builds
    // in its candidate worker, as without builders).
    static bool wanted(const std::string& source);

private:
    Start start_;
    unsigned count_;
    std::mutex mutex_;
    std::condition_variable freed_;
    std::vector<std::unique_ptr<PythonWorkers>> idle_;
    unsigned started_ = 0;  // builders that exist, idle or busy
    std::string broken_;    // why a builder could not start
    bool letting_go_ = false;
};

}  // namespace kb

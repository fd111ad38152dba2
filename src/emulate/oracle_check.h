// `kbench validate --oracle`: a task's reference, compiled for the CPU
// emulator, checked against the task's float64 oracle on its tiny cases,
// with no GPU. Per case: the reference runs on the inputs kbench would draw
// on a GPU, must write every output element and leave its inputs alone, and
// must be within the oracle's bound of float64 truth; the bound must be at
// most half the task's tolerance (so a candidate as accurate as the
// reference passes); and the outputs must be able to tell right from wrong
// (task/output_lint.h) at two seeds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulate/emulated_module.h"
#include "emulate/emulator.h"
#include "emulate/oracle_plugin.h"

namespace kb::emulate {

struct OracleCheckOptions {
    // A case is emulated when its buffers hold at most this many elements in
    // all and its launch plan starts at most this many threads (the perf case
    // included, when it is that small).
    uint64_t max_elements = uint64_t(1) << 20;
    uint64_t max_threads = uint64_t(1) << 20;
    uint64_t seed = 0;         // the inputs compared with the oracle
    uint64_t second_seed = 1;  // a second draw: outputs must change with the inputs
    ModuleOptions module;
    EmulateOptions emulate;
};

struct OutputCheck {
    std::string name;
    uint64_t elements = 0;
    uint64_t outside = 0;     // elements outside the oracle's bound
    double worst = 0;         // largest |ref - truth| / (atol + rtol |truth|) (0 for exact matches)
    std::string first_outside;  // "[3, 17]: reference 0.25 vs truth 0.5", when any
    double bound_atol = 0, bound_rtol = 0;
};

struct CaseCheck {
    std::string name;
    bool perf = false;
    bool emulated = false;
    std::string skipped;  // why it was not emulated
    uint64_t elements = 0, threads = 0;
    double run_ms = 0;
    std::vector<OutputCheck> outputs;
};

struct TaskOracleCheck {
    std::string path;
    std::string name;
    std::vector<std::string> failures;  // empty: the task passed
    std::vector<std::string> warnings;
    std::vector<CaseCheck> cases;
    double compile_ms = 0;
    bool module_cached = false;
    bool ok() const { return failures.empty(); }
};

// Never throws for a problem of the task (everything becomes a failure
// message naming the task, case and output, and the fix); throws kb::Error
// for problems of the machine (no host compiler: KB_ERR_NOT_FOUND).
TaskOracleCheck check_task_with_oracle(const std::string& task_path, const OraclePlugin& oracles,
                                       const OracleCheckOptions& options = {});

}  // namespace kb::emulate

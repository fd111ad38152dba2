// What the engine is asked to do, as plain values: a context's options, a
// candidate as the caller hands it over, and the options of timing and
// scoring. The C boundary fills these from the versioned kb_* structs; the
// worker's host side reads ContextOptions to start its processes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include "compiler/compiler.h"
#include "kbench.h"
#include "measure/timer.h"
#include "task/limits.h"
#include "task/task.h"

namespace kb {

// $KBENCH_COMPILE_WORKERS, 1-256: how many compile workers a context keeps
// (worker_host/compile_pool.h) and how many threads a batch compiles on; 0
// when unset or out of range, and the default below holds. A measuring knob.
inline unsigned compile_workers_setting() {
    const char* env = std::getenv("KBENCH_COMPILE_WORKERS");
    if (!env) return 0;
    long n = std::strtol(env, nullptr, 10);
    return n > 0 && n <= 256 ? unsigned(n) : 0;
}

// A context's compile workers, and a batch's compile threads, when neither
// the caller nor the setting says: three quarters of the hardware threads,
// at most 16, and never fewer than min(8, threads) nor 2. Compiles are what
// bounds a correctness-only stream of distinct candidates: on a 16-thread
// H200 host the batch bench's rate went from 113 per second with 8 workers
// to 142 with 12, and no higher with 14 or 16 (`kbench_batch_bench 120`);
// the lanes and their workers mostly wait on the GPU.
inline unsigned default_compile_workers() {
    if (unsigned n = compile_workers_setting()) return n;
    unsigned hw = std::thread::hardware_concurrency();
    if (hw == 0) hw = 2;
    return std::max({2u, std::min(8u, hw), std::min(16u, hw * 3 / 4)});
}

struct ContextOptions {
    int device = 0;             // KB_DEVICE_NONE (-1): compile-only
    kb_isolation isolation = KB_ISOLATION_DEFAULT;
    std::string arch;           // "" = the device's
    std::string cache_dir;
    std::string cuda_home;
    std::string worker_path;
    double timeout_s = 0;
    bool emit_ptx = false;
    bool nvcc_fallback = true;
    // Confine the workers that run untrusted Python (ipc/confine.h);
    // KB_CONTEXT_NO_CONFINE or $KBENCH_CONFINE=0 turns it off.
    bool confine = true;
    // What candidates may bring (documents, code, plans): docs/limits.md.
    Limits limits;
    // The compilers' limits: wall clock per compile, and the kernel-enforced
    // caps of every compiler process.
    double compile_timeout_s = 300;
    ProcessLimits compile_limits = default_compile_limits();
    // Candidates' traps contained in their own PTX (compiler/trap_containment.h),
    // and their faults and endless loops in checked copies of their kernels
    // (compiler/fault_containment.h): a crash or a hang is a verdict that
    // keeps the worker and its context. `contain_traps`: every build
    // (`kbench run`'s default; the C API's KB_CONTEXT_CONTAIN_TRAPS).
    // `contain_comparisons` (the default): only builds that are compared and
    // never timed, i.e. correctness-only scores, whose checked copies cost
    // about what the plain build does; a timed build stays plain (kb_launch
    // can launch it, and its compile is not slowed). Both false (the C API's
    // KB_CONTEXT_NO_CONTAIN_TRAPS): nothing contained, kbench's behaviour
    // before containment. $KBENCH_CONTAIN_TRAPS=1, 0 or "comparisons" overrides.
    bool contain_traps = false;
    bool contain_comparisons = true;
};

// A candidate as the caller hands it over, before compilation.
struct CandidateInput {
    Language language = Language::cuda;
    bool language_given = false;    // false: infer from the path's extension
    std::string code;               // empty: read `path`
    std::string path;
    std::optional<std::string> launch_json;
    std::string triton_metadata;
    std::string label;
};

struct TimeRequest {
    int case_index = -1;          // -1: the perf case
    bool against_baseline = false;
    TimingOptions timing;
};

struct ScoreOptions {
    uint64_t seed = 0;              // 0: kDefaultSeed
    unsigned correctness_runs = 0;  // 0: two at cheap cases, one at large ones (score.cpp)
    bool skip_timing = false;
    bool recheck = true;
    bool compile_only = false;      // stop after compiling: verdict none (no device needed)
    TimeRequest timing;             // against_baseline is forced on
    bool timing_given = false;      // `timing` was set by the caller (program protocols keep their own otherwise)
    // Program candidates (docs/programs.md): the protocol ("strict",
    // "kernelbench") and the torch compute rule ("": the task's).
    std::string protocol = "strict";
    std::string torch_compute;
};

constexpr uint64_t kDefaultSeed = 0x6b62656e6368ull;  // "kbench"

}  // namespace kb

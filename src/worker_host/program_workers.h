// The Python workers of program candidates, seen from the host
// (docs/programs.md): the PythonWorkers a context uses. Each process runs
// python/kbench_programs/kbench_program_worker.py under a Supervisor
// (watchdog, deadline per request, respawn, canary) like kbench-worker:
// the reference worker runs the problem's own code, a candidate worker
// runs candidates, so expected outputs never exist in a candidate's address
// space. One ProgramWorkers holds the roles its settings name: a context
// makes one for the reference and one per lane for candidates. A candidate that hangs, crashes or exits costs its worker, which is
// replaced; the verdict says what happened.
#pragma once

#include <memory>
#include <string>

#include "engine/options.h"
#include "engine/python_workers.h"
#include "worker_host/supervisor.h"

namespace kb {

struct ProgramWorkerSettings {
    std::string python;       // the interpreter ($KBENCH_PYTHON, else python3 on PATH)
    std::string script;       // kbench_program_worker.py (locate_program_worker_script)
    std::string cupti_lib;    // libkbench_cupti.so ("" without CUPTI)
    std::string gpu_compare_lib;  // libkbench_gpu_compare.so ("": outputs are compared on the host)
    int device = 0;           // -1: no device (supervision tests)
    bool test_hooks = false;  // $KBENCH_WORKER_TEST_HOOKS=1: test faults are obeyed
    bool test_cpu = false;    // $KBENCH_PROGRAM_TEST_CPU=1 with test hooks: torch on the CPU (tests)
    bool standby = true;      // a warm candidate worker behind the one in use
    double timeout_s = 0;     // kb_context_options.timeout_s: every candidate request's deadline
    // The share of device memory each worker's input cache may hold: the
    // workers of a context's lanes and its reference worker divide it.
    double cache_share = 0.15;
    bool reference = true;    // the roles whose workers start (a request for another is kbench's bug)
    bool candidate = true;
    bool builder = false;     // a builder (no device): ProgramWorkers::prebuild
    // The builder's TORCH_CUDA_ARCH_LIST: the candidate workers' device's
    // compute capability ("9.0"), as torch would find it there.
    std::string cuda_arch_list;
    bool confine = true;      // confined workers (ipc/confine.h); KB_CONTEXT_NO_CONFINE turns it off
    // The load_inline precompiled headers every candidate worker reads and
    // one builder process writes ($KBENCH_LOAD_INLINE_CACHE, else
    // $XDG_CACHE_HOME/kbench/load-inline or ~/.cache/kbench/load-inline;
    // "" when none can be made: each worker builds its own).
    std::string load_inline_cache;
};

// The folder above, made if missing ("" when it cannot be).
std::string load_inline_cache_dir();

// The folder this process writes builders' libraries into, one folder per
// candidate below it (made on first use, removed at exit); candidate
// workers may read it.
const std::string& prebuilt_root();

// The settings a context's options ask for. Throws kb::Error(KB_ERR_NOT_FOUND)
// when the worker script cannot be found, naming where it looked.
ProgramWorkerSettings program_worker_settings(const ContextOptions& opts);

// kbench_program_worker.py: $KBENCH_PROGRAM_WORKER, the installed copy, the source tree's.
std::string locate_program_worker_script();
// libkbench_cupti.so: $KBENCH_CUPTI_LIB, the installed copy, the build tree's ("" when none).
std::string locate_cupti_library();
// libkbench_gpu_compare.so: $KBENCH_GPU_COMPARE_LIB, the installed copy, the build tree's ("" when none).
std::string locate_gpu_compare_library();

class ProgramWorkers : public PythonWorkers {
public:
    explicit ProgramWorkers(ProgramWorkerSettings settings);
    ~ProgramWorkers() override;

    Json info() override;
    ProgramLoadReply load_candidate(const TaskPtr& task, const std::string& source, const std::string& source_name,
                                    const KernelCandidate* kernel = nullptr,
                                    const std::vector<ProgramRunRequest>& warm = {},
                                    const ProgramPrebuild* prebuilt = nullptr) override;
    std::optional<ProgramPrebuild> prebuild(const std::string& source, const std::string& source_name,
                                            const TaskPtr& task = nullptr) override;
    ProgramRunReply run(ProgramRole role, const TaskPtr& task, const ProgramRunRequest& req) override;
    ProgramTimeReply time(ProgramRole role, const TaskPtr& task, const ProgramTimeRequest& req) override;
    std::vector<GpuCompareStats> compare_on_gpu(const TaskPtr& task, const ProgramRunRequest& req,
                                                const std::vector<GpuCompareItem>& items) override;
    std::optional<std::vector<PrecisionProbe>> audit_precision(const TaskPtr& task, const ProgramRunRequest& req,
                                                               const std::vector<PrecisionItem>& items,
                                                               const std::vector<std::string>& modes) override;
    void release_outputs() override;
    void release_timing_inputs(ProgramRole role) override;
    void release_caches(ProgramRole role) override;

    void let_go() override {
        if (candidate_) candidate_->let_go();
        if (reference_) reference_->let_go();
    }

    Supervisor& supervisor(ProgramRole role);
    const ProgramWorkerSettings& settings() const { return settings_; }
    // Tests: the next request of this kind ("program_load", "program_run",
    // "program_time") makes the worker perform `fault` first ("segv", "abort",
    // "exit:N", "sleep:S"); only with test hooks.
    void inject_fault_once(const std::string& request, const std::string& fault);

private:
    // A program_run reply (or a timed call's `last`), its outputs read from
    // blobs or from files in the role's folder (and those removed).
    ProgramRunReply read_run_reply(ProgramRole role, const Json& result, const std::vector<std::string>& blobs);
    // Sends a request with the task attached when this worker may lack it,
    // resending once when it says it dropped it. Deadline in seconds.
    Outcome exchange(ProgramRole role, wire::Msg type, Json body, std::vector<std::string> blobs, const TaskPtr& task,
                     double deadline_s);
    ProgramWorkerFailure failure_of(ProgramRole role, const Outcome& o, double deadline_s, const std::string& doing);
    // A failed reply that is kbench's problem (a bug, a broken set-up): throws.
    [[noreturn]] void reply_failed(ProgramRole role, wire::Msg type, const Outcome& o);

    ProgramWorkerSettings settings_;
    std::string work_root_;
    std::unique_ptr<Supervisor> reference_, candidate_, builder_;
    std::map<std::string, bool> candidate_cases_seen_; // "<task hash>/<case>": the candidate ran there (no JIT any more)
    std::map<std::string, std::string> faults_;
    std::string loaded_;  // the loaded candidate's source hash
    // The candidate in use replaced functions, left threads running or
    // broke the worker's CUDA context: its worker is replaced before the next
    // candidate loads (it would see the changes as its own, a patch may
    // outlive the module, and a lost context fails everything after it).
    bool contaminated_ = false;
    bool builder_contaminated_ = false;  // the same, of the builder (its candidates' changes outlive them too)
    static bool tainted(const ProgramIntegrity& i) { return !i.patched.empty() || !i.threads_left.empty(); }
    void note_integrity(const ProgramIntegrity& i) {
        if (tainted(i)) contaminated_ = true;
    }
};

// TORCH_CUDA_ARCH_LIST for a device of compute target `arch` ("sm_90" ->
// "9.0+PTX"; "" when it names none).
std::string torch_arch_list(const std::string& arch);

// The workers of one role for a context (Isolation::python_workers).
// `sharing`: how many Python workers share the device.
std::unique_ptr<PythonWorkers> make_python_workers(const ContextOptions& opts, ProgramRole role, unsigned sharing);

}  // namespace kb

// The backend of program candidates (docs/programs.md): a Python module that
// launches its own kernels, scored against a task whose reference is Python.
// It implements the one Backend interface, so a program candidate goes
// through the same stages as a kernel (engine/score.cpp), on the same lanes
// and queue (engine/batch.h):
//
//   load         the candidate imported in the lane's candidate worker (its
//                "compile"; a kernel candidate's, its ModelNew's making)
//   correctness  the protocol's cases and seeds; the reference runs in the
//                context's one reference worker, its outputs cached; outputs
//                compared by the C core's comparator (on the GPU where both
//                workers share them), with the protocol's tolerances; then
//                the policy over what the runs showed (torch compute, decoys,
//                replaced timers, threads left running)
//   timing       candidate and reference alternating, the protocol's method
//   recheck      inputs from a secret seed
//
// Each lane has a ProgramBackend with its own candidate worker, so imports
// and Triton JIT compiles of several candidates run side by side while the
// GPU phases keep the lanes' rules (correctness shared, timing alone).
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend.h"
#include "engine/program_protocol.h"
#include "engine/program_reference_cache.h"
#include "engine/python_workers.h"
#include "engine/result.h"

namespace kb {

// A program candidate ready for its backend: what prepare_score resolved on
// a CPU thread (the source, a kernel candidate's compiled image and table,
// the protocol). It rides in Kernel::host_program.
struct ProgramCandidate : HostProgram {
    std::string source, source_name;
    // What a builder built ahead for it (engine/program_builders.h); its
    // folder goes with the last copy.
    std::shared_ptr<const ProgramPrebuild> prebuilt;
    std::optional<KernelCandidate> kernel;  // a kernel candidate run as a program (engine/kernel_program.h)
    ProgramProtocol protocol;
    ProgramPolicyRules policy;
};

// The program candidate a kernel carries, or null for a kernel.
const ProgramCandidate* program_candidate(const Kernel& k);

// Makes the kernel that carries a program candidate (Language::python), its
// id a hash of everything the candidate worker is sent.
KernelPtr make_program_kernel(const std::string& label, ProgramCandidate candidate);

// The reference side of a context's program candidates, shared by its lanes:
// the reference worker (one process, one request at a time) and its runs,
// cached host-side per task, case, seed, input mode and model seed.
class ProgramReferences {
public:
    using Start = std::function<std::unique_ptr<PythonWorkers>()>;
    // `device_bytes`: how much device memory the lanes' correctness runs may
    // take at once (0: no limit, as without a device).
    ProgramReferences(Start start, uint64_t device_bytes) : start_(std::move(start)), gate_(device_bytes) {}

    // Runs `f` with the reference worker (started on first use), one caller
    // at a time.
    template <class F>
    auto with_worker(F f) -> decltype(f(std::declval<PythonWorkers&>())) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!workers_) workers_ = start_();
        return f(*workers_);
    }
    ProgramReferenceCache& cache() { return cache_; }
    // Correctness runs of several lanes overlap on the GPU; each takes what
    // its case needs (inputs, their copy, outputs, the poison) out of one
    // budget first, so that runs at a problem's own sizes (KernelBench's
    // inputs are 6-9 GB) take turns instead of running the device out of
    // memory. A run larger than the budget runs alone.
    class Gate {
    public:
        explicit Gate(uint64_t capacity) : capacity_(capacity) {}
        uint64_t capacity() const { return capacity_; }
        void acquire(uint64_t bytes) {
            if (capacity_ == 0) return;
            std::unique_lock<std::mutex> lock(mutex_);
            freed_.wait(lock, [&] { return used_ == 0 || used_ + bytes <= capacity_; });
            used_ += bytes;
        }
        void release(uint64_t bytes) {
            if (capacity_ == 0) return;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                used_ -= bytes;
            }
            freed_.notify_all();
        }

    private:
        uint64_t capacity_, used_ = 0;
        std::mutex mutex_;
        std::condition_variable freed_;
    };
    Gate& gate() { return gate_; }
    // The reference's timing rounds at a timing key (task, case, seeds and
    // plan), reused by the candidates timed after it for `max_age_s` from its
    // first round: at KernelBench's sizes the reference's side is half of a
    // candidate's timing. A round not yet kept is timed and kept by the
    // candidate that needs it. `max_age_s` 0: nothing is reused.
    std::optional<ProgramTimeReply> timed_round(const std::string& key, unsigned round, double max_age_s) {
        std::lock_guard<std::mutex> lock(timing_mutex_);
        auto it = timed_.find(key);
        if (it == timed_.end() || max_age_s <= 0) return std::nullopt;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.at).count() > max_age_s) {
            timed_.erase(it);
            return std::nullopt;
        }
        if (round >= it->second.rounds.size()) return std::nullopt;
        return it->second.rounds[round];
    }
    void keep_timed_round(const std::string& key, unsigned round, const ProgramTimeReply& r) {
        std::lock_guard<std::mutex> lock(timing_mutex_);
        TimedReference& t = timed_[key];
        if (round == 0) t = TimedReference{std::chrono::steady_clock::now(), {}};
        if (t.rounds.size() == round) t.rounds.push_back(r);
    }
    // As Backend::let_go, and the owner to release (Context's destructor).
    std::unique_ptr<PythonWorkers> release() {
        std::lock_guard<std::mutex> lock(mutex_);
        return std::move(workers_);
    }
    void let_go() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (workers_) workers_->let_go();
    }
    // As PythonWorkers::release_caches, of a reference worker that runs.
    void release_caches() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (workers_) {
            try {
                workers_->release_caches(ProgramRole::reference);
            } catch (const std::exception&) {
                // best effort: a worker that fails here fails its next request
            }
        }
    }
    Json info() {
        std::lock_guard<std::mutex> lock(mutex_);
        return workers_ ? workers_->info() : Json();
    }

private:
    Start start_;
    std::mutex mutex_;
    std::unique_ptr<PythonWorkers> workers_;
    ProgramReferenceCache cache_;
    Gate gate_;
    struct TimedReference {
        std::chrono::steady_clock::time_point at;
        std::vector<ProgramTimeReply> rounds;
    };
    std::mutex timing_mutex_;
    std::map<std::string, TimedReference> timed_;
};

class ProgramBackend : public Backend {
public:
    using Start = std::function<std::unique_ptr<PythonWorkers>()>;
    // `references`: the context's; `start_candidate` starts this lane's
    // candidate worker (on the lane's first program candidate); `sharing`:
    // how many workers share the device (the lanes' and the reference's).
    ProgramBackend(ProgramReferences& references, Start start_candidate, unsigned sharing = 1)
        : refs_(references), start_candidate_(std::move(start_candidate)), sharing_(std::max(1u, sharing)) {}

    Json device_info() override;
    LoadResult load(const TaskBinding& tb, const KernelPtr& kernel) override;
    ReferenceResult run_reference(const TaskBinding& tb, int case_index, uint64_t seed) override;
    CompareResult compare(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed,
                          unsigned runs) override;
    CompareResult recheck(const TaskBinding& tb, const KernelPtr& kernel, int case_index, uint64_t seed) override;
    std::vector<CompareResult> compare_cases(const TaskBinding& tb, const KernelPtr& kernel,
                                             const std::vector<CaseRuns>& cases, uint64_t seed) override;
    TimeResult time(const TaskBinding& tb, const KernelPtr& kernel, const TimeRequest& req) override;
    void start() override { candidate(); }
    void let_go() override {
        if (candidate_) candidate_->let_go();
    }

private:
    PythonWorkers& candidate();
    // The reference's run at a request's case and seeds, from the cache or the
    // reference worker; warnings of outputs that cannot tell right from wrong
    // go to `warnings`. A reference that fails is kb::Error(KB_ERR_REFERENCE_FAILED).
    std::shared_ptr<const ProgramRunReply> reference(const Task& t, const TaskPtr& task, const ProgramProtocol& p,
                                                     const ProgramRunRequest& rq, std::vector<std::string>* warnings);
    // The reference worker's run `r`, failed as kbench's error where the
    // reference failed.
    std::shared_ptr<ProgramRunReply> reference_reply(const Task& t, const TaskPtr& task, const ProgramRunRequest& r);
    // The warnings of a reference's outputs that cannot tell right from
    // wrong (from the outputs that came to the host), each once.
    void note_warnings(const Task& t, const ProgramProtocol& p, const ProgramRunRequest& rq,
                       const ProgramRunReply& reply, std::vector<std::string>* warnings);
    // The reference's run at the request's case on a seed of the protocol's
    // correctness runs, where the host still holds it: what a single-use
    // run's outputs look like before it runs (nullptr: not known).
    std::shared_ptr<const ProgramRunReply> planned_reference(const Task& t, const ProgramProtocol& p,
                                                             const ProgramRunRequest& base);
    // The candidate and the reference at one case, judged; what the run
    // showed goes into `obs`. `audit`: its precision audit too, into
    // obs.precision (compare/precision.h).
    CompareResult run_case(const TaskPtr& task, const Kernel& k, const ProgramRunRequest& base, bool recheck,
                           ProgramObservation& obs, bool audit = false);
    // The precision audit of a judged run: the candidate's outputs (still
    // exported, or on the host) against the reference worker's
    // reduced-precision recomputations. nullopt where the run gave no values
    // to audit or the reference worker does not audit.
    std::optional<PrecisionAudit> audit_precision(const TaskPtr& task, const ProgramRunRequest& base,
                                                  const ProgramRunReply& ref, const ProgramRunReply& cand,
                                                  const CompareResult& judged);
    // Loads `k` again where this lane's worker holds another candidate (a
    // batch lane that went on to another job); "" when it is in place.
    std::string ensure_loaded(const TaskBinding& tb, const KernelPtr& kernel);

    // A candidate's reply (a run's, or a timed call's last) judged against
    // the reference's run `base`: the outputs both workers hold on the
    // device are compared there, the rest on the host.
    // `compared`: the GPU's statistics of `items`, which the reference
    // worker took as it ran (a single-use run); without them, the outputs
    // both hold on the device go to the reference worker now.
    CompareResult compare_outputs(const TaskPtr& task, const ProgramProtocol& p, const ProgramRunRequest& base,
                                  const ProgramRunRequest& rq, const std::shared_ptr<const ProgramRunReply>& ref,
                                  ProgramRunReply& cand, const std::string& label,
                                  const std::vector<GpuCompareItem>* items = nullptr,
                                  const std::vector<GpuCompareStats>* compared = nullptr);
    ProgramReferences& refs_;
    Start start_candidate_;
    unsigned sharing_ = 1;
    std::unique_ptr<PythonWorkers> candidate_;
    std::string loaded_;  // the id of the kernel the candidate worker holds
    // The loaded candidate's last timing, which its recheck's fresh call is
    // held against (judge.h: timed_replay): its median timed call (host
    // wall) and, where CUPTI recorded every round, its device work per
    // timed call.
    std::optional<double> timed_wall_ms_;
    std::optional<CallWork> timed_work_;
    // What the load showed (a kernelbench-protocol candidate's replaced
    // functions are reported, not failed) and what the runs of the stage in
    // progress show: the policy's input.
    ProgramIntegrity load_integrity_, run_integrity_;
};

}  // namespace kb
